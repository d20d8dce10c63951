// SPDX-License-Identifier: GPL-2.0
/*
 * Regression tests for what an outside review of bloom.ko found, from
 * userspace through /dev/bloom. Run in the test guest with bloom.ko
 * loaded; prints "ok - hard NAME" / "not ok - hard NAME".
 *
 *  - A reader that stalls SAVE's copy to its buffer (userfaultfd) must
 *    not hold up registry changes, INFO, LIST or /proc/net/bloom.
 *  - INFO refuses non-zero reserved fields.
 *  - RESTORE refuses a snapshot with bits set past m.
 *  - Stats of a filter of more than 2^32 bits with one key set finish.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/userfaultfd.h>
#include <xxhash.h>
#include "../../uapi/bloom_ioctl.h"

#define STALL_BYTES	(1U << 20)	/* payload of the stalled SAVE */
#define WAIT_SECONDS	20

static int fd, failed;

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok - hard ", ok ? "" : "not ");
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

static void name_of(char *dst, const char *name)
{
	memset(dst, 0, BLOOM_NAME_MAX);
	snprintf(dst, BLOOM_NAME_MAX, "%s", name);
}

static int create(const char *name, __u64 bits, __u32 k, __u8 layout)
{
	struct bloom_ioc_create c = { .bits = bits, .hashes = k,
				      .layout = layout,
				      .key_type = BLOOM_KEY_BYTES };

	name_of(c.name, name);
	return io(BLOOM_IOC_CREATE, &c);
}

static int destroy(const char *name)
{
	struct bloom_ioc_name n = { 0 };

	name_of(n.name, name);
	return io(BLOOM_IOC_DESTROY, &n);
}

static int add_key(const char *name, const char *key)
{
	struct { __u16 len; char s[14]; } rec = { 0 };
	struct bloom_ioc_batch b = { .count = 1, .stride = sizeof(rec) };

	rec.len = (__u16)strlen(key);
	memcpy(rec.s, key, rec.len);
	name_of(b.name, name);
	b.keys = (uintptr_t)&rec;
	return io(BLOOM_IOC_ADD, &b);
}

static int info(const char *name, struct bloom_ioc_info *in)
{
	memset(in, 0, sizeof(*in));
	name_of(in->name, name);
	return io(BLOOM_IOC_INFO, in);
}

struct stalled_save {
	void *buf;
	int err;
};

static void *save_thread(void *arg)
{
	struct stalled_save *s = arg;
	struct bloom_ioc_save sv = { .buf = (uintptr_t)s->buf,
				     .len = STALL_BYTES };

	name_of(sv.name, "hard_stall");
	s->err = io(BLOOM_IOC_SAVE, &sv);
	return NULL;
}

/* In a child, so that a registry stuck behind the SAVE cannot hang us. */
static int admin_ops(void)
{
	struct bloom_ioc_info in;
	char line[4096];
	FILE *proc;
	int n = 0;

	if (create("hard_other", 4096, 3, BLOOM_LAYOUT_STANDARD) ||
	    info("hard_stall", &in) || destroy("hard_other"))
		return 1;
	proc = fopen("/proc/net/bloom", "r");
	if (!proc)
		return 1;
	while (fgets(line, sizeof(line), proc))
		n += !strncmp(line, "hard_stall ", 11);
	fclose(proc);
	return n == 1 ? 0 : 1;
}

static int wait_child(pid_t pid, int seconds)
{
	int status, i;

	for (i = 0; i < seconds * 10; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
		usleep(100000);
	}
	kill(pid, SIGKILL);
	return -1;
}

static void stalled_reader_blocks_nobody(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct stalled_save s = { 0 };
	struct pollfd p;
	pthread_t t;
	pid_t pid;
	int uffd, rc;

	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		result(0, "userfaultfd available (%s)", strerror(errno));
		return;
	}
	s.buf = mmap(NULL, STALL_BYTES, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	reg.range.start = (uintptr_t)s.buf;
	reg.range.len = STALL_BYTES;
	if (s.buf == MAP_FAILED || ioctl(uffd, UFFDIO_REGISTER, &reg) ||
	    create("hard_stall", STALL_BYTES * 8ULL, 3,
		   BLOOM_LAYOUT_STANDARD)) {
		result(0, "stall set-up (%s)", strerror(errno));
		return;
	}
	pthread_create(&t, NULL, save_thread, &s);
	/* The SAVE is now inside copy_to_user(), waiting on us. */
	p = (struct pollfd){ .fd = uffd, .events = POLLIN };
	result(poll(&p, 1, WAIT_SECONDS * 1000) == 1,
	       "SAVE stalls on a userfaultfd buffer");
	pid = fork();
	if (!pid) {
		close(uffd);	/* only the parent may release the fault */
		_exit(admin_ops());
	}
	rc = wait_child(pid, WAIT_SECONDS);
	result(rc == 0,
	       "CREATE, INFO, DESTROY and /proc/net/bloom go on while a SAVE is stalled (%s)",
	       rc < 0 ? "hung" : rc ? "failed" : "done");
	/* Unregistering wakes the fault: the copy then completes. */
	ioctl(uffd, UFFDIO_UNREGISTER, &reg.range);
	close(uffd);
	pthread_join(t, NULL);
	result(!s.err, "the stalled SAVE completes once released (%s)",
	       s.err ? strerror(-s.err) : "0");
	destroy("hard_stall");
	munmap(s.buf, STALL_BYTES);
}

static void info_refuses_reserved(void)
{
	struct bloom_ioc_info in;
	int err;

	create("hard_info", 4096, 3, BLOOM_LAYOUT_STANDARD);
	memset(&in, 0, sizeof(in));
	name_of(in.name, "hard_info");
	in.rotations = 1;
	result(io(BLOOM_IOC_INFO, &in) == -EINVAL,
	       "INFO with an output word set (rotations) is EINVAL");
	memset(&in, 0, sizeof(in));
	name_of(in.name, "hard_info");
	in.generations = 1;
	result(io(BLOOM_IOC_INFO, &in) == -EINVAL,
	       "INFO with generations set is EINVAL");
	/* floor(4096 ln 2 / 3) */
	err = info("hard_info", &in);
	result(!err && in.capacity == 946,
	       "INFO reports the default capacity m ln2 / k (%llu, %s)",
	       (unsigned long long)in.capacity, strerror(-err));
	destroy("hard_info");
}

/* Save a filter of 8190 bits, set bit 8191 in the last word, reseal. */
static void restore_refuses_bits_past_m(void)
{
	size_t hdr = sizeof(struct bloom_snap_hdr), len = hdr + 1024;
	struct bloom_ioc_restore r = { .flags = 0 };
	struct bloom_ioc_save s = { .len = 1024 };
	struct bloom_snap_hdr *h;
	XXH64_state_t *st = XXH64_createState();
	unsigned char *img = calloc(1, len);
	__u64 *last;

	create("hard_tail", 8190, 3, BLOOM_LAYOUT_STANDARD);
	add_key("hard_tail", "a key");
	name_of(s.name, "hard_tail");
	s.buf = (uintptr_t)(img + hdr);
	if (io(BLOOM_IOC_SAVE, &s)) {
		result(0, "save for the tail test");
		return;
	}
	h = (struct bloom_snap_hdr *)img;
	*h = s.hdr;
	last = (__u64 *)(img + len) - 1;
	*last |= 1ULL << 63;	/* little-endian host: bit 8191 */
	XXH64_reset(st, 0);
	h->checksum = 0;
	XXH64_update(st, img, len);
	h->checksum = XXH64_digest(st);
	name_of(r.name, "hard_tail2");
	r.buf = (uintptr_t)img;
	r.len = len;
	result(io(BLOOM_IOC_RESTORE, &r) == -ERANGE,
	       "RESTORE of a snapshot with a bit past m is ERANGE");
	*last &= ~(1ULL << 63);
	h->checksum = 0;
	XXH64_reset(st, 0);
	XXH64_update(st, img, len);
	h->checksum = XXH64_digest(st);
	result(io(BLOOM_IOC_RESTORE, &r) == 0,
	       "the same snapshot without it restores");
	destroy("hard_tail");
	destroy("hard_tail2");
	XXH64_freeState(st);
	free(img);
}

/* The reported trigger: m = 2^32 + 64 bits, k = 1, one key. */
static void stats_of_huge_sparse_filter(void)
{
	struct bloom_ioc_info in;
	pid_t pid;
	int err, rc;

	err = create("hard_huge", (1ULL << 32) + 64, 1, BLOOM_LAYOUT_STANDARD);
	if (err == -ENOMEM) {
		printf("ok - hard stats of a 2^32+64-bit filter # SKIP no memory for 512 MiB\n");
		return;
	}
	add_key("hard_huge", "one");
	/* In a child: a stats walk that spins cannot be interrupted. */
	pid = fork();
	if (!pid)
		_exit(info("hard_huge", &in) || in.bits_set != 1 ||
		      in.est_card != 1);
	rc = wait_child(pid, 300);
	result(rc == 0,
	       "stats of a 2^32+64-bit filter with one key finish, 1 bit set, about 1 key (%s)",
	       rc < 0 ? "hung" : rc ? "wrong values" : "done");
	if (rc >= 0)
		destroy("hard_huge");
}

int main(void)
{
	fd = open("/dev/bloom", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("not ok - hard open /dev/bloom: %s\n", strerror(errno));
		return 1;
	}
	info_refuses_reserved();
	restore_refuses_bits_past_m();
	stalled_reader_blocks_nobody();
	stats_of_huge_sparse_filter();
	return failed;
}
