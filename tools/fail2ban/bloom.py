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
# whole /N. In jail.local:
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
    """The net key of @ip's /prefix4 (IPv4) or /prefix6 (IPv6)."""
    addr = ipaddress.ip_address(ip)
    if addr.version == 4:
        net = ipaddress.ip_network("%s/%d" % (addr, prefix4), strict=False)
        packed = b"\0" * 10 + b"\xff\xff" + net.network_address.packed
        return KEY_NET.pack(packed, 96 + net.prefixlen)
    if addr.ipv4_mapped is not None:
        # Stored as the IPv4 address it maps, as the kernel does.
        return net_key(str(addr.ipv4_mapped), prefix4, prefix6)
    net = ipaddress.ip_network("%s/%d" % (addr, prefix6), strict=False)
    return KEY_NET.pack(net.network_address.packed, net.prefixlen)


class BloomAction(ActionBase):
    def __init__(self, jail, name, bloomset=None, capacity="100000",
                 fprate="0.0001", prefix4="32", prefix6="128",
                 chain="INPUT", port=None, protocol="tcp", blocktype="DROP",
                 bloomctl="bloomctl", iptables="iptables",
                 ip6tables="ip6tables"):
        super().__init__(jail, name)
        self.set = bloomset or "f2b-%s" % jail.name
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
        self.fd = None

    def _run(self, argv):
        out = subprocess.run(argv, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        if out.returncode:
            raise RuntimeError("%s: exit status %d: %s"
                               % (" ".join(argv), out.returncode,
                                  out.stdout.strip()))

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

    def _batch(self, cmd, key):
        """One key to BLOOM_IOC_ADD or _DEL; raises OSError."""
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
        self._run(self.bloomctl + ["-q", "clear", self.set])
        for table in self.tables:
            self._run(self._rule(table, "-I"))

    def stop(self):
        for table in self.tables:
            self._run(self._rule(table, "-D"))
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        self._run(self.bloomctl + ["-q", "destroy", self.set])

    def flush(self):
        self._run(self.bloomctl + ["-q", "clear", self.set])
        return True

    def ban(self, aInfo):
        key = net_key(str(aInfo["ip"]), self.prefix4, self.prefix6)
        try:
            self._batch(BLOOM_IOC_ADD, key)
        except OSError as e:
            if e.errno == errno.ENOSPC:
                raise RuntimeError("%s is full (capacity %s): raise "
                                   "capacity" % (self.set, self.capacity))
            raise

    def reban(self, aInfo):
        return self.ban(aInfo)

    def unban(self, aInfo):
        key = net_key(str(aInfo["ip"]), self.prefix4, self.prefix6)
        try:
            self._batch(BLOOM_IOC_DEL, key)
        except OSError as e:
            # Banned before a flush, or by another instance: gone.
            if e.errno != errno.ENOENT:
                raise


Action = BloomAction
