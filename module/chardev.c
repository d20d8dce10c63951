// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/bloom: the ioctl ABI of uapi/bloom_ioctl.h. Each command's struct
 * is copied in once, validated, acted on, and copied back out; nothing
 * is read from userspace twice. The device acts on the network
 * namespace of the process that opened it.
 */
#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/nsproxy.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <net/net_namespace.h>
#include "../uapi/bloom_ioctl.h"
#include "registry.h"
#include "chardev.h"

#define LIST_MAX	1024	/* names per LIST call */

static bool zeroed(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

static int names_check(const char *a, const char *b)
{
	return bloom_name_check(a) ?: (b ? bloom_name_check(b) : 0);
}

static long ioc_version(struct net *net, void *arg)
{
	struct bloom_ioc_version *v = arg;

	memset(v, 0, sizeof(*v));
	v->abi_version = BLOOM_ABI_VERSION;
	v->max_cmd = BLOOM_IOC_MAX_NR;
	v->cmds = GENMASK_ULL(BLOOM_IOC_MAX_NR, 0);
	v->layouts = GENMASK_ULL(BLOOM_LAYOUT_MAX - 1, 0);
	v->key_types = GENMASK_ULL(BLOOM_KEY_MAX - 1, 0) &
		       ~BIT_ULL(BLOOM_KEY_DIGEST_V1);	/* retired */
	return 0;
}

/* A filter that grows: the defaults its caller left to us. */
static void growth_defaults(struct bloom_ioc_create *cr)
{
	if (!cr->stages_max)
		return;
	if (!cr->growth)
		cr->growth = BLOOM_GROWTH_DEFAULT;
	if (!cr->tighten_pct)
		cr->tighten_pct = BLOOM_TIGHTEN_DEFAULT_PCT;
}

/*
 * The first stage's rate, so that the series of a filter that grows
 * stays below the rate asked for: e (1 - r). Out of range, it is the
 * geometry check's to refuse; under 1 ppb it is 0, which sizing
 * refuses (EINVAL): the bound could not be kept.
 */
static u64 first_rate(const struct bloom_ioc_create *cr)
{
	if (!cr->stages_max || cr->tighten_pct >= 100 ||
	    cr->fpr_ppb > BLOOM_PPB)
		return cr->fpr_ppb;
	return cr->fpr_ppb * (100 - cr->tighten_pct) / 100;
}

/*
 * The caller learns the geometry (the seed above all) before the filter
 * appears: if it cannot be told (EFAULT), nothing was created, and a
 * retry does not find the name taken. So CREATE copies its struct out
 * itself, between preparing the contents and publishing them.
 */
static long ioc_create(struct net *net, struct bloom_ioc_create *cr,
		       void __user *uptr)
{
	struct bloom_geom g = {
		.bits = cr->bits, .hashes = cr->hashes, .seed = cr->seed,
		.capacity = cr->capacity, .layout = cr->layout,
		.key_type = cr->key_type, .flags = cr->flags,
		.gens = cr->generations, .age_flags = cr->age_flags,
		.period_ms = cr->period_ms, .value_bits = cr->value_bits,
	};
	bool by_rate = cr->fpr_ppb;
	struct bloom_contents *c;
	long err;

	if (names_check(cr->name, NULL) || !zeroed(cr->reserved0,
						   sizeof(cr->reserved0)) ||
	    cr->reserved)
		return -EINVAL;
	growth_defaults(cr);
	if (by_rate ? (cr->bits || cr->hashes || !cr->capacity) :
		      !(cr->bits && cr->hashes))
		return -EINVAL;
	if (cr->seed && !(cr->flags & BLOOM_F_FIXED_SEED))
		return -EINVAL;
	if (g.layout >= BLOOM_LAYOUT_MAX)
		return -EINVAL;
	/* As sized before P: the first stage's rate at most one half. */
	if (by_rate && first_rate(cr) > BLOOM_PPB / 2)
		return -EINVAL;
	if (by_rate) {
		/* The rate asked is a lookup's; a net lookup takes P probes. */
		err = bloom_geom_size(cr->capacity,
				      bloom_probe_fpr_ppb(&g, first_rate(cr)),
				      g.layout, &g);
		if (err)
			return err;
		/* Sizing fills in m and k only. */
		g.gens = cr->generations;
		g.age_flags = cr->age_flags;
		g.period_ms = cr->period_ms;
	}
	g.stages_max = cr->stages_max;
	g.growth = cr->growth;
	g.tighten_pct = cr->tighten_pct;
	err = bloom_registry_prepare(net, cr->name, &g, &c);
	if (err)
		return err;
	cr->bits = g.bits;
	cr->hashes = g.hashes;
	cr->seed = g.seed;
	cr->capacity = g.capacity;
	if (copy_to_user(uptr, cr, sizeof(*cr))) {
		bloom_contents_free(c);
		return -EFAULT;
	}
	return bloom_registry_publish(net, cr->name, c, false);
}

/* An aging filter drops its oldest generation now. */
static long ioc_rotate(struct net *net, const char *name)
{
	struct bloom_filter *f = bloom_lookup(net, name);
	long err;

	if (IS_ERR(f))
		return PTR_ERR(f);
	err = bloom_rotate(f);
	bloom_filter_put(f);
	return err;
}

static long ioc_name(struct net *net, void *arg, unsigned int cmd)
{
	struct bloom_ioc_name *n = arg;

	if (names_check(n->name, NULL) || n->reserved)
		return -EINVAL;
	switch (cmd) {
	case BLOOM_IOC_DESTROY:
		return bloom_registry_destroy(net, n->name);
	case BLOOM_IOC_CLEAR:
		return bloom_registry_clear(net, n->name);
	case BLOOM_IOC_ROTATE:
		return ioc_rotate(net, n->name);
	default:
		return bloom_registry_halve(net, n->name);
	}
}

static int estimate(struct bloom_filter *f, struct bloom_contents *a,
		    struct bloom_contents *b, void *arg)
{
	struct bloom_ioc_pair *p = arg;

	return bloom_contents_estimate(a, b, &p->intersection, &p->union_);
}

static long ioc_pair(struct net *net, void *arg, unsigned int cmd)
{
	struct bloom_ioc_pair *p = arg;

	if (names_check(p->name, p->other) || p->intersection || p->union_ ||
	    !zeroed(p->reserved, sizeof(p->reserved)))
		return -EINVAL;
	switch (cmd) {
	case BLOOM_IOC_RENAME:
		return bloom_registry_rename(net, p->name, p->other);
	case BLOOM_IOC_SWAP:
		return bloom_registry_swap(net, p->name, p->other);
	case BLOOM_IOC_UNION:
		return bloom_registry_combine(net, p->name, p->other, false);
	case BLOOM_IOC_INTERSECT:
		return bloom_registry_combine(net, p->name, p->other, true);
	default:
		return bloom_registry_read(net, p->name, p->other, estimate, p);
	}
}

/* The generations of an aging filter, newest first, when asked for. */
static int put_gens(struct bloom_ioc_info *in, const struct bloom_report *r)
{
	struct bloom_ioc_gen gen[BLOOM_GENERATIONS_MAX] = {};
	u32 i;

	if (!in->gens || !in->generations)
		return 0;
	for (i = 0; i < in->generations; i++) {
		gen[i].age_ms = r->gen[i].age_ms;
		gen[i].inserted = r->gen[i].st.inserted;
		gen[i].bits_set = r->gen[i].st.bits_set;
		gen[i].fill_ppb = r->gen[i].st.fill_ppb;
	}
	return copy_to_user(u64_to_user_ptr(in->gens), gen,
			    sizeof(gen[0]) * in->generations) ? -EFAULT : 0;
}

static int info(struct bloom_filter *f, struct bloom_contents *c,
		struct bloom_contents *unused, void *arg)
{
	struct bloom_ioc_info *in = arg;
	const struct bloom_geom *g = &c->core.g;
	struct bloom_report r;
	int err = bloom_filter_report(f, c, &r);

	if (err)
		return err;
	in->bits = g->bits;
	in->seed = g->seed;
	in->hashes = g->hashes;
	in->layout = g->layout;
	in->key_type = g->key_type;
	in->flags = g->flags;
	in->bits_set = r.st.bits_set;
	in->fill_ppb = r.st.fill_ppb;
	in->est_card = r.st.est_card;
	in->est_fpr_ppb = r.st.est_fpr_ppb;
	in->inserted = r.st.inserted;
	in->mem_bytes = r.st.mem_bytes;
	in->hits = r.hits;
	in->misses = r.misses;
	rcu_read_lock();
	bloom_contents_plens(c, in->plens);
	rcu_read_unlock();
	in->users = r.users;
	in->capacity = g->capacity;
	in->generations = g->gens;
	in->period_ms = g->period_ms;
	in->age_flags = g->age_flags;
	in->rotations = r.rotations;
	return put_gens(in, &r);
}

static long ioc_info(struct net *net, void *arg)
{
	struct bloom_ioc_info *in = arg;
	char name[BLOOM_NAME_MAX];
	u64 gens = in->gens;

	if (in->generations || in->period_ms || in->age_flags ||
	    in->rotations)
		return -EINVAL;
	/* Only the name and @gens are input: the rest is output, zeroed. */
	memcpy(name, in->name, sizeof(name));
	memset(in, 0, sizeof(*in));
	memcpy(in->name, name, sizeof(name));
	in->gens = gens;
	if (names_check(in->name, NULL))
		return -EINVAL;
	return bloom_registry_read(net, in->name, NULL, info, in);
}

/* Copy out stage @i's figures; @s holds the filter's growth too. */
static int put_stage(struct bloom_ioc_stages *in,
		     const struct bloom_stage_report *s, u32 i)
{
	struct bloom_ioc_stage out = {
		.bits = s->g.bits, .capacity = s->g.capacity,
		.inserted = s->st.inserted, .bits_set = s->st.bits_set,
		.fill_ppb = s->st.fill_ppb, .est_fpr_ppb = s->st.est_fpr_ppb,
		.mem_bytes = s->st.mem_bytes, .hashes = s->g.hashes,
	};
	void __user *to = u64_to_user_ptr(in->buf) + (size_t)i * sizeof(out);

	return copy_to_user(to, &out, sizeof(out)) ? -EFAULT : 0;
}

static int stages(struct bloom_filter *f, struct bloom_contents *c,
		  struct bloom_contents *unused, void *arg)
{
	struct bloom_ioc_stages *in = arg;
	struct bloom_stage_report *s = kmalloc(sizeof(*s), GFP_KERNEL);
	u32 i;
	int err = s ? 0 : -ENOMEM;

	for (i = 0; !err; i++) {
		err = bloom_contents_stage(c, i, s);
		if (!err && i < in->count)
			err = put_stage(in, s, i);
		if (!err && fatal_signal_pending(current))
			err = -EINTR;
	}
	if (err == -ENOENT) {
		in->stages = s->stages;
		in->stages_max = c->core.g.stages_max;
		in->growth = c->core.g.growth;
		in->tighten_pct = c->core.g.tighten_pct;
		in->full = s->full;
		in->bound_ppb = s->bound_ppb;
		err = 0;
	}
	kfree(s);
	return err;
}

static long ioc_stages(struct net *net, void *arg, unsigned int cmd)
{
	struct bloom_ioc_stages *in = arg;

	if (names_check(in->name, NULL) || in->stages || in->stages_max ||
	    in->growth || in->tighten_pct || in->full || in->reserved ||
	    in->bound_ppb || in->reserved2)
		return -EINVAL;
	return bloom_registry_read(net, in->name, NULL, stages, in);
}

static int cuckoo_info(struct bloom_filter *f, struct bloom_contents *c,
		       struct bloom_contents *unused, void *arg)
{
	struct bloom_ioc_cuckoo *in = arg;
	struct bloom_report r;
	int err;

	if (c->core.g.layout != BLOOM_LAYOUT_CUCKOO)
		return -EOPNOTSUPP;
	err = bloom_contents_report(c, &r);
	if (err)
		return err;
	in->buckets = c->core.range;
	in->used = r.st.bits_set;
	in->moves = r.moves;
	in->failed = r.failed;
	in->fp_bits = c->core.g.hashes;
	in->slots = BLOOM_CUCKOO_SLOTS;
	in->value_bits = c->core.g.value_bits;
	return 0;
}

/* Under the filter's reference: a static filter's shape. */
static int fuse_info(struct bloom_filter *f, struct bloom_contents *c,
		     struct bloom_contents *unused, void *arg)
{
	struct bloom_ioc_fuse *in = arg;

	if (c->core.g.layout != BLOOM_LAYOUT_FUSE)
		return -EOPNOTSUPP;
	in->keys = c->core.g.capacity;
	in->segment_len = c->core.seg_len;
	in->entries = c->core.range + 2 * (u64)c->core.seg_len;
	in->fp_bits = c->core.g.hashes;
	in->value_bits = c->core.g.value_bits;
	return 0;
}

static long ioc_fuse(struct net *net, void *arg, unsigned int cmd)
{
	struct bloom_ioc_fuse *in = arg;

	if (names_check(in->name, NULL) || in->keys || in->entries ||
	    in->segment_len || in->fp_bits || in->value_bits ||
	    in->reserved || in->reserved2[0] || in->reserved2[1])
		return -EINVAL;
	return bloom_registry_read(net, in->name, NULL, fuse_info, in);
}

static int filter_id(struct bloom_filter *f, struct bloom_contents *c,
		     struct bloom_contents *unused, void *arg)
{
	((struct bloom_ioc_id *)arg)->id = f->id;
	return 0;
}

static long ioc_id(struct net *net, void *arg, unsigned int cmd)
{
	struct bloom_ioc_id *in = arg;

	if (names_check(in->name, NULL) || in->id || in->reserved0 ||
	    in->reserved)
		return -EINVAL;
	return bloom_registry_read(net, in->name, NULL, filter_id, in);
}

static int value_hits(struct bloom_filter *f, struct bloom_contents *c,
		      struct bloom_contents *unused, void *arg)
{
	struct bloom_ioc_value_hits *in = arg;
	u64 *hits = kcalloc(1U << BLOOM_VALUE_HITS_BITS, sizeof(*hits),
			    GFP_KERNEL);
	int err = 0;

	if (!hits)
		return -ENOMEM;
	in->values = bloom_filter_value_hits(f, hits,
					     1U << BLOOM_VALUE_HITS_BITS);
	if (copy_to_user(u64_to_user_ptr(in->buf), hits,
			 min(in->count, in->values) * sizeof(*hits)))
		err = -EFAULT;
	kfree(hits);
	return err;
}

static long ioc_value_hits(struct net *net, void *arg, unsigned int cmd)
{
	struct bloom_ioc_value_hits *in = arg;

	if (names_check(in->name, NULL) || in->values || in->reserved[0] ||
	    in->reserved[1])
		return -EINVAL;
	return bloom_registry_read(net, in->name, NULL, value_hits, in);
}

static long ioc_cuckoo(struct net *net, void *arg, unsigned int cmd)
{
	struct bloom_ioc_cuckoo *in = arg;

	if (names_check(in->name, NULL) || in->buckets || in->used ||
	    in->moves || in->failed || in->fp_bits || in->slots ||
	    in->value_bits || in->reserved || in->reserved2)
		return -EINVAL;
	return bloom_registry_read(net, in->name, NULL, cuckoo_info, in);
}

struct list_ctx {
	struct bloom_ioc_list *l;
	char (*names)[BLOOM_NAME_MAX];
	u32 index;
};

/* Under RCU: copies into a kernel buffer only. */
static int list_one(const char *name, void *arg)
{
	struct list_ctx *x = arg;
	u32 at = x->index++;

	if (at >= x->l->offset && x->l->returned < x->l->count)
		strscpy(x->names[x->l->returned++], name, BLOOM_NAME_MAX);
	x->l->total = x->index;
	return 0;
}

static long ioc_list(struct net *net, void *arg)
{
	struct bloom_ioc_list *l = arg;
	struct list_ctx x = { .l = l };
	long err = 0;

	if (l->returned || l->total || l->reserved)
		return -EINVAL;
	l->count = min(l->count, LIST_MAX);
	x.names = kcalloc(max(l->count, 1U), BLOOM_NAME_MAX, GFP_KERNEL);
	if (!x.names)
		return -ENOMEM;
	bloom_registry_names(net, list_one, &x);
	if (copy_to_user(u64_to_user_ptr(l->names), x.names,
			 (size_t)l->returned * BLOOM_NAME_MAX))
		err = -EFAULT;
	kfree(x.names);
	return err;
}

static long ioc_limits(struct net *net, void *arg)
{
	struct bloom_ioc_limits *lim = arg;
	struct bloom_limits l = {
		.max_filters = lim->max_filters, .max_bytes = lim->max_bytes,
	};
	bool set = lim->flags & BLOOM_LIMITS_SET;
	int err;

	if ((lim->flags & ~BLOOM_LIMITS_SET) || lim->reserved0 ||
	    lim->reserved || lim->filters || lim->bytes)
		return -EINVAL;
	if (set && !ns_capable(net->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	/*
	 * Root of a user namespace owning its network namespace manages
	 * its filters there, within the ceiling the host's administrator
	 * set (see bloom_registry_limits()).
	 */
	err = bloom_registry_limits(net, &l, set, set && capable(CAP_NET_ADMIN));
	if (err)
		return err;
	lim->max_filters = l.max_filters;
	lim->max_bytes = l.max_bytes;
	lim->filters = l.filters;
	lim->bytes = l.bytes;
	return 0;
}

/* The command table: struct size comes from the command number. */
struct bloom_cmd {
	unsigned int cmd;
	bool changes;		/* needs CAP_NET_ADMIN */
	long (*fn)(struct net *net, void *arg, unsigned int cmd);
};

static long do_version(struct net *n, void *a, unsigned int c)
{
	return ioc_version(n, a);
}

static long do_info(struct net *n, void *a, unsigned int c)
{
	return ioc_info(n, a);
}

static long do_list(struct net *n, void *a, unsigned int c)
{
	return ioc_list(n, a);
}

static long do_limits(struct net *n, void *a, unsigned int c)
{
	return ioc_limits(n, a);
}

static const struct bloom_cmd cmds[] = {
	{ BLOOM_IOC_VERSION,	false, do_version },
	{ BLOOM_IOC_CREATE,	true,  NULL },	/* ioc_create(): copies out */
	{ BLOOM_IOC_DESTROY,	true,  ioc_name },
	{ BLOOM_IOC_RENAME,	true,  ioc_pair },
	{ BLOOM_IOC_CLEAR,	true,  ioc_name },
	{ BLOOM_IOC_ADD,	true,  bloom_ioc_batch },
	{ BLOOM_IOC_TEST,	false, bloom_ioc_batch },
	{ BLOOM_IOC_DEL,	true,  bloom_ioc_batch },
	{ BLOOM_IOC_COUNT,	false, bloom_ioc_batch },
	{ BLOOM_IOC_INFO,	false, do_info },
	{ BLOOM_IOC_LIST,	false, do_list },
	{ BLOOM_IOC_SWAP,	true,  ioc_pair },
	{ BLOOM_IOC_UNION,	true,  ioc_pair },
	{ BLOOM_IOC_INTERSECT,	true,  ioc_pair },
	{ BLOOM_IOC_HALVE,	true,  ioc_name },
	{ BLOOM_IOC_ESTIMATE,	false, ioc_pair },
	{ BLOOM_IOC_SAVE,	false, bloom_ioc_save },
	{ BLOOM_IOC_RESTORE,	true,  bloom_ioc_restore },
	{ BLOOM_IOC_LIMITS,	false, do_limits },
	{ BLOOM_IOC_ROTATE,	true,  ioc_name },
	{ BLOOM_IOC_STAGES,	false, ioc_stages },
	{ BLOOM_IOC_CUCKOO,	false, ioc_cuckoo },
	{ BLOOM_IOC_FUSE,	false, ioc_fuse },
	{ BLOOM_IOC_VALUE,	false, bloom_ioc_batch },
	{ BLOOM_IOC_ID,		false, ioc_id },
	{ BLOOM_IOC_VALUE_HITS,	false, ioc_value_hits },
};

static long bloom_ioctl(struct file *file, unsigned int cmd,
			unsigned long uarg)
{
	void __user *uptr = (void __user *)uarg;
	struct net *net = file->private_data;
	const struct bloom_cmd *c;
	u64 buf[32];		/* the largest command struct */
	long err;

	BUILD_BUG_ON(sizeof(struct bloom_ioc_save) > sizeof(buf));
	BUILD_BUG_ON(sizeof(struct bloom_ioc_info) > sizeof(buf));
	if (_IOC_TYPE(cmd) != BLOOM_IOC_MAGIC || _IOC_NR(cmd) >= ARRAY_SIZE(cmds))
		return -ENOTTY;
	c = &cmds[_IOC_NR(cmd)];
	if (c->cmd != cmd)
		return -ENOTTY;
	if (c->changes && !ns_capable(net->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if ((_IOC_DIR(cmd) & _IOC_WRITE) &&
	    copy_from_user(buf, uptr, _IOC_SIZE(cmd)))
		return -EFAULT;
	if (cmd == BLOOM_IOC_CREATE)
		return ioc_create(net, (struct bloom_ioc_create *)buf, uptr);
	err = c->fn(net, buf, cmd);
	if ((_IOC_DIR(cmd) & _IOC_READ) &&
	    copy_to_user(uptr, buf, _IOC_SIZE(cmd)))
		return -EFAULT;
	return err;
}

static int bloom_open(struct inode *inode, struct file *file)
{
	file->private_data = get_net(current->nsproxy->net_ns);
	return nonseekable_open(inode, file);
}

static int bloom_release(struct inode *inode, struct file *file)
{
	put_net(file->private_data);
	return 0;
}

static const struct file_operations bloom_fops = {
	.owner = THIS_MODULE,
	.open = bloom_open,
	.release = bloom_release,
	.unlocked_ioctl = bloom_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice bloom_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "bloom",
	.fops = &bloom_fops,
	.mode = 0600,
};

int bloom_chardev_init(void)
{
	return misc_register(&bloom_misc);
}

void bloom_chardev_exit(void)
{
	misc_deregister(&bloom_misc);
}
