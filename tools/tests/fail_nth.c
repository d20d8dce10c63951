// SPDX-License-Identifier: GPL-2.0
/*
 * Fail the N-th fault-injectable call (allocation or user copy) of one
 * system call, through the per-task /proc/thread-self/fail-nth, for
 * N = 1, 2, ... until the call no longer reaches the fault:
 *
 *   fail-nth load MODULE.ko [MAX]   finit_module(), failing the 1st,
 *                                   2nd, ... call until it loads without
 *                                   reaching the fault; unloads it
 *   fail-nth netns [TAIL [STRIDE]]  the same for unshare(CLONE_NEWNET),
 *                                   with bloom.ko loaded: the last TAIL
 *                                   points (bloom's among them), and one
 *                                   in STRIDE of those before
 *
 * Every step must fail with ENOMEM (or EFAULT) and leave nothing behind,
 * or succeed with the module loaded, the namespace's /proc/net/bloom
 * there. Prints "ok - fault ..." lines and "# fault-points WHAT N"; every
 * run prints a result, and one that reaches no fault point at all fails
 * (nothing was injected, nothing tested).
 *
 * Built as a shared object too (libfailnth.so), for LD_PRELOAD into
 * iptables: with FAILNTH=N in the environment, the first call that
 * replaces an xtables table (setsockopt IPT_SO_SET_REPLACE, legacy) or
 * sends an nf_tables batch (sendmsg/sendto of NFNL_MSG_BATCH_BEGIN on
 * netlink, nft) is armed, and "INJECTED" is written to FAILNTH_OUT.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>

#define SO_SET_REPLACE	64	/* IPT_SO_SET_REPLACE, IP6T_SO_SET_REPLACE */

#define NETNS_FAR	1000000

static int nth_fd = -1;

static int arm(int n)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "%d", n);

	if (nth_fd < 0)
		nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	return nth_fd >= 0 && pwrite(nth_fd, s, len, 0) == len ? 0 : -1;
}

/* See fault_test.c: a read with one call left fails, and shows 0 once injected. */
static int disarm(void)
{
	char s[16] = "";
	ssize_t r = pread(nth_fd, s, sizeof(s) - 1, 0);
	int injected = r > 0 && atoi(s) == 0;

	while (arm(0))
		;
	return injected;
}

#ifdef FAILNTH_PRELOAD

static int armed_once;

static int want_arm(void)
{
	const char *n = getenv("FAILNTH");

	if (armed_once || !n)
		return 0;
	armed_once = 1;
	return atoi(n);
}

static void report(int injected)
{
	const char *out = getenv("FAILNTH_OUT");
	FILE *f = out ? fopen(out, "w") : NULL;

	if (f) {
		fprintf(f, "%d\n", injected);
		fclose(f);
	}
}

int setsockopt(int fd, int level, int opt, const void *val, socklen_t len)
{
	static int (*real)(int, int, int, const void *, socklen_t);
	int n = opt == SO_SET_REPLACE ? want_arm() : 0, r, e;

	if (!real)
		real = dlsym(RTLD_NEXT, "setsockopt");
	if (n)
		arm(n);
	r = real(fd, level, opt, val, len);
	e = errno;
	if (n)
		report(disarm());
	errno = e;
	return r;
}

static int is_batch(const void *buf, size_t len)
{
	const struct nlmsghdr *h = buf;

	return len >= sizeof(*h) && h->nlmsg_type == NFNL_MSG_BATCH_BEGIN;
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	static ssize_t (*real)(int, const struct msghdr *, int);
	int n = msg->msg_iovlen && is_batch(msg->msg_iov[0].iov_base,
					    msg->msg_iov[0].iov_len) ?
		want_arm() : 0, e;
	ssize_t r;

	if (!real)
		real = dlsym(RTLD_NEXT, "sendmsg");
	if (n)
		arm(n);
	r = real(fd, msg, flags);
	e = errno;
	if (n)
		report(disarm());
	errno = e;
	return r;
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags,
	       const struct sockaddr *to, socklen_t tolen)
{
	static ssize_t (*real)(int, const void *, size_t, int,
			       const struct sockaddr *, socklen_t);
	int n = is_batch(buf, len) ? want_arm() : 0, e;
	ssize_t r;

	if (!real)
		real = dlsym(RTLD_NEXT, "sendto");
	if (n)
		arm(n);
	r = real(fd, buf, len, flags, to, tolen);
	e = errno;
	if (n)
		report(disarm());
	errno = e;
	return r;
}

#else

static int failed;

static void result(int ok, const char *what, const char *fmt, ...)
{
	va_list ap;

	printf("%sok - fault %s: ", ok ? "" : "not ", what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failed |= !ok;
}

static int loaded(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	return !access(path, F_OK);
}

/*
 * finit_module(FILE) failing each call in turn: a failed load leaves
 * no module behind; a load that succeeds is unloaded again.
 */
static int load_steps(const char *file, int max)
{
	char name[64];
	const char *base = strrchr(file, '/');
	int n, fd, err, injected, errs = 0;

	snprintf(name, sizeof(name), "%s", base ? base + 1 : file);
	*strchrnul(name, '.') = 0;
	if (loaded(name)) {
		result(0, name, "not loaded before the test");
		return -1;
	}
	for (n = 1; n <= max; n++) {
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || arm(n)) {
			result(0, name, "%s %s (%s)", fd < 0 ? "open" :
			       "arm fail-nth for", file, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		err = syscall(SYS_finit_module, fd, "", 0) ? errno : 0;
		injected = disarm();
		close(fd);
		if (err && err != ENOMEM && err != EFAULT) {
			result(0, name, "load step %d fails with %s", n,
			       strerrorname_np(err));
			return -1;
		}
		if (err && !injected) {
			result(0, name, "load fails without a fault (%s)",
			       strerrorname_np(err));
			return -1;
		}
		if (err != 0 && loaded(name)) {
			result(0, name, "failed load %d leaves the module", n);
			return -1;
		}
		if (!err && syscall(SYS_delete_module, name, O_NONBLOCK)) {
			result(0, name, "unload after load step %d (%s)", n,
			       strerror(errno));
			return -1;
		}
		errs += err != 0;
		if (!err && !injected && n == 1) {
			result(0, name, "load reaches at least one fault point (none reached: fail-nth injects nothing?)");
			return -1;
		}
		if (!err && !injected) {
			result(1, name, "load: %d fault points, %d failed cleanly",
			       n - 1, errs);
			printf("# fault-points load-%s %d\n", name, n - 1);
			return 0;
		}
	}
	result(0, name, "load completes within %d fault points", max);
	return -1;
}

/*
 * In a child: unshare(CLONE_NEWNET) failing its @n-th call; when it
 * succeeds, the new namespace has bloom's /proc/net/bloom. Which errno
 * a failed creation returns is up to the subsystem whose init failed
 * (ENOMEM mostly; some say ENOBUFS or other): any will do, when the
 * fault was injected. Exit status: 0 succeeded, 1 failed, 3 the
 * namespace has no /proc/net/bloom; +10 when the fault was injected.
 */
static int netns_child(int n)
{
	struct stat st;
	int err, injected;

	if (arm(n))
		return 2;
	err = unshare(CLONE_NEWNET) ? errno : 0;
	injected = disarm() ? 10 : 0;
	if (err && err != ENOMEM)
		printf("# netns step %d: %s\n", n, strerrorname_np(err));
	fflush(stdout);
	if (err)
		return 1 + injected;
	if (stat("/proc/self/net/bloom", &st))
		return 3 + injected;
	return injected;
}

/*
 * The fault points of one namespace creation: arm far ahead, and see
 * how far the count went down.
 */
static int netns_points(void)
{
	int *points = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char s[16] = "";
	pid_t pid;
	int n = -1;

	if (points == MAP_FAILED)
		return -1;
	pid = fork();
	if (!pid) {
		if (arm(NETNS_FAR) || unshare(CLONE_NEWNET) ||
		    pread(nth_fd, s, sizeof(s) - 1, 0) <= 0)
			_exit(1);
		*points = NETNS_FAR - atoi(s);
		_exit(0);
	}
	if (pid > 0 && waitpid(pid, NULL, 0) == pid)
		n = *points;
	munmap(points, sizeof(int));
	return n;
}

/* Step @n of namespace creation; 0 succeeded, 1 failed cleanly, -1 bad. */
static int netns_step(int n)
{
	int status, code;
	pid_t pid = fork();

	if (!pid)
		_exit(netns_child(n));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		result(0, "netns", "step %d child died", n);
		return -1;
	}
	code = WEXITSTATUS(status);
	if (code % 10 >= 2 || code == 1) {
		result(0, "netns", "step %d: %s", n,
		       code == 1 ? "fails without a fault" :
		       code % 10 == 2 ? "cannot arm fail-nth" :
		       "the new namespace has no /proc/net/bloom");
		return -1;
	}
	return code == 11;
}

/*
 * Creating a namespace passes thousands of fault points, nearly all in
 * the kernel's own subsystems, each step a namespace set up and torn
 * down. bloom registered its pernet operations last (it is loaded after
 * every built-in subsystem), so its init and everything after it come
 * among the last points: those @tail are failed one by one, the rest
 * one in @stride, then the creation must succeed untouched.
 */
static int netns_steps(int tail, int stride)
{
	int total = netns_points(), n, r, steps = 0, errs = 0;

	if (total <= 0) {
		result(0, "netns", "count the fault points of a creation");
		return -1;
	}
	for (n = 1; n <= total + 1; n++) {
		if (n <= total - tail && n % stride)
			continue;
		r = netns_step(n);
		if (r < 0)
			return -1;
		steps++;
		errs += r;
		if (n > total && r) {
			result(0, "netns", "creation completes after %d fault points",
			       total);
			return -1;
		}
	}
	result(1, "netns",
	       "creation: %d fault points, %d failed (the last %d, one in %d before), %d cleanly",
	       total, steps - 1, tail, stride, errs);
	printf("# fault-points netns %d (%d failed in turn)\n", total,
	       steps - 1);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "load")) {
		load_steps(argv[2], argc > 3 ? atoi(argv[3]) : 2000);
		return failed;
	}
	if (argc >= 2 && !strcmp(argv[1], "netns")) {
		netns_steps(argc > 2 ? atoi(argv[2]) : 200,
			    argc > 3 ? atoi(argv[3]) : 25);
		return failed;
	}
	fprintf(stderr, "usage: fail-nth load MODULE.ko [MAX] | netns [TAIL [STRIDE]]\n");
	printf("not ok - fault: fail-nth run with usage: load MODULE.ko [MAX] | netns [TAIL [STRIDE]]\n");
	return 2;
}

#endif
