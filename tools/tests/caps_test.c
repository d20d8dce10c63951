// SPDX-License-Identifier: GPL-2.0
/*
 * Who may change filters: every changing /dev/bloom command fails with
 * EPERM without CAP_NET_ADMIN and changes nothing (each filter saved
 * before and after, byte for byte), every reading command still works,
 * and the same changing commands succeed once the capability is back (so
 * the refusals are the capability's doing, not bad arguments). A user
 * namespace that owns its network namespace manages filters there and
 * sees none of the host's; one that does not own the host's network
 * namespace cannot change its filters. Run as root in the test guest with
 * bloom.ko loaded. Prints "ok - caps: ..." lines.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "../../uapi/bloom_ioctl.h"

static int fd, failed;

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok - caps: ", ok ? "" : "not ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failed |= !ok;
}

static int io(unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static const char *err_name(int err)
{
	return err ? strerrorname_np(-err) ?: "?" : "success";
}

static void name_of(char *dst, const char *name)
{
	memset(dst, 0, BLOOM_NAME_MAX);
	snprintf(dst, BLOOM_NAME_MAX, "%s", name);
}

/* CAP_NET_ADMIN in the effective set only: it can be raised again. */
static int net_admin(bool on)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	if (on)
		d[0].effective |= 1U << CAP_NET_ADMIN;
	else
		d[0].effective &= ~(1U << CAP_NET_ADMIN);
	return syscall(SYS_capset, &h, d);
}

static int create(const char *name, __u8 layout, __u8 key_type)
{
	struct bloom_ioc_create c = { .bits = 4096, .hashes = 3, .seed = 7,
				      .layout = layout, .key_type = key_type,
				      .flags = BLOOM_F_FIXED_SEED };

	name_of(c.name, name);
	return io(BLOOM_IOC_CREATE, &c);
}

static int by_name(unsigned long cmd, const char *name)
{
	struct bloom_ioc_name n = {};

	name_of(n.name, name);
	return io(cmd, &n);
}

static int pair(unsigned long cmd, const char *a, const char *b,
		struct bloom_ioc_pair *out)
{
	struct bloom_ioc_pair p = {};
	int err;

	name_of(p.name, a);
	name_of(p.other, b);
	err = io(cmd, &p);

	if (out)
		*out = p;
	return err;
}

static struct bloom_key_addr key(uint8_t last)
{
	struct bloom_key_addr k = { .addr = { [10] = 0xff, [11] = 0xff,
					      192, 0, 2, last } };

	return k;
}

static int batch(unsigned long cmd, const char *name, uint8_t last,
		 uint8_t *result_byte)
{
	struct bloom_key_addr k = key(last);
	struct bloom_ioc_batch b = { .keys = (uintptr_t)&k, .count = 1,
				     .stride = sizeof(k),
				     .results = (uintptr_t)result_byte };

	name_of(b.name, name);
	return io(cmd, &b);
}

/* The whole snapshot file of a filter (header, payload, checksum), or NULL. */
static uint8_t *save(const char *name, size_t *len)
{
	struct bloom_ioc_save s = {};
	uint8_t *buf;

	name_of(s.name, name);
	if (io(BLOOM_IOC_SAVE, &s))		/* len 0: the header only */
		return NULL;
	*len = sizeof(s.hdr) + s.hdr.payload_len;
	buf = calloc(1, *len);
	memcpy(buf, &s.hdr, sizeof(s.hdr));
	memset(&s, 0, sizeof(s));
	name_of(s.name, name);
	s.buf = (uintptr_t)(buf + sizeof(s.hdr));
	s.len = *len - sizeof(s.hdr);
	if (io(BLOOM_IOC_SAVE, &s)) {
		free(buf);
		return NULL;
	}
	/* Little-endian host: the checksum field is the header's last word. */
	((struct bloom_snap_hdr *)buf)->checksum = XXH64(buf, *len, 0);
	return buf;
}

static int restore(const char *name, const uint8_t *snap, size_t len,
		   __u32 flags)
{
	struct bloom_ioc_restore r = { .buf = (uintptr_t)snap, .len = len,
				       .flags = flags };

	name_of(r.name, name);
	return io(BLOOM_IOC_RESTORE, &r);
}

/* LIMITS sets both maxima at once. */
static int limits(bool set, __u64 max_filters, __u64 max_bytes,
		  struct bloom_ioc_limits *out)
{
	struct bloom_ioc_limits l = { .flags = set ? BLOOM_LIMITS_SET : 0,
				      .max_filters = set ? max_filters : 0,
				      .max_bytes = set ? max_bytes : 0 };
	int err = io(BLOOM_IOC_LIMITS, &l);

	if (out)
		*out = l;
	return err;
}

/* Everything the namespace holds: names in order, and each snapshot. */
struct state {
	char names[16][BLOOM_NAME_MAX];
	uint8_t *snap[16];
	size_t len[16];
	unsigned int n;
	__u64 max_filters, max_bytes;
};

static void capture(struct state *s)
{
	struct bloom_ioc_list l = { .names = (uintptr_t)s->names, .count = 16 };
	struct bloom_ioc_limits lim;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	l.names = (uintptr_t)s->names;
	if (!io(BLOOM_IOC_LIST, &l))
		s->n = l.returned;
	for (i = 0; i < s->n; i++)
		s->snap[i] = save(s->names[i], &s->len[i]);
	limits(false, 0, 0, &lim);
	s->max_filters = lim.max_filters;
	s->max_bytes = lim.max_bytes;
}

static bool same_state(const struct state *a, const struct state *b)
{
	unsigned int i;

	if (a->n != b->n || a->max_filters != b->max_filters ||
	    a->max_bytes != b->max_bytes ||
	    memcmp(a->names, b->names, sizeof(a->names)))
		return false;
	for (i = 0; i < a->n; i++)
		if (!a->snap[i] || !b->snap[i] || a->len[i] != b->len[i] ||
		    memcmp(a->snap[i], b->snap[i], a->len[i]))
			return false;
	return true;
}

/*
 * The changing commands, in an order in which each succeeds for an
 * administrator: cap-a and cap-b are standard 4096-bit addr filters with
 * one seed, cap-c a counting one holding 192.0.2.1.
 */
static uint8_t *snap_a;
static size_t snap_a_len;
static __u64 filters_limit, bytes_limit;

static int do_create(void) { return create("cap-new", BLOOM_LAYOUT_BLOCKED, BLOOM_KEY_ADDR); }
static int do_add(void) { return batch(BLOOM_IOC_ADD, "cap-a", 9, NULL); }
static int do_del(void) { return batch(BLOOM_IOC_DEL, "cap-c", 1, NULL); }
static int do_clear(void) { return by_name(BLOOM_IOC_CLEAR, "cap-c"); }
static int do_union(void) { return pair(BLOOM_IOC_UNION, "cap-a", "cap-b", NULL); }
static int do_intersect(void) { return pair(BLOOM_IOC_INTERSECT, "cap-a", "cap-b", NULL); }
static int do_swap(void) { return pair(BLOOM_IOC_SWAP, "cap-a", "cap-b", NULL); }
static int do_halve(void) { return by_name(BLOOM_IOC_HALVE, "cap-a"); }
static int do_restore(void) { return restore("cap-rest", snap_a, snap_a_len, 0); }
static int do_replace(void) { return restore("cap-b", snap_a, snap_a_len, BLOOM_RESTORE_REPLACE); }
static int do_rename(void) { return pair(BLOOM_IOC_RENAME, "cap-new", "cap-ren", NULL); }
static int do_destroy(void) { return by_name(BLOOM_IOC_DESTROY, "cap-ren"); }
static int do_limits(void) { return limits(true, filters_limit + 1, bytes_limit, NULL); }

static const struct { const char *what; int (*fn)(void); } changes[] = {
	{ "CREATE", do_create }, { "ADD", do_add }, { "DEL", do_del },
	{ "CLEAR", do_clear }, { "UNION", do_union },
	{ "INTERSECT", do_intersect }, { "SWAP", do_swap },
	{ "HALVE", do_halve }, { "RESTORE", do_restore },
	{ "RESTORE --replace", do_replace }, { "RENAME", do_rename },
	{ "DESTROY", do_destroy }, { "LIMITS set", do_limits },
};
#define NCHANGES (sizeof(changes) / sizeof(changes[0]))

static void test_reads(void)
{
	struct bloom_ioc_version v = {};
	struct bloom_ioc_info in = {};
	struct bloom_ioc_list l = {};
	struct bloom_ioc_pair p;
	uint8_t bm = 0, count = 0;
	size_t len;
	uint8_t *snap;
	int err;

	err = io(BLOOM_IOC_VERSION, &v);
	result(!err && v.abi_version == BLOOM_ABI_VERSION, "without: VERSION works (%s)", err_name(err));
	err = batch(BLOOM_IOC_TEST, "cap-a", 1, &bm);
	result(!err && bm == 1, "without: TEST works and finds a key (%s)", err_name(err));
	err = batch(BLOOM_IOC_COUNT, "cap-c", 1, &count);
	result(!err && count == 1, "without: COUNT works (%s, count %u)", err_name(err), count);
	name_of(in.name, "cap-a");
	err = io(BLOOM_IOC_INFO, &in);
	result(!err && in.bits == 4096, "without: INFO works (%s)", err_name(err));
	err = io(BLOOM_IOC_LIST, &l);
	result(!err && l.total >= 3, "without: LIST works (%s, %u filters)", err_name(err), l.total);
	err = pair(BLOOM_IOC_ESTIMATE, "cap-a", "cap-b", &p);
	result(!err && p.union_ >= 1, "without: ESTIMATE works (%s)", err_name(err));
	snap = save("cap-a", &len);
	result(snap && len == snap_a_len && !memcmp(snap, snap_a, len),
	       "without: SAVE works and gives the filter's bytes");
	free(snap);
	err = limits(false, 0, 0, NULL);
	result(!err, "without: LIMITS (read) works (%s)", err_name(err));
}

/* In a child: "0 0 1" maps for a user namespace of our own. */
static int map_root(void)
{
	static const char *const files[] = {
		"/proc/self/setgroups", "/proc/self/uid_map", "/proc/self/gid_map",
	};
	static const char *const text[] = { "deny", "0 0 1", "0 0 1" };
	int i, f;

	for (i = 0; i < 3; i++) {
		f = open(files[i], O_WRONLY);
		if (f < 0 || write(f, text[i], strlen(text[i])) < 0)
			return -1;
		close(f);
	}
	return 0;
}

/* A user namespace owning a new network namespace: its own filters. */
static int userns_owner(void)
{
	struct bloom_ioc_list l = {};
	struct bloom_ioc_info in = {};
	uint8_t bm = 0;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) || map_root())
		return 10;
	fd = open("/dev/bloom", O_RDWR);
	if (fd < 0)
		return 11;
	if (io(BLOOM_IOC_LIST, &l) || l.total != 0)
		return 1;	/* sees the host's filters */
	name_of(in.name, "cap-a");
	if (io(BLOOM_IOC_INFO, &in) != -ENOENT)
		return 2;
	if (create("cap-a", BLOOM_LAYOUT_STANDARD, BLOOM_KEY_ADDR) ||
	    create("cap-b", BLOOM_LAYOUT_STANDARD, BLOOM_KEY_ADDR))
		return 3;	/* cannot manage its own */
	if (batch(BLOOM_IOC_ADD, "cap-a", 77, NULL) ||
	    batch(BLOOM_IOC_TEST, "cap-a", 77, &bm) || bm != 1)
		return 4;
	if (pair(BLOOM_IOC_SWAP, "cap-a", "cap-b", NULL) ||
	    by_name(BLOOM_IOC_HALVE, "cap-a") ||
	    by_name(BLOOM_IOC_DESTROY, "cap-a") ||
	    by_name(BLOOM_IOC_DESTROY, "cap-b"))
		return 5;
	return 0;
}

/* A user namespace alone: capabilities there, none over the host's netns. */
static int userns_outsider(void)
{
	if (unshare(CLONE_NEWUSER) || map_root())
		return 10;
	fd = open("/dev/bloom", O_RDWR);
	if (fd < 0)
		return 11;
	if (create("cap-x", BLOOM_LAYOUT_BLOCKED, BLOOM_KEY_ADDR) != -EPERM)
		return 1;
	if (batch(BLOOM_IOC_ADD, "cap-a", 78, NULL) != -EPERM)
		return 2;
	if (by_name(BLOOM_IOC_DESTROY, "cap-a") != -EPERM)
		return 3;
	return 0;
}

static int in_child(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		exit(fn());
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 99;
}

static void cleanup(void)
{
	static const char *const names[] = {
		"cap-a", "cap-b", "cap-c", "cap-new", "cap-ren", "cap-rest",
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		by_name(BLOOM_IOC_DESTROY, names[i]);
}

int main(void)
{
	struct bloom_ioc_limits lim;
	struct state before, after;
	unsigned int i;
	int err, ret;

	fd = open("/dev/bloom", O_RDWR);
	if (fd < 0) {
		perror("caps_test: /dev/bloom");
		return 2;
	}
	cleanup();
	if (create("cap-a", BLOOM_LAYOUT_STANDARD, BLOOM_KEY_ADDR) ||
	    create("cap-b", BLOOM_LAYOUT_STANDARD, BLOOM_KEY_ADDR) ||
	    create("cap-c", BLOOM_LAYOUT_COUNTING, BLOOM_KEY_ADDR) ||
	    batch(BLOOM_IOC_ADD, "cap-a", 1, NULL) ||
	    batch(BLOOM_IOC_ADD, "cap-b", 2, NULL) ||
	    batch(BLOOM_IOC_ADD, "cap-c", 1, NULL) ||
	    !(snap_a = save("cap-a", &snap_a_len)) ||
	    limits(false, 0, 0, &lim)) {
		result(0, "test filters set up");
		cleanup();
		return 1;
	}
	filters_limit = lim.max_filters;
	bytes_limit = lim.max_bytes;

	capture(&before);
	if (net_admin(false)) {
		result(0, "CAP_NET_ADMIN can be dropped");
		return 1;
	}
	for (i = 0; i < NCHANGES; i++) {
		err = changes[i].fn();
		result(err == -EPERM, "without CAP_NET_ADMIN: %s is EPERM (%s)",
		       changes[i].what, err_name(err));
	}
	test_reads();
	net_admin(true);
	capture(&after);
	result(before.n >= 3 && same_state(&before, &after),
	       "the refused commands changed nothing (names, contents, limits)");

	for (i = 0; i < NCHANGES; i++) {
		err = changes[i].fn();
		result(!err, "with CAP_NET_ADMIN: %s works (%s)",
		       changes[i].what, err_name(err));
	}
	limits(true, filters_limit, bytes_limit, NULL);

	ret = in_child(userns_owner);
	result(ret == 0, "a user namespace owning its network namespace manages its own filters and sees none of the host's (step %d)", ret);
	ret = in_child(userns_outsider);
	result(ret == 0, "a user namespace without the host's network namespace cannot change its filters (step %d)", ret);
	cleanup();
	return failed;
}
