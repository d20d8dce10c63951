// SPDX-License-Identifier: GPL-2.0
/*
 * The /dev/bloom ABI, from userspace: the happy path of every command,
 * each invalid field, bad pointers, permissions, namespaces, and
 * save/restore fidelity. Built 64- and 32-bit; run in the test guest
 * with bloom.ko loaded. Prints "ok - abiNN NAME" / "not ok - ..." lines.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#define XXH_INLINE_ALL		/* header-only: no 32-bit library needed */
#include <xxhash.h>
#include "../../uapi/bloom_ioctl.h"

static int fd, failed, bits_word = sizeof(long) * 8;

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok - abi%d ", ok ? "" : "not ", bits_word);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failed |= !ok;
}

/* ioctl returning 0 or -errno */
static int io(unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static void expect_err(const char *what, int got, int want)
{
	result(got == want, "%s: %s (got %s)", what,
	       want ? strerror(-want) : "success", got ? strerror(-got) : "0");
}

static void name_of(char *dst, const char *name)
{
	memset(dst, 0, BLOOM_NAME_MAX);
	snprintf(dst, BLOOM_NAME_MAX, "%s", name);
}

static int create(const char *name, __u64 bits, __u32 k, __u8 layout,
		  __u8 key_type)
{
	struct bloom_ioc_create c = { .bits = bits, .hashes = k,
				      .layout = layout, .key_type = key_type };

	name_of(c.name, name);
	return io(BLOOM_IOC_CREATE, &c);
}

static int destroy(const char *name)
{
	struct bloom_ioc_name n = {};

	name_of(n.name, name);
	return io(BLOOM_IOC_DESTROY, &n);
}

static void addr4(struct bloom_key_addr *k, uint32_t v4)
{
	memset(k, 0, sizeof(*k));
	k->addr[10] = k->addr[11] = 0xff;
	k->addr[12] = v4 >> 24;
	k->addr[13] = v4 >> 16;
	k->addr[14] = v4 >> 8;
	k->addr[15] = v4;
}

static int batch(unsigned long cmd, const char *name, void *keys,
		 __u32 count, __u32 stride, void *results,
		 struct bloom_ioc_batch *out)
{
	struct bloom_ioc_batch b = {
		.keys = (uintptr_t)keys, .results = (uintptr_t)results,
		.count = count, .stride = stride,
	};
	int err;

	name_of(b.name, name);
	err = io(cmd, &b);
	if (out)
		*out = b;
	return err;
}

static int info(const char *name, struct bloom_ioc_info *in)
{
	/* Garbage in every output field; input fields must be zero. */
	memset(in, 0xaa, sizeof(*in));
	in->generations = in->period_ms = in->age_flags = 0;
	in->gens = in->rotations = 0;
	name_of(in->name, name);
	return io(BLOOM_IOC_INFO, in);
}

static int all_zero(const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		if (*c++)
			return 0;
	return 1;
}

static void test_version(void)
{
	struct bloom_ioc_version v;

	memset(&v, 0xaa, sizeof(v));
	expect_err("VERSION succeeds", io(BLOOM_IOC_VERSION, &v), 0);
	result(v.abi_version == BLOOM_ABI_VERSION && v.max_cmd == BLOOM_IOC_MAX_NR,
	       "VERSION reports ABI %u, commands 0..%u", v.abi_version, v.max_cmd);
	result(all_zero(v.reserved, sizeof(v.reserved)),
	       "VERSION zeroes its reserved fields");
	expect_err("unknown command number is ENOTTY",
		   io(_IOR(BLOOM_IOC_MAGIC, 63, struct bloom_ioc_version), &v),
		   -ENOTTY);
	expect_err("wrong magic is ENOTTY",
		   io(_IOR(0x42, 0, struct bloom_ioc_version), &v), -ENOTTY);
	expect_err("wrong struct size is ENOTTY",
		   io(_IOR(BLOOM_IOC_MAGIC, 0, __u64), &v), -ENOTTY);
	expect_err("NULL argument is EFAULT", io(BLOOM_IOC_VERSION, NULL),
		   -EFAULT);
}

struct create_case {
	const char *what;
	struct bloom_ioc_create c;
	const char *name;
	int err;
};

static void test_create_validation(void)
{
	static const struct create_case cases[] = {
		{ "empty name", { .bits = 1024, .hashes = 3 }, "", -EINVAL },
		{ "name with space", { .bits = 1024, .hashes = 3 }, "a b", -EINVAL },
		{ "name with slash", { .bits = 1024, .hashes = 3 }, "a/b", -EINVAL },
		{ "reserved set", { .bits = 1024, .hashes = 3,
		  .reserved = 1 }, "r", -EINVAL },
		{ "reserved0 set", { .bits = 1024, .hashes = 3,
		  .reserved0 = { 0, 1 } }, "r", -EINVAL },
		{ "values on a Bloom filter", { .bits = 1024, .hashes = 3,
		  .value_bits = 4 }, "r", -EINVAL },
		{ "values wider than a cuckoo filter takes", { .bits = 4096,
		  .hashes = 8, .layout = BLOOM_LAYOUT_CUCKOO,
		  .value_bits = BLOOM_CUCKOO_VALUE_BITS_MAX + 1 }, "r",
		  -EINVAL },
		{ "a cuckoo slot wider than 32 bits", { .bits = 4096 * 33,
		  .hashes = 30, .layout = BLOOM_LAYOUT_CUCKOO,
		  .value_bits = 3 }, "r", -EINVAL },
		{ "growth of a fixed-size filter", { .bits = 1024, .hashes = 3,
		  .growth = 2 }, "r", -EINVAL },
		{ "tightening of a fixed-size filter", { .bits = 1024,
		  .hashes = 3, .tighten_pct = 50 }, "r", -EINVAL },
		{ "too many stages", { .bits = 1024, .hashes = 3,
		  .stages_max = BLOOM_STAGES_MAX + 1 }, "r", -EINVAL },
		{ "growth over the maximum", { .bits = 1024, .hashes = 3,
		  .stages_max = 4, .growth = BLOOM_GROWTH_MAX + 1 }, "r",
		  -EINVAL },
		{ "tightening over the maximum", { .bits = 1024, .hashes = 3,
		  .stages_max = 4, .tighten_pct = BLOOM_TIGHTEN_MAX_PCT + 1 },
		  "r", -EINVAL },
		{ "a counting filter that grows", { .bits = 1024, .hashes = 3,
		  .layout = BLOOM_LAYOUT_COUNTING, .stages_max = 4 }, "r",
		  -EINVAL },
		{ "an aging filter that grows", { .bits = 1024, .hashes = 3,
		  .generations = 2, .stages_max = 4 }, "r", -EINVAL },
		{ "one generation", { .bits = 1024, .hashes = 3,
		  .generations = 1 }, "r", -EINVAL },
		{ "too many generations", { .bits = 1024, .hashes = 3,
		  .generations = BLOOM_GENERATIONS_MAX + 1 }, "r", -EINVAL },
		{ "period of a plain filter", { .bits = 1024, .hashes = 3,
		  .period_ms = 1000 }, "r", -EINVAL },
		{ "period under the minimum", { .bits = 1024, .hashes = 3,
		  .generations = 2,
		  .period_ms = BLOOM_AGE_PERIOD_MIN_MS - 1 }, "r", -EINVAL },
		{ "age flag of a plain filter", { .bits = 1024, .hashes = 3,
		  .age_flags = BLOOM_AGE_F_FULL }, "r", -EINVAL },
		{ "unknown age flag", { .bits = 1024, .hashes = 3,
		  .generations = 2, .age_flags = 2 }, "r", -EINVAL },
		{ "both m and capacity", { .bits = 1024, .hashes = 3,
		  .capacity = 10, .fpr_ppb = 1000 }, "r", -EINVAL },
		{ "neither m nor capacity", { .hashes = 3 }, "r", -EINVAL },
		{ "capacity without rate", { .capacity = 10 }, "r", -EINVAL },
		{ "seed without fixed-seed flag", { .bits = 1024, .hashes = 3,
		  .seed = 5 }, "r", -EINVAL },
		{ "unknown flag", { .bits = 1024, .hashes = 3, .flags = 0x100 },
		  "r", -EINVAL },
		{ "unknown layout", { .bits = 1024, .hashes = 3, .layout = 9 },
		  "r", -EINVAL },
		{ "unknown key type", { .bits = 1024, .hashes = 3,
		  .key_type = 9 }, "r", -EINVAL },
		{ "zero hashes with bits", { .bits = 1024 }, "r", -EINVAL },
		{ "too many hashes", { .bits = 1024, .hashes = 33 }, "r", -EINVAL },
		{ "blocked m not whole blocks", { .bits = 1000, .hashes = 3 },
		  "r", -EINVAL },
		{ "rate above one half", { .capacity = 10,
		  .fpr_ppb = 600000000 }, "r", -EINVAL },
		{ "m beyond the cap", { .bits = 1ULL << 40, .hashes = 3 },
		  "r", -E2BIG },
		{ "m beyond the namespace budget", { .bits = 1ULL << 34,
		  .hashes = 3 }, "r", -E2BIG },
	};
	struct bloom_ioc_create c;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		c = cases[i].c;
		name_of(c.name, cases[i].name);
		expect_err(cases[i].what, io(BLOOM_IOC_CREATE, &c),
			   cases[i].err);
	}
	memset(&c, 0, sizeof(c));
	memset(c.name, 'x', sizeof(c.name));	/* no NUL */
	c.bits = 1024;
	c.hashes = 3;
	expect_err("name without NUL", io(BLOOM_IOC_CREATE, &c), -EINVAL);
	expect_err("nothing was created by bad requests", destroy("r"), -ENOENT);
}

static void test_create(void)
{
	struct bloom_ioc_create c = { .capacity = 1000000,
				      .fpr_ppb = 10000000 };
	struct bloom_ioc_create d = { .bits = 4096, .hashes = 4,
				      .seed = 77,
				      .flags = BLOOM_F_FIXED_SEED };

	name_of(c.name, "sized");
	expect_err("CREATE from capacity and rate", io(BLOOM_IOC_CREATE, &c), 0);
	result(c.hashes >= 5 && c.hashes <= 8 && c.bits <= 10000000 &&
	       c.bits > 9585000 && c.bits % 512 == 0,
	       "CREATE reports chosen m=%llu k=%u", (unsigned long long)c.bits,
	       c.hashes);
	result(c.seed != 0, "CREATE picks a random seed");
	c.bits = c.hashes = 0;
	c.seed = 0;
	expect_err("CREATE of a taken name is EEXIST", io(BLOOM_IOC_CREATE, &c),
		   -EEXIST);
	name_of(d.name, "fixed");
	expect_err("CREATE with a fixed seed", io(BLOOM_IOC_CREATE, &d), 0);
	result(d.seed == 77, "CREATE keeps a fixed seed");
	destroy("sized");
	destroy("fixed");
}

/* Add @n IPv4 net keys to @name: the i-th a /@len of 10.i.0.0 onwards. */
static int add_nets(const char *name, int n, int len, uint32_t base)
{
	struct bloom_key_net k[256];
	struct bloom_key_addr a;
	int i;

	for (i = 0; i < n && i < 256; i++) {
		memset(&k[i], 0, sizeof(k[i]));
		addr4(&a, base + ((uint32_t)i << 16));
		memcpy(k[i].addr, a.addr, 16);
		k[i].plen = 96 + len;
	}
	return batch(BLOOM_IOC_ADD, name, k, i, sizeof(k[0]), NULL, NULL);
}

/* The "ok" or "over" column of @name's line in /proc/net/bloom. */
static int proc_over(const char *name)
{
	FILE *proc = fopen("/proc/net/bloom", "r");
	char line[512], n[64];
	int over = -1;

	while (proc && over < 0 && fgets(line, sizeof(line), proc))
		if (sscanf(line, "%63s", n) == 1 && !strcmp(n, name))
			over = !!strstr(line, " over ");
	if (proc)
		fclose(proc);
	return over;
}

/* 1 - (1 - (x/m)^k)^L: L probes of a standard filter with x bits set. */
static double lookup_rate(const struct bloom_ioc_info *in, int lengths)
{
	double p = 1, miss = 1;
	__u32 i;

	for (i = 0; i < in->hashes; i++)
		p *= (double)in->bits_set / (double)in->bits;
	while (lengths--)
		miss *= 1 - p;
	return 1 - miss;
}

/*
 * A net lookup probes every prefix length held, so CREATE sizes each
 * probe at 1/P of the rate (BLOOM_F_PROBES), and INFO reports a lookup's
 * rate. The expected figures come from the textbook formulas, not the
 * module: m/n >= ln(P/E) / ln(2)^2 bits a key at a probe's rate E/P, and
 * a lookup of L probes at rate p each is 1 - (1 - p)^L.
 */
static void test_net_probes(void)
{
	struct bloom_ioc_create c = { .capacity = 1000000, .fpr_ppb = 10000000,
				      .key_type = BLOOM_KEY_NET,
				      .flags = BLOOM_F_PROBES(8) };
	struct bloom_ioc_info one, three;
	double ratio;

	name_of(c.name, "np");
	expect_err("CREATE of a net filter for 8 probes", io(BLOOM_IOC_CREATE, &c), 0);
	result(c.bits >= 13900000 && c.bits < 17000000,
	       "each probe is sized at 1 %% / 8: m=%llu for 10^6 keys (at least 13.9e6)",
	       (unsigned long long)c.bits);
	destroy("np");
	c.bits = 0;
	c.hashes = 0;
	c.flags = BLOOM_F_PROBES(BLOOM_PROBES_MAX + 1);
	expect_err("CREATE for more probes than lengths exist",
		   io(BLOOM_IOC_CREATE, &c), -EINVAL);
	c.flags = BLOOM_F_PROBES(2);
	c.key_type = BLOOM_KEY_ADDR;
	expect_err("CREATE of an addr filter with probes", io(BLOOM_IOC_CREATE, &c),
		   -EINVAL);

	/* Keys at one length, or at three; each rate from its own fill. */
	c = (struct bloom_ioc_create){ .bits = 8192, .hashes = 4,
		.layout = BLOOM_LAYOUT_STANDARD, .key_type = BLOOM_KEY_NET,
		.flags = BLOOM_F_PROBES(2) };
	name_of(c.name, "n1");
	expect_err("CREATE n1", io(BLOOM_IOC_CREATE, &c), 0);
	name_of(c.name, "n3");
	c.seed = 0;	/* CREATE wrote n1's */
	expect_err("CREATE n3", io(BLOOM_IOC_CREATE, &c), 0);
	add_nets("n1", 240, 32, 0x0a000001);
	add_nets("n3", 80, 32, 0x0b000001);
	add_nets("n3", 80, 24, 0x0c000100);
	add_nets("n3", 80, 16, 0x0d000000);
	expect_err("INFO n1", info("n1", &one), 0);
	expect_err("INFO n3", info("n3", &three), 0);
	ratio = (double)one.est_fpr_ppb / 1e9 / lookup_rate(&one, 1);
	result(ratio > 0.9 && ratio < 1.1,
	       "INFO of one length: a probe's rate (%llu ppb, x%.2f textbook)",
	       (unsigned long long)one.est_fpr_ppb, ratio);
	ratio = (double)three.est_fpr_ppb / 1e9 / lookup_rate(&three, 3);
	result(ratio > 0.9 && ratio < 1.1,
	       "INFO of three lengths: a lookup's rate over the three (%llu ppb, x%.2f textbook)",
	       (unsigned long long)three.est_fpr_ppb, ratio);
	result(proc_over("n1") == 0 && proc_over("n3") == 1,
	       "/proc/net/bloom: one length of 2 is ok, three are over (%d, %d)",
	       proc_over("n1"), proc_over("n3"));
	destroy("n1");
	destroy("n3");
}

/*
 * /proc/net/bloom names every layout and key type: one filter of each
 * pair, and each line says which. The names are the ABI's, written out
 * here rather than taken from the code under test.
 */
static void test_proc_names(void)
{
	static const char *const layouts[] = {
		[BLOOM_LAYOUT_BLOCKED] = "blocked",
		[BLOOM_LAYOUT_STANDARD] = "standard",
		[BLOOM_LAYOUT_PARTITIONED] = "partitioned",
		[BLOOM_LAYOUT_COUNTING] = "counting",
		[BLOOM_LAYOUT_CUCKOO] = "cuckoo",
		[BLOOM_LAYOUT_FUSE] = "fuse",
	};
	static const char *const keys[BLOOM_KEY_MAX] = {
		[BLOOM_KEY_BYTES] = "bytes", [BLOOM_KEY_ADDR] = "addr",
		[BLOOM_KEY_NET] = "net", [BLOOM_KEY_ADDR_PORT] = "addr,port",
		[BLOOM_KEY_FLOW] = "flow", [BLOOM_KEY_DIGEST] = "digest",
	};
	char name[BLOOM_NAME_MAX], line[512], n[64], l[32], k[32];
	unsigned int lay, key, made = 0, want = 0, seen = 0;
	FILE *proc;

	for (lay = 0; lay < BLOOM_LAYOUT_MAX; lay++)
		for (key = 0; key < BLOOM_KEY_MAX; key++) {
			if (!keys[key] || lay == BLOOM_LAYOUT_FUSE)
				continue;	/* retired; restored (test_fuse) */
			snprintf(name, sizeof(name), "pn%u_%u", lay, key);
			want++;
			/*
			 * m fits every layout: blocks of 512, 3 slices, 64
			 * buckets of four 12-bit fingerprints.
			 */
			made += !create(name, 3072,
					lay == BLOOM_LAYOUT_CUCKOO ? 12 : 3,
					lay, key);
		}
	proc = fopen("/proc/net/bloom", "r");
	while (proc && fgets(line, sizeof(line), proc)) {
		if (sscanf(line, "pn%u_%u %31s %31s", &lay, &key, l, k) != 4 ||
		    lay >= BLOOM_LAYOUT_MAX || key >= BLOOM_KEY_MAX)
			continue;
		sscanf(line, "%63s", n);
		if (!strcmp(l, layouts[lay]) && keys[key] && !strcmp(k, keys[key]))
			seen++;
		else
			printf("# %s: says %s %s\n", n, l, k);
	}
	if (proc)
		fclose(proc);
	result(made == want, "a filter of every layout and key type is created (%u of %u)",
	       made, want);
	result(seen == made, "/proc/net/bloom names the layout and key type of each (%u of %u)",
	       seen, made);
	for (lay = 0; lay < BLOOM_LAYOUT_MAX; lay++)
		for (key = 0; key < BLOOM_KEY_MAX; key++) {
			snprintf(name, sizeof(name), "pn%u_%u", lay, key);
			destroy(name);
		}
}

static void test_batches(void)
{
	struct bloom_key_addr keys[2000];
	struct bloom_key_net nets[600];
	unsigned char bitmap[2000 / 8];
	struct bloom_ioc_batch b;
	int i, present_ok = 1;

	create("b", 1 << 20, 5, BLOOM_LAYOUT_BLOCKED, BLOOM_KEY_ADDR);
	for (i = 0; i < 2000; i++)
		addr4(&keys[i], 0xc0000200 + i);
	expect_err("ADD 1000 addresses", batch(BLOOM_IOC_ADD, "b", keys, 1000,
					       sizeof(keys[0]), NULL, &b), 0);
	result(b.done == 1000 && b.hits == 1000, "ADD reports 1000 done, 1000 new");
	memset(bitmap, 0xaa, sizeof(bitmap));
	expect_err("TEST 2000 addresses", batch(BLOOM_IOC_TEST, "b", keys, 2000,
						sizeof(keys[0]), bitmap, &b), 0);
	for (i = 0; i < 1000; i++)
		present_ok &= bitmap[i / 8] >> (i % 8) & 1;
	result(present_ok && b.hits >= 1000 && b.hits < 1010,
	       "TEST bitmap marks every added key (%u hits)", b.hits);
	expect_err("TEST of a huge count is E2BIG",
		   batch(BLOOM_IOC_TEST, "b", keys, BLOOM_BATCH_MAX + 1,
			 sizeof(keys[0]), bitmap, NULL), -E2BIG);
	expect_err("ADD with the wrong stride is EINVAL",
		   batch(BLOOM_IOC_ADD, "b", keys, 1, 20, NULL, NULL), -EINVAL);
	expect_err("ADD from a NULL key pointer is EFAULT",
		   batch(BLOOM_IOC_ADD, "b", NULL, 1, 16, NULL, NULL), -EFAULT);
	expect_err("TEST into a NULL result pointer is EFAULT",
		   batch(BLOOM_IOC_TEST, "b", keys, 1, 16, NULL, NULL), -EFAULT);
	expect_err("DEL on a non-counting filter is EOPNOTSUPP",
		   batch(BLOOM_IOC_DEL, "b", keys, 1, 16, NULL, NULL),
		   -EOPNOTSUPP);
	expect_err("ADD to a missing filter is ENOENT",
		   batch(BLOOM_IOC_ADD, "nope", keys, 1, 16, NULL, NULL),
		   -ENOENT);
	destroy("b");

	/* A malformed key stops the batch exactly there. */
	create("n", 1 << 20, 5, BLOOM_LAYOUT_BLOCKED, BLOOM_KEY_NET);
	memset(nets, 0, sizeof(nets));
	for (i = 0; i < 600; i++) {
		nets[i].addr[10] = nets[i].addr[11] = 0xff;
		nets[i].addr[12] = 10;
		nets[i].addr[13] = i >> 8;
		nets[i].addr[14] = i;
		nets[i].plen = 120;
	}
	nets[300].addr[15] = 1;		/* host bits: malformed */
	expect_err("ADD stops at a malformed key with EINVAL",
		   batch(BLOOM_IOC_ADD, "n", nets, 600, sizeof(nets[0]), NULL,
			 &b), -EINVAL);
	result(b.done == 300, "ADD reports the bad key's index as done (%u)",
	       b.done);
	memset(bitmap, 0, sizeof(bitmap));
	nets[300].addr[15] = 0;
	batch(BLOOM_IOC_TEST, "n", nets, 600, sizeof(nets[0]), bitmap, &b);
	result((bitmap[299 / 8] >> (299 % 8) & 1) && b.hits < 305,
	       "keys before the bad one were added, none after (%u present)",
	       b.hits);
	destroy("n");
}

static void test_counting(void)
{
	struct bloom_key_addr k;
	struct bloom_ioc_batch b;
	unsigned char count = 0xaa;

	create("c", 1 << 16, 4, BLOOM_LAYOUT_COUNTING, BLOOM_KEY_ADDR);
	addr4(&k, 0x0a000001);
	batch(BLOOM_IOC_ADD, "c", &k, 1, 16, NULL, NULL);
	batch(BLOOM_IOC_ADD, "c", &k, 1, 16, NULL, NULL);
	expect_err("COUNT succeeds", batch(BLOOM_IOC_COUNT, "c", &k, 1, 16,
					   &count, NULL), 0);
	result(count == 2, "COUNT of a key added twice is 2 (%u)", count);
	expect_err("DEL succeeds", batch(BLOOM_IOC_DEL, "c", &k, 1, 16, NULL,
					 NULL), 0);
	batch(BLOOM_IOC_DEL, "c", &k, 1, 16, NULL, NULL);
	expect_err("DEL of an absent key is ENOENT",
		   batch(BLOOM_IOC_DEL, "c", &k, 1, 16, NULL, &b), -ENOENT);
	result(b.done == 0, "DEL of an absent key applies nothing");
	destroy("c");
}

static void test_info_list(void)
{
	struct bloom_ioc_info in;
	struct bloom_ioc_list l = {};
	char names[4][BLOOM_NAME_MAX];
	struct bloom_key_addr k;

	create("i1", 1 << 16, 4, BLOOM_LAYOUT_STANDARD, BLOOM_KEY_ADDR);
	create("i2", 1 << 16, 4, BLOOM_LAYOUT_STANDARD, BLOOM_KEY_ADDR);
	addr4(&k, 1);
	batch(BLOOM_IOC_ADD, "i1", &k, 1, 16, NULL, NULL);
	expect_err("INFO succeeds", info("i1", &in), 0);
	result(in.bits == 1 << 16 && in.hashes == 4 && in.inserted == 1 &&
	       in.bits_set >= 1 && in.bits_set <= 4 && in.mem_bytes == 8192 &&
	       in.key_type == BLOOM_KEY_ADDR,
	       "INFO reports geometry and stats (inserted %llu, %llu bits set)",
	       (unsigned long long)in.inserted,
	       (unsigned long long)in.bits_set);
	result(!in.generations && !in.period_ms && !in.age_flags &&
	       !in.rotations && !in.gens,
	       "INFO of a plain filter zeroes the aging fields");
	expect_err("INFO of a missing filter is ENOENT", info("zz", &in),
		   -ENOENT);
	l.names = (uintptr_t)names;
	l.count = 4;
	expect_err("LIST succeeds", io(BLOOM_IOC_LIST, &l), 0);
	result(l.returned == 2 && l.total == 2 && !strcmp(names[0], "i1") &&
	       !strcmp(names[1], "i2"), "LIST returns the names in order");
	l.returned = l.total = 0;
	l.offset = 1;
	io(BLOOM_IOC_LIST, &l);
	result(l.returned == 1 && !strcmp(names[0], "i2"), "LIST pages by offset");
	l.names = 8;	/* unmapped */
	l.offset = 0;
	l.returned = l.total = 0;
	expect_err("LIST into a bad pointer is EFAULT", io(BLOOM_IOC_LIST, &l),
		   -EFAULT);
	destroy("i1");
	destroy("i2");
}

static int pair(unsigned long cmd, const char *a, const char *b,
		struct bloom_ioc_pair *out)
{
	struct bloom_ioc_pair p = {};

	name_of(p.name, a);
	name_of(p.other, b);
	p.intersection = 0;
	int err = io(cmd, &p);

	if (out)
		*out = p;
	return err;
}

static __u32 id_of(const char *name, int *err)
{
	struct bloom_ioc_id q = {};

	name_of(q.name, name);
	*err = io(BLOOM_IOC_ID, &q);
	return q.id;
}

static int create_family(const char *name, __u8 key_type, __u16 flags)
{
	struct bloom_ioc_create c = { .bits = 4096, .hashes = 4,
				      .key_type = key_type, .flags = flags };

	name_of(c.name, name);
	return io(BLOOM_IOC_CREATE, &c);
}

/*
 * BLOOM_F_INET and _INET6: one family at most, for keys with addresses;
 * the other family's keys refused for every command with EAFNOSUPPORT,
 * and nothing of a refused batch applied; a swap across families
 * refused. The keys are written out here, not made by the module's code.
 */
static void test_families(void)
{
	struct bloom_key_addr k4[2], k6 = { .addr = { 0x20, 0x01, 0x0d, 0xb8,
						      [15] = 1 } };
	struct bloom_key_net all4 = { .addr = { [10] = 0xff, [11] = 0xff },
				      .plen = 96 };
	struct bloom_key_net bogon6 = { .plen = 8 };	/* ::/8 */
	struct bloom_ioc_batch b;
	struct bloom_ioc_info in;
	__u8 res[8] = {};

	expect_err("family: both families refused",
		   create_family("fam-both", BLOOM_KEY_ADDR, BLOOM_F_FAMILY),
		   -EINVAL);
	expect_err("family: bytes keys have none",
		   create_family("fam-bytes", BLOOM_KEY_BYTES, BLOOM_F_INET),
		   -EINVAL);
	expect_err("family: create inet", create_family("fam4",
		   BLOOM_KEY_ADDR, BLOOM_F_INET), 0);
	expect_err("family: create inet6", create_family("fam6",
		   BLOOM_KEY_ADDR, BLOOM_F_INET6), 0);
	result(!info("fam4", &in) && (in.flags & BLOOM_F_FAMILY) == BLOOM_F_INET,
	       "family: info reports inet");
	addr4(&k4[0], 0xc0000201);
	k4[1] = k6;
	expect_err("family: inet add stops at the IPv6 key",
		   batch(BLOOM_IOC_ADD, "fam4", k4, 2, sizeof(k4[0]), NULL, &b),
		   -EAFNOSUPPORT);
	result(b.done == 1, "family: the IPv4 key before it was added (done %u)",
	       b.done);
	expect_err("family: inet test of an IPv6 key",
		   batch(BLOOM_IOC_TEST, "fam4", &k6, 1, sizeof(k6), res, NULL),
		   -EAFNOSUPPORT);
	expect_err("family: inet6 add of an IPv4 key",
		   batch(BLOOM_IOC_ADD, "fam6", k4, 1, sizeof(k4[0]), NULL, &b),
		   -EAFNOSUPPORT);
	result(b.done == 0 && !info("fam6", &in) && in.inserted == 0,
	       "family: nothing added to the inet6 filter");
	expect_err("family: inet6 add of an IPv6 key",
		   batch(BLOOM_IOC_ADD, "fam6", &k6, 1, sizeof(k6), NULL, NULL),
		   0);
	expect_err("family: swap across families",
		   pair(BLOOM_IOC_SWAP, "fam4", "fam6", NULL), -EINVAL);
	destroy("fam4");
	destroy("fam6");

	/* A net key is IPv4 inside ::ffff:0:0/96; ::/8 is IPv6. */
	create_family("famn4", BLOOM_KEY_NET, BLOOM_F_INET);
	create_family("famn6", BLOOM_KEY_NET, BLOOM_F_INET6);
	expect_err("family: inet net filter takes ::ffff:0:0/96",
		   batch(BLOOM_IOC_ADD, "famn4", &all4, 1, sizeof(all4), NULL,
			 NULL), 0);
	expect_err("family: inet net filter refuses ::/8",
		   batch(BLOOM_IOC_ADD, "famn4", &bogon6, 1, sizeof(bogon6),
			 NULL, NULL), -EAFNOSUPPORT);
	expect_err("family: inet6 net filter takes ::/8",
		   batch(BLOOM_IOC_ADD, "famn6", &bogon6, 1, sizeof(bogon6),
			 NULL, NULL), 0);
	expect_err("family: inet6 net filter refuses ::ffff:0:0/96",
		   batch(BLOOM_IOC_ADD, "famn6", &all4, 1, sizeof(all4), NULL,
			 NULL), -EAFNOSUPPORT);
	destroy("famn4");
	destroy("famn6");
}

/*
 * BLOOM_IOC_ID: ids are positive and distinct, stay with the filter
 * through rename and swap, and are not given again to the next filter.
 */
static void test_ids(void)
{
	struct bloom_ioc_id q = {};
	__u32 a, b, a2, b2, c;
	int err, err2;

	create("id-a", 1 << 16, 4, 0, BLOOM_KEY_ADDR);
	create("id-b", 1 << 16, 4, 0, BLOOM_KEY_ADDR);
	a = id_of("id-a", &err);
	b = id_of("id-b", &err2);
	result(!err && !err2 && a && b && a != b,
	       "ID: two filters have distinct positive ids (%u, %u)", a, b);
	expect_err("SWAP", pair(BLOOM_IOC_SWAP, "id-a", "id-b", NULL), 0);
	a2 = id_of("id-a", &err);
	b2 = id_of("id-b", &err2);
	result(a2 == a && b2 == b, "ID: a swap leaves each name its id");
	expect_err("RENAME", pair(BLOOM_IOC_RENAME, "id-a", "id-c", NULL), 0);
	result(id_of("id-c", &err) == a && !err, "ID: a rename takes the id along");
	id_of("id-a", &err);
	expect_err("ID of the old name is ENOENT", err, -ENOENT);
	destroy("id-c");
	create("id-d", 1 << 16, 4, 0, BLOOM_KEY_ADDR);
	c = id_of("id-d", &err);
	result(!err && c != a && c != b,
	       "ID: a new filter does not get a destroyed one's id");
	name_of(q.name, "id-d");
	q.reserved = 1;
	expect_err("ID with a reserved field set is EINVAL",
		   io(BLOOM_IOC_ID, &q), -EINVAL);
	memset(&q, 0, sizeof(q));
	name_of(q.name, "id-d");
	q.id = 5;
	expect_err("ID with an id given in is EINVAL", io(BLOOM_IOC_ID, &q),
		   -EINVAL);
	destroy("id-b");
	destroy("id-d");
}

static void test_pairs(void)
{
	struct bloom_key_addr keys[3000];
	struct bloom_ioc_pair p;
	struct bloom_ioc_info in;
	unsigned char bm[3000 / 8 + 1];
	struct bloom_ioc_create c = { .bits = 1 << 18, .hashes = 4, .seed = 9,
				      .flags = BLOOM_F_FIXED_SEED,
				      .key_type = BLOOM_KEY_ADDR };
	struct bloom_ioc_batch b;
	int i;

	for (i = 0; i < 3000; i++)
		addr4(&keys[i], 0x0b000000 + i);
	name_of(c.name, "pa");
	io(BLOOM_IOC_CREATE, &c);
	name_of(c.name, "pb");
	io(BLOOM_IOC_CREATE, &c);
	create("other", 1 << 18, 4, BLOOM_LAYOUT_BLOCKED, BLOOM_KEY_ADDR);
	batch(BLOOM_IOC_ADD, "pa", keys, 2000, 16, NULL, NULL);
	batch(BLOOM_IOC_ADD, "pb", keys + 1000, 2000, 16, NULL, NULL);
	expect_err("ESTIMATE succeeds", pair(BLOOM_IOC_ESTIMATE, "pa", "pb", &p), 0);
	result(p.intersection > 900 && p.intersection < 1100 &&
	       p.union_ > 2850 && p.union_ < 3150,
	       "ESTIMATE |A n B| ~ 1000 (%llu), |A u B| ~ 3000 (%llu)",
	       (unsigned long long)p.intersection,
	       (unsigned long long)p.union_);
	expect_err("ESTIMATE across seeds is EINVAL",
		   pair(BLOOM_IOC_ESTIMATE, "pa", "other", NULL), -EINVAL);
	expect_err("UNION succeeds", pair(BLOOM_IOC_UNION, "pa", "pb", NULL), 0);
	batch(BLOOM_IOC_TEST, "pa", keys, 3000, 16, bm, &b);
	result(b.hits == 3000, "after UNION A holds both sets (%u)", b.hits);
	expect_err("INTERSECT across seeds is EINVAL",
		   pair(BLOOM_IOC_INTERSECT, "pa", "other", NULL), -EINVAL);
	expect_err("INTERSECT succeeds",
		   pair(BLOOM_IOC_INTERSECT, "pa", "pb", NULL), 0);
	batch(BLOOM_IOC_TEST, "pa", keys, 1000, 16, bm, &b);
	result(b.hits < 100, "after INTERSECT keys of A alone are gone (%u left)",
	       b.hits);
	expect_err("SWAP succeeds", pair(BLOOM_IOC_SWAP, "pb", "other", NULL), 0);
	batch(BLOOM_IOC_TEST, "other", keys + 1000, 2000, 16, bm, &b);
	result(b.hits == 2000, "after SWAP the other name has the contents");
	expect_err("RENAME to a taken name is EEXIST",
		   pair(BLOOM_IOC_RENAME, "pa", "pb", NULL), -EEXIST);
	expect_err("RENAME succeeds", pair(BLOOM_IOC_RENAME, "pa", "pz", NULL), 0);
	expect_err("the old name is gone", info("pa", &in), -ENOENT);
	expect_err("HALVE succeeds", io(BLOOM_IOC_HALVE, &(struct bloom_ioc_name){
		   .name = "other" }), 0);
	info("other", &in);
	batch(BLOOM_IOC_TEST, "other", keys + 1000, 2000, 16, bm, &b);
	result(in.bits == 1 << 17 && b.hits == 2000,
	       "HALVE keeps every key in half the bits");
	expect_err("CLEAR succeeds", io(BLOOM_IOC_CLEAR, &(struct bloom_ioc_name){
		   .name = "other" }), 0);
	info("other", &in);
	result(in.bits_set == 0 && in.inserted == 0, "CLEAR empties the filter");
	expect_err("pair with a missing filter is ENOENT",
		   pair(BLOOM_IOC_SWAP, "pz", "nope", NULL), -ENOENT);
	destroy("pz");
	destroy("pb");
	destroy("other");
}

/* Save a filter into a snapshot file image, as bloomctl does. */
static unsigned char *save(const char *name, size_t *len)
{
	struct bloom_ioc_save s = {};
	unsigned char *buf;

	name_of(s.name, name);
	if (io(BLOOM_IOC_SAVE, &s))
		return NULL;
	*len = sizeof(s.hdr) + s.hdr.payload_len;
	buf = calloc(1, *len);
	memcpy(buf, &s.hdr, sizeof(s.hdr));
	s.buf = (uintptr_t)(buf + sizeof(s.hdr));
	s.len = s.hdr.payload_len;
	s.generation = 0;
	memset(&s.hdr, 0, sizeof(s.hdr));
	if (io(BLOOM_IOC_SAVE, &s))
		return NULL;
	return buf;
}

static void seal(unsigned char *buf, size_t len)
{
	struct bloom_snap_hdr *h = (void *)buf;

	/* The checksum is xxh64 over header (checksum zero) + payload. */
	h->checksum = 0;
	h->checksum = XXH64(buf, len, 0);
}

static int restore(const char *name, void *buf, size_t len, __u32 flags)
{
	struct bloom_ioc_restore r = { .buf = (uintptr_t)buf, .len = len,
				       .flags = flags };

	name_of(r.name, name);
	return io(BLOOM_IOC_RESTORE, &r);
}

/* P goes with a snapshot: SAVE writes it, RESTORE gives it back. */
static void test_net_probes_snapshot(void)
{
	struct bloom_ioc_create c = { .bits = 8192, .hashes = 4,
				      .key_type = BLOOM_KEY_NET,
				      .flags = BLOOM_F_PROBES(5) };
	struct bloom_ioc_info in;
	unsigned char *img;
	size_t len;

	name_of(c.name, "ps");
	expect_err("CREATE of a net filter for 5 probes",
		   io(BLOOM_IOC_CREATE, &c), 0);
	add_nets("ps", 10, 24, 0x0c000100);
	img = save("ps", &len);
	result(!!img, "SAVE of a net filter for 5 probes");
	if (img) {
		seal(img, len);
		expect_err("RESTORE of it under a new name",
			   restore("ps2", img, len, 0), 0);
		expect_err("INFO of the restored filter", info("ps2", &in), 0);
		result((in.flags & BLOOM_F_PROBES_MASK) == BLOOM_F_PROBES(5),
		       "the restored filter is sized for the same 5 probes (flags 0x%x)",
		       in.flags);
		free(img);
	}
	destroy("ps");
	destroy("ps2");
}

/*
 * A growing filter's snapshot (version 4) whose stage record claims more
 * keys than the stage has bits is inconsistent: RESTORE refuses it, as
 * it refuses one whose first stage is too small for its capacity.
 */
static void test_stage_record_checked(void)
{
	struct bloom_ioc_create c = { .capacity = 1000, .fpr_ppb = 10000000,
				      .key_type = BLOOM_KEY_ADDR,
				      .stages_max = 4 };
	struct bloom_snap_stage *rec;
	struct bloom_snap_hdr *h;
	struct bloom_key_addr k;
	unsigned char *img;
	size_t len;

	name_of(c.name, "sr");
	expect_err("CREATE of a growing filter", io(BLOOM_IOC_CREATE, &c), 0);
	addr4(&k, 0xc0000201);
	batch(BLOOM_IOC_ADD, "sr", &k, 1, sizeof(k), NULL, NULL);
	img = save("sr", &len);
	result(img && len > sizeof(*h) + sizeof(*rec),
	       "SAVE of a growing filter");
	if (!img)
		goto out;
	h = (void *)img;
	rec = (void *)(img + h->hdr_len);
	result(h->version == BLOOM_SNAP_VERSION_SCALABLE &&
	       rec->inserted == 1, "its stage record holds the one key");
	seal(img, len);
	expect_err("RESTORE of it as it is", restore("sr2", img, len, 0), 0);
	rec->inserted = rec->bits + 1;
	seal(img, len);
	expect_err("RESTORE of a stage record claiming more keys than bits",
		   restore("sr3", img, len, 0), -EINVAL);
	expect_err("and nothing was made of it", info("sr3", &(struct
		   bloom_ioc_info){}), -ENOENT);
	free(img);
out:
	destroy("sr");
	destroy("sr2");
}

static int create_aged(const char *name, __u8 gens, __u32 period_ms,
		       __u8 age_flags, __u64 capacity)
{
	struct bloom_ioc_create c = { .bits = 1 << 16, .hashes = 4,
				      .layout = BLOOM_LAYOUT_STANDARD,
				      .key_type = BLOOM_KEY_ADDR,
				      .capacity = capacity,
				      .generations = gens,
				      .period_ms = period_ms,
				      .age_flags = age_flags };

	name_of(c.name, name);
	return io(BLOOM_IOC_CREATE, &c);
}

static int name_cmd(unsigned long cmd, const char *name)
{
	struct bloom_ioc_name n = {};

	name_of(n.name, name);
	return io(cmd, &n);
}

/* INFO with the generations; inserted of generation i (newest first). */
static int info_gens(const char *name, struct bloom_ioc_info *in,
		     struct bloom_ioc_gen *gen)
{
	memset(gen, 0xaa, sizeof(*gen) * BLOOM_GENERATIONS_MAX);
	memset(in, 0, sizeof(*in));
	name_of(in->name, name);
	in->gens = (uintptr_t)gen;
	return io(BLOOM_IOC_INFO, in);
}

static int present(const char *name, __u32 v4)
{
	struct bloom_key_addr k;
	unsigned char bit = 0;

	addr4(&k, v4);
	if (batch(BLOOM_IOC_TEST, name, &k, 1, sizeof(k), &bit, NULL))
		return -1;
	return bit & 1;
}

/* Save and restore an aging filter: generations, their order and ages. */
static void test_aging_snapshot(void)
{
	struct bloom_ioc_gen gen[BLOOM_GENERATIONS_MAX];
	const struct bloom_snap_gen *rec;
	struct bloom_snap_hdr *h;
	struct bloom_ioc_info in;
	struct bloom_key_addr k;
	unsigned char *buf;
	size_t len;

	create_aged("as", 3, 0, 0, 0);
	addr4(&k, 1);
	batch(BLOOM_IOC_ADD, "as", &k, 1, sizeof(k), NULL, NULL);
	name_cmd(BLOOM_IOC_ROTATE, "as");
	addr4(&k, 2);
	batch(BLOOM_IOC_ADD, "as", &k, 1, sizeof(k), NULL, NULL);
	usleep(300000);		/* every generation at least 300 ms old */
	buf = save("as", &len);
	result(buf != NULL, "SAVE of an aging filter");
	if (!buf)
		return;
	h = (void *)buf;
	rec = (const void *)(buf + sizeof(*h));
	result(h->version == BLOOM_SNAP_VERSION_AGING &&
	       h->reserved[0] == 3 && h->inserted == 2 &&
	       h->payload_len == 3 * (sizeof(*rec) + 8192),
	       "SAVE writes version 3: G, the sum of inserted, G records and arrays");
	result(rec[0].inserted == 1 && rec[1].inserted == 1 &&
	       rec[2].inserted == 0 && rec[0].age_ms >= 300,
	       "the records are newest first, with ages (%llu ms)",
	       (unsigned long long)rec[0].age_ms);
	seal(buf, len);
	expect_err("RESTORE of an aging snapshot", restore("as2", buf, len, 0),
		   0);
	info_gens("as2", &in, gen);
	result(in.generations == 3 && gen[0].inserted == 1 &&
	       gen[1].inserted == 1 && gen[2].inserted == 0 &&
	       present("as2", 1) == 1 && present("as2", 2) == 1,
	       "the restored filter has the generations in order");
	result(gen[0].age_ms >= rec[0].age_ms && gen[1].age_ms >= rec[1].age_ms,
	       "the restored generations resume their ages (%llu >= %llu ms)",
	       (unsigned long long)gen[0].age_ms,
	       (unsigned long long)rec[0].age_ms);
	name_cmd(BLOOM_IOC_ROTATE, "as2");
	name_cmd(BLOOM_IOC_ROTATE, "as2");
	result(present("as2", 1) == 0 && present("as2", 2) == 1,
	       "restored generations drop in order: the older key first");
	((struct bloom_snap_gen *)rec)[1].plens[BLOOM_PLEN_WORDS - 1] = 2;
	seal(buf, len);
	expect_err("RESTORE with a bad generation record is EINVAL",
		   restore("as2", buf, len, BLOOM_RESTORE_REPLACE), -EINVAL);
	buf[len - 1] ^= 1;
	expect_err("RESTORE of a damaged aging snapshot is EBADMSG",
		   restore("as2", buf, len, BLOOM_RESTORE_REPLACE), -EBADMSG);
	result(present("as2", 1) == 0 && present("as2", 2) == 1,
	       "a refused restore changes nothing");
	free(buf);
	destroy("as");
	destroy("as2");
}

/* Aging filters: creation, generations in INFO, forced rotation, refusals. */
static void test_aging(void)
{
	struct bloom_ioc_gen gen[BLOOM_GENERATIONS_MAX];
	struct bloom_ioc_version v = {};
	struct bloom_ioc_info in;
	struct bloom_key_addr k[8];
	unsigned char out[8];
	int i;

	io(BLOOM_IOC_VERSION, &v);
	result(v.cmds >> 19 & 1, "VERSION advertises ROTATE");
	expect_err("CREATE an aging filter (G=3, no timer)",
		   create_aged("ag", 3, 0, 0, 0), 0);
	expect_err("CREATE a plain filter", create("pl", 1 << 16, 4, 1,
						   BLOOM_KEY_ADDR), 0);
	addr4(&k[0], 7);
	batch(BLOOM_IOC_ADD, "ag", k, 1, sizeof(k[0]), NULL, NULL);
	expect_err("INFO of an aging filter", info_gens("ag", &in, gen), 0);
	result(in.generations == 3 && in.period_ms == 0 && in.rotations == 0 &&
	       in.mem_bytes == 4 * 8192 && in.inserted == 1,
	       "INFO reports G=%u, period %u, %llu rotations, 4 arrays (%llu bytes)",
	       in.generations, in.period_ms,
	       (unsigned long long)in.rotations,
	       (unsigned long long)in.mem_bytes);
	result(gen[0].inserted == 1 && gen[0].bits_set >= 1 &&
	       gen[1].inserted == 0 && gen[1].bits_set == 0 &&
	       gen[2].bits_set == 0 && gen[3].age_ms == 0xaaaaaaaaaaaaaaaaULL,
	       "INFO fills exactly G generations, the key in the newest");
	for (i = 1; i <= 2; i++) {
		expect_err("ROTATE", name_cmd(BLOOM_IOC_ROTATE, "ag"), 0);
		info_gens("ag", &in, gen);
		result(in.rotations == (unsigned)i && gen[i].inserted == 1 &&
		       gen[0].inserted == 0 && present("ag", 7) == 1,
		       "after %d rotation(s) the key is in generation %d and present",
		       i, i);
	}
	expect_err("ROTATE a third time", name_cmd(BLOOM_IOC_ROTATE, "ag"), 0);
	info_gens("ag", &in, gen);
	result(in.bits_set == 0 && gen[0].bits_set == 0 &&
	       gen[1].bits_set == 0 && gen[2].bits_set == 0,
	       "after G rotations no generation has a bit set");
	name_cmd(BLOOM_IOC_ROTATE, "ag");
	info_gens("ag", &in, gen);
	result(in.bits_set == 0,
	       "the dropped generation comes back as the newest, empty");
	/* ADD renews a key an older generation holds. */
	batch(BLOOM_IOC_ADD, "ag", k, 1, sizeof(k[0]), NULL, NULL);
	name_cmd(BLOOM_IOC_ROTATE, "ag");
	batch(BLOOM_IOC_ADD, "ag", k, 1, sizeof(k[0]), NULL, NULL);
	name_cmd(BLOOM_IOC_ROTATE, "ag");
	name_cmd(BLOOM_IOC_ROTATE, "ag");
	result(present("ag", 7) == 1,
	       "a key added again is kept G-1 rotations after the last add");
	expect_err("ROTATE of a plain filter is EOPNOTSUPP",
		   name_cmd(BLOOM_IOC_ROTATE, "pl"), -EOPNOTSUPP);
	expect_err("ROTATE of a missing filter is ENOENT",
		   name_cmd(BLOOM_IOC_ROTATE, "zz"), -ENOENT);
	expect_err("HALVE of an aging filter is EOPNOTSUPP",
		   name_cmd(BLOOM_IOC_HALVE, "ag"), -EOPNOTSUPP);
	expect_err("COUNT on an aging filter is EOPNOTSUPP",
		   batch(BLOOM_IOC_COUNT, "ag", k, 1, sizeof(k[0]), out, NULL),
		   -EOPNOTSUPP);
	expect_err("UNION into an aging filter is EOPNOTSUPP",
		   pair(BLOOM_IOC_UNION, "ag", "pl", NULL), -EOPNOTSUPP);
	expect_err("CLEAR of an aging filter", name_cmd(BLOOM_IOC_CLEAR, "ag"),
		   0);
	info_gens("ag", &in, gen);
	result(in.generations == 3 && in.bits_set == 0 && present("ag", 7) == 0,
	       "CLEAR keeps the generations and empties them");
	destroy("ag");
	destroy("pl");
	test_aging_snapshot();
	/* Count-based: the newest holds 4 keys, the 5th asks for a rotation. */
	expect_err("CREATE rotating when full (capacity 4)",
		   create_aged("af", 2, 0, BLOOM_AGE_F_FULL, 4), 0);
	for (i = 0; i < 8; i++)
		addr4(&k[i], 100 + i);
	batch(BLOOM_IOC_ADD, "af", k, 5, sizeof(k[0]), NULL, NULL);
	for (i = 0; i < 1000; i++) {
		info_gens("af", &in, gen);
		if (in.rotations)
			break;
		usleep(10000);
	}
	result(in.rotations >= 1 && gen[1].inserted == 5,
	       "the newest over capacity rotates on its own (%llu rotations)",
	       (unsigned long long)in.rotations);
	destroy("af");
}

static void test_snapshots(void)
{
	struct bloom_key_addr keys[500];
	struct bloom_ioc_info a, b;
	unsigned char *img, *again;
	size_t len, len2;
	int i;

	create("s", 1 << 16, 5, BLOOM_LAYOUT_BLOCKED, BLOOM_KEY_ADDR);
	for (i = 0; i < 500; i++)
		addr4(&keys[i], 0x0c000000 + i * 7);
	batch(BLOOM_IOC_ADD, "s", keys, 500, 16, NULL, NULL);
	img = save("s", &len);
	result(img && len == sizeof(struct bloom_snap_hdr) + 8192,
	       "SAVE returns header and payload");
	if (!img)
		return;
	seal(img, len);
	expect_err("RESTORE under a new name", restore("s2", img, len, 0), 0);
	again = save("s2", &len2);
	seal(again, len2);
	result(again && len2 == len && !memcmp(img, again, len),
	       "save, restore, save reproduces the snapshot bit for bit");
	info("s", &a);
	info("s2", &b);
	result(a.seed == b.seed && a.bits_set == b.bits_set &&
	       b.inserted == 500, "the restored filter has the same seed and bits");
	expect_err("RESTORE onto an existing name is EEXIST",
		   restore("s2", img, len, 0), -EEXIST);
	expect_err("RESTORE with REPLACE", restore("s2", img, len,
						    BLOOM_RESTORE_REPLACE), 0);
	img[sizeof(struct bloom_snap_hdr) + 100] ^= 1;
	expect_err("RESTORE of a corrupted payload is EBADMSG",
		   restore("s3", img, len, 0), -EBADMSG);
	expect_err("and leaves no filter behind", info("s3", &a), -ENOENT);
	expect_err("RESTORE of a truncated snapshot is EMSGSIZE",
		   restore("s3", img, len - 8, 0), -EMSGSIZE);
	expect_err("RESTORE of less than a header is ENODATA",
		   restore("s3", img, 10, 0), -ENODATA);
	img[0] ^= 0xff;
	expect_err("RESTORE of a bad magic is EPROTO",
		   restore("s3", img, len, 0), -EPROTO);
	expect_err("RESTORE with an unknown flag is EINVAL",
		   restore("s3", img, len, 2), -EINVAL);
	expect_err("RESTORE from a NULL buffer is EFAULT",
		   restore("s3", NULL, len, 0), -EFAULT);
	free(img);
	free(again);
	destroy("s");
	destroy("s2");
}

static int cuckoo_info(const char *name, struct bloom_ioc_cuckoo *ck)
{
	memset(ck, 0, sizeof(*ck));
	name_of(ck->name, name);
	return io(BLOOM_IOC_CUCKOO, ck);
}

/*
 * A static map of one key, built here from the format's definition
 * (uapi/bloom.h) alone: n = 1 gives 12 entries in segments of 4; the
 * key's entries are p0 = h * 4 >> 64, p1 = (p0 + 4) ^ (h >> 18 & 3) and
 * p2 = (p0 + 8) ^ (h & 3), and they XOR to (fp << v) | value, fp the
 * low f bits of h ^ h >> 32. So: entry p0 holds it, the others are 0.
 */
#define FUSE_F		8
#define FUSE_V		4
#define FUSE_W		(FUSE_F + FUSE_V)
#define FUSE_SEED	0x1234ULL

static size_t fuse_image(unsigned char *buf, const struct bloom_key_addr *k,
			 unsigned int value)
{
	struct bloom_snap_hdr *h = (void *)buf;
	uint64_t *words = (void *)(buf + sizeof(*h));
	uint64_t hash = XXH64(k, sizeof(*k), FUSE_SEED), e, pos;
	unsigned int p0 = (unsigned int)(hash >> 62);	/* h * 4 >> 64 */

	memset(buf, 0, sizeof(*h) + 24);
	h->magic = BLOOM_SNAP_MAGIC;
	h->version = BLOOM_SNAP_VERSION_FUSE;
	h->hdr_len = sizeof(*h);
	h->layout = BLOOM_LAYOUT_FUSE;
	h->key_type = BLOOM_KEY_ADDR;
	h->hashes = FUSE_F;
	h->bits = 12 * FUSE_W;
	h->seed = FUSE_SEED;
	h->inserted = 1;
	h->capacity = 1;
	h->reserved[0] = FUSE_V;
	h->payload_len = 24;
	e = ((hash ^ hash >> 32) & 0xff) << FUSE_V | value;
	pos = (uint64_t)p0 * FUSE_W;
	words[pos / 64] |= e << pos % 64;
	if (pos % 64 + FUSE_W > 64)
		words[pos / 64 + 1] |= e >> (64 - pos % 64);
	seal(buf, sizeof(*h) + 24);
	return sizeof(*h) + 24;
}

/* Does /proc/net/bloom list @name with this layout and key type? */
static int proc_says(const char *name, const char *layout, const char *key)
{
	FILE *proc = fopen("/proc/net/bloom", "r");
	char line[512], n[64], l[32], k[32];
	int found = 0;

	while (proc && !found && fgets(line, sizeof(line), proc))
		found = sscanf(line, "%63s %31s %31s", n, l, k) == 3 &&
			!strcmp(n, name) && !strcmp(l, layout) &&
			!strcmp(k, key);
	if (proc)
		fclose(proc);
	return found;
}

static int fuse_info(const char *name, struct bloom_ioc_fuse *f)
{
	memset(f, 0, sizeof(*f));
	name_of(f->name, name);
	return io(BLOOM_IOC_FUSE, f);
}

/* A key of 0x0a000000 + i that tests absent from "fz", from i up. */
static int absent_from_fz(struct bloom_key_addr *k, int i)
{
	unsigned char bit = 1;

	for (; bit && i < 100000; i++) {
		addr4(k, 0x0a000000 + i);
		bit = 0;
		batch(BLOOM_IOC_TEST, "fz", k, 1, 16, &bit, NULL);
	}
	return bit ? -1 : i;
}

static void fuse_damage(const unsigned char *good, size_t len)
{
	static const struct { const char *what; int err; } t[] = {
		{ "a value width over 16 is EINVAL", -EINVAL },
		{ "reserved bits past the width are EINVAL", -EINVAL },
		{ "entries that are not n's are EINVAL", -EINVAL },
		{ "inserted other than n is EINVAL", -EINVAL },
		{ "version 5 of a static filter is EINVAL", -EINVAL },
	};
	unsigned char buf[512];
	struct bloom_snap_hdr *h = (void *)buf;
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		memcpy(buf, good, len);
		if (i == 0)
			h->reserved[0] = 17;
		else if (i == 1)
			h->reserved[0] = FUSE_V | 1 << 8;
		else if (i == 2)
			h->bits = 12 * FUSE_W - 8;
		else if (i == 3)
			h->inserted = 2;
		else
			h->version = BLOOM_SNAP_VERSION_CUCKOO;
		seal(buf, len);
		expect_err(t[i].what, restore("fzbad", buf, len, 0), t[i].err);
	}
}

static void test_fuse(void)
{
	struct bloom_ioc_create c = { .bits = 12 * 8, .hashes = 8,
				      .layout = BLOOM_LAYOUT_FUSE,
				      .key_type = BLOOM_KEY_ADDR };
	struct bloom_key_addr k[2];
	unsigned char img[512], bit = 0, count;
	unsigned char *again;
	struct bloom_ioc_fuse f;
	struct bloom_ioc_batch b;
	__u32 values[2];
	size_t len, len2;
	int i;

	name_of(c.name, "fzc");
	expect_err("CREATE of a static filter is EOPNOTSUPP (built, restored)",
		   io(BLOOM_IOC_CREATE, &c), -EOPNOTSUPP);
	addr4(&k[0], 0xc0000201);
	len = fuse_image(img, &k[0], 9);
	expect_err("RESTORE a static map of one key, built by hand",
		   restore("fz", img, len, 0), 0);
	batch(BLOOM_IOC_TEST, "fz", k, 1, 16, &bit, NULL);
	result(bit & 1, "its key tests present");
	i = absent_from_fz(&k[1], 0);
	result(i >= 0, "some other key tests absent");
	expect_err("VALUE", batch(BLOOM_IOC_VALUE, "fz", k, 2, 16, values,
				  &b), 0);
	result(values[0] == 9 && values[1] == BLOOM_VALUE_ABSENT && b.hits == 1,
	       "VALUE gives the key's value, 9, and absent for the other (%u, 0x%x)",
	       values[0], values[1]);
	expect_err("ADD to a static filter is EOPNOTSUPP",
		   batch(BLOOM_IOC_ADD, "fz", k, 1, 16, NULL, &b), -EOPNOTSUPP);
	result(b.done == 0, "and applied nothing");
	expect_err("DEL is EOPNOTSUPP",
		   batch(BLOOM_IOC_DEL, "fz", k, 1, 16, NULL, NULL),
		   -EOPNOTSUPP);
	expect_err("COUNT is EOPNOTSUPP",
		   batch(BLOOM_IOC_COUNT, "fz", k, 1, 16, &count, NULL),
		   -EOPNOTSUPP);
	expect_err("BLOOM_IOC_FUSE", fuse_info("fz", &f), 0);
	result(f.keys == 1 && f.entries == 12 && f.segment_len == 4 &&
	       f.fp_bits == FUSE_F && f.value_bits == FUSE_V,
	       "it tells 1 key, 12 entries in segments of 4, widths 8 and 4");
	again = save("fz", &len2);
	if (again)
		seal(again, len2);
	result(again && len2 == len && !memcmp(img, again, len),
	       "SAVE gives back the snapshot restored, bit for bit");
	free(again);
	result(proc_says("fz", "fuse", "addr"),
	       "/proc/net/bloom shows it as layout fuse, key addr");
	fuse_damage(img, len);
	create("bl", 1 << 16, 4, BLOOM_LAYOUT_BLOCKED, BLOOM_KEY_ADDR);
	expect_err("BLOOM_IOC_FUSE of a Bloom filter is EOPNOTSUPP",
		   fuse_info("bl", &f), -EOPNOTSUPP);
	batch(BLOOM_IOC_ADD, "bl", k, 1, 16, NULL, NULL);
	values[0] = 7;
	expect_err("VALUE of a Bloom filter",
		   batch(BLOOM_IOC_VALUE, "bl", k, 1, 16, values, NULL), 0);
	result(values[0] == 0, "a member of a filter without values has 0");
	destroy("bl");
	destroy("fz");
}

/*
 * A cuckoo filter through the ABI. Expected sizes are worked out here:
 * 1000 keys at 1 % is 264 buckets (1000 / 0.95 / 4, rounded up), and a
 * table that small gets a quarter more and 2: 332 buckets of 10-bit
 * fingerprints (8 * 0.95 / (2^f - 1) <= 1 % first at f = 10).
 */
static void test_cuckoo(void)
{
	struct bloom_ioc_create c = { .capacity = 1000, .fpr_ppb = 10000000,
				      .layout = BLOOM_LAYOUT_CUCKOO,
				      .key_type = BLOOM_KEY_ADDR };
	struct bloom_key_addr keys[1200], *one;
	unsigned char bitmap[1200 / 8], counts[1000];
	struct bloom_ioc_cuckoo ck;
	struct bloom_ioc_batch b;
	struct bloom_ioc_info in;
	unsigned char *img, *again;
	size_t len, len2;
	int i, all = 1;

	name_of(c.name, "ck");
	expect_err("CREATE a cuckoo filter by capacity and rate",
		   io(BLOOM_IOC_CREATE, &c), 0);
	result(c.hashes == 10 && c.bits == 332 * 4 * 10,
	       "it has 332 buckets of 10-bit fingerprints (%u, %llu bits)",
	       c.hashes, (unsigned long long)c.bits);
	for (i = 0; i < 1200; i++)
		addr4(&keys[i], 0x0b000000 + i * 13);
	expect_err("ADD 1000 keys", batch(BLOOM_IOC_ADD, "ck", keys, 1000, 16,
					  NULL, &b), 0);
	memset(bitmap, 0, sizeof(bitmap));
	batch(BLOOM_IOC_TEST, "ck", keys, 1000, 16, bitmap, NULL);
	for (i = 0; i < 1000; i++)
		all &= bitmap[i / 8] >> (i % 8) & 1;
	result(all, "every key added tests present");
	expect_err("BLOOM_IOC_CUCKOO", cuckoo_info("ck", &ck), 0);
	result(ck.buckets == 332 && ck.fp_bits == 10 && ck.slots == 4 &&
	       ck.used == 1000 && !ck.failed,
	       "it tells buckets, width, slots and the 1000 copies stored (%llu, %u new)",
	       (unsigned long long)ck.used, b.hits);
	/*
	 * A key no other shares a fingerprint and bucket with (the seed is
	 * random: about one key in a hundred does).
	 */
	expect_err("COUNT", batch(BLOOM_IOC_COUNT, "ck", keys, 1000, 16, counts,
				  NULL), 0);
	for (one = keys; one < keys + 999 && counts[one - keys] != 1; one++)
		;
	result(counts[one - keys] == 1, "a key is held once (%u)",
	       counts[one - keys]);
	batch(BLOOM_IOC_ADD, "ck", one, 1, 16, NULL, &b);
	batch(BLOOM_IOC_COUNT, "ck", one, 1, 16, counts, NULL);
	result(b.hits == 0 && counts[0] == 2,
	       "adding it again is not new, and stores a second copy (%u)",
	       counts[0]);
	expect_err("DEL", batch(BLOOM_IOC_DEL, "ck", one, 1, 16, NULL, NULL),
		   0);
	expect_err("a second DEL takes the second copy",
		   batch(BLOOM_IOC_DEL, "ck", one, 1, 16, NULL, NULL), 0);
	expect_err("a third DEL is ENOENT",
		   batch(BLOOM_IOC_DEL, "ck", one, 1, 16, NULL, NULL), -ENOENT);
	memset(bitmap, 0, sizeof(bitmap));
	batch(BLOOM_IOC_TEST, "ck", one, 1, 16, bitmap, NULL);
	result(!(bitmap[0] & 1), "a deleted key tests absent");
	batch(BLOOM_IOC_ADD, "ck", one, 1, 16, NULL, NULL);

	/* Saved, restored under another name: the same table, bit for bit. */
	img = save("ck", &len);
	result(img && ((struct bloom_snap_hdr *)img)->version ==
	       BLOOM_SNAP_VERSION_CUCKOO, "SAVE writes snapshot version 5");
	if (img) {
		seal(img, len);
		expect_err("RESTORE it", restore("ck2", img, len, 0), 0);
		again = save("ck2", &len2);
		if (again)
			seal(again, len2);
		result(again && len2 == len && !memcmp(img, again, len),
		       "save, restore, save reproduces it bit for bit");
		img[sizeof(struct bloom_snap_hdr) + 40] ^= 4;
		expect_err("a flipped bit is EBADMSG",
			   restore("ck3", img, len, 0), -EBADMSG);
		free(again);
		free(img);
	}
	expect_err("UNION of cuckoo filters is EOPNOTSUPP",
		   pair(BLOOM_IOC_UNION, "ck", "ck2", NULL), -EOPNOTSUPP);
	expect_err("HALVE is EOPNOTSUPP", name_cmd(BLOOM_IOC_HALVE, "ck"),
		   -EOPNOTSUPP);
	create("bl", 1 << 16, 4, BLOOM_LAYOUT_BLOCKED, BLOOM_KEY_ADDR);
	expect_err("BLOOM_IOC_CUCKOO of a Bloom filter is EOPNOTSUPP",
		   cuckoo_info("bl", &ck), -EOPNOTSUPP);
	destroy("bl");

	/*
	 * Past its room (each add stores a copy: the 1000 again, then 200
	 * more): ENOSPC at the key that did not fit, nothing lost.
	 */
	expect_err("ADD past the table's room is ENOSPC",
		   batch(BLOOM_IOC_ADD, "ck", keys, 1200, 16, NULL, &b),
		   -ENOSPC);
	info("ck", &in);
	cuckoo_info("ck", &ck);
	result(b.done > 0 && b.done < 1200 && ck.failed == 1 &&
	       in.inserted == ck.used && ck.used > 1328 * 9 / 10,
	       "it stopped at key %u with %llu slots of 1328 used",
	       b.done, (unsigned long long)ck.used);
	memset(bitmap, 0, sizeof(bitmap));
	batch(BLOOM_IOC_TEST, "ck", keys, b.done, 16, bitmap, NULL);
	for (i = 0, all = 1; i < (int)b.done; i++)
		all &= bitmap[i / 8] >> (i % 8) & 1;
	result(all, "every key added before it still tests present");
	c.capacity = 0;
	c.bits = 264 * 4 * 3;
	c.hashes = 3;
	name_of(c.name, "ck4");
	expect_err("a 3-bit fingerprint is EINVAL", io(BLOOM_IOC_CREATE, &c),
		   -EINVAL);
	destroy("ck");
	destroy("ck2");
}

/* ADD with values (key i gets @values[i]); the batch's result. */
static int add_values(const char *name, void *keys, __u32 count,
		      const __u32 *values, struct bloom_ioc_batch *out)
{
	struct bloom_ioc_batch b = {
		.keys = (uintptr_t)keys, .values = (uintptr_t)values,
		.count = count, .stride = 16,
	};
	int err;

	name_of(b.name, name);
	err = io(BLOOM_IOC_ADD, &b);
	if (out)
		*out = b;
	return err;
}

static int value_hits(const char *name, __u64 *buf, __u32 count,
		      struct bloom_ioc_value_hits *out)
{
	memset(out, 0, sizeof(*out));
	name_of(out->name, name);
	out->buf = (uintptr_t)buf;
	out->count = count;
	return io(BLOOM_IOC_VALUE_HITS, out);
}

/* The possible CPUs, from sysfs ("0-3,8-11"): per-CPU counters' count. */
static unsigned int possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	unsigned int a, b, cpus = 0;
	int n;

	while (f && (n = fscanf(f, "%u-%u", &a, &b)) >= 1) {
		cpus += n == 2 ? b - a + 1 : 1;
		if (fgetc(f) != ',')
			break;
	}
	if (f)
		fclose(f);
	return cpus;
}

static __u64 budget_bytes(void)
{
	struct bloom_ioc_limits l = {};

	io(BLOOM_IOC_LIMITS, &l);
	return l.bytes;
}

/*
 * A cuckoo filter with 4-bit values. Its size is worked out here: the
 * buckets and fingerprint of test_cuckoo() (332 of 10 bits for 1000 keys
 * at 1 %), each slot 4 bits wider.
 */
static void test_cuckoo_values(void)
{
	struct bloom_ioc_create c = { .capacity = 1000, .fpr_ppb = 10000000,
				      .layout = BLOOM_LAYOUT_CUCKOO,
				      .key_type = BLOOM_KEY_ADDR,
				      .value_bits = 4 };
	static struct bloom_key_addr keys[1000];
	__u32 values[1000], got[1000];
	unsigned char counts[1000];
	struct bloom_ioc_value_hits vh;
	struct bloom_ioc_cuckoo ck;
	struct bloom_ioc_batch b;
	struct bloom_ioc_info in;
	__u64 hits[20], bytes0 = budget_bytes(), counters;
	unsigned char *img;
	size_t len;
	int i, unique = 0, right = 0, all;

	name_of(c.name, "cv");
	expect_err("CREATE a cuckoo filter with 4-bit values",
		   io(BLOOM_IOC_CREATE, &c), 0);
	info("cv", &in);
	counters = 16ULL * 8 * possible_cpus();
	result(possible_cpus() && budget_bytes() - bytes0 ==
	       in.mem_bytes + counters,
	       "the budget counts its table and its counters (%llu + %llu bytes)",
	       (unsigned long long)in.mem_bytes,
	       (unsigned long long)counters);
	result(c.hashes == 10 && c.bits == 332 * 4 * 14,
	       "it has 332 buckets of 10-bit fingerprints and 4-bit values (%u, %llu bits)",
	       c.hashes, (unsigned long long)c.bits);
	expect_err("BLOOM_IOC_CUCKOO", cuckoo_info("cv", &ck), 0);
	result(ck.value_bits == 4 && ck.buckets == 332 && ck.fp_bits == 10,
	       "it tells the value width (%u)", ck.value_bits);
	for (i = 0; i < 1000; i++) {
		addr4(&keys[i], 0x0c000000 + i * 7);
		values[i] = i % 16;
	}
	/* 940 keys, about 71 % of the slots: many moves, every value kept. */
	expect_err("ADD 940 keys with values",
		   add_values("cv", keys, 940, values, NULL), 0);
	expect_err("VALUE", batch(BLOOM_IOC_VALUE, "cv", keys, 940, 16, got,
				  NULL), 0);
	expect_err("COUNT", batch(BLOOM_IOC_COUNT, "cv", keys, 940, 16,
				  counts, NULL), 0);
	for (i = 0, all = 1; i < 940; i++) {
		all &= got[i] != BLOOM_VALUE_ABSENT;
		unique += counts[i] == 1;
		right += counts[i] == 1 && got[i] == values[i];
	}
	result(all, "every key added is present");
	cuckoo_info("cv", &ck);
	result(unique > 900 && right == unique && ck.moves > 0,
	       "each key no other shares a fingerprint with has its own value, moved ones too (%d of %d, %llu moves)",
	       right, unique, (unsigned long long)ck.moves);
	values[940] = 3;
	values[941] = 16;
	expect_err("a value wider than 4 bits is ERANGE",
		   add_values("cv", keys + 940, 2, values + 940, &b), -ERANGE);
	result(b.done == 1, "at the key that has it (done %u)", b.done);
	expect_err("VALUE_HITS", value_hits("cv", hits, 20, &vh), 0);
	for (i = 0, all = 1; i < 16; i++)
		all &= !hits[i];
	result(vh.values == 16 && all,
	       "it counts 16 values, none matched yet (%u)", vh.values);
	vh.values = 0;
	vh.reserved[1] = 1;
	expect_err("VALUE_HITS with a reserved field is EINVAL",
		   io(BLOOM_IOC_VALUE_HITS, &vh), -EINVAL);

	img = save("cv", &len);
	if (img) {
		seal(img, len);
		expect_err("RESTORE it", restore("cv2", img, len, 0), 0);
		memset(got, 0, sizeof(got));
		batch(BLOOM_IOC_VALUE, "cv2", keys, 941, 16, got, NULL);
		for (i = 0, right = 0; i < 941; i++)
			right += counts[i % 940] == 1 && i < 940 &&
				 got[i] == values[i];
		result(right == unique && got[940] == 3,
		       "restored, the values are the same (%d)", right);
		free(img);
	}
	create("bl", 1 << 16, 4, BLOOM_LAYOUT_BLOCKED, BLOOM_KEY_ADDR);
	expect_err("ADD with values to a Bloom filter is EINVAL",
		   add_values("bl", keys, 1, values, NULL), -EINVAL);
	expect_err("VALUE_HITS of a filter without values",
		   value_hits("bl", hits, 20, &vh), 0);
	result(vh.values == 0, "counts no value (%u)", vh.values);
	destroy("bl");
	b = (struct bloom_ioc_batch){ .keys = (uintptr_t)keys,
				      .values = (uintptr_t)values,
				      .count = 1, .stride = 16 };
	name_of(b.name, "cv");
	expect_err("TEST with values is EINVAL", io(BLOOM_IOC_TEST, &b),
		   -EINVAL);
	destroy("cv");
	destroy("cv2");
	result(budget_bytes() == bytes0,
	       "destroyed, they leave the budget as it was (%llu, %llu bytes)",
	       (unsigned long long)budget_bytes(),
	       (unsigned long long)bytes0);
}

/* Runs @fn in a child; returns its exit status. */
static int in_child(int (*fn)(void))
{
	pid_t pid = fork();
	int status;

	if (!pid)
		exit(fn());
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 99;
}

static int drop_net_admin(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[0].effective &= ~(1U << CAP_NET_ADMIN);
	d[0].permitted &= ~(1U << CAP_NET_ADMIN);
	return syscall(SYS_capset, &h, d);
}

static int unprivileged(void)
{
	struct bloom_key_addr k;
	unsigned char bm = 0;

	if (drop_net_admin())
		return 10;
	addr4(&k, 1);
	if (create("x", 1024, 3, 0, 0) != -EPERM)
		return 1;
	if (batch(BLOOM_IOC_ADD, "shared", &k, 1, 16, NULL, NULL) != -EPERM)
		return 2;
	if (destroy("shared") != -EPERM)
		return 3;
	if (batch(BLOOM_IOC_TEST, "shared", &k, 1, 16, &bm, NULL) || !bm)
		return 4;
	return 0;
}

static int other_netns(void)
{
	struct bloom_ioc_list l = {};
	struct bloom_ioc_info in;

	if (unshare(CLONE_NEWNET))
		return 10;
	close(fd);
	fd = open("/dev/bloom", O_RDWR);
	if (fd < 0 || io(BLOOM_IOC_LIST, &l) || l.total != 0)
		return 1;
	if (info("shared", &in) != -ENOENT)
		return 2;
	if (create("shared", 1024, 3, 0, BLOOM_KEY_BYTES))
		return 3;
	return 0;
}

static void test_isolation(void)
{
	struct bloom_ioc_info in;
	struct bloom_key_addr k;

	create("shared", 1 << 12, 3, BLOOM_LAYOUT_BLOCKED, BLOOM_KEY_ADDR);
	addr4(&k, 1);
	batch(BLOOM_IOC_ADD, "shared", &k, 1, 16, NULL, NULL);
	result(in_child(unprivileged) == 0,
	       "without CAP_NET_ADMIN changes are EPERM, tests still work");
	result(in_child(other_netns) == 0,
	       "another network namespace sees none of these filters");
	info("shared", &in);
	result(in.key_type == BLOOM_KEY_ADDR,
	       "a same-named filter there did not touch this one");
	destroy("shared");
}

static void test_limits(void)
{
	struct bloom_ioc_limits l = {}, saved;

	expect_err("LIMITS read", io(BLOOM_IOC_LIMITS, &l), 0);
	saved = l;
	l.max_filters = l.filters;
	l.flags = BLOOM_LIMITS_SET;
	l.filters = l.bytes = 0;
	expect_err("LIMITS set", io(BLOOM_IOC_LIMITS, &l), 0);
	expect_err("CREATE beyond the filter limit is ENOSPC",
		   create("over", 1024, 3, 0, 0), -ENOSPC);
	saved.flags = BLOOM_LIMITS_SET;
	saved.filters = saved.bytes = 0;
	io(BLOOM_IOC_LIMITS, &saved);
	l = (struct bloom_ioc_limits){ .flags = 4 };
	expect_err("LIMITS with an unknown flag is EINVAL",
		   io(BLOOM_IOC_LIMITS, &l), -EINVAL);
}

static void test_bad_pointer(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	munmap(p, 4096);
	expect_err("an unmapped argument is EFAULT", io(BLOOM_IOC_CREATE, p),
		   -EFAULT);
	expect_err("DESTROY of a missing filter is ENOENT", destroy("gone"),
		   -ENOENT);
}

/*
 * A CREATE whose struct can be read but not written back: the caller
 * cannot learn the seed, so the filter must not appear (a retry would
 * find its name taken).
 */
static void test_create_unwritable(void)
{
	struct bloom_ioc_create *c = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct bloom_ioc_limits before = {}, after = {};

	if (c == MAP_FAILED) {
		result(0, "mmap for the read-only CREATE");
		return;
	}
	name_of(c->name, "ro");
	c->bits = 4096;
	c->hashes = 3;
	mprotect(c, 4096, PROT_READ);
	io(BLOOM_IOC_LIMITS, &before);
	expect_err("CREATE from a read-only struct is EFAULT",
		   io(BLOOM_IOC_CREATE, c), -EFAULT);
	io(BLOOM_IOC_LIMITS, &after);
	expect_err("a CREATE that could not report creates nothing",
		   destroy("ro"), -ENOENT);
	result(before.filters == after.filters && before.bytes == after.bytes,
	       "a CREATE that could not report charges nothing (%llu filters, %llu bytes before; %llu, %llu after)",
	       (unsigned long long)before.filters,
	       (unsigned long long)before.bytes,
	       (unsigned long long)after.filters,
	       (unsigned long long)after.bytes);
	munmap(c, 4096);
}

int main(int argc, char **argv)
{
	fd = open("/dev/bloom", O_RDWR);
	/* Helpers for lifetime tests: ioctl-test create|destroy NAME */
	if (fd >= 0 && argc == 3 && !strcmp(argv[1], "create"))
		return -create(argv[2], 1 << 20, 4, 0, BLOOM_KEY_ADDR);
	if (fd >= 0 && argc == 3 && !strcmp(argv[1], "destroy"))
		return -destroy(argv[2]);
	if (fd < 0) {
		printf("not ok - abi%d open /dev/bloom: %s\n", bits_word,
		       strerror(errno));
		return 1;
	}
	test_version();
	test_create_validation();
	test_create();
	test_families();
	test_net_probes();
	test_net_probes_snapshot();
	test_stage_record_checked();
	test_proc_names();
	test_batches();
	test_counting();
	test_cuckoo();
	test_cuckoo_values();
	test_fuse();
	test_info_list();
	test_pairs();
	test_ids();
	test_snapshots();
	test_aging();
	test_isolation();
	test_limits();
	test_bad_pointer();
	test_create_unwritable();
	return failed;
}
