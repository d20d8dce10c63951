// SPDX-License-Identifier: GPL-2.0
/* /proc/net/bloom: one line per filter of the reader's namespace. */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>
#include "registry.h"

static const char *const layout_names[] = {
	"blocked", "standard", "partitioned", "counting",
};

static const char *const key_names[] = {
	"bytes", "addr", "net", "addr,port", "flow",
};

static int show_one(struct bloom_filter *f, struct bloom_contents *c,
		    struct bloom_contents *unused, void *arg)
{
	const struct bloom_geom *g = &c->core.g;
	struct seq_file *seq = arg;
	struct bloom_report r;
	int err = bloom_filter_report(f, c, &r);

	if (err)
		return err;
	seq_printf(seq, "%-31s %-11s %-9s %12llu %2u %12llu %3llu.%02llu%% %10llu %12llu %5u\n",
		   rcu_dereference_protected(f->name, 1)->s,
		   layout_names[g->layout], key_names[g->key_type], g->bits,
		   g->hashes, r.st.inserted, r.st.fill_ppb / 10000000,
		   r.st.fill_ppb / 100000 % 100, r.st.est_fpr_ppb,
		   r.st.mem_bytes, r.users);
	return 0;
}

static int bloom_proc_show(struct seq_file *seq, void *v)
{
	seq_printf(seq, "%-31s %-11s %-9s %12s %2s %12s %7s %10s %12s %5s\n",
		   "name", "layout", "key", "m", "k", "inserted", "fill",
		   "fpr_ppb", "bytes", "users");
	return bloom_registry_for_each(seq_file_single_net(seq), show_one, seq);
}

int bloom_proc_net_init(struct net *net)
{
	if (!proc_create_net_single("bloom", 0444, net->proc_net,
				    bloom_proc_show, NULL))
		return -ENOMEM;
	return 0;
}

void bloom_proc_net_exit(struct net *net)
{
	remove_proc_entry("bloom", net->proc_net);
}
