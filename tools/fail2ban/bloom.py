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
# rule a firewall reload took. In jail.local:
#
#   [sshd]
#   action = bloom.py[port=ssh, protocol=tcp, prefix6=64]
#
# Options: bloomset (default f2b-JAIL), capacity (100000), fprate
# (0.0001), prefix4 (32), prefix6 (128), chain (INPUT), port (one port,
# or a list with commas through the multiport match; none: all ports of
# protocol), protocol (tcp), blocktype (DROP), bloomctl, iptables and
# ip6tables (the commands).

import ctypes
import errno
import fcntl
import ipaddress
import os
import shlex
import struct
import subprocess
import threading

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
        self._configure(**opts)

    def _configure(self, bloomset=None, capacity="100000", fprate="0.0001",
                   prefix4="32", prefix6="128", chain="INPUT", port=None,
                   protocol="tcp", blocktype="DROP", bloomctl="bloomctl",
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

    def _batch(self, cmd, key):
        """One key to BLOOM_IOC_ADD or _DEL, under the lock."""
        if self.fd is None:
            self.fd = os.open("/dev/bloom", os.O_RDWR | os.O_CLOEXEC)
        keys = (ctypes.c_char * len(key)).from_buffer_copy(key)
        arg = bytearray(BATCH.pack(self.set.encode(), ctypes.addressof(keys),
                                   0, 1, KEY_NET.size, 0, 0, 0))
        fcntl.ioctl(self.fd, cmd, arg, True)

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
            if self.fd is None:
                self.fd = os.open("/dev/bloom", os.O_RDWR | os.O_CLOEXEC)
        self._rules_in_place()

    def stop(self):
        self._rules_out()
        with self._lock:
            if self.fd is not None:
                os.close(self.fd)
                self.fd = None
            self.refs.clear()
        self._run(self.bloomctl + ["-q", "destroy", self.set], check=False)

    def flush(self):
        with self._lock:
            self._run(self.bloomctl + ["-q", "clear", self.set])
            self.refs.clear()
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
        with self._lock:
            n = self.refs.get(key, 0)
            if not n:
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
                return      # never banned here (or flushed): nothing
            if n > 1:
                self.refs[key] = n - 1
                return
            del self.refs[key]
            try:
                self._batch(BLOOM_IOC_DEL, key)
            except OSError as e:
                # Cleared by hand meanwhile: gone already.
                if e.errno != errno.ENOENT:
                    raise


Action = BloomAction
