// SPDX-License-Identifier: GPL-2.0
/*
 * Cost per key of batched ADD and TEST through /dev/bloom, at several
 * batch sizes, side by side in one run. Run in the guest with bloom.ko
 * loaded: scripts/bench/ioctl.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "../../uapi/bloom_ioctl.h"

#define KEYS	(1U << 20)

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ns per key of @cmd over KEYS keys, @per keys per call. */
static double run(int fd, unsigned long cmd, struct bloom_key_addr *keys,
		  unsigned char *bm, uint32_t per)
{
	uint32_t total = per == 1 ? KEYS / 16 : KEYS, i;
	double t = now_ns();

	for (i = 0; i < total; i += per) {
		struct bloom_ioc_batch b = {
			.name = "bench", .keys = (uintptr_t)(keys + i),
			.results = (uintptr_t)bm, .count = per,
			.stride = sizeof(*keys),
		};

		if (ioctl(fd, cmd, &b)) {
			perror("ioctl");
			exit(1);
		}
	}
	return (now_ns() - t) / total;
}

int main(void)
{
	static const uint32_t sizes[] = { 1, 64, 4096, 65536 };
	struct bloom_ioc_create c = { .name = "bench", .capacity = KEYS,
				      .fpr_ppb = 10000000,
				      .key_type = BLOOM_KEY_ADDR };
	struct bloom_ioc_name d = { .name = "bench" };
	struct bloom_key_addr *keys = calloc(KEYS, sizeof(*keys));
	unsigned char *bm = malloc(65536 / 8);
	int fd = open("/dev/bloom", O_RDWR);
	uint32_t i, s;

	if (fd < 0 || !keys || !bm) {
		perror("bench-ioctl");
		return 1;
	}
	for (i = 0; i < KEYS; i++) {
		keys[i].addr[10] = keys[i].addr[11] = 0xff;
		memcpy(&keys[i].addr[12], &i, 4);
	}
	printf("%8s %14s %14s\n", "batch", "add ns/key", "test ns/key");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		double add, test;

		ioctl(fd, BLOOM_IOC_DESTROY, &d);
		if (ioctl(fd, BLOOM_IOC_CREATE, &c)) {
			perror("create");
			return 1;
		}
		c.bits = c.hashes = c.seed = 0;
		add = run(fd, BLOOM_IOC_ADD, keys, bm, sizes[s]);
		test = run(fd, BLOOM_IOC_TEST, keys, bm, sizes[s]);
		printf("%8u %14.1f %14.1f\n", sizes[s], add, test);
	}
	ioctl(fd, BLOOM_IOC_DESTROY, &d);
	return 0;
}
