// SPDX-License-Identifier: GPL-2.0
/*
 * Test traffic: UDP packets from arbitrary source addresses (IPv4 or
 * IPv6), using transparent sockets so no address needs configuring.
 *
 *   bloom-send [--ttl N] DST DPORT SRC[,SPORT]...   one packet from each
 *                                           source, payload "bloom"
 *   bloom-send [--ttl N] DST DPORT -        from stdin, one a line:
 *                                           SRC[,SPORT] [PAYLOAD] (the rest
 *                                           of the line; default "bloom")
 *   bloom-send --recv PORT                  print each UDP datagram's payload
 *                                           to PORT (IPv4 or IPv6) as a line,
 *                                           until one reads "END"
 *   bloom-send --fragment DST DPORT SRC,SPORT   a later IPv4 fragment whose
 *                                           payload starts like UDP ports
 *   bloom-send --truncated DST DPORT SRC    IPv4 "UDP" with 2 bytes of header
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef IPV6_TRANSPARENT
#define IPV6_TRANSPARENT 75
#endif

static int ttl = -1;	/* --ttl: the sockets' TTL or hop limit */

union addr {
	struct sockaddr sa;
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;
};

static int parse(const char *text, unsigned int port, union addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, text, &a->v4.sin_addr) == 1) {
		a->v4.sin_family = AF_INET;
		a->v4.sin_port = htons(port);
		return sizeof(a->v4);
	}
	if (inet_pton(AF_INET6, text, &a->v6.sin6_addr) == 1) {
		a->v6.sin6_family = AF_INET6;
		a->v6.sin6_port = htons(port);
		return sizeof(a->v6);
	}
	return -1;
}

/* "ADDR" or "ADDR,PORT" (IPv6 too: the port follows the last comma). */
static int send_from(const char *src_text, const union addr *dst, int dlen,
		     const char *payload)
{
	size_t plen = strlen(payload);
	char buf[128], *comma;
	unsigned int sport = 40000;
	union addr src;
	int fd, one = 1, slen;

	snprintf(buf, sizeof(buf), "%s", src_text);
	comma = strrchr(buf, ',');
	if (comma) {
		*comma = 0;
		sport = atoi(comma + 1);
	}
	slen = parse(buf, sport, &src);
	if (slen < 0 || src.sa.sa_family != dst->sa.sa_family) {
		fprintf(stderr, "bloom-send: bad source '%s'\n", src_text);
		return -1;
	}
	fd = socket(src.sa.sa_family, SOCK_DGRAM, 0);
	if (fd < 0)
		return -1;
	if (src.sa.sa_family == AF_INET)
		setsockopt(fd, SOL_IP, IP_TRANSPARENT, &one, sizeof(one));
	else
		setsockopt(fd, SOL_IPV6, IPV6_TRANSPARENT, &one, sizeof(one));
	if (ttl >= 0 &&
	    (src.sa.sa_family == AF_INET ?
	     setsockopt(fd, SOL_IP, IP_TTL, &ttl, sizeof(ttl)) :
	     setsockopt(fd, SOL_IPV6, IPV6_UNICAST_HOPS, &ttl, sizeof(ttl)))) {
		perror("bloom-send: --ttl");
		close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, &src.sa, slen) ||
	    sendto(fd, payload, plen, 0, &dst->sa, dlen) != (ssize_t)plen) {
		fprintf(stderr, "bloom-send: from %s: %s\n", src_text,
			strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* Odd IPv4 packets through a raw socket: a later fragment or a runt. */
static int send_odd(const char *mode, const char *dst, unsigned int dport,
		    const char *src)
{
	struct {
		struct iphdr ip;
		unsigned char l4[8];
	} pkt = { .ip = { .version = 4, .ihl = 5, .ttl = 64,
			  .protocol = IPPROTO_UDP } };
	unsigned int sport = 0, len = sizeof(pkt);
	struct sockaddr_in to = { .sin_family = AF_INET };
	char buf[64], *comma;
	int fd;

	snprintf(buf, sizeof(buf), "%s", src);
	comma = strrchr(buf, ',');
	if (comma) {
		*comma = 0;
		sport = atoi(comma + 1);
	}
	if (inet_pton(AF_INET, dst, &to.sin_addr) != 1 ||
	    inet_pton(AF_INET, buf, &pkt.ip.saddr) != 1)
		return 2;
	pkt.ip.daddr = to.sin_addr.s_addr;
	pkt.l4[0] = sport >> 8;
	pkt.l4[1] = sport;
	pkt.l4[2] = dport >> 8;
	pkt.l4[3] = dport;
	if (!strcmp(mode, "--fragment"))
		pkt.ip.frag_off = htons(8);	/* offset 64 bytes, last */
	else
		len = sizeof(pkt.ip) + 2;	/* cuts the ports in half */
	pkt.ip.tot_len = htons(len);
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0 || sendto(fd, &pkt, len, 0, (void *)&to, sizeof(to)) != (int)len) {
		perror("bloom-send");
		return 1;
	}
	close(fd);
	return 0;
}

/* --recv PORT: a dual-stack socket; a line per datagram until "END". */
static int recv_lines(unsigned int port)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6,
				  .sin6_port = htons(port) };
	char buf[2048];
	int fd, off = 0;
	ssize_t n;

	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	if (fd < 0 || setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off,
				 sizeof(off)) ||
	    bind(fd, (void *)&a, sizeof(a))) {
		perror("bloom-send: --recv");
		return 1;
	}
	while ((n = recv(fd, buf, sizeof(buf) - 1, 0)) >= 0) {
		buf[n] = 0;
		if (!strcmp(buf, "END"))
			return 0;
		printf("%s\n", buf);
		fflush(stdout);
	}
	perror("bloom-send: recv");
	return 1;
}

int main(int argc, char **argv)
{
	char line[256], *payload;
	union addr dst;
	int dlen, i, bad = 0;

	if (argc == 3 && !strcmp(argv[1], "--recv"))
		return recv_lines(atoi(argv[2]));
	if (argc == 5 && (!strcmp(argv[1], "--fragment") ||
			  !strcmp(argv[1], "--truncated")))
		return send_odd(argv[1], argv[2], atoi(argv[3]), argv[4]);
	if (argc > 2 && !strcmp(argv[1], "--ttl")) {
		ttl = atoi(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc < 4 || (dlen = parse(argv[1], atoi(argv[2]), &dst)) < 0) {
		fprintf(stderr, "usage: bloom-send [--ttl N] DST DPORT SRC[,SPORT]... | -\n");
		return 2;
	}
	if (!strcmp(argv[3], "-")) {
		while (fgets(line, sizeof(line), stdin)) {
			line[strcspn(line, "\n")] = 0;
			payload = strchr(line, ' ');
			if (payload)
				*payload++ = 0;
			if (*line)
				bad |= send_from(line, &dst, dlen,
						 payload ?: "bloom");
		}
	} else {
		for (i = 3; i < argc; i++)
			bad |= send_from(argv[i], &dst, dlen, "bloom");
	}
	return bad ? 1 : 0;
}
