/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bloomctl xdp (cmd_xdp.c) and its use of libxdp's dispatcher
 * (xdp_dispatch.c) share: the command's arguments and what is attached.
 */
#ifndef _BLOOMCTL_XDP_H
#define _BLOOMCTL_XDP_H

#include <bpf/bpf.h>
#include <linux/if_link.h>
#include "bloomctl.h"
#include "../xdp/bloom_xdp.h"

#define TC_INGRESS	0xff	/* struct attached.mode, beside XDP_ATTACHED_* */
#define DISPATCHER_PROG	"xdp_dispatcher"	/* libxdp's, by name */
#define DISPATCHER_MAX	10	/* programs in one dispatcher (libxdp's limit) */

struct xdp_args {
	const char *iface, *set;
	int key_type;		/* -1: either */
	u8 dir;
	u32 mode;		/* XDP_FLAGS_DRV_MODE or _SKB_MODE */
	bool mode_set;		/* --mode given */
	bool tc;		/* at tc ingress instead */
	bool plain;		/* --plain: the interface's only program */
	u32 priority;		/* in the dispatcher: lower runs first */
	bool priority_set;
};

/* One program at an interface's XDP hook (or in its dispatcher), or tc. */
struct attached {
	u32 prog_id;
	u8 mode;		/* XDP_ATTACHED_*, or TC_INGRESS */
	char name[BPF_OBJ_NAME_LEN];
	bool ours;
	bool dispatched;	/* one of the dispatcher's programs */
	u32 priority;		/* its place there */
	struct bloom_xdp_cfg cfg;
	u64 counters[BLOOM_XDP_NCOUNTERS];
	bool have_cfg, have_counters;
};

/* cmd_xdp.c */
void prog_read(struct attached *a, const char *ours);
bool attached_read(int ifindex, struct attached *a);

/* xdp_dispatch.c */
bool dispatcher_is(const struct attached *a);
const char *dispatcher_bpffs(void);
int dispatcher_programs(int ifindex, struct attached *out, int max);
void dispatcher_attach(struct bpf_object *obj, int ifindex, u8 mode,
		       const struct xdp_args *x);
void dispatcher_detach(int ifindex, const u32 *ids, int n,
		       const char *iface);

#endif /* _BLOOMCTL_XDP_H */
