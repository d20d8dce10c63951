// SPDX-License-Identifier: GPL-2.0
/*
 * Counting distinct key records in bounded memory, for the inputs that
 * bloomctl streams (add, build): records gather in a buffer of
 * DISTINCT_BUF_BYTES; a full buffer is sorted, its duplicates dropped,
 * and written to a temporary file as a sorted run; the count is a merge
 * of the runs. Records are compared whole (memcmp()), so the count is
 * exact, not an estimate.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bloomctl.h"

#define DISTINCT_BUF_BYTES	(8U << 20)	/* records kept in memory */
#define DISTINCT_READ_RECS	1024		/* records read at once per run */

static int by_bytes(const void *a, const void *b, void *stride)
{
	return memcmp(a, b, *(const size_t *)stride);
}

/* Sort @n records of @stride bytes and drop repeats; the new count. */
static size_t sort_unique(u8 *recs, size_t n, size_t stride)
{
	size_t i, out = 0;

	if (!n)
		return 0;	/* @recs may be NULL: no buffer yet */
	qsort_r(recs, n, stride, by_bytes, &stride);
	for (i = 0; i < n; i++) {
		if (out && !memcmp(recs + (out - 1) * stride,
				   recs + i * stride, stride))
			continue;
		if (out != i)
			memcpy(recs + out * stride, recs + i * stride, stride);
		out++;
	}
	return out;
}

void distinct_init(struct distinct *d, size_t stride)
{
	memset(d, 0, sizeof(*d));
	d->stride = stride;
	d->cap = max(DISTINCT_BUF_BYTES / stride, (size_t)2);
}

/* The buffer as one more sorted run in the temporary file. */
static void spill(struct distinct *d)
{
	d->n = sort_unique(d->buf, d->n, d->stride);
	if (d->n > d->cap / 2 || d->nruns) {
		if (!d->runs)
			d->runs = temp_file();
		if (!d->runs)
			die("counting distinct keys: a temporary file in %s: %s",
			    temp_dir(), strerror(errno));
		d->run = xrealloc(d->run, (d->nruns + 1) * sizeof(*d->run));
		d->run[d->nruns].at = ftello(d->runs);
		d->run[d->nruns++].n = d->n;
		if (fwrite(d->buf, d->stride, d->n, d->runs) != d->n ||
		    fflush(d->runs))
			die("counting distinct keys: a temporary file in %s: %s",
			    temp_dir(), strerror(errno));
		d->n = 0;
	}
}

void distinct_add(struct distinct *d, const void *rec)
{
	if (!d->buf)
		d->buf = xmalloc(d->cap * d->stride);
	if (d->n == d->cap)
		spill(d);
	memcpy(d->buf + d->n++ * d->stride, rec, d->stride);
}

/* A run being merged: a window of its records. */
struct run_reader {
	off_t at;		/* the next record to read, in the file */
	size_t left;		/* records not read yet */
	size_t i, n;		/* the window */
	u8 *recs;
};

static bool run_fill(struct run_reader *r, int fd, size_t stride)
{
	size_t want = r->left < DISTINCT_READ_RECS ? r->left : DISTINCT_READ_RECS;
	ssize_t got;

	if (!want)
		return false;
	got = pread(fd, r->recs, want * stride, r->at);
	if (got != (ssize_t)(want * stride))
		die("counting distinct keys: reading a temporary file: %s",
		    got < 0 ? strerror(errno) : "short read");
	r->at += (off_t)got;
	r->left -= want;
	r->i = 0;
	r->n = want;
	return true;
}

/* Merge the runs: every record, in order, counted once. */
static u64 merge_runs(struct distinct *d)
{
	struct run_reader *r = xcalloc(d->nruns, sizeof(*r));
	u8 *last = xmalloc(d->stride);
	int fd = fileno(d->runs);
	size_t i, best, live = 0;
	u64 count = 0;

	for (i = 0; i < d->nruns; i++) {
		r[i].at = d->run[i].at;
		r[i].left = d->run[i].n;
		r[i].recs = xmalloc(DISTINCT_READ_RECS * d->stride);
		live += run_fill(&r[i], fd, d->stride);
	}
	while (live) {
		best = d->nruns;
		for (i = 0; i < d->nruns; i++)
			if (r[i].i < r[i].n &&
			    (best == d->nruns ||
			     memcmp(r[i].recs + r[i].i * d->stride,
				    r[best].recs + r[best].i * d->stride,
				    d->stride) < 0))
				best = i;
		if (!count || memcmp(last, r[best].recs + r[best].i * d->stride,
				     d->stride))
			count++;
		memcpy(last, r[best].recs + r[best].i++ * d->stride, d->stride);
		if (r[best].i == r[best].n && !run_fill(&r[best], fd, d->stride))
			live--;
	}
	for (i = 0; i < d->nruns; i++)
		free(r[i].recs);
	free(r);
	free(last);
	return count;
}

/**
 * distinct_count() - how many different records were added
 * @d: the counter; freed, ready for distinct_init() again
 *
 * Return: the count, exact.
 */
u64 distinct_count(struct distinct *d)
{
	u64 count;

	spill(d);
	count = d->nruns ? merge_runs(d) : d->n;
	if (d->runs)
		fclose(d->runs);
	free(d->run);
	free(d->buf);
	memset(d, 0, sizeof(*d));
	return count;
}
