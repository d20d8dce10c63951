// SPDX-License-Identifier: GPL-2.0
/*
 * Output: human units, aligned tables, JSON (one valid document, ASCII
 * only) and a progress bar on stderr when stderr is a terminal.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "bloomctl.h"

#define PROGRESS_DELAY	0.2	/* seconds before a bar appears */
#define PROGRESS_PERIOD	0.1	/* seconds between redraws */
#define PROGRESS_WIDTH	24

/* 1023 B, 1.5 KiB, 12 MiB, 2.3 GiB: one decimal, none when whole. */
void human_bytes(u64 bytes, char *buf, size_t size)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, size, "%llu B", (unsigned long long)bytes);
		return;
	}
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%.1f", v);
	if (!strcmp(buf + strlen(buf) - 2, ".0"))
		buf[strlen(buf) - 2] = 0;
	snprintf(buf + strlen(buf), size - strlen(buf), " %s", units[u]);
}

/* 999, 12.3k, 4.5M, 1.2G */
void human_count(u64 n, char *buf, size_t size)
{
	if (n < 1000)
		snprintf(buf, size, "%llu", (unsigned long long)n);
	else if (n < 1000000)
		snprintf(buf, size, "%.1fk", n / 1e3);
	else if (n < 1000000000)
		snprintf(buf, size, "%.1fM", n / 1e6);
	else
		snprintf(buf, size, "%.1fG", n / 1e9);
}

/* A rate in parts per 10^9 as a percentage: 1%, 0.0123%, 1.5e-05% */
void human_rate(u64 ppb, char *buf, size_t size)
{
	snprintf(buf, size, "%.3g%%", (double)ppb / 1e7);
}

/* JSON, pretty-printed; nesting deeper than JSON_DEPTH is a bug. */
void json_start(struct json *j)
{
	memset(j, 0, sizeof(*j));
	j->f = stdout;
}

void json_finish(struct json *j)
{
	fputc('\n', j->f);
}

static void indent(struct json *j)
{
	int i;

	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

static void put_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p > 0x7e)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* Separator, indentation and "key": before a value. */
static void item(struct json *j, const char *key)
{
	if (j->depth) {
		fputs(j->items[j->depth] ? ",\n" : "\n", j->f);
		indent(j);
	}
	j->items[j->depth] = true;
	if (key) {
		put_string(j->f, key);
		fputs(": ", j->f);
	}
}

static void open_with(struct json *j, const char *key, char bracket)
{
	item(j, key);
	fputc(bracket, j->f);
	if (j->depth + 1 >= JSON_DEPTH)
		die("internal error: JSON nested too deep");
	j->items[++j->depth] = false;
}

void json_object(struct json *j, const char *key)
{
	open_with(j, key, '{');
}

void json_array(struct json *j, const char *key)
{
	open_with(j, key, '[');
}

void json_close(struct json *j, char bracket)
{
	bool any = j->items[j->depth--];

	if (any) {
		fputc('\n', j->f);
		indent(j);
	}
	fputc(bracket, j->f);
}

void json_str(struct json *j, const char *key, const char *val)
{
	item(j, key);
	put_string(j->f, val);
}

void json_u64(struct json *j, const char *key, u64 val)
{
	item(j, key);
	fprintf(j->f, "%llu", (unsigned long long)val);
}

void json_double(struct json *j, const char *key, double val)
{
	item(j, key);
	fprintf(j->f, "%.9g", val);
}

void json_bool(struct json *j, const char *key, bool val)
{
	item(j, key);
	fputs(val ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	item(j, key);
	fputs("null", j->f);
}

/* As a number, and as hex for tools whose JSON numbers are doubles. */
void json_seed(struct json *j, u64 seed)
{
	char hex[24];

	snprintf(hex, sizeof(hex), "0x%016llx", (unsigned long long)seed);
	json_u64(j, "seed", seed);
	json_str(j, "seed_hex", hex);
}

/* Tables: "NAME >BITS" makes a left- and a right-aligned column. */
void table_init(struct table *t, const char *spec)
{
	char *copy = xstrdup(spec), *save = NULL, *w;

	memset(t, 0, sizeof(*t));
	for (w = strtok_r(copy, " ", &save); w && t->ncols < TABLE_COLS;
	     w = strtok_r(NULL, " ", &save)) {
		t->right[t->ncols] = *w == '>';
		t->heads[t->ncols++] = xstrdup(w + (*w == '>'));
	}
	free(copy);
}

/* The next cell, row by row. */
void table_cell(struct table *t, const char *fmt, ...)
{
	size_t n = t->ncells++;
	va_list ap;
	int len;

	t->cells = xrealloc(t->cells, (n + 1) * sizeof(*t->cells));
	va_start(ap, fmt);
	len = vasprintf(&t->cells[n], fmt, ap);
	va_end(ap);
	if (len < 0)
		die("out of memory");
	if ((n + 1) % (size_t)t->ncols == 0)
		t->rows++;
}

static void print_row(const struct table *t, const char *const *cells,
		      const int *width)
{
	int c;

	for (c = 0; c < t->ncols; c++) {
		bool last = c == t->ncols - 1;

		if (t->right[c])
			printf("%*s", width[c], cells[c]);
		else
			printf("%-*s", last ? 0 : width[c], cells[c]);
		fputs(last ? "\n" : "  ", stdout);
	}
}

void table_print(struct table *t)
{
	int width[TABLE_COLS], c;
	size_t r;

	for (c = 0; c < t->ncols; c++)
		width[c] = (int)strlen(t->heads[c]);
	for (r = 0; r < t->rows; r++)
		for (c = 0; c < t->ncols; c++) {
			int w = (int)strlen(t->cells[r * t->ncols + c]);

			width[c] = w > width[c] ? w : width[c];
		}
	print_row(t, t->heads, width);
	for (r = 0; r < t->rows; r++)
		print_row(t, (const char *const *)&t->cells[r * t->ncols],
			  width);
	table_free(t);
}

void table_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	for (i = 0; i < (size_t)t->ncols; i++)
		free((char *)t->heads[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A progress bar for long loads: only on a terminal, never with -q, and
 * only once the work has taken PROGRESS_DELAY, so quick runs stay quiet.
 */
void progress_start(struct progress *p, const char *label, u64 total,
		    bool bytes)
{
	memset(p, 0, sizeof(*p));
	p->label = label;
	p->total = total;
	p->bytes = bytes;
	p->on = total && !opts.quiet && isatty(STDERR_FILENO);
	p->start = now();
}

static void amount(const struct progress *p, u64 n, char *buf, size_t size)
{
	if (p->bytes)
		human_bytes(n, buf, size);
	else
		human_count(n, buf, size);
}

void progress_update(struct progress *p, u64 done)
{
	double t = now(), elapsed = t - p->start, rate;
	char bar[PROGRESS_WIDTH + 1], d[32], total[32], r[32];
	int fill, i;

	if (!p->on || elapsed < PROGRESS_DELAY || t - p->last < PROGRESS_PERIOD)
		return;
	p->last = t;
	p->drawn = true;
	done = done > p->total ? p->total : done;
	fill = (int)(PROGRESS_WIDTH * done / p->total);
	for (i = 0; i < PROGRESS_WIDTH; i++)
		bar[i] = i < fill ? '#' : '-';
	bar[PROGRESS_WIDTH] = 0;
	rate = done / elapsed;
	amount(p, done, d, sizeof(d));
	amount(p, p->total, total, sizeof(total));
	amount(p, (u64)rate, r, sizeof(r));
	fprintf(stderr, "\r%s [%s] %3d%% %s/%s %s%s/s ETA %.0fs ", p->label,
		bar, (int)(100 * done / p->total), d, total, r,
		p->bytes ? "" : " keys",
		rate > 0 ? (double)(p->total - done) / rate : 0.0);
	fflush(stderr);
}

void progress_end(struct progress *p)
{
	if (p->drawn)
		fputs("\r\033[K", stderr);
	p->on = false;
}
