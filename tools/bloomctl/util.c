// SPDX-License-Identifier: GPL-2.0
/*
 * Messages, memory, numbers and names: the small things every
 * subcommand uses. Errors are one line, "bloomctl: <what>: <why>", and
 * exit status 2.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bloomctl.h"

struct bloomctl_opts opts;

static void vwarn(const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs("bloomctl: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(EXIT_ERROR);
}

void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "bloomctl: %s%s", cmd ? cmd : "", cmd ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'bloomctl %s%s--help'.\n", cmd ? cmd : "",
		cmd ? " " : "");
	exit(EXIT_ERROR);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		die("out of memory (%zu bytes)", size);
	return p;
}

/* Where temporary files go: $TMPDIR, else /tmp. */
const char *temp_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

/*
 * A temporary file in temp_dir(), read and written, gone when it is
 * closed or bloomctl exits. NULL with errno set on failure.
 */
FILE *temp_file(void)
{
	const char *dir = temp_dir();
	char path[PATH_MAX];
	FILE *f;
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR)) {
		/* a file system without O_TMPFILE: named, then unlinked */
		if (snprintf(path, sizeof(path), "%s/bloomctl.XXXXXX", dir) >=
		    (int)sizeof(path)) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
	}
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w+");
	if (!f)
		close(fd);
	return f;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		die("out of memory (%zu bytes)", size);
	return p;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		die("out of memory");
	return d;
}

/* Decimal, or hexadecimal after 0x; nothing else, no sign. */
int parse_u64(const char *s, u64 *out)
{
	int base = 10;
	u64 v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -1;
	for (; *s; s++) {
		int d;

		if (isdigit((unsigned char)*s))
			d = *s - '0';
		else if (base == 16 && isxdigit((unsigned char)*s))
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			return -1;
		if (check_mul_overflow(v, (u64)base, &v) ||
		    check_add_overflow(v, (u64)d, &v))
			return -1;
	}
	*out = v;
	return 0;
}

/*
 * A duration in milliseconds: a number with a unit ms, s, m or h (plain
 * numbers are seconds), at least 1 ms and at most what a __u32 holds.
 */
int parse_duration_ms(const char *s, u32 *out)
{
	static const struct {
		const char *unit;
		u64 ms;
	} units[] = { { "ms", 1 }, { "s", 1000 }, { "", 1000 },
		      { "m", 60000 }, { "h", 3600000 } };
	size_t i, n = strspn(s, "0123456789");
	char num[24];
	u64 v;

	if (!n || n >= sizeof(num))
		return -1;
	memcpy(num, s, n);
	num[n] = 0;
	if (parse_u64(num, &v))
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(s + n, units[i].unit))
			continue;
		if (!v || check_mul_overflow(v, units[i].ms, &v) ||
		    v > UINT32_MAX)
			return -1;
		*out = (u32)v;
		return 0;
	}
	return -1;
}

static const struct {
	const char *suffix;
	u64 mult;
} suffixes[] = {
	{ "", 1 },
	{ "k", 1000 }, { "K", 1000 }, { "M", 1000000 },
	{ "G", 1000000000 }, { "T", 1000000000000ULL },
	{ "Ki", 1ULL << 10 }, { "Mi", 1ULL << 20 }, { "Gi", 1ULL << 30 },
	{ "Ti", 1ULL << 40 },
};

static u64 suffix_mult(const char *s)
{
	size_t i, n = strlen(s);

	if (n && s[n - 1] == 'B')	/* 64MiB, 10kB: bytes */
		n--;
	for (i = 0; i < ARRAY_SIZE(suffixes); i++)
		if (strlen(suffixes[i].suffix) == n &&
		    !strncmp(s, suffixes[i].suffix, n))
			return suffixes[i].mult;
	return 0;
}

/* 10^E for the digits of an exponent ("6", "+12"); 0 if bad or over u64. */
static u64 exponent_mult(const char *s)
{
	u64 mult = 1;
	int e = 0;

	if (*s == '+')
		s++;
	if (!*s)
		return 0;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return 0;
		e = e * 10 + (*s - '0');
		if (e > 19)
			return 0;
	}
	while (e--)
		mult *= 10;
	return mult;
}

/*
 * A count with an optional suffix: k, M, G, T are powers of 1000, Ki,
 * Mi, Gi, Ti powers of 1024, and a B may follow; or an exponent, as in
 * 1e6 or 2.5e9. "1.5M" is fine as long as the result is a whole number.
 */
int parse_count(const char *s, u64 *out)
{
	unsigned __int128 whole = 0, frac = 0, scale = 1, v;
	u64 mult;

	if (!isdigit((unsigned char)*s) && *s != '.')
		return -1;
	for (; isdigit((unsigned char)*s); s++) {
		whole = whole * 10 + (u64)(*s - '0');
		if (whole > U64_MAX)
			return -1;
	}
	if (*s == '.') {
		for (s++; isdigit((unsigned char)*s); s++) {
			if (scale > U64_MAX)
				return -1;
			frac = frac * 10 + (u64)(*s - '0');
			scale *= 10;
		}
	}
	if (*s == 'e' || *s == 'E')
		mult = exponent_mult(s + 1);	/* 1e6, 2.5E+9 */
	else
		mult = suffix_mult(s);
	if (!mult || (frac * mult) % scale)
		return -1;
	v = whole * mult + frac * mult / scale;
	if (v > U64_MAX)
		return -1;
	*out = (u64)v;
	return 0;
}

/* A fraction: "0.01", "1%", "1e-3"; no sign. */
static int parse_fraction(const char *s, double *v)
{
	char *end;

	if (!isdigit((unsigned char)*s) && *s != '.')
		return -1;
	*v = strtod(s, &end);
	if (end == s || !isfinite(*v))
		return -1;
	if (!strcmp(end, "%"))
		*v /= 100;
	else if (*end)
		return -1;
	return 0;
}

/* A rate: "0.01", "1%", "1e-3"; parts per 10^9 in [1, 5*10^8]. */
int parse_rate(const char *s, u64 *ppb)
{
	double v;

	if (parse_fraction(s, &v) || v < RATE_MIN * (1 - 1e-9) || v > RATE_MAX)
		return -1;
	v = v * (double)BLOOM_PPB + 0.5;
	*ppb = (u64)v;
	return 0;
}

/* A fraction in whole hundredths, "0.5" or "50%", as percent: 0 to 100. */
int parse_percent(const char *s, u32 *pct)
{
	double v, p;

	if (parse_fraction(s, &v) || v > 1)
		return -1;
	p = round(v * 100);
	if (fabs(v * 100 - p) > 0.0001)
		return -1;
	*pct = (u32)p;
	return 0;
}

/* Why the kernel would refuse @name, or NULL when it is fine. */
const char *name_problem(const char *name)
{
	const char *p;

	if (!*name)
		return "a name cannot be empty";
	if (strlen(name) >= BLOOM_NAME_MAX)
		return "a name has at most 31 characters";
	for (p = name; *p; p++)
		if (*p <= ' ' || *p > '~' || *p == '/')
			return "a name is printable ASCII without spaces or '/'";
	return NULL;
}

void check_name(const char *cmd, const char *name)
{
	const char *why = name_problem(name);
	char shown[80];

	refuse_file(cmd, name);
	if (!why)
		return;
	text_shown(shown, sizeof(shown), name, strlen(name));
	die("%s: bad filter name '%s': %s", cmd, shown, why);
}


int layout_parse(const char *s)
{
	unsigned int i;

	for (i = 0; i < BLOOM_LAYOUT_MAX; i++)
		if (!strcmp(s, bloom_layout_name(i)))
			return (int)i;
	return -1;
}

/* A key type by name: -1 if unknown, KEY_TYPE_RETIRED if retired. */
int key_type_parse(const char *s)
{
	unsigned int i;

	if (!strcmp(s, "addr-port"))
		return BLOOM_KEY_ADDR_PORT;
	for (i = 0; i < BLOOM_KEY_MAX; i++)
		if (!strcmp(s, bloom_key_type_name(i)))
			return bloom_key_type_retired(i) ? KEY_TYPE_RETIRED :
							   (int)i;
	return -1;
}

void set_format(const char *cmd, const char *fmt)
{
	if (!strcmp(fmt, "json"))
		opts.format = OUT_JSON;
	else if (!strcmp(fmt, "table") || !strcmp(fmt, "plain"))
		opts.format = OUT_TABLE;
	else
		usage_error(cmd, "unknown output format '%s' (json or table; the output file is --out FILE)",
			    fmt);
}

/* The option getopt_long() just refused, for the message. */
const char *bad_option(char **argv)
{
	static char buf[3];

	if (optopt) {
		snprintf(buf, sizeof(buf), "-%c", optopt);
		return buf;
	}
	return argv[optind - 1];
}

/*
 * getopt_long() from the start of @argv (the subcommand's name). GNU
 * getopt permutes: options may follow the positional arguments.
 */
int parse_options(int argc, char **argv, const char *shortopts,
		  const void *longopts)
{
	int c = getopt_long(argc, argv, shortopts, longopts, NULL);

	if (c == '?')
		usage_error(argv[0], "unknown option '%s'", bad_option(argv));
	if (c == ':')
		usage_error(argv[0], "option '%s' needs a value",
			    argv[optind - 1]);
	return c;
}

/* The options every subcommand takes; anything else is a usage error. */
void common_option(const char *cmd, int c)
{
	switch (c) {
	case 'h':
		command_help(cmd);
		exit(EXIT_OK);
	case 'q':
		opts.quiet = true;
		break;
	case 'o':
		set_format(cmd, optarg);
		break;
	case OPT_JSON:
		opts.format = OUT_JSON;
		break;
	default:
		usage_error(cmd, "unexpected option");
	}
}

/* Check the number of positional arguments; @what names them. */
void positional(const char *cmd, int n, int min, int max, const char *what)
{
	if (n < min)
		usage_error(cmd, "missing %s", what);
	if (max >= 0 && n > max)
		usage_error(cmd, "too many arguments (want %s)", what);
}
