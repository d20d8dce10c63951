// SPDX-License-Identifier: GPL-2.0
/*
 * --out FILE of build and save, checked before anything is built or
 * asked of the kernel: a snapshot is binary, so "-" is refused on a
 * terminal; and a FILE that is one of the command's inputs would be
 * replaced by the filter made from it, losing the list.
 *
 * The file is written as a temporary file beside it, then renamed
 * (snapshot.c): SIGINT, SIGTERM or SIGHUP meanwhile removes that file,
 * which may be as large as the filter, before bloomctl dies of the
 * signal as it would have. A signal ignored when bloomctl started
 * (nohup, a background job) stays ignored.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bloomctl.h"

/* @arg of -f, stat()ed as read: FILE, else the FILE of FILE=VALUE. */
static int input_stat(const char *arg, struct stat *st)
{
	const char *eq = strrchr(arg, '=');
	char *path;
	int err;

	if (!stat(arg, st) || !eq)
		return stat(arg, st);
	path = strndup(arg, (size_t)(eq - arg));
	if (!path)
		die("out of memory");
	err = stat(path, st);
	free(path);
	return err;
}

/**
 * out_check() - refuse an --out that would do harm
 * @cmd: the subcommand, for messages
 * @out: its --out FILE
 * @in: its key input, or NULL (save)
 */
void out_check(const char *cmd, const char *out, const struct key_input *in)
{
	struct stat o, i;
	int n;

	if (!strcmp(out, "-")) {
		if (isatty(STDOUT_FILENO))
			die("%s: --out -: standard output is a terminal, and a snapshot is binary: redirect it (> FILE, | ...) or give --out FILE",
			    cmd);
		return;
	}
	if (!in || stat(out, &o) || !S_ISREG(o.st_mode))
		return;
	for (n = 0; n < in->nfiles; n++)
		if (strcmp(in->files[n], "-") && !input_stat(in->files[n], &i) &&
		    i.st_dev == o.st_dev && i.st_ino == o.st_ino)
			die("%s: --out %s is an input (-f %s): it would be overwritten by the filter",
			    cmd, out, in->files[n]);
}

static const int out_signals[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction out_old[ARRAY_SIZE(out_signals)];
static const char *volatile out_tmp;	/* the file being written */

static void out_tmp_signal(int sig)
{
	const char *path = out_tmp;

	if (path)
		unlink(path);	/* async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void out_signals_mask(int how)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < ARRAY_SIZE(out_signals); i++)
		sigaddset(&set, out_signals[i]);
	sigprocmask(how, &set, NULL);
}

/**
 * out_tmp_create() - create the temporary file of an --out FILE
 * @tmpl: a mkostemp() template, which becomes the file's path
 *
 * The file is removed on SIGINT, SIGTERM and SIGHUP until
 * out_tmp_done(); they are blocked while it is created, so that no
 * file is ever left unnamed to the handler.
 *
 * Return: the file's descriptor, or -1 with errno set.
 */
int out_tmp_create(char *tmpl)
{
	struct sigaction sa = { .sa_handler = out_tmp_signal };
	size_t i;
	int fd, err;

	sigemptyset(&sa.sa_mask);
	out_signals_mask(SIG_BLOCK);
	for (i = 0; i < ARRAY_SIZE(out_signals); i++) {
		sigaction(out_signals[i], NULL, &out_old[i]);
		if (out_old[i].sa_handler != SIG_IGN)
			sigaction(out_signals[i], &sa, NULL);
	}
	fd = mkostemp(tmpl, O_CLOEXEC);
	err = errno;
	out_tmp = fd >= 0 ? tmpl : NULL;
	out_signals_mask(SIG_UNBLOCK);
	errno = err;
	return fd;
}

/* The temporary file is renamed or removed: signals as they were. */
void out_tmp_done(void)
{
	size_t i;

	out_signals_mask(SIG_BLOCK);
	out_tmp = NULL;
	for (i = 0; i < ARRAY_SIZE(out_signals); i++)
		sigaction(out_signals[i], &out_old[i], NULL);
	out_signals_mask(SIG_UNBLOCK);
}
