// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/net/bloom: one line per filter of the reader's namespace.
 *
 * Any user in the namespace may read it, so it takes no registry lock:
 * the iterator holds one filter at a time (and, while printing it, its
 * contents), and measures each filter once per line it prints.
 */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include "registry.h"
#include "procfs.h"

/* Position 0 is the header; filter n is at n + 1. Holds what it returns. */
static void *bloom_seq_start(struct seq_file *seq, loff_t *pos)
{
	if (!*pos)
		return SEQ_START_TOKEN;
	return bloom_registry_nth(seq_file_net(seq), *pos - 1);
}

static void *bloom_seq_next(struct seq_file *seq, void *v, loff_t *pos)
{
	if (v != SEQ_START_TOKEN)
		bloom_filter_put(v);
	++*pos;
	return bloom_registry_nth(seq_file_net(seq), *pos - 1);
}

static void bloom_seq_stop(struct seq_file *seq, void *v)
{
	if (v && v != SEQ_START_TOKEN)
		bloom_filter_put(v);
}

/*
 * Aging columns, after the others: G, the period in ms and, newest first,
 * each generation's age in ms and inserted count ("-" when plain).
 */
static void show_gens(struct seq_file *seq, const struct bloom_geom *g,
		      const struct bloom_report *r)
{
	unsigned int i;

	seq_printf(seq, " %4u %10u ", g->gens, g->period_ms);
	if (!g->gens)
		seq_putc(seq, '-');
	for (i = 0; i < g->gens; i++)
		seq_printf(seq, "%s%llu:%llu", i ? "," : "", r->gen[i].age_ms,
			   r->gen[i].st.inserted);
}

/*
 * Each stage of a filter that grows, oldest first, as inserted/capacity
 * ("-" for other kinds).
 */
static void show_stages(struct seq_file *seq, struct bloom_contents *c)
{
	struct bloom_stage_report *s = kmalloc(sizeof(*s), GFP_KERNEL);
	u32 i;

	seq_putc(seq, ' ');
	for (i = 0; s && !bloom_contents_stage(c, i, s); i++)
		seq_printf(seq, "%s%llu/%llu", i ? "," : "", s->st.inserted,
			   s->g.capacity);
	if (!i)
		seq_putc(seq, '-');
	kfree(s);
}

/* A cuckoo table's moves and refused adds, else "-". */
static void show_cuckoo(struct seq_file *seq, const struct bloom_geom *g,
			const struct bloom_report *r)
{
	if (g->layout == BLOOM_LAYOUT_CUCKOO)
		seq_printf(seq, " %llu:%llu", r->moves, r->failed);
	else
		seq_puts(seq, " -");
}

static void show_filter(struct seq_file *seq, struct bloom_filter *f,
			const char *name)
{
	struct bloom_contents *c = bloom_contents_get(f);
	const struct bloom_geom *g = &c->core.g;
	struct bloom_report r;

	if (!bloom_filter_report(f, c, &r)) {
		seq_printf(seq, "%-31s %-11s %-9s %12llu %2u %12llu %12llu %3llu.%02llu%% %10llu %12llu %5u %-5s",
			   name, bloom_layout_name(g->layout),
			   bloom_key_type_name(g->key_type), g->bits, g->hashes,
			   g->capacity, r.st.inserted,
			   r.st.fill_ppb / 10000000,
			   r.st.fill_ppb / 100000 % 100, r.st.est_fpr_ppb,
			   r.st.mem_bytes, r.users,
			   r.over ? "over" : "ok");
		show_gens(seq, g, &r);
		show_stages(seq, c);
		show_cuckoo(seq, g, &r);
		/* Last, so that columns counted from the left stay put. */
		seq_printf(seq, " %u\n", f->id);
	}
	bloom_contents_put(c);
}

static int bloom_seq_show(struct seq_file *seq, void *v)
{
	char name[BLOOM_NAME_MAX];

	if (v == SEQ_START_TOKEN) {
		seq_printf(seq, "%-31s %-11s %-9s %12s %2s %12s %12s %7s %10s %12s %5s %-5s %4s %10s %s %s %s %s\n",
			   "name", "layout", "key", "m", "k", "capacity",
			   "inserted", "fill", "fpr_ppb", "bytes", "users",
			   "state", "gens", "period_ms", "age_ms:inserted",
			   "stages", "moves:failed", "id");
		return 0;
	}
	rcu_read_lock();
	strscpy(name, rcu_dereference(((struct bloom_filter *)v)->name)->s,
		sizeof(name));
	rcu_read_unlock();
	show_filter(seq, v, name);
	return 0;
}

static const struct seq_operations bloom_seq_ops = {
	.start = bloom_seq_start,
	.next = bloom_seq_next,
	.stop = bloom_seq_stop,
	.show = bloom_seq_show,
};

static int __net_init bloom_proc_net_init(struct net *net)
{
	if (!IS_ENABLED(CONFIG_PROC_FS))
		return 0;
	if (!proc_create_net("bloom", 0444, net->proc_net, &bloom_seq_ops,
			     sizeof(struct seq_net_private)))
		return -ENOMEM;
	return 0;
}

static void __net_exit bloom_proc_net_exit(struct net *net)
{
	remove_proc_entry("bloom", net->proc_net);
}

/* After the registry's: a namespace's file goes before its filters. */
static struct pernet_operations bloom_proc_net_ops = {
	.init = bloom_proc_net_init,
	.exit = bloom_proc_net_exit,
};

int bloom_proc_init(void)
{
	return register_pernet_subsys(&bloom_proc_net_ops);
}

void bloom_proc_exit(void)
{
	unregister_pernet_subsys(&bloom_proc_net_ops);
}
