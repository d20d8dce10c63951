// SPDX-License-Identifier: GPL-2.0
/*
 * The loader of first_seen.bpf.c: find the filter's id by its name
 * (BLOOM_IOC_ID on /dev/bloom, in this namespace), write it into the
 * program's .rodata, load, attach to an interface, report the counters,
 * and detach on exit.
 *
 *   first-seen IFACE FILTER [-g] [-n PACKETS] [-t SECONDS] [-o OBJECT]
 *
 * -g attaches in generic mode (native by default), -n stops after
 * PACKETS IP packets, -t after SECONDS (default: on SIGINT or SIGTERM).
 * Build: cc -O2 -o first-seen first_seen.c -lbpf (with uapi/ on the
 * include path).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bloom_ioctl.h"
#include "first_seen.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static void __attribute__((noreturn)) fail(const char *what, int err)
{
	fprintf(stderr, "first-seen: %s: %s\n", what, strerror(err));
	exit(1);
}

/* The id of filter @name in this namespace. */
static __u32 filter_id(const char *name)
{
	struct bloom_ioc_id q = { 0 };
	int fd = open("/dev/bloom", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		fail("/dev/bloom", errno);
	if (snprintf(q.name, sizeof(q.name), "%s", name) >= (int)sizeof(q.name))
		fail(name, ENAMETOOLONG);
	if (ioctl(fd, BLOOM_IOC_ID, &q))
		fail(name, errno);
	close(fd);
	return q.id;
}

/* Each counter summed over the CPUs: a per-CPU map gives one a CPU. */
static void counters(int map_fd, int ncpu, __u64 sum[FS_NCOUNTERS])
{
	__u64 v[ncpu];
	__u32 k;
	int c;

	for (k = 0; k < FS_NCOUNTERS; k++) {
		sum[k] = 0;
		if (bpf_map_lookup_elem(map_fd, &k, v))
			continue;
		for (c = 0; c < ncpu; c++)
			sum[k] += v[c];
	}
}

static struct bpf_object *load(const char *path, __u32 id)
{
	struct first_seen_cfg cfg = { .filter_id = id };
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_map *rodata;
	int err;

	if (!obj)
		fail(path, errno);
	rodata = bpf_object__find_map_by_name(obj, ".rodata");
	if (!rodata || bpf_map__set_initial_value(rodata, &cfg, sizeof(cfg)))
		fail(path, EINVAL);
	err = bpf_object__load(obj);
	if (err)
		fail("loading the program (is bloom.ko loaded, with BTF?)", -err);
	return obj;
}

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, detach_opts);
	const char *path = "first_seen.bpf.o";
	__u32 flags = XDP_FLAGS_DRV_MODE;
	long packets = LONG_MAX, secs = LONG_MAX;
	__u64 sum[FS_NCOUNTERS];
	struct bpf_object *obj;
	time_t end;
	int opt, ifindex, prog_fd, map_fd, ncpu, err;
	struct bpf_program *prog;

	while ((opt = getopt(argc, argv, "gn:t:o:")) != -1) {
		switch (opt) {
		case 'g':
			flags = XDP_FLAGS_SKB_MODE;
			break;
		case 'n':
			packets = atol(optarg);
			break;
		case 't':
			secs = atol(optarg);
			break;
		case 'o':
			path = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 2 || packets <= 0 || secs <= 0)
		goto usage;
	ifindex = if_nametoindex(argv[optind]);
	if (!ifindex)
		fail(argv[optind], errno);
	ncpu = libbpf_num_possible_cpus();
	if (ncpu < 1)
		fail("the number of possible CPUs", -ncpu);
	obj = load(path, filter_id(argv[optind + 1]));
	prog = bpf_object__find_program_by_name(obj, "first_seen");
	map_fd = bpf_object__find_map_fd_by_name(obj, "first_seen_counters");
	if (!prog || map_fd < 0)
		fail(path, ENOENT);
	prog_fd = bpf_program__fd(prog);
	/* Never replace another program: fail if the interface has one. */
	err = bpf_xdp_attach(ifindex, prog_fd,
			     flags | XDP_FLAGS_UPDATE_IF_NOEXIST, NULL);
	if (err)
		fail("attaching", -err);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("attached to %s\n", argv[optind]);
	fflush(stdout);

	end = secs == LONG_MAX ? 0 : time(NULL) + secs;
	do {
		usleep(100000);
		counters(map_fd, ncpu, sum);
	} while (!stop && (__s64)sum[FS_PACKETS] < packets &&
		 (!end || time(NULL) < end));

	/* Only this program: another may have replaced it meanwhile. */
	detach_opts.old_prog_fd = prog_fd;
	err = bpf_xdp_detach(ifindex, flags | XDP_FLAGS_REPLACE, &detach_opts);
	counters(map_fd, ncpu, sum);
	printf("packets %llu new %llu repeats %llu errors %llu\n",
	       (unsigned long long)sum[FS_PACKETS],
	       (unsigned long long)sum[FS_NEW],
	       (unsigned long long)sum[FS_REPEATS],
	       (unsigned long long)sum[FS_ERRORS]);
	bpf_object__close(obj);
	if (err)
		fail("detaching", -err);
	return 0;
usage:
	fprintf(stderr,
		"usage: first-seen IFACE FILTER [-g] [-n PACKETS] [-t SECONDS] [-o OBJECT]\n");
	return 2;
}
