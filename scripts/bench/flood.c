// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark traffic: IPv4 UDP from many source addresses through one raw
 * socket, and the address lists to load into filters and sets.
 *
 *   bench-flood list N SEED             print N addresses, one a line
 *   bench-flood send DST COUNT N SEED   send COUNT packets; source i is
 *                                       address (i % 2N) of the list for
 *                                       N SEED: half listed, half not
 *
 * "send" prints the wall time per packet: with veth, the receiving
 * namespace's INPUT hook runs in the sender's softirq, so rule cost
 * shows up here.
 */
#include <arpa/inet.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

/* Address @i of the sequence for @seed: spread, never 0/8, 127/8, 224/3. */
static uint32_t addr_at(uint64_t seed, uint64_t i)
{
	uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (uint32_t)(1 + z % 126) << 24 | ((uint32_t)(z >> 40) & 0xffffff);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int flood(const char *dst, uint64_t count, uint64_t n, uint64_t seed)
{
	struct {
		struct iphdr ip;
		struct udphdr udp;
		char data[8];
	} pkt = {};
	struct sockaddr_in to = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	uint64_t i;
	double t;

	if (fd < 0 || inet_pton(AF_INET, dst, &to.sin_addr) != 1) {
		perror("bench-flood");
		return 1;
	}
	pkt.ip.version = 4;
	pkt.ip.ihl = 5;
	pkt.ip.ttl = 64;
	pkt.ip.protocol = IPPROTO_UDP;
	pkt.ip.tot_len = htons(sizeof(pkt));
	pkt.ip.daddr = to.sin_addr.s_addr;
	pkt.udp.source = htons(40000);
	pkt.udp.dest = htons(9);
	pkt.udp.len = htons(sizeof(pkt) - sizeof(pkt.ip));
	t = now();
	for (i = 0; i < count; i++) {
		pkt.ip.saddr = htonl(addr_at(seed, i % (2 * n)));
		if (sendto(fd, &pkt, sizeof(pkt), 0, (void *)&to, sizeof(to)) < 0) {
			perror("sendto");
			return 1;
		}
	}
	printf("%.0f\n", (now() - t) / count * 1e9);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t i, n;

	if (argc == 4 && !strcmp(argv[1], "list")) {
		n = strtoull(argv[2], NULL, 0);
		for (i = 0; i < n; i++) {
			uint32_t a = addr_at(strtoull(argv[3], NULL, 0), i);

			printf("%u.%u.%u.%u\n", a >> 24, a >> 16 & 255,
			       a >> 8 & 255, a & 255);
		}
		return 0;
	}
	if (argc == 6 && !strcmp(argv[1], "send"))
		return flood(argv[2], strtoull(argv[3], NULL, 0),
			     strtoull(argv[4], NULL, 0),
			     strtoull(argv[5], NULL, 0));
	fprintf(stderr, "usage: bench-flood list N SEED | send DST COUNT N SEED\n");
	return 2;
}
