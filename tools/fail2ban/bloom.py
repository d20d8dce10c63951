# fail2ban action: bans in a bloom.ko cuckoo filter, written with one
# ioctl on /dev/bloom a ban, in fail2ban's own process.
#
# The shell action (action.d/bloom.conf) runs a bloomctl process for
# every ban and unban. At start fail2ban re-bans every ticket it kept,
# one action at a time, so a jail of 20,000 bans pays 20,000 processes
# before it is whole again. This action does the same work with an
# ioctl each (BLOOM_IOC_ADD and BLOOM_IOC_DEL, uapi/bloom_ioctl.h), and
# runs bloomctl, iptables and ip6tables only at start and stop.
#
# One filter for both families: a net filter (IPv4 and IPv6 prefixes
# keep apart, uapi/bloom.h), so prefix4 and prefix6 ban an address's
# whole /N. The action counts bans per key and keeps one copy of each in
# the filter: an unban deletes only what a ban added. A fail2ban reload
# keeps it and its bans (new rule options apply at once, a new filter
# name or size at the next start); its consistency check puts back a
# rule a firewall reload took.
#
# A jail's start is whole at once: fail2ban re-bans its database's
# current bans after the start, one ticket at a time (minutes for tens
# of thousands). The action reads the same bans from the same database
# at its start, as fail2ban's restore does (Jail.restoreCurrentBans:
# same query, same ban times, the jail's ignoreip left out), and adds
# them in one ioctl before the rules go in; fail2ban's re-bans then find
# their keys in place. One that fail2ban does not ban again is deleted
# at its end. In jail.local:
#
#   [sshd]
#   action = bloom.py[port=ssh, protocol=tcp, prefix6=64]
#
# Options: bloomset (default f2b-JAIL), capacity (100000), fprate
# (0.0001), prefix4 (32), prefix6 (128), chain (INPUT), port (one port,
# or a list with commas through the multiport match; none: all ports of
# protocol), protocol (tcp), blocktype (DROP), restore (yes: the
# database's bans at start in one call; no: fail2ban's re-bans only),
# bloomctl, iptables and ip6tables (the commands).

import ctypes
import errno
import fcntl
import ipaddress
import os
import shlex
import struct
import subprocess
import threading
import time

from fail2ban.server.action import ActionBase

BLOOM_NAME_MAX = 32
BLOOM_IOC_MAGIC = 0xb1
# struct bloom_ioc_batch: name, keys, results, count, stride, done, hits,
# reserved.
BATCH = struct.Struct("=32sQQIIIIQ")
# struct bloom_key_net: a 16-byte address (IPv4 v4-mapped), plen on the
# 128-bit form, 3 bytes of zero padding.
KEY_NET = struct.Struct("=16sB3x")


def _iowr(nr, size):
    return (3 << 30) | (size << 16) | (BLOOM_IOC_MAGIC << 8) | nr


BLOOM_IOC_ADD = _iowr(5, BATCH.size)
BLOOM_IOC_DEL = _iowr(7, BATCH.size)


def net_key(ip, prefix4, prefix6):
    """The net key of @ip's /prefix4 (IPv4) or /prefix6 (IPv6); @ip may
    be a network (fail2ban-client banip 192.0.2.0/24): its own prefix
    then, or the shorter."""
    net = ipaddress.ip_network(ip, strict=False)
    if net.version == 6 and net.network_address.ipv4_mapped is not None \
            and net.prefixlen >= 96:
        # Stored as the IPv4 network it maps, as the kernel does.
        net = ipaddress.ip_network("%s/%d" % (
            net.network_address.ipv4_mapped, net.prefixlen - 96))
    if net.version == 4:
        net = net.supernet(new_prefix=min(net.prefixlen, prefix4))
        packed = b"\0" * 10 + b"\xff\xff" + net.network_address.packed
        return KEY_NET.pack(packed, 96 + net.prefixlen)
    net = net.supernet(new_prefix=min(net.prefixlen, prefix6))
    return KEY_NET.pack(net.network_address.packed, net.prefixlen)


class BloomAction(ActionBase):
    # fail2ban 1.0 reads it; an action's bans are of epoch 0.
    banEpoch = 0

    def __init__(self, jail, name, **opts):
        super().__init__(jail, name)
        self._lock = threading.Lock()
        self.fd = None
        # Bans per key: one copy in the filter whatever the count, so an
        # unban deletes only what a ban added, and a prefix banned many
        # times (prefix6=64) needs no more than one slot.
        self.refs = {}
        # Keys a start put back from fail2ban's database, each with its
        # end (time.time() seconds), until fail2ban bans them again.
        self.pending = {}
        self.timer = None
        self._configure(**opts)

    def _configure(self, bloomset=None, capacity="100000", fprate="0.0001",
                   prefix4="32", prefix6="128", chain="INPUT", port=None,
                   protocol="tcp", blocktype="DROP", restore="yes",
                   bloomctl="bloomctl",
                   iptables="iptables", ip6tables="ip6tables"):
        self.set = bloomset or "f2b-%s" % self._jail.name
        if len(self.set.encode()) >= BLOOM_NAME_MAX:
            raise ValueError("bloomset %r: at most %d bytes"
                             % (self.set, BLOOM_NAME_MAX - 1))
        self.capacity = capacity
        self.fprate = fprate
        self.prefix4 = int(prefix4)
        self.prefix6 = int(prefix6)
        if not 0 <= self.prefix4 <= 32 or not 0 <= self.prefix6 <= 128:
            raise ValueError("prefix4 is 0 to 32, prefix6 0 to 128")
        self.chain = chain
        self.port = port
        self.protocol = protocol
        self.blocktype = blocktype
        if str(restore).lower() not in ("yes", "no", "true", "false", "1", "0"):
            raise ValueError("restore is yes or no")
        self.restore = str(restore).lower() in ("yes", "true", "1")
        self.bloomctl = shlex.split(bloomctl)
        self.tables = [shlex.split(iptables), shlex.split(ip6tables)]

    def _run(self, argv, check=True):
        out = subprocess.run(argv, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True,
                             timeout=120)
        if out.returncode and check:
            raise RuntimeError("%s: exit status %d: %s"
                               % (" ".join(argv), out.returncode,
                                  out.stdout.strip()))
        return out.returncode == 0

    def _rule(self, table, op):
        rule = [op, self.chain]
        if self.protocol:
            rule += ["-p", self.protocol]
        if self.port and "," in self.port:
            rule += ["-m", "multiport", "--dports", self.port]
        elif self.port:
            rule += ["--dport", self.port]
        rule += ["-m", "bloom", "--bloom-set", self.set, "--bloom-key",
                 "net", "--bloom-dir", "src", "-j"]
        return table + ["-w"] + rule + shlex.split(self.blocktype)

    def _rules_in_place(self):
        """Each family's rule, inserted where it is missing."""
        for table in self.tables:
            if not self._run(self._rule(table, "-C"), check=False):
                self._run(self._rule(table, "-I"))

    def _rules_out(self):
        """Best effort: every rule goes that can."""
        for table in self.tables:
            while self._run(self._rule(table, "-C"), check=False):
                if not self._run(self._rule(table, "-D"), check=False):
                    self._logSys.error("cannot delete %s",
                                       " ".join(self._rule(table, "-D")))
                    break

    def _batch(self, cmd, *keys):
        """Keys to BLOOM_IOC_ADD or _DEL in one call, under the lock. Not
        all or nothing: an OSError's "done" is how many were applied."""
        if self.fd is None:
            self.fd = os.open("/dev/bloom", os.O_RDWR | os.O_CLOEXEC)
        data = b"".join(keys)
        buf = (ctypes.c_char * len(data)).from_buffer_copy(data)
        arg = bytearray(BATCH.pack(self.set.encode(), ctypes.addressof(buf),
                                   0, len(keys), KEY_NET.size, 0, 0, 0))
        try:
            fcntl.ioctl(self.fd, cmd, arg, True)
        except OSError as e:
            e.done = BATCH.unpack(arg)[5]
            raise

    # --- a start whole at once ---

    def _current_bans(self):
        """The bans fail2ban restores after this start, read as
        Jail.restoreCurrentBans reads them: {key: end}."""
        jail = self._jail
        db = getattr(jail, "database", None)
        if db is None or not self.restore:
            return {}
        forbantime = (None if jail.getBanTimeExtra("increment")
                      else jail.actions.getBanTime())
        now, bans, n = time.time(), {}, 0
        for ticket in db.getCurrentBans(jail=jail, forbantime=forbantime):
            ip = ticket.getID()
            end = ticket.getEndOfBanTime(forbantime)
            if end <= now or jail.filter.inIgnoreIPList(ip, log_ignore=False):
                continue
            try:
                key = net_key(str(ip), self.prefix4, self.prefix6)
            except ValueError:	# not an address (a banip of a name)
                continue	# fail2ban's own restore says what it does
            bans[key] = max(end, bans.get(key, end))
            n += 1
        return bans, n

    def _restore(self):
        """Under the lock, the filter empty: the database's bans, in one
        call. On a failure, those applied are kept (as restored), and
        fail2ban's re-bans add the others as before."""
        bans, n = {}, 0
        try:
            bans, n = self._current_bans()
            if bans:
                self._batch(BLOOM_IOC_ADD, *bans)
        except Exception as e:     # fail2ban's own, the database's, ours
            done = getattr(e, "done", 0)
            self._logSys.warning("%s: %d of %d keys restored at start (%s): "
                                 "fail2ban bans the others again",
                                 self._name, done, len(bans), e)
            bans = dict(list(bans.items())[:done])
            n = None
        self.pending = bans
        self._schedule()
        if bans and n is not None:
            self._logSys.info("%s: %d bans restored at start (%d keys)",
                              self._name, n, len(bans))

    def _schedule(self, floor=0):
        """Under the lock: the next end among the pending keys, no sooner
        than @floor seconds."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if not self.pending:
            return
        # At least hourly: ends are wall-clock times (a clock set at
        # boot), and a permanent ban's is far.
        delay = min(min(self.pending.values()) - time.time(), 3600)
        self.timer = threading.Timer(max(delay, floor), self._expire)
        self.timer.daemon = True
        self.timer.start()

    def _expire(self):
        """Bans put back at start that fail2ban did not ban again,
        deleted at their end (a failed delete is tried again a minute
        later)."""
        with self._lock:
            now, floor = time.time(), 0
            try:
                for key, end in list(self.pending.items()):
                    if end <= now:
                        self._delete(key)
                        del self.pending[key]
            except OSError as e:
                floor = 60
                self._logSys.error("%s: an ended ban not deleted: %s",
                                   self._name, e)
            finally:
                self._schedule(floor)

    def _delete(self, key):
        try:
            self._batch(BLOOM_IOC_DEL, key)
        except OSError as e:
            # Cleared by hand meanwhile: gone already.
            if e.errno != errno.ENOENT:
                raise

    def start(self):
        # The filter (cuckoo: bans are deletes too), emptied (a fail2ban
        # that died may have left it), then the database's bans.
        self._run(self.bloomctl + [
            "-q", "create", self.set, "--layout", "cuckoo", "--key", "net",
            "--capacity", self.capacity, "--fp-rate", self.fprate,
            "--exist"])
        with self._lock:
            self._run(self.bloomctl + ["-q", "clear", self.set])
            self.refs.clear()
            self.pending.clear()
            if self.fd is None:
                self.fd = os.open("/dev/bloom", os.O_RDWR | os.O_CLOEXEC)
            self._restore()
        self._rules_in_place()

    def stop(self):
        try:
            self._rules_out()
        finally:
            # Whatever the rules did: no timer of this start may touch
            # the filter of the next.
            with self._lock:
                self.refs.clear()
                self.pending.clear()
                self._schedule()
                fd, self.fd = self.fd, None
                if fd is not None:
                    os.close(fd)
        self._run(self.bloomctl + ["-q", "destroy", self.set], check=False)

    def flush(self):
        with self._lock:
            self._run(self.bloomctl + ["-q", "clear", self.set])
            self.refs.clear()
            self.pending.clear()
            self._schedule()
        return True

    def consistencyCheck(self, beforeRepair=None):
        """The rules, put back if a firewall reload took them."""
        self._rules_in_place()
        return True

    # fail2ban's reload keeps this action: new options, same bans.
    def clearAllParams(self):
        pass

    def reload(self, **opts):
        old_rule = [self._rule(t, "-C") for t in self.tables]
        old_set = (self.set, self.capacity, self.fprate, self.prefix4,
                   self.prefix6)
        self._rules_out()
        try:
            # Under the lock: the timer must not see the new name or
            # prefixes. A bad option changes nothing.
            with self._lock:
                saved = dict(vars(self))
                try:
                    self._configure(**opts)
                except Exception:
                    vars(self).update(saved)
                    raise
                new_set = (self.set, self.capacity, self.fprate,
                           self.prefix4, self.prefix6)
                (self.set, self.capacity, self.fprate, self.prefix4,
                 self.prefix6) = old_set
        finally:
            self._rules_in_place()
        if new_set != old_set:
            self._logSys.warning("%s: the filter's name, size and prefixes "
                                 "change at the jail's next start",
                                 self._name)
        if [self._rule(t, "-C") for t in self.tables] != old_rule:
            self._logSys.info("%s: rules replaced", self._name)

    def ban(self, aInfo):
        key = net_key(str(aInfo["ip"]), self.prefix4, self.prefix6)
        with self._lock:
            n = self.refs.get(key, 0)
            # A ban put back at start: in the filter already.
            if not n and self.pending.pop(key, None) is None:
                try:
                    self._batch(BLOOM_IOC_ADD, key)
                except OSError as e:
                    if e.errno == errno.ENOSPC:
                        raise RuntimeError("%s is full (capacity %s): "
                                           "raise capacity"
                                           % (self.set, self.capacity))
                    raise
            self.refs[key] = n + 1

    def reban(self, aInfo):
        return self.ban(aInfo)

    def unban(self, aInfo):
        key = net_key(str(aInfo["ip"]), self.prefix4, self.prefix6)
        with self._lock:
            n = self.refs.get(key, 0)
            if not n:
                # A ban put back at start and not banned again: gone
                # too; else
                # never banned here (or flushed): nothing.
                if self.pending.pop(key, None) is not None:
                    self._delete(key)
                return
            if n > 1:
                self.refs[key] = n - 1
                return
            del self.refs[key]
            self._delete(key)


Action = BloomAction
