// SPDX-License-Identifier: GPL-2.0
/*
 * Stress: for a bounded time, processes race every /dev/bloom command on
 * a few shared names while packets flow through rules that use them,
 * other processes insert and delete those rules (iptables-legacy and
 * iptables-nft), and network namespaces come and go.
 *
 *   stress-test [--seconds S] [--workers N]
 *
 * Run in the test guest as root with bloom.ko and xt_bloom.ko loaded,
 * build/ in PATH (libxt_bloom) and XTABLES_LIBDIR set. Checks:
 * - every command returns success or an errno documented for it when
 *   others race on the same names (the table below); anything else
 *   fails the test;
 * - no false negative: an "oracle" filter only gets adds, tests and
 *   halves (which keep every completed add); a key whose add returned
 *   before its test began must test present. The oracle is kept at
 *   most a sixth full (a fresh one replaces it before), so that keys
 *   never added test absent most of the time, which is checked: a
 *   saturated filter would say "present" to every key;
 * - no false negative in a cuckoo filter either: a second oracle is
 *   half filled with keys that stay, then keys come and go around them
 *   (each deleted only if its add stored it) near full load, so that
 *   adds keep moving the kept keys' fingerprints between buckets while
 *   testers check every kept key they test;
 * - every kind of operation succeeded at least once;
 * - at the end every rule and filter can be removed.
 * Prints TAP lines and "# stress-ops KIND N" figures.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>
#include "../../uapi/bloom_ioctl.h"

#define NAMES		3
#define SNAP_MAX	(1U << 16)
#define ORACLE_BITS	(1U << 20)	/* a fresh oracle's size */
#define ORACLE_MIN_BITS	(1U << 16)	/* halved no further */
#define ORACLE_LOAD	6		/* at most bits / 6 keys: 39 % full */
#define BAD_MAX		8
#define CK_BUCKETS	2053		/* the cuckoo oracle's: 8212 slots */
#define CK_KEPT		4096		/* keys that stay: half of them */
#define CK_CHURN	3300		/* keys that come and go: to 90 % */

enum kind {
	K_CREATE, K_DESTROY, K_RENAME, K_ADD, K_TEST, K_DEL, K_CLEAR,
	K_SWAP, K_HALVE, K_UNION, K_INTERSECT, K_SAVE, K_RESTORE, K_INFO,
	K_LIST, K_ESTIMATE, K_COUNT, K_ORACLE_ADD, K_ORACLE_TEST,
	K_ORACLE_HALVE, K_RULE_ADD, K_RULE_DEL, K_PACKETS, K_NETNS,
	K_CK_CHURN, K_CK_TEST, K_MAX
};

static const char *const kind_names[K_MAX] = {
	"create", "destroy", "rename", "add", "test", "del", "clear",
	"swap", "halve", "union", "intersect", "save", "restore", "info",
	"list", "estimate", "count", "oracle-add", "oracle-test",
	"oracle-halve", "rule-insert", "rule-delete", "packets", "netns",
	"cuckoo-churn", "cuckoo-test",
};

/*
 * The errnos each command may return while others race on the same
 * names (uapi/bloom_ioctl.h): a name may be missing or taken, a rule may
 * hold a filter, halving changes the geometry (so pairs may differ, and
 * a small filter cannot be halved), DEL needs a counting or cuckoo
 * filter and a present key; a cuckoo filter may be full (ADD), and has
 * no set algebra.
 */
static const int documented[K_MAX][4] = {
	[K_CREATE]	= { EEXIST },
	[K_DESTROY]	= { ENOENT, EBUSY },
	[K_RENAME]	= { ENOENT, EEXIST, EBUSY },
	[K_ADD]		= { ENOENT, ENOSPC },
	[K_TEST]	= { ENOENT },
	[K_DEL]		= { ENOENT, EOPNOTSUPP },
	[K_CLEAR]	= { ENOENT },
	[K_SWAP]	= { ENOENT },
	[K_HALVE]	= { ENOENT, EINVAL, EOPNOTSUPP },
	[K_UNION]	= { ENOENT, EINVAL, EOPNOTSUPP },
	[K_INTERSECT]	= { ENOENT, EINVAL, EOPNOTSUPP },
	[K_SAVE]	= { ENOENT, EINVAL },
	[K_RESTORE]	= { EEXIST },
	[K_INFO]	= { ENOENT },
	[K_LIST]	= { 0 },
	[K_ESTIMATE]	= { ENOENT, EINVAL, EOPNOTSUPP },
	[K_COUNT]	= { ENOENT },
	[K_ORACLE_ADD]	= { 0 },
	[K_ORACLE_TEST]	= { 0 },
	[K_ORACLE_HALVE] = { 0 },
	[K_CK_CHURN]	= { 0 },
	[K_CK_TEST]	= { 0 },
};

struct shared {
	uint64_t ops[K_MAX];
	uint64_t errs[K_MAX];
	uint64_t oracle_done;		/* keys [0, oracle_done) were added */
	uint64_t oracle_epoch;		/* odd while the oracle is replaced */
	uint64_t ck_kept;		/* cuckoo: keys [0, ck_kept) stay */
	uint64_t fp_tested;		/* keys never added, tested */
	uint64_t fp_present;		/* of which tested present */
	int nbad;
	char bad[BAD_MAX][160];
	int stop;			/* __atomic: set once, at the end */
};

static struct shared *sh;
static int fd;

static int stopped(void)
{
	return __atomic_load_n(&sh->stop, __ATOMIC_RELAXED);
}
static const char *const names[NAMES] = { "s0", "s1", "s2" };

static void bad(const char *fmt, ...)
{
	int i = __atomic_fetch_add(&sh->nbad, 1, __ATOMIC_RELAXED);
	va_list ap;

	if (i >= BAD_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(sh->bad[i], sizeof(sh->bad[i]), fmt, ap);
	va_end(ap);
}

/* An operation done; @err: its errno (negative) if it failed. */
static void count(enum kind k, int err)
{
	int i;

	__atomic_fetch_add(&sh->ops[k], 1, __ATOMIC_RELAXED);
	if (!err)
		return;
	__atomic_fetch_add(&sh->errs[k], 1, __ATOMIC_RELAXED);
	if (err == 1)
		return;		/* a documented failure without an errno */
	for (i = 0; i < 4 && documented[k][i]; i++)
		if (-err == documented[k][i])
			return;
	bad("%s: undocumented %s", kind_names[k], strerrorname_np(-err));
}

static int io(unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static void name_of(char *dst, const char *name)
{
	memset(dst, 0, BLOOM_NAME_MAX);
	snprintf(dst, BLOOM_NAME_MAX, "%s", name);
}

static const char *any_name(void)
{
	return names[random() % NAMES];
}

/* Two different names. */
static void two_names(const char **a, const char **b)
{
	int i = random() % NAMES;

	*a = names[i];
	*b = names[(i + 1 + random() % (NAMES - 1)) % NAMES];
}

static void addr_key(struct bloom_key_addr *k, uint32_t v4)
{
	memset(k, 0, sizeof(*k));
	k->addr[10] = k->addr[11] = 0xff;
	k->addr[12] = v4 >> 24;
	k->addr[13] = v4 >> 16;
	k->addr[14] = v4 >> 8;
	k->addr[15] = v4;
}

/* ---- The commands. ---- */

/* A cuckoo filter gets @bits rounded to buckets of four 12-bit slots. */
static int create(const char *name, uint64_t bits, uint8_t layout)
{
	struct bloom_ioc_create c = { .bits = bits, .hashes = 3,
				      .layout = layout,
				      .key_type = BLOOM_KEY_ADDR,
				      .flags = BLOOM_F_FIXED_SEED, .seed = 7 };

	if (layout == BLOOM_LAYOUT_CUCKOO) {
		c.hashes = 12;
		c.bits = bits / 48 * 48;
	}

	name_of(c.name, name);
	return io(BLOOM_IOC_CREATE, &c);
}

static int name_cmd(unsigned long cmd, const char *name)
{
	struct bloom_ioc_name n = {};

	name_of(n.name, name);
	return io(cmd, &n);
}

static int pair_cmd(unsigned long cmd, const char *a, const char *b)
{
	struct bloom_ioc_pair p = {};

	name_of(p.name, a);
	name_of(p.other, b);
	return io(cmd, &p);
}

static int batch(unsigned long cmd, const char *name, void *keys, int n,
		 void *results)
{
	struct bloom_ioc_batch b = { .keys = (uintptr_t)keys,
				     .results = (uintptr_t)results,
				     .count = n,
				     .stride = sizeof(struct bloom_key_addr) };

	name_of(b.name, name);
	return io(cmd, &b);
}

static int keys_cmd(unsigned long cmd, const char *name)
{
	struct bloom_key_addr k[64];
	uint8_t res[64];
	int i;

	for (i = 0; i < 64; i++)
		addr_key(&k[i], 0x0a000000 | (random() & 0xffff));
	if (cmd == BLOOM_IOC_ADD && random() % 4 == 0)
		addr_key(&k[0], 0x7f000001);	/* the traffic's source */
	return batch(cmd, name, k, cmd == BLOOM_IOC_DEL ? 1 : 64, res);
}

static uint8_t snap[sizeof(struct bloom_snap_hdr) + SNAP_MAX];

/* Save a filter whole; then restore it under some name. */
static void save_restore(void)
{
	size_t hdr = sizeof(struct bloom_snap_hdr);
	struct bloom_ioc_save s = {};
	struct bloom_ioc_restore r = {};
	struct bloom_snap_hdr *h = (void *)snap;
	uint64_t gen;
	int err;

	name_of(s.name, any_name());
	err = io(BLOOM_IOC_SAVE, &s);
	if (!err && s.hdr.payload_len <= SNAP_MAX) {
		gen = s.generation;
		s.len = s.hdr.payload_len;
		s.buf = (uintptr_t)(snap + hdr);
		s.generation = 0;
		memset(&s.hdr, 0, sizeof(s.hdr));
		err = io(BLOOM_IOC_SAVE, &s);
		/* Replaced between the two calls: start again later. */
		if (!err && s.generation != gen)
			s.len = 0;
	}
	count(K_SAVE, err);
	if (err || !s.len)
		return;
	*h = s.hdr;
	h->checksum = 0;
	h->checksum = XXH64(snap, hdr + s.len, 0);
	name_of(r.name, any_name());
	r.buf = (uintptr_t)snap;
	r.len = hdr + s.len;
	r.flags = random() % 2 ? BLOOM_RESTORE_REPLACE : 0;
	count(K_RESTORE, io(BLOOM_IOC_RESTORE, &r));
}

static void info_list(void)
{
	char listed[8][BLOOM_NAME_MAX];
	struct bloom_ioc_list l = { .names = (uintptr_t)listed, .count = 8 };
	struct bloom_ioc_info in = {};

	name_of(in.name, any_name());
	count(K_INFO, io(BLOOM_IOC_INFO, &in));
	count(K_LIST, io(BLOOM_IOC_LIST, &l));
}

static void one_op(void)
{
	const char *a, *b;

	two_names(&a, &b);
	switch (random() % 16) {
	case 0:
		count(K_CREATE, create(a, 1 << (12 + random() % 4),
				       random() % 3 ? BLOOM_LAYOUT_STANDARD :
				       random() % 2 ? BLOOM_LAYOUT_COUNTING :
						      BLOOM_LAYOUT_CUCKOO));
		break;
	case 1:
		count(K_DESTROY, name_cmd(BLOOM_IOC_DESTROY, a));
		break;
	case 2:
		count(K_RENAME, pair_cmd(BLOOM_IOC_RENAME, a, b));
		break;
	case 3:
		count(K_CLEAR, name_cmd(BLOOM_IOC_CLEAR, a));
		break;
	case 4:
	case 5:
		count(K_ADD, keys_cmd(BLOOM_IOC_ADD, a));
		break;
	case 6:
		count(K_TEST, keys_cmd(BLOOM_IOC_TEST, a));
		break;
	case 7:
		count(K_DEL, keys_cmd(BLOOM_IOC_DEL, a));
		break;
	case 8:
		count(K_SWAP, pair_cmd(BLOOM_IOC_SWAP, a, b));
		break;
	case 9:
		count(K_HALVE, name_cmd(BLOOM_IOC_HALVE, a));
		break;
	case 10:
		count(K_UNION, pair_cmd(BLOOM_IOC_UNION, a, b));
		break;
	case 11:
		count(K_INTERSECT, pair_cmd(BLOOM_IOC_INTERSECT, a, b));
		break;
	case 12:
		save_restore();
		break;
	case 13:
		count(K_ESTIMATE, pair_cmd(BLOOM_IOC_ESTIMATE, a, b));
		break;
	case 14:
		count(K_COUNT, keys_cmd(BLOOM_IOC_COUNT, a));
		break;
	default:
		info_list();
	}
}

/* ---- The oracle: adds, tests and halves of one filter only. ---- */

/*
 * A fresh, empty oracle. Testers read oracle_epoch before and after a
 * test and drop the results if it changed (a seqlock): the keys they
 * test may be gone with the old filter.
 */
static void oracle_renew(void)
{
	int err;

	__atomic_fetch_add(&sh->oracle_epoch, 1, __ATOMIC_SEQ_CST);
	err = name_cmd(BLOOM_IOC_DESTROY, "oracle") ?:
	      create("oracle", ORACLE_BITS, BLOOM_LAYOUT_STANDARD);
	if (err)
		bad("oracle renewal: %s", strerror(-err));
	__atomic_store_n(&sh->oracle_done, 0, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&sh->oracle_epoch, 1, __ATOMIC_SEQ_CST);
}

/*
 * Adds keys 0, 1, 2 ... in batches, halving now and then down to
 * ORACLE_MIN_BITS; before the filter holds more than a sixth of its
 * bits in keys, starts again with a fresh one.
 */
static void oracle_adder(void)
{
	struct bloom_key_addr k[32];
	uint64_t next = 0, bits = ORACLE_BITS;
	int i, err;

	while (!stopped()) {
		if ((next + 32) * ORACLE_LOAD > bits) {
			oracle_renew();
			next = 0;
			bits = ORACLE_BITS;
		}
		for (i = 0; i < 32; i++)
			addr_key(&k[i], 0x0b000000 + next + i);
		err = batch(BLOOM_IOC_ADD, "oracle", k, 32, NULL);
		count(K_ORACLE_ADD, err);
		if (err)
			bad("oracle ADD: %s", strerror(-err));
		next += 32;
		/* Published after the add returned. */
		__atomic_store_n(&sh->oracle_done, next, __ATOMIC_RELEASE);
		/* Halving keeps every key; the half must not be too full. */
		if (random() % 64 == 0 && bits > ORACLE_MIN_BITS &&
		    next * ORACLE_LOAD <= bits / 2) {
			err = name_cmd(BLOOM_IOC_HALVE, "oracle");
			count(K_ORACLE_HALVE, err);	/* any error is bad */
			if (!err)
				bits /= 2;
		}
	}
}

/*
 * Tests 32 keys added before the test began (each must be present) and
 * 32 keys never added (counted: most must be absent).
 */
static void oracle_tester(void)
{
	struct bloom_key_addr k[64];
	uint64_t done, epoch, fp;
	uint8_t res[8];
	int i, err;

	while (!stopped()) {
		epoch = __atomic_load_n(&sh->oracle_epoch, __ATOMIC_SEQ_CST);
		done = __atomic_load_n(&sh->oracle_done, __ATOMIC_SEQ_CST);
		if ((epoch & 1) || !done) {
			usleep(1000);
			continue;
		}
		for (i = 0; i < 32; i++)
			addr_key(&k[i], 0x0b000000 + random() % done);
		for (; i < 64; i++)
			addr_key(&k[i], 0x0c000000 + random() % (1 << 24));
		err = batch(BLOOM_IOC_TEST, "oracle", k, 64, res);
		if (__atomic_load_n(&sh->oracle_epoch, __ATOMIC_SEQ_CST) != epoch)
			continue;	/* replaced meanwhile: no verdict */
		count(K_ORACLE_TEST, err);
		if (err) {
			bad("oracle TEST: %s", strerror(-err));
			continue;
		}
		for (i = 0; i < 32; i++)
			if (!(res[i / 8] >> (i % 8) & 1))
				bad("false negative: key %u added before the test began",
				    (k[i].addr[13] << 16) | (k[i].addr[14] << 8) |
				    k[i].addr[15]);
		for (fp = 0; i < 64; i++)
			fp += res[i / 8] >> (i % 8) & 1;
		__atomic_fetch_add(&sh->fp_tested, 32, __ATOMIC_RELAXED);
		__atomic_fetch_add(&sh->fp_present, fp, __ATOMIC_RELAXED);
	}
}

/* ---- The cuckoo oracle: kept keys, moved about by others. ---- */

static int ck_one(unsigned long cmd, uint32_t v4, struct bloom_ioc_batch *b)
{
	struct bloom_key_addr k;

	addr_key(&k, v4);
	memset(b, 0, sizeof(*b));
	name_of(b->name, "oracle-ck");
	b->keys = (uintptr_t)&k;
	b->count = 1;
	b->stride = sizeof(k);
	return io(cmd, b);
}

/*
 * Fills the cuckoo oracle half with kept keys, then adds churn keys one
 * at a time up to about 90 % and deletes those it stored, over and over.
 * A churn key whose add found another's fingerprint was not stored and
 * is not deleted: deleting it would delete that one.
 */
static void ck_churner(void)
{
	static unsigned char stored[CK_CHURN];
	struct bloom_ioc_batch b;
	uint32_t i;
	int err;

	for (i = 0; i < CK_KEPT && !stopped(); i++) {
		err = ck_one(BLOOM_IOC_ADD, 0x0d000000 + i, &b);
		if (err)
			bad("cuckoo oracle ADD of a kept key: %s", strerror(-err));
		__atomic_store_n(&sh->ck_kept, i + 1, __ATOMIC_RELEASE);
	}
	while (!stopped()) {
		for (i = 0; i < CK_CHURN; i++) {
			err = ck_one(BLOOM_IOC_ADD, 0x0e000000 + i, &b);
			stored[i] = !err;	/* ADD stores a copy */
			if (err && err != -ENOSPC)
				bad("cuckoo oracle ADD: %s", strerror(-err));
		}
		for (i = 0; i < CK_CHURN; i++) {
			err = stored[i] ? ck_one(BLOOM_IOC_DEL, 0x0e000000 + i,
						 &b) : 0;
			if (err)
				bad("cuckoo oracle DEL of a stored key: %s",
				    strerror(-err));
		}
		count(K_CK_CHURN, 0);
	}
}

/* Tests 64 kept keys at a time: every one must be present. */
static void ck_tester(void)
{
	struct bloom_key_addr k[64];
	uint64_t kept;
	uint8_t res[8];
	int i, err;

	while (!stopped()) {
		kept = __atomic_load_n(&sh->ck_kept, __ATOMIC_ACQUIRE);
		if (!kept) {
			usleep(1000);
			continue;
		}
		for (i = 0; i < 64; i++)
			addr_key(&k[i], 0x0d000000 + random() % kept);
		err = batch(BLOOM_IOC_TEST, "oracle-ck", k, 64, res);
		count(K_CK_TEST, err);
		for (i = 0; !err && i < 64; i++)
			if (!(res[i / 8] >> (i % 8) & 1))
				bad("cuckoo false negative: kept key %u",
				    (k[i].addr[14] << 8) | k[i].addr[15]);
	}
}

/* ---- Packets, rules, namespaces. ---- */

static void sender(void)
{
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_port = htons(9),
				   .sin_addr.s_addr = htonl(0x7f000001) };
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	while (!stopped()) {
		/* ICMP errors come back as ECONNREFUSED at times: ignored. */
		sendto(s, "x", 1, 0, (struct sockaddr *)&dst, sizeof(dst));
		__atomic_fetch_add(&sh->ops[K_PACKETS], 1, __ATOMIC_RELAXED);
	}
}

static int run(const char *cmd)
{
	int status = system(cmd);

	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/*
 * Insert and delete rules on the shared names. iptables exits 1 when the
 * kernel refuses (the filter is missing: ENOENT) or the rule to delete
 * is not there, 2 when libxt_bloom finds no filter of that name before
 * asking the kernel, and 4 for a resource problem: documented outcomes
 * here; anything else (a crash, another parameter problem) is not.
 */
static void ruler(const char *ipt)
{
	char cmd[256], out[64], line[128] = "";
	const char *name, *last = NULL;
	int st, add;
	FILE *f;

	snprintf(out, sizeof(out), "/tmp/stress-%s.out", ipt);
	while (!stopped()) {
		add = random() % 2;
		/* Delete the rule inserted last, if any: some deletes succeed. */
		name = !add && last ? last : any_name();
		snprintf(cmd, sizeof(cmd),
			 "%s -w -%c OUTPUT -o lo -m bloom --bloom-set %s -j ACCEPT >%s 2>&1",
			 ipt, add ? 'A' : 'D', name, out);
		st = run(cmd);
		count(add ? K_RULE_ADD : K_RULE_DEL, st ? 1 : 0);
		if (!st)
			last = add ? name : NULL;
		if (st == 0 || st == 1 || st == 4)
			continue;
		f = fopen(out, "r");
		if (!f || !fgets(line, sizeof(line), f))
			line[0] = 0;
		if (f)
			fclose(f);
		if (st != 2 || !strstr(line, "no filter named"))
			bad("%s exits %d: %.60s", ipt, st, line);
	}
}

/* A namespace with a filter of its own, then its destruction. */
static void netns_cycler(void)
{
	pid_t pid;
	int status;

	while (!stopped()) {
		pid = fork();
		if (!pid) {
			if (unshare(CLONE_NEWNET))
				_exit(1);
			close(fd);
			fd = open("/dev/bloom", O_RDWR);
			if (fd < 0 || create("ns", 1 << 12, BLOOM_LAYOUT_BLOCKED) ||
			    keys_cmd(BLOOM_IOC_ADD, "ns"))
				_exit(2);
			_exit(0);
		}
		waitpid(pid, &status, 0);
		count(K_NETNS, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad("namespace cycle: status %d", status);
	}
}

static pid_t spawn(void (*fn)(void), const char *ipt, unsigned int seed)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	srandom(seed);
	if (ipt)
		ruler(ipt);
	else
		fn();
	_exit(0);
}

static void ioctl_worker(void)
{
	while (!stopped())
		one_op();
}

static int cleanup(void)
{
	int i, err = 0;

	run("iptables-legacy -w -F OUTPUT; iptables-nft -w -F OUTPUT");
	for (i = 0; i < NAMES; i++) {
		int e = name_cmd(BLOOM_IOC_DESTROY, names[i]);

		if (e && e != -ENOENT)
			err = e;
	}
	return err ?: name_cmd(BLOOM_IOC_DESTROY, "oracle") ?:
		      name_cmd(BLOOM_IOC_DESTROY, "oracle-ck");
}

int main(int argc, char **argv)
{
	int seconds = 60, workers = 3, i, n = 0, err, fp_bad;
	pid_t pids[32];
	uint64_t total = 0;
	time_t t0;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--seconds"))
			seconds = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--workers"))
			workers = atoi(argv[i + 1]);
	}
	if (workers > 16)
		workers = 16;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	fd = open("/dev/bloom", O_RDWR);
	if (sh == MAP_FAILED || fd < 0) {
		printf("not ok - stress: open /dev/bloom (%s)\n", strerror(errno));
		return 1;
	}
	err = create("oracle", ORACLE_BITS, BLOOM_LAYOUT_STANDARD) ?:
	      create("oracle-ck", CK_BUCKETS * 48, BLOOM_LAYOUT_CUCKOO);
	for (i = 0; !err && i < NAMES; i++)
		err = create(names[i], 1 << 14, BLOOM_LAYOUT_STANDARD);
	if (err) {
		printf("not ok - stress: set-up (%s)\n", strerror(-err));
		return 1;
	}
	t0 = time(NULL);
	for (i = 0; i < workers; i++)
		pids[n++] = spawn(ioctl_worker, NULL, 1000 + i);
	pids[n++] = spawn(oracle_adder, NULL, 1);
	pids[n++] = spawn(oracle_tester, NULL, 2);
	pids[n++] = spawn(ck_churner, NULL, 7);
	pids[n++] = spawn(ck_tester, NULL, 8);
	pids[n++] = spawn(sender, NULL, 3);
	pids[n++] = spawn(NULL, "iptables-legacy", 4);
	pids[n++] = spawn(NULL, "iptables-nft", 5);
	pids[n++] = spawn(netns_cycler, NULL, 6);
	sleep(seconds);
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
	seconds = time(NULL) - t0;
	printf("# stress-seconds %d\n", seconds);
	for (i = 0; i < K_MAX; i++) {
		printf("# stress-ops %s %llu (%llu errors)\n", kind_names[i],
		       (unsigned long long)sh->ops[i],
		       (unsigned long long)sh->errs[i]);
		total += sh->ops[i];
	}
	printf("# stress-ops total %llu\n", (unsigned long long)total);
	printf("%sok - stress: %d s, every errno documented, no false negative\n",
	       sh->nbad ? "not " : "", seconds);
	for (i = 0; i < sh->nbad && i < BAD_MAX; i++)
		printf("    # %s\n", sh->bad[i]);
	fp_bad = !sh->fp_tested || sh->fp_present * 4 > sh->fp_tested;
	printf("%sok - stress: oracle not saturated: %llu of %llu keys never added present\n",
	       fp_bad ? "not " : "", (unsigned long long)sh->fp_present,
	       (unsigned long long)sh->fp_tested);
	printf("# stress-oracles %llu\n",
	       (unsigned long long)sh->oracle_epoch / 2 + 1);
	for (i = 0; i < K_MAX; i++)
		if (sh->ops[i] == sh->errs[i])
			break;
	printf("%sok - stress: every kind of operation succeeded%s%s\n",
	       i < K_MAX ? "not " : "", i < K_MAX ? ", not " : "",
	       i < K_MAX ? kind_names[i] : "");
	err = cleanup();
	printf("%sok - stress: rules flushed and filters destroyed at the end%s%s\n",
	       err ? "not " : "", err ? ": " : "", err ? strerror(-err) : "");
	return sh->nbad || i < K_MAX || err || fp_bad;
}
