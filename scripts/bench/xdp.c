// SPDX-License-Identifier: GPL-2.0
/*
 * bench-xdp: the loader of scripts/bench/xdp.bpf.c.
 *
 *   bench-xdp --list N               print key_of(0 .. N-1), one a line
 *   bench-xdp OBJ FILTER_ID N [REPEAT]
 *
 * The second form fills the program's bloom map (7 hashes, 1 %), hash
 * map and LPM trie with the N addresses the filter FILTER_ID (bloom.ko)
 * already holds, then runs each program with BPF_PROG_TEST_RUN, REPEAT
 * times or more (until the runs take a second), and prints, a line each:
 *
 *   load STRUCT N SECONDS
 *   pkt STRUCT N NS_PER_PACKET VERDICT_OF_A_LISTED UNLISTED
 *   loop STRUCT N present|absent NS_PER_LOOKUP HIT_RATE
 *
 * loop's time is net of loop_none's (the random address alone). A
 * listed address must be found (hit rate 1, verdict XDP_DROP), and an
 * unlisted one not, but for the Bloom filters' false positives (at most
 * 3 %, the unlisted packet's verdict aside): bench-xdp exits 1 when one
 * is not, so a broken lookup cannot pass for a fast one.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "xdp_bench.h"

static const char *const structs[] = { "kfunc", "bloom_map", "hash", "lpm" };
#define NSTRUCTS (sizeof(structs) / sizeof(structs[0]))

static void __attribute__((noreturn)) fail(const char *what, int err)
{
	fprintf(stderr, "bench-xdp: %s: %s\n", what, strerror(err));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int map_fd(struct bpf_object *obj, const char *name)
{
	int fd = bpf_object__find_map_fd_by_name(obj, name);

	if (fd < 0)
		fail(name, -fd);
	return fd;
}

static int prog_fd(struct bpf_object *obj, const char *kind, const char *s)
{
	char name[64];
	struct bpf_program *p;

	snprintf(name, sizeof(name), "%s_%s", kind, s);
	p = bpf_object__find_program_by_name(obj, name);
	if (!p)
		fail(name, ENOENT);
	return bpf_program__fd(p);
}

static struct bpf_object *load(const char *path, __u32 id, __u32 n)
{
	struct xdp_bench_cfg cfg = { .filter_id = id, .n = n };
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	const char *maps[] = { "bloom_map", "hash_map", "lpm_map" };
	struct bpf_map *m;
	size_t i;
	int err;

	if (!obj)
		fail(path, errno);
	m = bpf_object__find_map_by_name(obj, ".rodata");
	if (!m || bpf_map__set_initial_value(m, &cfg, sizeof(cfg)))
		fail(".rodata", EINVAL);
	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		m = bpf_object__find_map_by_name(obj, maps[i]);
		if (!m || bpf_map__set_max_entries(m, n))
			fail(maps[i], EINVAL);
	}
	/* 7 hashes: what the core picks for 1 % in its standard layout. */
	if (bpf_map__set_map_extra(bpf_object__find_map_by_name(obj,
							       "bloom_map"), 7))
		fail("bloom_map", EINVAL);
	err = bpf_object__load(obj);
	if (err)
		fail("loading the programs", -err);
	return obj;
}

/* Every map gets key_of(0 .. n-1), each keyed as the programs key it. */
static void fill(struct bpf_object *obj, __u32 n)
{
	int bloom = map_fd(obj, "bloom_map"), hash = map_fd(obj, "hash_map");
	int lpm = map_fd(obj, "lpm_map");
	struct { __u32 prefixlen, addr; } lk = { .prefixlen = 32 };
	__u8 one = 1;
	double t;
	__u32 i, a;

	t = now();
	for (i = 0; i < n; i++) {
		a = htonl(key_of(i));
		if (bpf_map_update_elem(bloom, NULL, &a, BPF_ANY))
			fail("bloom_map update", errno);
	}
	printf("load bloom_map %u %.2f\n", n, now() - t);
	t = now();
	for (i = 0; i < n; i++) {
		a = htonl(key_of(i));
		if (bpf_map_update_elem(hash, &a, &one, BPF_ANY))
			fail("hash_map update", errno);
	}
	printf("load hash %u %.2f\n", n, now() - t);
	t = now();
	for (i = 0; i < n; i++) {
		lk.addr = htonl(key_of(i));
		if (bpf_map_update_elem(lpm, &lk, &one, BPF_ANY))
			fail("lpm_map update", errno);
	}
	printf("load lpm %u %.2f\n", n, now() - t);
}

/*
 * Empty the LPM trie before it is freed: 6.12's trie_free() walks every
 * node without rescheduling, and 10^7 of them under TCG take long
 * enough for an RCU stall warning.
 */
static void drain_lpm(struct bpf_object *obj, __u32 n)
{
	struct { __u32 prefixlen, addr; } lk = { .prefixlen = 32 };
	int lpm = map_fd(obj, "lpm_map");
	__u32 i;

	for (i = 0; i < n; i++) {
		lk.addr = htonl(key_of(i));
		bpf_map_delete_elem(lpm, &lk);
	}
}

/* Run @fd @repeat times on @pkt; the mean ns per run, the verdict. */
static double run(int fd, void *pkt, __u32 len, __u32 repeat, __u32 *verdict)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = len,
		    .repeat = repeat);
	int err = bpf_prog_test_run_opts(fd, &o);

	if (err)
		fail("BPF_PROG_TEST_RUN", -err);
	*verdict = o.retval;
	return o.duration;
}

static void set_state(int bss, __u32 absent)
{
	struct xdp_bench_state st = { .absent = absent };
	__u32 zero = 0;

	if (bpf_map_update_elem(bss, &zero, &st, BPF_ANY))
		fail(".bss", errno);
}

/*
 * As run(), @repeat times at first and ten times more until the runs
 * take a second: a guest without a fine clock source (the test kernel
 * under TCG counts jiffies, 4 ms) then still times to 0.4 %. The state
 * is reset before each try; @repeat is left at the runs of the last.
 */
static double timed(int fd, int bss, __u32 absent, void *pkt, __u32 len,
		    __u32 *repeat, __u32 *verdict)
{
	double ns;

	for (;;) {
		set_state(bss, absent);
		ns = run(fd, pkt, len, *repeat, verdict);
		if (ns * *repeat >= 1e9 || *repeat > UINT32_MAX / 10)
			return ns;
		*repeat *= 10;
	}
}

/* An Ethernet, IPv4 and UDP packet from @saddr (host order). */
static __u32 packet(__u8 *buf, __u32 saddr)
{
	struct ethhdr *eth = (void *)buf;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);

	memset(buf, 0, 64);
	eth->h_proto = htons(ETH_P_IP);
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->tot_len = htons(64 - sizeof(*eth));
	ip->saddr = htonl(saddr);
	ip->daddr = htonl(0xc0000201);
	udp->source = htons(4000);
	udp->dest = htons(9);
	udp->len = htons(64 - sizeof(*eth) - sizeof(*ip));
	return 64;
}

static __u64 hits(int bss)
{
	struct xdp_bench_state st;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(bss, &zero, &st))
		fail(".bss", errno);
	return st.hits;
}

int main(int argc, char **argv)
{
	__u32 id, n, repeat, reps, v1, v2, i, absent;
	int bss, bad = 0;
	double base, ns, rate;
	struct bpf_object *obj;
	__u8 in[64], out[64];
	__u32 lin, lout;

	if (argc == 3 && !strcmp(argv[1], "--list")) {
		n = strtoul(argv[2], NULL, 0);
		for (i = 0; i < n; i++)
			printf("%u.%u.%u.%u\n", key_of(i) >> 24,
			       key_of(i) >> 16 & 255, key_of(i) >> 8 & 255,
			       key_of(i) & 255);
		return 0;
	}
	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: bench-xdp --list N | bench-xdp OBJ FILTER_ID N [REPEAT]\n");
		return 2;
	}
	id = strtoul(argv[2], NULL, 0);
	n = strtoul(argv[3], NULL, 0);
	repeat = argc == 5 ? strtoul(argv[4], NULL, 0) : 100000;
	if (!n || !repeat)
		fail("N and REPEAT", EINVAL);
	obj = load(argv[1], id, n);
	fill(obj, n);
	bss = map_fd(obj, ".bss");
	lin = packet(in, key_of(0));
	lout = packet(out, key_of(n));

	for (i = 0; i < NSTRUCTS + 1; i++) {
		const char *s = i ? structs[i - 1] : "none";

		reps = repeat;
		ns = timed(prog_fd(obj, "pkt", s), bss, 0, in, lin, &reps, &v1);
		run(prog_fd(obj, "pkt", s), out, lout, 1, &v2);
		printf("pkt %s %u %.1f %s %s\n", s, n, ns,
		       v1 == XDP_DROP ? "drop" : "pass",
		       v2 == XDP_DROP ? "drop" : "pass");
		bad |= i && v1 != XDP_DROP;
		/* The exact structures; a Bloom filter may say present. */
		bad |= i > 2 && v2 != XDP_PASS;
	}
	/* Fewer runs to start with: each is XDP_BENCH_LOOKUPS lookups. */
	repeat = repeat / 32 ?: 1;
	for (absent = 0; absent <= 1; absent++) {
		reps = repeat;
		base = timed(prog_fd(obj, "loop", "none"), bss, absent, in, lin,
			     &reps, &v1);
		for (i = 0; i < NSTRUCTS; i++) {
			reps = repeat;
			ns = timed(prog_fd(obj, "loop", structs[i]), bss, absent,
				   in, lin, &reps, &v1);
			rate = (double)hits(bss) / reps / XDP_BENCH_LOOKUPS;
			printf("loop %s %u %s %.1f %.4f\n", structs[i], n,
			       absent ? "absent" : "present",
			       (ns - base) / XDP_BENCH_LOOKUPS, rate);
			bad |= absent ? rate > (i < 2 ? 0.03 : 0.0) :
					rate != 1.0;
		}
	}
	drain_lpm(obj, n);
	bpf_object__close(obj);
	if (bad)
		fprintf(stderr, "bench-xdp: a lookup gave a wrong answer (above)\n");
	return bad;
}
