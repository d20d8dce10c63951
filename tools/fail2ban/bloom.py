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
# A jail's stop keeps its bans for the next start: fail2ban flushes them
# and re-bans each from its database after the start, one ticket at a
# time (minutes for tens of thousands). The action writes the bans it
# held, each with its end, to STATEDIR/bloom-SET.bans at the stop, and
# at the start adds those not yet ended in one ioctl, before the rules
# go in: the jail is whole again at once, and fail2ban's re-bans then
# find their keys in place. A kept ban that fail2ban does not ban again
# (its database no longer has it) is deleted at its end. Only a stop
# keeps them ("unban --all" does not), only for a jail with a database,
# and the file is read once. In jail.local:
#
#   [sshd]
#   action = bloom.py[port=ssh, protocol=tcp, prefix6=64]
#
# Options: bloomset (default f2b-JAIL), capacity (100000), fprate
# (0.0001), prefix4 (32), prefix6 (128), chain (INPUT), port (one port,
# or a list with commas through the multiport match; none: all ports of
# protocol), protocol (tcp), blocktype (DROP), statedir
# (/var/lib/fail2ban; empty: bans are not kept across a stop), bloomctl,
# iptables and ip6tables (the commands).

import ctypes
import errno
import fcntl
import ipaddress
import math
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
        # The latest end of each key's bans (time.time() seconds, inf
        # for ever), for the stop to keep.
        self.ends = {}
        # Keys a start put back from the kept bans, each with its end,
        # until fail2ban bans them again (or they end).
        self.pending = {}
        self.timer = None
        # The bans a stop's flush took, for stop() to keep.
        self.kept = None
        self._configure(**opts)

    def _configure(self, bloomset=None, capacity="100000", fprate="0.0001",
                   prefix4="32", prefix6="128", chain="INPUT", port=None,
                   protocol="tcp", blocktype="DROP",
                   statedir="/var/lib/fail2ban", bloomctl="bloomctl",
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
        self.statedir = statedir
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
        """Keys to BLOOM_IOC_ADD or _DEL in one call, under the lock."""
        if self.fd is None:
            self.fd = os.open("/dev/bloom", os.O_RDWR | os.O_CLOEXEC)
        data = b"".join(keys)
        buf = (ctypes.c_char * len(data)).from_buffer_copy(data)
        arg = bytearray(BATCH.pack(self.set.encode(), ctypes.addressof(buf),
                                   0, len(keys), KEY_NET.size, 0, 0, 0))
        fcntl.ioctl(self.fd, cmd, arg, True)

    # --- bans kept across a stop ---

    def _state_path(self):
        if not self.statedir or getattr(self._jail, "database", None) is None:
            return None     # fail2ban restores nothing: neither do we
        return os.path.join(self.statedir, "bloom-%s.bans" % self.set)

    def _header(self):
        return "# bloom.py bans of %s: prefix4 %d prefix6 %d\n" % (
            self.set, self.prefix4, self.prefix6)

    def _stopping(self):
        """Is fail2ban stopping the jail? Its actions thread is then no
        longer active: a flush then is the stop's, not "unban --all"."""
        actions = getattr(self._jail, "actions", None)
        return getattr(actions, "active", True) is False

    def _keep(self, bans):
        """Write @bans ({key: end}) for the next start, or nothing."""
        path = self._state_path()
        if path is None or not bans:
            return
        tmp = path + ".tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(self._header())
                for key, end in bans.items():
                    f.write("%s %s\n" % (repr(end), key.hex()))
            os.replace(tmp, path)
        except OSError as e:
            self._logSys.warning("%s: bans not kept for the next start: %s",
                                 self._name, e)

    def _kept(self):
        """The kept bans not yet ended, {key: end}; the file is gone."""
        path = self._state_path()
        if path is None:
            return {}
        try:
            with open(path) as f:
                lines = f.readlines()
            os.unlink(path)
        except FileNotFoundError:
            return {}
        except OSError as e:
            self._logSys.warning("%s: kept bans not read: %s", self._name, e)
            return {}
        if not lines or lines[0] != self._header():
            self._logSys.warning("%s: %s is of another filter or prefixes: "
                                 "fail2ban bans again what it kept",
                                 self._name, path)
            return {}
        now, bans = time.time(), {}
        try:
            for line in lines[1:]:
                end, key = line.split()
                end, key = float(end), bytes.fromhex(key)
                if len(key) != KEY_NET.size:
                    raise ValueError("a key of %d bytes" % len(key))
                if end > now:
                    bans[key] = max(end, bans.get(key, end))
        except ValueError as e:
            self._logSys.warning("%s: %s is damaged (%s): fail2ban bans "
                                 "again what it kept", self._name, path, e)
            return {}
        return bans

    def _restore(self):
        """The kept bans, in the (empty) filter in one call."""
        bans = self._kept()
        if not bans:
            return
        try:
            self._batch(BLOOM_IOC_ADD, *bans)
        except OSError as e:
            # Some may be in: empty it, fail2ban bans each again.
            self._run(self.bloomctl + ["-q", "clear", self.set])
            self._logSys.warning("%s: kept bans not restored (%s): fail2ban "
                                 "bans each again", self._name, e)
            return
        self.pending = bans
        self._schedule()
        self._logSys.info("%s: %d kept bans restored", self._name, len(bans))

    def _schedule(self):
        """Under the lock: the next end among the pending keys."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if not self.pending:
            return
        delay = min(self.pending.values()) - time.time()
        if math.isinf(delay):
            return
        self.timer = threading.Timer(max(delay, 0), self._expire)
        self.timer.daemon = True
        self.timer.start()

    def _expire(self):
        """Kept bans that fail2ban did not ban again, deleted at their end."""
        with self._lock:
            now = time.time()
            for key, end in list(self.pending.items()):
                if end <= now:
                    del self.pending[key]
                    self._delete(key)
            self._schedule()

    def _delete(self, key):
        try:
            self._batch(BLOOM_IOC_DEL, key)
        except OSError as e:
            # Cleared by hand meanwhile: gone already.
            if e.errno != errno.ENOENT:
                raise

    @staticmethod
    def _end_of(aInfo):
        """When a ban ends: its time plus its bantime (-1: never)."""
        try:
            bantime = float(aInfo["bantime"])
            return math.inf if bantime < 0 else float(aInfo["time"]) + bantime
        except (KeyError, TypeError, ValueError):
            return math.inf

    def start(self):
        # The filter (cuckoo: bans are deletes too), emptied: fail2ban
        # bans its restored tickets again after start.
        self._run(self.bloomctl + [
            "-q", "create", self.set, "--layout", "cuckoo", "--key", "net",
            "--capacity", self.capacity, "--fp-rate", self.fprate,
            "--exist"])
        with self._lock:
            self._run(self.bloomctl + ["-q", "clear", self.set])
            self.refs.clear()
            self.ends.clear()
            self.pending.clear()
            self._restore()
        self._rules_in_place()

    def stop(self):
        self._rules_out()
        with self._lock:
            if self.fd is not None:
                os.close(self.fd)
                self.fd = None
            self.refs.clear()
            self.ends.clear()
            self.pending.clear()
            self._schedule()
            kept, self.kept = self.kept, None
        if kept is not None:
            self._keep(kept)
        self._run(self.bloomctl + ["-q", "destroy", self.set], check=False)

    def flush(self):
        with self._lock:
            self.kept = None
            if self._stopping():
                self.kept = dict(self.pending)
                self.kept.update(self.ends)
            self._run(self.bloomctl + ["-q", "clear", self.set])
            self.refs.clear()
            self.ends.clear()
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
        self._configure(**opts)
        if (self.set, self.capacity, self.fprate, self.prefix4,
                self.prefix6) != old_set:
            self._logSys.warning("%s: the filter's name, size and prefixes "
                                 "change at the jail's next start",
                                 self._name)
            (self.set, self.capacity, self.fprate, self.prefix4,
             self.prefix6) = old_set
        self._rules_in_place()
        if [self._rule(t, "-C") for t in self.tables] != old_rule:
            self._logSys.info("%s: rules replaced", self._name)

    def ban(self, aInfo):
        key = net_key(str(aInfo["ip"]), self.prefix4, self.prefix6)
        end = self._end_of(aInfo)
        with self._lock:
            n = self.refs.get(key, 0)
            # A kept ban put back at start: in the filter already.
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
            self.ends[key] = max(end, self.ends.get(key, end))

    def reban(self, aInfo):
        return self.ban(aInfo)

    def unban(self, aInfo):
        key = net_key(str(aInfo["ip"]), self.prefix4, self.prefix6)
        with self._lock:
            n = self.refs.get(key, 0)
            if not n:
                # A kept ban fail2ban did not ban again: gone too; else
                # never banned here (or flushed): nothing.
                if self.pending.pop(key, None) is not None:
                    self._delete(key)
                return
            if n > 1:
                self.refs[key] = n - 1
                return
            del self.refs[key]
            del self.ends[key]
            self._delete(key)


Action = BloomAction
