// SPDX-License-Identifier: GPL-2.0
/*
 * bloomctl xdp through libxdp's dispatcher: the XDP program then shares
 * its interface with other libxdp programs (xdp-filter, xdp-loader's),
 * each run in order of priority until one returns a verdict other than
 * XDP_PASS. libxdp keeps the dispatcher's programs pinned in bpffs
 * ($LIBXDP_BPFFS, or /sys/fs/bpf); where the kernel cannot run a
 * dispatcher it attaches the program alone, and the caller says so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "xdp.h"

/*
 * bloomctl's commands in a namespace of "ip netns exec" see a /sys of
 * their own, without bpffs: $BLOOM_BPFFS names one mounted elsewhere,
 * for the nf programs' pins and for libxdp's alike.
 */
static void dispatcher_env(void)
{
	const char *fs = getenv("BLOOM_BPFFS");

	if (fs && *fs && !getenv("LIBXDP_BPFFS"))
		setenv("LIBXDP_BPFFS", fs, 0);
}

/* libxdp's messages go with libbpf's, shown when something fails. */
static int keep_log(enum libxdp_print_level level, const char *fmt,
		    va_list ap)
{
	return bpf_keep_log((enum libbpf_print_level)level, fmt, ap);
}

static void dispatcher_start(void)
{
	dispatcher_env();
	libbpf_set_print(bpf_keep_log);
	libxdp_set_print(keep_log);
}

/* Whether @a, the program at an interface's XDP hook, is libxdp's. */
bool dispatcher_is(const struct attached *a)
{
	return a->prog_id && !strcmp(a->name, DISPATCHER_PROG);
}

/* The bpffs libxdp would pin a dispatcher in, or NULL when there is none. */
const char *dispatcher_bpffs(void)
{
	const char *dir;
	struct statfs st;

	dispatcher_env();
	dir = getenv("LIBXDP_BPFFS");
	if (!dir || !*dir)
		dir = "/sys/fs/bpf";
	if (statfs(dir, &st) || st.f_type != BPF_FS_MAGIC)
		return NULL;
	return dir;
}

/*
 * The programs of the dispatcher on @ifindex, in the order they run, at
 * most @max of them, into @out; bloomctl's with their filter and counters.
 * Returns how many, 0 when libxdp cannot read the dispatcher (its pins
 * are in another bpffs).
 */
int dispatcher_programs(int ifindex, struct attached *out, int max)
{
	struct xdp_program *p = NULL;
	struct xdp_multiprog *mp;
	u8 mode;
	int n = 0;

	dispatcher_start();
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	if (!mp || libxdp_get_error(mp))
		return 0;
	mode = xdp_multiprog__attach_mode(mp) == XDP_MODE_SKB ?
		XDP_ATTACHED_SKB : XDP_ATTACHED_DRV;
	while (n < max && (p = xdp_multiprog__next_prog(p, mp))) {
		memset(&out[n], 0, sizeof(out[n]));
		out[n].prog_id = xdp_program__id(p);
		out[n].mode = mode;
		out[n].dispatched = true;
		out[n].priority = xdp_program__run_prio(p);
		prog_read(&out[n], BLOOM_XDP_PROG);
		n++;
	}
	xdp_multiprog__close(mp);
	return n;
}

/*
 * Attach bloomctl's program (@obj, opened, not loaded) to @ifindex in
 * @mode (XDP_ATTACHED_DRV or _SKB) through the dispatcher, beside the
 * programs already there. Where libxdp cannot load a dispatcher it
 * attaches the program alone: the caller looks which it was.
 */
void dispatcher_attach(struct bpf_object *obj, int ifindex, u8 mode,
		       const struct xdp_args *x)
{
	DECLARE_LIBXDP_OPTS(xdp_program_opts, o, .obj = obj,
			    .prog_name = BLOOM_XDP_PROG);
	struct xdp_program *p;
	int err;

	dispatcher_start();
	p = xdp_program__create(&o);
	err = libxdp_get_error(p);
	if (err)
		die("%s is not bloomctl's XDP program: %s",
		    bpf_object__name(obj), strerror(-err));
	if (x->priority_set && xdp_program__set_run_prio(p, x->priority))
		die("cannot set the program's priority to %u", x->priority);
	err = xdp_program__attach(p, ifindex, mode == XDP_ATTACHED_SKB ?
				  XDP_MODE_SKB : XDP_MODE_NATIVE, 0);
	xdp_program__close(p);
	if (err == -EOPNOTSUPP && mode == XDP_ATTACHED_DRV)
		die("%s has no native XDP: try --mode generic", x->iface);
	if (err)
		fprintf(stderr, "%s", bpf_log_text());
	if (err == -EBUSY || err == -EEXIST)
		die("%s: another XDP program was attached meanwhile, one not "
		    "loaded through libxdp's dispatcher, or in another mode "
		    "(libxdp's words above): detach it first", x->iface);
	if (err)
		die("cannot attach to %s through libxdp's dispatcher: %s",
		    x->iface, strerror(-err));
}

/*
 * Remove the programs @ids (bloomctl's) from @ifindex's dispatcher, in
 * the dispatcher's mode: libxdp replaces it by one without them, and
 * the kernel checks the program it replaces in that mode's slot.
 */
void dispatcher_detach(int ifindex, const u32 *ids, int n, const char *iface)
{
	enum xdp_attach_mode mode = XDP_MODE_UNSPEC;
	struct xdp_program *progs[DISPATCHER_MAX];
	struct xdp_multiprog *mp;
	int i, got = 0, err = 0;

	dispatcher_start();
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	if (mp && !libxdp_get_error(mp)) {
		mode = xdp_multiprog__attach_mode(mp);
		xdp_multiprog__close(mp);
	}
	for (i = 0; i < n && i < DISPATCHER_MAX; i++) {
		progs[got] = xdp_program__from_id(ids[i]);
		if (!libxdp_get_error(progs[got]))	/* NULL or ERR_PTR */
			got++;
	}
	if (got)
		err = xdp_program__detach_multi(progs, got, ifindex, mode, 0);
	for (i = 0; i < got; i++)
		xdp_program__close(progs[i]);
	if (got < n || err) {
		fprintf(stderr, "%s", bpf_log_text());
		die("cannot detach from %s's XDP dispatcher: %s", iface,
		    got < n ? "a program of bloomctl's left it meanwhile" :
		    strerror(-err));
	}
}
