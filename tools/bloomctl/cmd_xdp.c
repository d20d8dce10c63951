// SPDX-License-Identifier: GPL-2.0
/*
 * bloomctl xdp: attach the shipped XDP program (tools/xdp/bloom_xdp.bpf.c)
 * to an interface with a filter, detach it, and show what is attached.
 *
 * The program calls bloom.ko's kfuncs, which need the module's BTF: attach
 * checks for it first and says what is missing. By default it joins the
 * interface's libxdp dispatcher, beside other programs (xdp_dispatch.c);
 * --plain makes it the interface's only program, with nothing pinned.
 * Either way status finds it at the interface, with its configuration
 * and counters in its own maps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include "xdp.h"

#define XDP_OBJ		"bloom_xdp.bpf.o"

/*
 * The attached program of an interface: its id, or 0. With programs in
 * several modes (XDP_ATTACHED_MULTI), the driver's, else the generic one.
 */
static u32 attached_id(int ifindex, u8 *mode)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	int err = bpf_xdp_query(ifindex, 0, &q);

	if (err) {
		warn("cannot read the XDP program of interface %d: %s", ifindex,
		     strerror(-err));
		return 0;
	}
	*mode = q.attach_mode;
	if (q.attach_mode != XDP_ATTACHED_MULTI)
		return q.prog_id;
	*mode = q.drv_prog_id ? XDP_ATTACHED_DRV : XDP_ATTACHED_SKB;
	return q.drv_prog_id ?: q.skb_prog_id;
}

/* Read a program's configuration and counters from its maps. */
static void read_maps(struct attached *a, int prog_fd)
{
	struct bpf_prog_info info = { 0 };
	u32 len = sizeof(info), ids[8], i, zero = 0;

	info.nr_map_ids = ARRAY_SIZE(ids);
	info.map_ids = (uintptr_t)ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return;
	for (i = 0; i < info.nr_map_ids && i < ARRAY_SIZE(ids); i++) {
		struct bpf_map_info mi = { 0 };
		u32 mlen = sizeof(mi);
		int fd = bpf_map_get_fd_by_id(ids[i]);
		size_t nlen;

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &mi, &mlen)) {
			nlen = strlen(mi.name);
			if (!strcmp(mi.name, BLOOM_XDP_COUNTERS)) {
				bpf_counters_read(fd, a->counters, BLOOM_XDP_NCOUNTERS);
				a->have_counters = true;
			} else if (nlen >= 7 &&
				   !strcmp(mi.name + nlen - 7, ".rodata") &&
				   mi.value_size == sizeof(a->cfg) &&
				   !bpf_map_lookup_elem(fd, &zero, &a->cfg)) {
				a->have_cfg = true;
			}
		}
		close(fd);
	}
}

/* The program of @a->prog_id: its name, and if ours its maps. */
void prog_read(struct attached *a, const char *ours)
{
	struct bpf_prog_info info = { 0 };
	u32 len = sizeof(info);
	int fd;

	fd = bpf_prog_get_fd_by_id(a->prog_id);
	if (fd < 0)
		return;		/* gone meanwhile, or not ours to read */
	if (!bpf_obj_get_info_by_fd(fd, &info, &len)) {
		memcpy(a->name, info.name, sizeof(a->name));
		a->ours = !strcmp(info.name, ours);
		if (a->ours)
			read_maps(a, fd);
	}
	close(fd);
}

/* What XDP program is attached to @ifindex; false when none is. */
bool attached_read(int ifindex, struct attached *a)
{
	memset(a, 0, sizeof(*a));
	a->prog_id = attached_id(ifindex, &a->mode);
	if (a->prog_id)
		prog_read(a, BLOOM_XDP_PROG);
	return a->prog_id;
}

/*
 * At tc ingress bloomctl's program is one filter among others, found by
 * its own handle and priority on the clsact qdisc.
 */
#define TC_HANDLE	0xb10
#define TC_PRIORITY	0xb10

static void tc_where(int ifindex, struct bpf_tc_hook *hook,
		     struct bpf_tc_opts *o)
{
	memset(hook, 0, sizeof(*hook));
	hook->sz = sizeof(*hook);
	hook->ifindex = ifindex;
	hook->attach_point = BPF_TC_INGRESS;
	memset(o, 0, sizeof(*o));
	o->sz = sizeof(*o);
	o->handle = TC_HANDLE;
	o->priority = TC_PRIORITY;
}

/* bloomctl's tc program on @ifindex; false when there is none. */
static bool tc_read(int ifindex, struct attached *a)
{
	struct bpf_tc_hook hook;
	struct bpf_tc_opts o;

	memset(a, 0, sizeof(*a));
	tc_where(ifindex, &hook, &o);
	libbpf_set_print(bpf_keep_log);	/* ENOENT is an answer, not news */
	if (bpf_tc_query(&hook, &o) || !o.prog_id)
		return false;
	a->prog_id = o.prog_id;
	a->mode = TC_INGRESS;
	prog_read(a, BLOOM_TC_PROG);
	return true;
}

static int iface_index(const char *iface)
{
	int ifindex = if_nametoindex(iface);

	if (!ifindex)
		die("no interface %s in this network namespace", iface);
	return ifindex;
}

/* The program reads Ethernet frames: refuse L3 devices (tun, wireguard). */
static void need_ethernet(const char *iface)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	if (fd < 0 || ioctl(fd, SIOCGIFHWADDR, &ifr))
		die("cannot read the link type of %s: %s", iface,
		    strerror(errno));
	close(fd);
	if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER)
		die("%s is not an Ethernet device (link type %u): the program "
		    "reads Ethernet frames", iface, ifr.ifr_hwaddr.sa_family);
}

/* The program object, configured for @x and filter @id, not yet loaded. */
static struct bpf_object *xdp_open(const struct xdp_args *x, u32 id)
{
	struct bloom_xdp_cfg cfg = { .filter_id = id, .dir = x->dir };
	const char *path = bpf_obj_path(XDP_OBJ, "BLOOM_XDP_OBJ", "XDP");
	struct bpf_program *prog;
	struct bpf_object *obj;
	struct bpf_map *rodata;

	snprintf(cfg.name, sizeof(cfg.name), "%s", x->set);
	libbpf_set_print(bpf_keep_log);
	obj = bpf_object__open_file(path, NULL);
	if (!obj)
		die("cannot open %s: %s", path, strerror(errno));
	rodata = bpf_object__find_map_by_name(obj, ".rodata");
	if (!rodata || bpf_map__set_initial_value(rodata, &cfg, sizeof(cfg)))
		die("%s is not bloomctl's XDP program", path);
	/* Only the program attached is loaded. */
	bpf_object__for_each_program(prog, obj)
		bpf_program__set_autoload(prog, !strcmp(bpf_program__name(prog),
			x->tc ? BLOOM_TC_PROG : BLOOM_XDP_PROG));
	return obj;
}

/* The program, configured and loaded. */
static struct bpf_object *xdp_load(const struct xdp_args *x, u32 id)
{
	struct bpf_object *obj = xdp_open(x, id);
	int err = bpf_object__load(obj);

	if (err) {
		fprintf(stderr, "%s", bpf_log_text());
		die("cannot load the XDP program (%s): the kernel refused it "
		    "(above); is bloom.ko loaded with its kfuncs (dmesg)?",
		    strerror(-err));
	}
	return obj;
}

static const char *mode_name(u8 mode)
{
	switch (mode) {
	case XDP_ATTACHED_DRV:
		return "native";
	case XDP_ATTACHED_SKB:
		return "generic";
	case XDP_ATTACHED_HW:
		return "offload";
	case TC_INGRESS:
		return "tc ingress";
	default:
		return "multi";
	}
}

static u32 mode_flags(u8 mode)
{
	switch (mode) {
	case XDP_ATTACHED_DRV:
		return XDP_FLAGS_DRV_MODE;
	case XDP_ATTACHED_SKB:
		return XDP_FLAGS_SKB_MODE;
	default:
		return 0;
	}
}

static void attached_text(const struct xdp_args *x, const char *where,
			  u32 id)
{
	if (!opts.quiet)
		printf("attached to %s (%s): drops packets whose %s address "
		       "is in %s (id %u)\n", x->iface, where,
		       x->dir == BLOOM_XDP_DST ? "destination" : "source",
		       x->set, id);
}

/* At tc ingress, beside other filters; bloomctl's own is replaced. */
static void tc_attach(const struct xdp_args *x, int ifindex, u32 id)
{
	struct bpf_object *obj = xdp_load(x, id);
	struct bpf_tc_hook hook;
	struct bpf_tc_opts o;
	int err;

	tc_where(ifindex, &hook, &o);
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		die("cannot add a clsact qdisc to %s: %s", x->iface,
		    strerror(-err));
	o.prog_fd = bpf_program__fd(bpf_object__find_program_by_name(obj,
							BLOOM_TC_PROG));
	o.flags = BPF_TC_F_REPLACE;
	err = bpf_tc_attach(&hook, &o);
	bpf_object__close(obj);	/* the filter keeps the program */
	if (err)
		die("cannot attach to %s at tc ingress: %s", x->iface,
		    strerror(-err));
	attached_text(x, "tc ingress", id);
}

/* As the interface's only program, replacing bloomctl's atomically. */
static void plain_attach(const struct xdp_args *x, int ifindex, u32 id,
			 const struct attached *cur, const char *why)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, ao);
	struct bpf_object *obj;
	u32 flags = x->mode;
	int fd = -1, err;
	char where[96];

	obj = xdp_load(x, id);
	if (cur->prog_id) {
		/* Ours: replace it atomically, in its mode, or not at all. */
		fd = bpf_prog_get_fd_by_id(cur->prog_id);
		ao.old_prog_fd = fd;
		flags = mode_flags(cur->mode) | XDP_FLAGS_REPLACE;
	} else {
		flags |= XDP_FLAGS_UPDATE_IF_NOEXIST;
	}
	err = bpf_xdp_attach(ifindex, bpf_program__fd(
			bpf_object__find_program_by_name(obj, BLOOM_XDP_PROG)),
			flags, &ao);
	if (fd >= 0)
		close(fd);
	bpf_object__close(obj);	/* the attachment keeps the program */
	if (err == -EBUSY || err == -EEXIST)
		die("%s: another XDP program was attached meanwhile, or one in "
		    "another mode: detach it first", x->iface);
	if (err == -EOPNOTSUPP && x->mode == XDP_FLAGS_DRV_MODE)
		die("%s has no native XDP: try --mode generic", x->iface);
	if (err) {
		fprintf(stderr, "%s", bpf_log_text());
		die("cannot attach to %s: %s", x->iface, strerror(-err));
	}
	snprintf(where, sizeof(where), "%s XDP, alone%s%s",
		 flags & XDP_FLAGS_SKB_MODE ? "generic" : "native",
		 why ? ": " : "", why ? why : "");
	attached_text(x, where, id);
}

/*
 * The ids of bloomctl's programs in @ifindex's dispatcher, into @ids,
 * and the priority of the first in *@prio. libxdp reads a dispatcher
 * through its pins: one made in another bpffs looks empty, and so that
 * nothing is done blind, that is an error.
 */
static int dispatched_ours(const char *iface, int ifindex, u32 *ids,
			   u32 *prio)
{
	struct attached progs[DISPATCHER_MAX];
	int n = dispatcher_programs(ifindex, progs, DISPATCHER_MAX);
	int i, ours = 0;

	if (!n)
		die("libxdp cannot read the XDP dispatcher on %s: it was made "
		    "in another bpffs than %s (set LIBXDP_BPFFS to that one)",
		    iface, dispatcher_bpffs() ?: "/sys/fs/bpf, not mounted");
	for (i = 0; i < n; i++) {
		if (!progs[i].ours)
			continue;
		if (!ours && prio)
			*prio = progs[i].priority;
		ids[ours++] = progs[i].prog_id;
	}
	return ours;
}

/*
 * Through libxdp's dispatcher, beside the programs of @cur (or alone
 * when it is NULL). bloomctl's program already there is detached once
 * the new one runs: for a moment both do, and no packet goes unchecked.
 */
static void dispatched_attach(const struct xdp_args *x, int ifindex, u32 id,
			      const struct attached *cur)
{
	u8 mode = x->mode == XDP_FLAGS_SKB_MODE ? XDP_ATTACHED_SKB :
		  XDP_ATTACHED_DRV;
	struct xdp_args args = *x;
	u32 old[DISPATCHER_MAX], prio;
	struct bpf_object *obj;
	struct attached now;
	char where[96];
	int n = 0;

	if (cur) {
		if (x->mode_set && mode_flags(cur->mode) != x->mode)
			die("the XDP dispatcher on %s runs in %s mode: its "
			    "programs all do", x->iface, mode_name(cur->mode));
		mode = cur->mode;
		n = dispatched_ours(x->iface, ifindex, old, &prio);
		if (n && !x->priority_set) {
			/* A replacement keeps its place in the chain. */
			args.priority = prio;
			args.priority_set = true;
		}
	}
	obj = xdp_open(x, id);
	dispatcher_attach(obj, ifindex, mode, &args);
	bpf_object__close(obj);	/* the dispatcher keeps the program */
	if (n)
		dispatcher_detach(ifindex, old, n, x->iface);
	if (attached_read(ifindex, &now) && dispatcher_is(&now))
		snprintf(where, sizeof(where), "%s XDP, libxdp's dispatcher",
			 mode_name(mode));
	else
		snprintf(where, sizeof(where), "%s XDP, alone: libxdp could "
			 "not load its dispatcher", mode_name(mode));
	attached_text(x, where, id);
}

static void xdp_attach(const struct xdp_args *x)
{
	int ifindex = iface_index(x->iface);
	struct attached a;
	const char *why = NULL;
	u32 id;

	need_module_btf("XDP");
	need_ethernet(x->iface);
	id = bpf_filter_id(x->set, x->key_type, "xdp attach", "XDP");
	if (x->tc) {
		tc_attach(x, ifindex, id);
		return;
	}
	attached_read(ifindex, &a);
	if (dispatcher_is(&a)) {
		if (x->plain)
			die("%s runs libxdp's dispatcher: --plain would replace "
			    "its programs", x->iface);
		dispatched_attach(x, ifindex, id, &a);
		return;
	}
	if (a.prog_id && !a.ours)
		die("%s already has an XDP program that is not bloomctl's (%s, "
		    "id %u), not through libxdp's dispatcher: detach it first",
		    x->iface, a.name, a.prog_id);
	if (a.prog_id && x->mode_set && mode_flags(a.mode) != x->mode)
		die("bloomctl's program is attached to %s in %s mode: detach it "
		    "first to change the mode", x->iface, mode_name(a.mode));
	if (a.prog_id)
		why = "as it was";
	else if (!x->plain && !dispatcher_bpffs())
		why = "no bpffs for libxdp's dispatcher (mount one, or set "
		      "LIBXDP_BPFFS)";
	if (x->priority_set && a.prog_id)
		die("--priority is a place in libxdp's dispatcher, and "
		    "bloomctl's program is attached to %s alone: detach it "
		    "first", x->iface);
	if (x->priority_set && why)
		die("--priority is a place in libxdp's dispatcher, and there "
		    "is %s", why);
	if (x->plain || why)
		plain_attach(x, ifindex, id, &a, x->plain ? NULL : why);
	else
		dispatched_attach(x, ifindex, id, NULL);
}

/* Detach bloomctl's tc program from @ifindex; false if it has none. */
static bool tc_detach(const char *iface, int ifindex)
{
	struct bpf_tc_hook hook;
	struct bpf_tc_opts o;
	struct attached a;
	int err;

	if (!tc_read(ifindex, &a) || !a.ours)
		return false;
	tc_where(ifindex, &hook, &o);
	err = bpf_tc_detach(&hook, &o);
	if (err)
		die("cannot detach from %s at tc ingress: %s", iface,
		    strerror(-err));
	if (!opts.quiet)
		printf("detached from %s (tc ingress)\n", iface);
	return true;
}

/*
 * Only bloomctl's programs leave the dispatcher; the others stay. With
 * @quiet_none (detach --all), a dispatcher libxdp cannot read is passed.
 */
static void dispatched_detach(const char *iface, int ifindex, bool quiet_none)
{
	struct attached progs[DISPATCHER_MAX];
	u32 ids[DISPATCHER_MAX];
	int n;

	if (quiet_none && !dispatcher_programs(ifindex, progs, DISPATCHER_MAX))
		return;
	n = dispatched_ours(iface, ifindex, ids, NULL);

	if (!n) {
		if (!quiet_none)
			die("%s's XDP dispatcher runs no program of bloomctl's: "
			    "not detaching the others", iface);
		return;
	}
	dispatcher_detach(ifindex, ids, n, iface);
	if (!opts.quiet)
		printf("detached from %s (XDP, libxdp's dispatcher)\n", iface);
}

/*
 * Detach bloomctl's programs (XDP and tc) from @ifindex. Unless
 * @quiet_none, it is an error that there is none, and a foreign XDP
 * program is named.
 */
static void detach_ours(const char *iface, int ifindex, bool quiet_none)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, ao);
	bool tc = tc_detach(iface, ifindex);
	struct attached a;
	int fd, err;

	if (!attached_read(ifindex, &a)) {
		if (!quiet_none && !tc)
			die("%s has no program of bloomctl's, XDP or tc", iface);
		return;
	}
	if (dispatcher_is(&a)) {
		dispatched_detach(iface, ifindex, quiet_none || tc);
		return;
	}
	if (!a.ours) {
		if (!quiet_none && !tc)
			die("%s's XDP program is not bloomctl's (%s, id %u): "
			    "not detaching it", iface, a.name, a.prog_id);
		return;
	}
	fd = bpf_prog_get_fd_by_id(a.prog_id);
	ao.old_prog_fd = fd;
	err = bpf_xdp_detach(ifindex, mode_flags(a.mode) | XDP_FLAGS_REPLACE,
			     &ao);
	if (fd >= 0)
		close(fd);
	if (err)
		die("cannot detach from %s: %s", iface, strerror(-err));
	if (!opts.quiet)
		printf("detached from %s (XDP)\n", iface);
}

static void status_json(struct json *j, const char *iface,
			const struct attached *a)
{
	const char *now = a->have_cfg ? filter_of_id(a->cfg.filter_id) : NULL;

	json_object(j, NULL);
	json_str(j, "interface", iface);
	json_str(j, "program", a->name);
	json_u64(j, "program_id", a->prog_id);
	json_str(j, "mode", mode_name(a->mode));
	json_bool(j, "dispatcher", a->dispatched);
	if (a->dispatched)
		json_u64(j, "priority", a->priority);
	json_bool(j, "bloomctl", a->ours);
	if (a->have_cfg) {
		json_u64(j, "filter_id", a->cfg.filter_id);
		json_str(j, "filter", now ? now : "");
		json_str(j, "direction", a->cfg.dir == BLOOM_XDP_DST ?
			 "dst" : "src");
	}
	if (a->have_counters) {
		json_u64(j, "seen", a->counters[BLOOM_XDP_SEEN]);
		json_u64(j, "matched", a->counters[BLOOM_XDP_MATCHED]);
		json_u64(j, "dropped", a->counters[BLOOM_XDP_DROPPED]);
		json_u64(j, "errors", a->counters[BLOOM_XDP_ERRORS]);
	}
	json_close(j, '}');
}

static void status_text(const char *iface, const struct attached *a)
{
	const char *now = a->have_cfg ? filter_of_id(a->cfg.filter_id) : NULL;

	printf("%s: %s (id %u), %s mode", iface, a->name, a->prog_id,
	       mode_name(a->mode));
	if (a->dispatched)
		printf(", libxdp's dispatcher, priority %u", a->priority);
	if (!a->ours) {
		printf(", not bloomctl's\n");
		return;
	}
	if (a->have_cfg)
		printf(", %s address in filter id %u (%s)",
		       a->cfg.dir == BLOOM_XDP_DST ? "destination" : "source",
		       a->cfg.filter_id, now ? now : "gone: packets pass");
	printf("\n");
	if (a->have_counters)
		printf("  seen %llu, matched %llu, dropped %llu, errors %llu\n",
		       (unsigned long long)a->counters[BLOOM_XDP_SEEN],
		       (unsigned long long)a->counters[BLOOM_XDP_MATCHED],
		       (unsigned long long)a->counters[BLOOM_XDP_DROPPED],
		       (unsigned long long)a->counters[BLOOM_XDP_ERRORS]);
}

static int status_show(struct json *j, const char *iface,
		       const struct attached *a)
{
	if (opts.format == OUT_JSON)
		status_json(j, iface, a);
	else if (!opts.quiet)
		status_text(iface, a);
	return 1;
}

/*
 * The XDP program of @ifindex, @a; for libxdp's dispatcher, the programs
 * it runs, in order (the dispatcher itself when libxdp cannot read them).
 */
static int xdp_show(struct json *j, const char *iface, int ifindex,
		    const struct attached *a)
{
	struct attached progs[DISPATCHER_MAX];
	int n = 0, i;

	if (dispatcher_is(a))
		n = dispatcher_programs(ifindex, progs, DISPATCHER_MAX);
	if (!n)
		return status_show(j, iface, a);
	for (i = 0; i < n; i++)
		status_show(j, iface, &progs[i]);
	return n;
}

/* Every interface with an XDP program or bloomctl's tc one, or @only. */
static void xdp_status(const char *only)
{
	struct if_nameindex *ifs, *i;
	struct attached a;
	struct json j;
	int shown = 0;

	ifs = if_nameindex();
	if (!ifs)
		die("cannot list interfaces: %s", strerror(errno));
	if (opts.format == OUT_JSON) {
		json_start(&j);
		json_array(&j, NULL);
	}
	for (i = ifs; i->if_index; i++) {
		if (only && strcmp(only, i->if_name))
			continue;
		if (attached_read(i->if_index, &a))
			shown += xdp_show(&j, i->if_name, i->if_index, &a);
		if (tc_read(i->if_index, &a))
			shown += status_show(&j, i->if_name, &a);
	}
	if (opts.format == OUT_JSON) {
		json_close(&j, ']');
		json_finish(&j);
	} else if (!shown && !opts.quiet) {
		printf("no program is attached%s%s\n", only ? " to " : "",
		       only ? only : "");
	}
	if_freenameindex(ifs);
}

/* detach --all: every interface where bloomctl's program is attached. */
static void detach_all(void)
{
	struct if_nameindex *ifs = if_nameindex(), *i;

	if (!ifs)
		die("cannot list interfaces: %s", strerror(errno));
	for (i = ifs; i->if_index; i++)
		detach_ours(i->if_name, i->if_index, true);
	if_freenameindex(ifs);
}

enum { OPT_SET = 0x200, OPT_KEY, OPT_DIR, OPT_MODE, OPT_ALL, OPT_TC,
       OPT_PLAIN, OPT_PRIORITY };

static const struct option xdp_longopts[] = {
	COMMON_LONGOPTS,
	{ "set",	required_argument,	NULL, OPT_SET },
	{ "key",	required_argument,	NULL, OPT_KEY },
	{ "dir",	required_argument,	NULL, OPT_DIR },
	{ "mode",	required_argument,	NULL, OPT_MODE },
	{ "all",	no_argument,		NULL, OPT_ALL },
	{ "tc",		no_argument,		NULL, OPT_TC },
	{ "plain",	no_argument,		NULL, OPT_PLAIN },
	{ "priority",	required_argument,	NULL, OPT_PRIORITY },
	{ NULL, 0, NULL, 0 }
};

static void xdp_option(struct xdp_args *x, bool *all, int c)
{
	u64 prio;

	switch (c) {
	case OPT_SET:
		check_name("xdp", optarg);
		x->set = optarg;
		break;
	case OPT_KEY:
		if (strcmp(optarg, "addr") && strcmp(optarg, "net"))
			usage_error("xdp", "--key takes addr or net, not '%s'",
				    optarg);
		x->key_type = key_type_parse(optarg);
		break;
	case OPT_DIR:
		if (strcmp(optarg, "src") && strcmp(optarg, "dst"))
			usage_error("xdp", "--dir takes src or dst, not '%s'",
				    optarg);
		x->dir = !strcmp(optarg, "dst") ? BLOOM_XDP_DST : BLOOM_XDP_SRC;
		break;
	case OPT_MODE:
		x->mode_set = true;
		if (!strcmp(optarg, "native"))
			x->mode = XDP_FLAGS_DRV_MODE;
		else if (!strcmp(optarg, "generic"))
			x->mode = XDP_FLAGS_SKB_MODE;
		else
			usage_error("xdp", "--mode takes native or generic, not '%s'",
				    optarg);
		break;
	case OPT_ALL:
		*all = true;
		break;
	case OPT_TC:
		x->tc = true;
		break;
	case OPT_PLAIN:
		x->plain = true;
		break;
	case OPT_PRIORITY:
		if (parse_u64(optarg, &prio) || prio > UINT32_MAX)
			usage_error("xdp", "--priority takes a number from 0 to "
				    "%u (lower runs first), not '%s'",
				    UINT32_MAX, optarg);
		x->priority = prio;
		x->priority_set = true;
		break;
	default:
		common_option("xdp", c);
	}
}

/* xdp attach IFACE --set NAME ... | detach IFACE|--all | status [IFACE] */
int cmd_xdp(int argc, char **argv)
{
	struct xdp_args x = { .key_type = -1, .mode = XDP_FLAGS_DRV_MODE };
	const char *verb;
	bool all = false;
	int c, n;

	while ((c = parse_options(argc, argv, COMMON_SHORTOPTS,
				  xdp_longopts)) != -1)
		xdp_option(&x, &all, c);
	n = argc - optind;
	verb = n ? argv[optind] : "";
	if (!strcmp(verb, "attach")) {
		positional("xdp attach", n - 1, 1, 1, "IFACE");
		if (!x.set)
			usage_error("xdp", "attach needs --set NAME");
		if (x.tc && (x.mode_set || x.plain || x.priority_set))
			usage_error("xdp", "--tc excludes --mode, --plain and "
				    "--priority");
		if (x.plain && x.priority_set)
			usage_error("xdp", "--priority is a place in libxdp's "
				    "dispatcher: not with --plain");
		x.iface = argv[optind + 1];
		xdp_attach(&x);
	} else if (!strcmp(verb, "detach")) {
		if (all) {
			positional("xdp detach", n - 1, 0, 0, "");
			detach_all();
		} else {
			positional("xdp detach", n - 1, 1, 1, "IFACE");
			detach_ours(argv[optind + 1],
				    iface_index(argv[optind + 1]), false);
		}
	} else if (!strcmp(verb, "status")) {
		positional("xdp status", n - 1, 0, 1, "[IFACE]");
		if (n == 2)
			iface_index(argv[optind + 1]);
		xdp_status(n == 2 ? argv[optind + 1] : NULL);
	} else {
		usage_error("xdp", n ? "unknown action '%s': attach, detach or status" :
			    "attach, detach or status?%s", n ? verb : "");
	}
	return EXIT_OK;
}
