// SPDX-License-Identifier: GPL-2.0
/*
 * libxt_bloom: teaches iptables and ip6tables (legacy and nft) the
 * "bloom" match of xt_bloom.ko.
 *
 *   -m bloom [!] --bloom-set NAME [--bloom-key addr|net|addr,port|flow]
 *            [--bloom-dir src|dst] [--bloom-update]
 *   -m bloom [!] --bloom-set NAME --bloom-key digest
 *            [--bloom-digest-bytes N] [--bloom-update]
 *   -m bloom [!] --bloom-set NAME [--bloom-key ...] [--bloom-dir src|dst]
 *            [!] --bloom-value V[:V][,...]
 *
 * Revisions 0 to 2 are registered on one layout (revision 1's, whose
 * digest_bytes is revision 0's first padding byte): iptables uses the
 * highest the kernel has. Revision 2 carries the digest key of ABI 2
 * (revision 1's digest is retired); on a kernel without it, every rule
 * without a digest still loads. Revision 3 (struct xt_bloom_mtinfo3, a
 * layout of its own) adds --bloom-value; on a kernel without it, every
 * rule without --bloom-value still loads. The code below reaches the
 * fields both layouts have through struct bloom_view.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <xtables.h>
#include "../../module/core/bloom_core.h"
#include "../../uapi/bloom_ioctl.h"
#include "../../uapi/xt_bloom.h"

enum { O_SET, O_KEY, O_DIR, O_UPDATE, O_DIGEST_BYTES, O_VALUE };


static const struct xt_option_entry bloom_opts[] = {
	{ .name = "bloom-set", .id = O_SET, .type = XTTYPE_STRING,
	  .flags = XTOPT_MAND | XTOPT_INVERT },
	{ .name = "bloom-key", .id = O_KEY, .type = XTTYPE_STRING },
	{ .name = "bloom-dir", .id = O_DIR, .type = XTTYPE_STRING },
	{ .name = "bloom-update", .id = O_UPDATE, .type = XTTYPE_NONE },
	{ .name = "bloom-digest-bytes", .id = O_DIGEST_BYTES,
	  .type = XTTYPE_STRING },
	{ .name = "bloom-value", .id = O_VALUE, .type = XTTYPE_STRING,
	  .flags = XTOPT_INVERT },
	XTOPT_TABLEEND,
};

static void bloom_help(void)
{
	printf(
"bloom match options:\n"
"[!] --bloom-set NAME     match packets whose key is in Bloom filter NAME\n"
"                         (\"!\": whose key is not)\n"
"  --bloom-key TYPE       how the packet forms its key, which must be the\n"
"                         filter's key type: addr (default), net (every\n"
"                         prefix length the filter holds), addr,port, flow,\n"
"                         digest (the packet's invariant content)\n"
"  --bloom-dir src|dst    take address and port from the source (default)\n"
"                         or the destination\n"
"  --bloom-update         add the key to the filter; match if it was\n"
"                         already there (\"seen before\")\n"
"  --bloom-digest-bytes N payload bytes in a digest key, 0 to %d\n"
"                         (default %d)\n"
"[!] --bloom-value V[:V][,...]\n"
"                         and the member's value (a static map's; 0 in\n"
"                         other filters) is one of these values or\n"
"                         ranges, 0 to 65535, at most %d (\"!\": a member\n"
"                         whose value is none of them); \"! --bloom-set\"\n"
"                         then means: not a member with such a value\n"
"Filters are made with bloomctl(8); see its man page.\n",
	       BLOOM_DIGEST_BYTES_MAX, BLOOM_DIGEST_BYTES_MAX,
	       XT_BLOOM_VALUE_RANGES);
}

/* The fields every revision has, wherever its layout keeps them. */
struct bloom_view {
	char *name;		/* BLOOM_NAME_MAX bytes */
	__u8 *key_type;
	__u8 *flags;
	__u8 *digest_bytes;
	struct xt_bloom_mtinfo3 *info3;	/* revision 3's, else NULL */
};

static struct bloom_view bloom_view(void *data, int revision)
{
	struct xt_bloom_mtinfo1 *info1 = data;
	struct xt_bloom_mtinfo3 *info3 = data;

	if (revision < 3)
		return (struct bloom_view){ info1->name, &info1->key_type,
			&info1->flags, &info1->digest_bytes, NULL };
	return (struct bloom_view){ info3->name, &info3->key_type,
		&info3->flags, &info3->digest_bytes, info3 };
}

static void bloom_init(struct xt_entry_match *m, int revision)
{
	*bloom_view(m->data, revision).key_type = BLOOM_KEY_ADDR;
}

static void bloom_init0(struct xt_entry_match *m)
{
	bloom_init(m, 0);
}

static void bloom_init3(struct xt_entry_match *m)
{
	bloom_init(m, 3);
}

static int key_from_name(const char *s)
{
	unsigned int i;

	/* A rule forms every key type but opaque bytes and retired ones. */
	for (i = BLOOM_KEY_BYTES + 1; i < BLOOM_KEY_MAX; i++)
		if (i != BLOOM_KEY_DIGEST_V1 &&
		    !strcmp(s, bloom_key_type_name(i)))
			return i;
	return -1;
}

/*
 * A filter name as the kernel takes it: 1 to BLOOM_NAME_MAX - 1
 * printable ASCII characters, no blank, no '/'. Refused here rather than
 * cut to fit, which would bind the rule to another filter.
 */
static void bloom_set_name(char *dst, const char *name)
{
	size_t len = strlen(name), i;

	if (!len)
		xtables_error(PARAMETER_PROBLEM,
			      "bloom: --bloom-set needs a filter name");
	if (len >= BLOOM_NAME_MAX)
		xtables_error(PARAMETER_PROBLEM,
			      "bloom: --bloom-set \"%s\": a filter name has at most %d characters, not %zu",
			      name, BLOOM_NAME_MAX - 1, len);
	for (i = 0; i < len; i++)
		if (name[i] <= ' ' || name[i] > '~' || name[i] == '/')
			xtables_error(PARAMETER_PROBLEM,
				      "bloom: --bloom-set \"%s\": a filter name is printable ASCII without blanks or '/'",
				      name);
	memcpy(dst, name, len + 1);
}

/*
 * N of --bloom-digest-bytes: decimal digits only, 0 to
 * BLOOM_DIGEST_BYTES_MAX (not "0x40", nor "010" read as octal 8).
 */
static __u8 digest_bytes(const char *arg)
{
	size_t len = strspn(arg, "0123456789");
	unsigned long n = strtoul(arg, NULL, 10);

	if (!len || arg[len] || n > BLOOM_DIGEST_BYTES_MAX)
		xtables_error(PARAMETER_PROBLEM,
			      "bloom: --bloom-digest-bytes takes 0 to %d, not \"%s\"",
			      BLOOM_DIGEST_BYTES_MAX, arg);
	return n;
}

/*
 * One value of --bloom-value, at *@s: decimal digits only, 0 to 65535.
 * Leaves *@s after it.
 */
static __u16 one_value(const char *arg, const char **s)
{
	size_t len = strspn(*s, "0123456789");
	unsigned long n = strtoul(*s, NULL, 10);

	if (!len || len > 5 || n > 65535)
		xtables_error(PARAMETER_PROBLEM,
			      "bloom: --bloom-value \"%s\": values are 0 to 65535 in decimal, as V, V:V or V-V, separated by commas",
			      arg);
	*s += len;
	return n;
}

/*
 * --bloom-value V[:V][,...]: values and inclusive ranges (V-V too, as
 * ipset writes them), at most XT_BLOOM_VALUE_RANGES, kept in the order
 * given so that the rule saves as it was written.
 */
static void parse_values(struct xt_bloom_mtinfo3 *info, const char *arg)
{
	struct xt_bloom_value_range *r;
	const char *s = arg;

	memset(info->ranges, 0, sizeof(info->ranges));
	info->nranges = 0;
	for (;;) {
		if (info->nranges == XT_BLOOM_VALUE_RANGES)
			xtables_error(PARAMETER_PROBLEM,
				      "bloom: --bloom-value \"%s\": at most %d values or ranges",
				      arg, XT_BLOOM_VALUE_RANGES);
		r = &info->ranges[info->nranges++];
		r->min = one_value(arg, &s);
		r->max = r->min;
		if (*s == ':' || *s == '-') {
			s++;
			r->max = one_value(arg, &s);
			if (r->min > r->max)
				xtables_error(PARAMETER_PROBLEM,
					      "bloom: --bloom-value \"%s\": the range %u:%u starts above its end",
					      arg, r->min, r->max);
		}
		if (!*s)
			return;
		if (*s++ != ',')
			xtables_error(PARAMETER_PROBLEM,
				      "bloom: --bloom-value \"%s\": values are 0 to 65535 in decimal, as V, V:V or V-V, separated by commas",
				      arg);
	}
}

static void bloom_parse(struct xt_option_call *cb, int revision)
{
	struct bloom_view v = bloom_view(cb->data, revision);
	int key;

	xtables_option_parse(cb);
	switch (cb->entry->id) {
	case O_SET:
		bloom_set_name(v.name, cb->arg);
		if (cb->invert)
			*v.flags |= XT_BLOOM_INVERT;
		break;
	case O_KEY:
		key = key_from_name(cb->arg);
		if (key < 0 && !strcmp(cb->arg, "digest-v1"))
			xtables_error(PARAMETER_PROBLEM,
				      "bloom: digest-v1 keys are retired: digest keys changed; use --bloom-key digest with a filter made by bloomctl create --key digest");
		if (key < 0)
			xtables_error(PARAMETER_PROBLEM,
				      "bloom: --bloom-key takes addr, net, addr,port, flow or digest, not \"%s\"",
				      cb->arg);
		*v.key_type = key;
		break;
	case O_DIR:
		if (!strcmp(cb->arg, "dst"))
			*v.flags |= XT_BLOOM_DST;
		else if (strcmp(cb->arg, "src"))
			xtables_error(PARAMETER_PROBLEM,
				      "bloom: --bloom-dir takes src or dst, not \"%s\"",
				      cb->arg);
		break;
	case O_UPDATE:
		*v.flags |= XT_BLOOM_UPDATE;
		break;
	case O_DIGEST_BYTES:
		*v.digest_bytes = digest_bytes(cb->arg);
		break;
	case O_VALUE:
		if (!v.info3)
			xtables_error(PARAMETER_PROBLEM,
				      "bloom: --bloom-value needs a newer xt_bloom kernel module (match revision 3)");
		parse_values(v.info3, cb->arg);
		*v.flags |= XT_BLOOM_VALUE;
		if (cb->invert)
			*v.flags |= XT_BLOOM_VALUE_INVERT;
		break;
	}
}

static void bloom_parse0(struct xt_option_call *cb)
{
	bloom_parse(cb, 0);
}

static void bloom_parse3(struct xt_option_call *cb)
{
	bloom_parse(cb, 3);
}

/* The digest options; without --bloom-digest-bytes N is the maximum. */
static void check_digest(const struct xt_fcheck_call *cb,
			 struct bloom_view *info, int revision)
{
	if (*info->key_type != BLOOM_KEY_DIGEST) {
		if (cb->xflags & (1 << O_DIGEST_BYTES))
			xtables_error(PARAMETER_PROBLEM,
				      "bloom: --bloom-digest-bytes goes with --bloom-key digest only");
		return;
	}
	if (revision < 2)
		xtables_error(PARAMETER_PROBLEM,
			      "bloom: --bloom-key digest needs a newer xt_bloom kernel module (match revision 2)");
	if (*info->flags & XT_BLOOM_DST)
		xtables_error(PARAMETER_PROBLEM,
			      "bloom: --bloom-dir does not apply to digest keys");
	if (!(cb->xflags & (1 << O_DIGEST_BYTES)))
		*info->digest_bytes = BLOOM_DIGEST_BYTES_MAX;
}

/*
 * The kernel refuses a rule for a missing filter or the wrong key type
 * with a bare errno; ask /dev/bloom first to say why in words.
 */
static void bloom_check(struct xt_fcheck_call *cb, int revision)
{
	struct bloom_view info = bloom_view(cb->data, revision);
	struct bloom_ioc_info in = {};
	int fd;

	if (*info.key_type == BLOOM_KEY_NET && (*info.flags & XT_BLOOM_UPDATE))
		xtables_error(PARAMETER_PROBLEM,
			      "bloom: --bloom-update cannot add prefixes to a net filter");
	if ((*info.flags & XT_BLOOM_VALUE) && (*info.flags & XT_BLOOM_UPDATE))
		xtables_error(PARAMETER_PROBLEM,
			      "bloom: --bloom-value cannot go with --bloom-update (packets add keys without values)");
	check_digest(cb, &info, revision);
	fd = open("/dev/bloom", O_RDONLY);
	if (fd < 0)
		return;		/* not loaded, or no access: the kernel decides */
	memcpy(in.name, info.name, sizeof(in.name));
	if (ioctl(fd, BLOOM_IOC_INFO, &in)) {
		close(fd);
		xtables_error(PARAMETER_PROBLEM,
			      "bloom: no filter named \"%s\" (create it with bloomctl create)",
			      info.name);
	}
	close(fd);
	if (in.key_type != *info.key_type)
		xtables_error(PARAMETER_PROBLEM,
			      "bloom: filter \"%s\" holds %s keys, but --bloom-key is %s",
			      info.name,
			      bloom_key_type_name(in.key_type),
			      bloom_key_type_name(*info.key_type));
}

static void bloom_check0(struct xt_fcheck_call *cb)
{
	bloom_check(cb, 0);
}

static void bloom_check1(struct xt_fcheck_call *cb)
{
	bloom_check(cb, 1);
}

static void bloom_check2(struct xt_fcheck_call *cb)
{
	bloom_check(cb, 2);
}

static void bloom_check3(struct xt_fcheck_call *cb)
{
	bloom_check(cb, 3);
}

/* V or V:V, comma-separated, as --bloom-value reads them. */
static void print_values(const struct xt_bloom_mtinfo3 *info)
{
	unsigned int i;

	for (i = 0; i < info->nranges && i < XT_BLOOM_VALUE_RANGES; i++) {
		printf("%s%u", i ? "," : "", info->ranges[i].min);
		if (info->ranges[i].max != info->ranges[i].min)
			printf(":%u", info->ranges[i].max);
	}
}

static void bloom_print_opts(const struct xt_entry_match *m, int revision)
{
	struct bloom_view info = bloom_view((void *)m->data, revision);
	__u8 flags = *info.flags;

	printf(" %s--bloom-set %s", flags & XT_BLOOM_INVERT ? "! " : "",
	       info.name);
	if (*info.key_type != BLOOM_KEY_ADDR)
		printf(" --bloom-key %s", bloom_key_type_name(*info.key_type));
	if (flags & XT_BLOOM_DST)
		printf(" --bloom-dir dst");
	if (*info.key_type == BLOOM_KEY_DIGEST)
		printf(" --bloom-digest-bytes %u", *info.digest_bytes);
	if (flags & XT_BLOOM_UPDATE)
		printf(" --bloom-update");
	if (info.info3 && (flags & XT_BLOOM_VALUE)) {
		printf(" %s--bloom-value ",
		       flags & XT_BLOOM_VALUE_INVERT ? "! " : "");
		print_values(info.info3);
	}
}

static void bloom_print0(const void *ip, const struct xt_entry_match *m,
			 int numeric)
{
	printf(" bloom");
	bloom_print_opts(m, 0);
}

static void bloom_save0(const void *ip, const struct xt_entry_match *m)
{
	bloom_print_opts(m, 0);
}

static void bloom_print3(const void *ip, const struct xt_entry_match *m,
			 int numeric)
{
	printf(" bloom");
	bloom_print_opts(m, 3);
}

static void bloom_save3(const void *ip, const struct xt_entry_match *m)
{
	bloom_print_opts(m, 3);
}

/*
 * IPv4 and IPv6 only, as the kernel registers it: an NFPROTO_UNSPEC
 * match would also be offered to ebtables and arptables, whose frames
 * the match cannot parse.
 */
#define BLOOM_MT_REG(rev, fam, layout, fn) {				\
	.name = "bloom",						\
	.revision = (rev),						\
	.family = (fam),						\
	.version = XTABLES_VERSION,					\
	.size = XT_ALIGN(sizeof(struct xt_bloom_mtinfo##layout)),	\
	.userspacesize = offsetof(struct xt_bloom_mtinfo##layout, filter), \
	.help = bloom_help,						\
	.init = bloom_init##fn,						\
	.print = bloom_print##fn,					\
	.save = bloom_save##fn,						\
	.x6_parse = bloom_parse##fn,					\
	.x6_fcheck = bloom_check##rev,					\
	.x6_options = bloom_opts,					\
}

/* Revisions 0 to 2 on revision 1's layout, revision 3 on its own. */
static struct xtables_match bloom_mt_reg[] = {
	BLOOM_MT_REG(0, NFPROTO_IPV4, 1, 0),
	BLOOM_MT_REG(0, NFPROTO_IPV6, 1, 0),
	BLOOM_MT_REG(1, NFPROTO_IPV4, 1, 0),
	BLOOM_MT_REG(1, NFPROTO_IPV6, 1, 0),
	BLOOM_MT_REG(2, NFPROTO_IPV4, 1, 0),
	BLOOM_MT_REG(2, NFPROTO_IPV6, 1, 0),
	BLOOM_MT_REG(3, NFPROTO_IPV4, 3, 3),
	BLOOM_MT_REG(3, NFPROTO_IPV6, 3, 3),
};

/* Runs when iptables dlopen()s the extension. */
static void __attribute__((constructor)) bloom_mt_ldr(void)
{
	xtables_register_matches(bloom_mt_reg,
				 sizeof(bloom_mt_reg) / sizeof(bloom_mt_reg[0]));
}
