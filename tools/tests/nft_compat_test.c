// SPDX-License-Identifier: GPL-2.0
/*
 * The bloom match at the kernel boundary: rules are sent to nf_tables
 * directly (libnftnl, libmnl), as nft_compat "match" expressions named
 * "bloom", revision 0 or 1, carrying a raw struct xt_bloom_mtinfo0 or
 * xt_bloom_mtinfo1, with no iptables extension in between to refuse bad
 * input first. Checks that the kernel itself
 *   - refuses the match in the bridge and ARP families (it reads IP
 *     headers: it exists for IPv4 and IPv6 only);
 *   - refuses each malformed match info with checkentry's errno;
 *   - accepts a good rule in the ip and ip6 families, which then hold
 *     the filter (so that the refusals cannot come from refusing all).
 * Needs bloom.ko and xt_bloom.ko loaded; makes its own filters and
 * tables, and removes them. Prints "ok - nft_compat: ..." lines.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include "../../uapi/bloom_ioctl.h"
#include "../../uapi/xt_bloom.h"

#define TABLE	"bloom_nftc"
#define CHAIN	"c"
#define F_ADDR	"nftc-addr"
#define F_NET	"nftc-net"
#define F_DIGEST "nftc-digest"

/* Revision 1 is revision 0's layout with a padding byte given a meaning. */
_Static_assert(sizeof(struct xt_bloom_mtinfo0) ==
	       sizeof(struct xt_bloom_mtinfo1), "one layout");

static struct mnl_socket *nl;
static uint32_t seq;
static int dev = -1, failed;

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok - nft_compat: ", ok ? "" : "not ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failed |= !ok;
}

static const char *err_name(int err)
{
	static char buf[64];

	if (!err)
		return "accepted";
	snprintf(buf, sizeof(buf), "%s", strerrorname_np(err) ?: "?");
	return buf;
}

/*
 * Sends one nf_tables batch holding the messages build() puts into it,
 * and returns 0 or the errno of the first message the kernel refused (a
 * refused message aborts the whole batch).
 */
typedef void (*build_fn)(struct mnl_nlmsg_batch *b, const void *arg);

static int send_batch(build_fn build, const void *arg)
{
	static char buf[65536];
	struct mnl_nlmsg_batch *b;
	uint32_t first, last;
	int err = 0;

	b = mnl_nlmsg_batch_start(buf, sizeof(buf));
	nftnl_batch_begin(mnl_nlmsg_batch_current(b), seq++);
	mnl_nlmsg_batch_next(b);
	first = seq;
	build(b, arg);
	last = seq - 1;
	nftnl_batch_end(mnl_nlmsg_batch_current(b), seq++);
	mnl_nlmsg_batch_next(b);
	if (mnl_socket_sendto(nl, mnl_nlmsg_batch_head(b),
			      mnl_nlmsg_batch_size(b)) < 0) {
		perror("nft_compat_test: sendto");
		exit(2);
	}
	mnl_nlmsg_batch_stop(b);

	/*
	 * Every message asked for an ack, and the kernel goes on through
	 * the batch after an error: read up to the last message's answer.
	 */
	for (;;) {
		struct nlmsghdr *nlh;
		int len;

		len = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (len < 0) {
			perror("nft_compat_test: recvfrom");
			exit(2);
		}
		for (nlh = (void *)buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

			if (nlh->nlmsg_type != NLMSG_ERROR ||
			    nlh->nlmsg_seq < first || nlh->nlmsg_seq > last)
				continue;
			if (e->error && !err)
				err = -e->error;
			if (nlh->nlmsg_seq == last)
				return err;
		}
	}
}

static struct nlmsghdr *hdr(struct mnl_nlmsg_batch *b, int type, int family,
			    int flags)
{
	return nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(b), type, family,
				     flags | NLM_F_ACK, seq++);
}

static void build_table(struct mnl_nlmsg_batch *b, const void *arg)
{
	int family = *(const int *)arg;
	struct nftnl_table *t = nftnl_table_alloc();
	struct nftnl_chain *c = nftnl_chain_alloc();

	nftnl_table_set_str(t, NFTNL_TABLE_NAME, TABLE);
	nftnl_table_nlmsg_build_payload(hdr(b, NFT_MSG_NEWTABLE, family,
					    NLM_F_CREATE), t);
	mnl_nlmsg_batch_next(b);
	/* A chain with no hook: enough for the rule's checkentry to run. */
	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, TABLE);
	nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, CHAIN);
	nftnl_chain_nlmsg_build_payload(hdr(b, NFT_MSG_NEWCHAIN, family,
					    NLM_F_CREATE), c);
	mnl_nlmsg_batch_next(b);
	nftnl_chain_free(c);
	nftnl_table_free(t);
}

static void build_deltable(struct mnl_nlmsg_batch *b, const void *arg)
{
	int family = *(const int *)arg;
	struct nftnl_table *t = nftnl_table_alloc();

	nftnl_table_set_str(t, NFTNL_TABLE_NAME, TABLE);
	nftnl_table_nlmsg_build_payload(hdr(b, NFT_MSG_DELTABLE, family, 0), t);
	mnl_nlmsg_batch_next(b);
	nftnl_table_free(t);
}

struct rule_arg {
	int family;
	int rev;
	struct xt_bloom_mtinfo1 info;
};

static void build_rule(struct mnl_nlmsg_batch *b, const void *arg)
{
	const struct rule_arg *ra = arg;
	struct nftnl_rule *r = nftnl_rule_alloc();
	struct nftnl_expr *e = nftnl_expr_alloc("match");
	void *info = malloc(sizeof(ra->info));	/* the expression frees it */

	if (!info)
		exit(2);
	memcpy(info, &ra->info, sizeof(ra->info));
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, TABLE);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, CHAIN);
	nftnl_expr_set_str(e, NFTNL_EXPR_MT_NAME, "bloom");
	nftnl_expr_set_u32(e, NFTNL_EXPR_MT_REV, ra->rev);
	nftnl_expr_set(e, NFTNL_EXPR_MT_INFO, info, sizeof(ra->info));
	nftnl_rule_add_expr(r, e);
	nftnl_rule_nlmsg_build_payload(hdr(b, NFT_MSG_NEWRULE, ra->family,
					   NLM_F_CREATE | NLM_F_APPEND), r);
	mnl_nlmsg_batch_next(b);
	nftnl_rule_free(r);
}

static int table(int family)
{
	return send_batch(build_table, &family);
}

static int deltable(int family)
{
	return send_batch(build_deltable, &family);
}

static int rule_rev(int family, int rev, const struct xt_bloom_mtinfo1 *info)
{
	struct rule_arg ra = { .family = family, .rev = rev, .info = *info };

	return send_batch(build_rule, &ra);
}

static int rule(int family, const struct xt_bloom_mtinfo0 *info)
{
	struct xt_bloom_mtinfo1 info1;

	memcpy(&info1, info, sizeof(info1));
	return rule_rev(family, 0, &info1);
}

static struct xt_bloom_mtinfo0 good(const char *name, __u8 key_type)
{
	struct xt_bloom_mtinfo0 info;

	memset(&info, 0, sizeof(info));
	snprintf(info.name, sizeof(info.name), "%s", name);
	info.key_type = key_type;
	return info;
}

/* /dev/bloom: make a filter; how many rules and kernel users hold one. */
static int create(const char *name, __u8 key_type)
{
	struct bloom_ioc_create c = { .bits = 4096, .hashes = 3,
				      .key_type = key_type };

	snprintf(c.name, sizeof(c.name), "%s", name);
	return ioctl(dev, BLOOM_IOC_CREATE, &c) ? -errno : 0;
}

static void destroy(const char *name)
{
	struct bloom_ioc_name n = {};

	snprintf(n.name, sizeof(n.name), "%s", name);
	ioctl(dev, BLOOM_IOC_DESTROY, &n);
}

static long users(const char *name)
{
	struct bloom_ioc_info in = {};

	snprintf(in.name, sizeof(in.name), "%s", name);
	return ioctl(dev, BLOOM_IOC_INFO, &in) ? -errno : (long)in.users;
}

/*
 * nf_tables frees a deleted rule's expressions from a work queue after
 * the commit: wait (up to 5 s) for the filter's holders to go.
 */
static long users_settled(const char *name, long want)
{
	long n;
	int i;

	for (i = 0; i < 50 && (n = users(name)) != want && n >= 0; i++)
		usleep(100000);
	return n;
}

static const struct { int family; const char *name; } families[] = {
	{ NFPROTO_IPV4, "ip" }, { NFPROTO_IPV6, "ip6" },
	{ NFPROTO_BRIDGE, "bridge" }, { NFPROTO_ARP, "arp" },
};

static void test_families(void)
{
	struct xt_bloom_mtinfo0 info = good(F_ADDR, BLOOM_KEY_ADDR);
	unsigned int i;
	long held;
	int err;

	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		int f = families[i].family;
		bool ip = f == NFPROTO_IPV4 || f == NFPROTO_IPV6;

		err = table(f);
		if (err) {
			result(0, "%s: a table and chain can be made (%s)",
			       families[i].name, err_name(err));
			continue;
		}
		err = rule(f, &info);
		if (ip)
			result(!err, "%s: a good bloom rule is accepted (%s)",
			       families[i].name, err_name(err));
		else
			result(err != 0, "%s: the bloom match is refused (%s)",
			       families[i].name, err_name(err));
		/* An accepted rule holds the filter until its table goes. */
		result(users(F_ADDR) == (ip ? 1 : 0),
		       "%s: the filter is held by %d rule%s (users %ld)",
		       families[i].name, ip, ip ? "" : "s", users(F_ADDR));
		err = deltable(f);
		held = users_settled(F_ADDR, 0);
		result(!err && held == 0,
		       "%s: deleting the table releases the filter (%s, users %ld)",
		       families[i].name, err_name(err), held);
	}
}

/* Each malformed info differs from a good one in one field. */
static void test_checkentry(void)
{
	static const struct {
		const char *what;
		const char *filter;
		__u8 key_type, flags, pad_byte;
		bool unterminated;
		int want;
	} cases[] = {
		{ "a good addr rule", F_ADDR, BLOOM_KEY_ADDR, 0, 0, false, 0 },
		{ "a good net rule", F_NET, BLOOM_KEY_NET, XT_BLOOM_DST, 0, false, 0 },
		{ "a missing filter", "nftc-nosuch", BLOOM_KEY_ADDR, 0, 0, false, ENOENT },
		{ "a key type other than the filter's", F_NET, BLOOM_KEY_ADDR, 0, 0, false, EINVAL },
		{ "the other way round", F_ADDR, BLOOM_KEY_NET, 0, 0, false, EINVAL },
		{ "bytes keys, which packets cannot form", F_ADDR, BLOOM_KEY_BYTES, 0, 0, false, EINVAL },
		{ "an unknown key type", F_ADDR, BLOOM_KEY_MAX, 0, 0, false, EINVAL },
		{ "net keys with update", F_NET, BLOOM_KEY_NET, XT_BLOOM_UPDATE, 0, false, EINVAL },
		{ "an unknown flag bit", F_ADDR, BLOOM_KEY_ADDR, 1 << 3, 0, false, EINVAL },
		{ "the top flag bit", F_ADDR, BLOOM_KEY_ADDR, 1 << 7, 0, false, EINVAL },
		{ "non-zero padding", F_ADDR, BLOOM_KEY_ADDR, 0, 1, false, EINVAL },
		{ "a name without its NUL", F_ADDR, BLOOM_KEY_ADDR, 0, 0, true, EINVAL },
		{ "a name with a newline and an escape sequence",
		  "nftc\n\033[2Jx", BLOOM_KEY_ADDR, 0, 0, false, EINVAL },
		{ "a name with a space", "nftc x", BLOOM_KEY_ADDR, 0, 0, false, EINVAL },
	};
	unsigned int i, j;
	int err;

	for (j = 0; j < 2; j++) {
		int f = j ? NFPROTO_IPV6 : NFPROTO_IPV4;
		const char *fam = j ? "ip6" : "ip";

		err = table(f);
		if (err) {
			result(0, "%s: a table and chain can be made (%s)", fam,
			       err_name(err));
			continue;
		}
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct xt_bloom_mtinfo0 info = good(cases[i].filter,
							    cases[i].key_type);

			info.flags = cases[i].flags;
			info.pad[5] = cases[i].pad_byte;
			if (cases[i].unterminated)
				memset(info.name, 'n', sizeof(info.name));
			err = rule(f, &info);
			result(err == cases[i].want, "%s: %s is %s (%s)", fam,
			       cases[i].what,
			       cases[i].want ? strerrorname_np(cases[i].want) :
			       "accepted", err_name(err));
		}
		result(users(F_ADDR) == 1 && users(F_NET) == 1,
		       "%s: only the good rules hold filters (users %ld and %ld)",
		       fam, users(F_ADDR), users(F_NET));
		deltable(f);
		users_settled(F_ADDR, 0);
		users_settled(F_NET, 0);
	}
}

/*
 * Revisions 1 and 2: the digest key and its payload length N. The digest
 * of ABI 2 is revision 2's; revision 1's (digest-v1) is retired.
 */
static void test_checkentry1(void)
{
	static const struct {
		const char *what;
		const char *filter;
		int rev;
		__u8 key_type, flags, digest_bytes, pad_byte;
		int want;
	} cases[] = {
		{ "a good digest rule", F_DIGEST, 2, BLOOM_KEY_DIGEST, XT_BLOOM_UPDATE, 64, 0, 0 },
		{ "a digest rule with N = 0", F_DIGEST, 2, BLOOM_KEY_DIGEST, 0, 0, 0, 0 },
		{ "a good addr rule", F_ADDR, 1, BLOOM_KEY_ADDR, 0, 0, 0, 0 },
		{ "N one over the maximum", F_DIGEST, 2, BLOOM_KEY_DIGEST, 0, BLOOM_DIGEST_BYTES_MAX + 1, 0, ERANGE },
		{ "N = 255", F_DIGEST, 2, BLOOM_KEY_DIGEST, 0, 255, 0, ERANGE },
		{ "a digest key on an addr filter", F_ADDR, 2, BLOOM_KEY_DIGEST, 0, 64, 0, EINVAL },
		{ "an addr key on a digest filter", F_DIGEST, 2, BLOOM_KEY_ADDR, 0, 0, 0, EINVAL },
		{ "N with an addr key", F_ADDR, 1, BLOOM_KEY_ADDR, 0, 8, 0, EINVAL },
		{ "a digest with a direction", F_DIGEST, 2, BLOOM_KEY_DIGEST, XT_BLOOM_DST, 64, 0, EINVAL },
		{ "non-zero padding", F_DIGEST, 2, BLOOM_KEY_DIGEST, 0, 64, 1, EINVAL },
		{ "an unknown key type", F_DIGEST, 2, BLOOM_KEY_MAX, 0, 0, 0, EINVAL },
		{ "revision 1 with the digest key of ABI 2", F_DIGEST, 1, BLOOM_KEY_DIGEST, 0, 64, 0, EINVAL },
		{ "revision 0 with a digest key", F_DIGEST, 0, BLOOM_KEY_DIGEST, 0, 0, 0, EINVAL },
		{ "the retired digest-v1 key type", F_DIGEST, 1, BLOOM_KEY_DIGEST_V1, XT_BLOOM_UPDATE, 64, 0, EINVAL },
		{ "revision 0 with digest-v1", F_DIGEST, 0, BLOOM_KEY_DIGEST_V1, 0, 0, 0, EINVAL },
		{ "revision 0 with N (its padding)", F_ADDR, 0, BLOOM_KEY_ADDR, 0, 8, 0, EINVAL },
	};
	unsigned int i, j;
	int err;

	for (j = 0; j < 2; j++) {
		int f = j ? NFPROTO_IPV6 : NFPROTO_IPV4;
		const char *fam = j ? "ip6" : "ip";

		err = table(f);
		if (err) {
			result(0, "%s: a table and chain can be made (%s)", fam,
			       err_name(err));
			continue;
		}
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct xt_bloom_mtinfo1 info;

			memset(&info, 0, sizeof(info));
			snprintf(info.name, sizeof(info.name), "%s",
				 cases[i].filter);
			info.key_type = cases[i].key_type;
			info.flags = cases[i].flags;
			info.digest_bytes = cases[i].digest_bytes;
			info.pad[4] = cases[i].pad_byte;
			err = rule_rev(f, cases[i].rev, &info);
			result(err == cases[i].want, "%s: revision %d: %s is %s (%s)",
			       fam, cases[i].rev, cases[i].what,
			       cases[i].want ? strerrorname_np(cases[i].want) :
			       "accepted", err_name(err));
		}
		result(users(F_DIGEST) == 2 && users(F_ADDR) == 1,
		       "%s: revisions 1 and 2: only the good rules hold filters (users %ld and %ld)",
		       fam, users(F_DIGEST), users(F_ADDR));
		deltable(f);
		users_settled(F_DIGEST, 0);
		users_settled(F_ADDR, 0);
	}
}

int main(void)
{
	int fam;

	dev = open("/dev/bloom", O_RDWR);
	nl = mnl_socket_open(NETLINK_NETFILTER);
	if (dev < 0 || !nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("nft_compat_test: /dev/bloom or netlink");
		return 2;
	}
	seq = time(NULL);
	/* Leftovers of an interrupted run. */
	for (fam = 0; fam < 4; fam++)
		deltable(families[fam].family);
	users_settled(F_ADDR, 0);
	users_settled(F_NET, 0);
	users_settled(F_DIGEST, 0);
	destroy(F_ADDR);
	destroy(F_NET);
	destroy(F_DIGEST);
	if (create(F_ADDR, BLOOM_KEY_ADDR) || create(F_NET, BLOOM_KEY_NET) ||
	    create(F_DIGEST, BLOOM_KEY_DIGEST)) {
		result(0, "test filters created");
		return 1;
	}

	test_families();
	test_checkentry();
	test_checkentry1();

	users_settled(F_ADDR, 0);
	users_settled(F_NET, 0);
	users_settled(F_DIGEST, 0);
	destroy(F_ADDR);
	destroy(F_NET);
	destroy(F_DIGEST);
	result(users(F_ADDR) == -ENOENT && users(F_NET) == -ENOENT &&
	       users(F_DIGEST) == -ENOENT,
	       "the test filters are destroyed once no rule holds them");
	mnl_socket_close(nl);
	return failed;
}
