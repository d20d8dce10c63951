/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bloomctl: the operator's tool for the kernel's named Bloom filters.
 * What the files of tools/bloomctl/ share with each other.
 */
#ifndef _BLOOMCTL_H
#define _BLOOMCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include "../../module/core/bloom_core.h"
#include "../../uapi/bloom_ioctl.h"

#define BLOOMCTL_VERSION	"1.0"
#define BLOOM_DEVICE		"/dev/bloom"
#define KEYS_PER_BATCH		65536	/* keys per ioctl */

/* Exit statuses, as ipset and iptables use them. */
#define EXIT_OK			0
#define EXIT_ABSENT		1	/* test: some key is absent */
#define EXIT_ERROR		2
#define EXIT_DEGRADED		3	/* restore-all: some filters made empty */

/* "1 key", "2 keys" */
#define PLURAL(n)		((n) == 1 ? "" : "s")

#define __noreturn		__attribute__((__noreturn__))
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))

enum out_format {
	OUT_TABLE,
	OUT_JSON,
};

/* Global options: before or after the subcommand. */
struct bloomctl_opts {
	enum out_format format;
	bool quiet;
	u64 read_max;		/* --max-memory of a snapshot's reader */
};

extern struct bloomctl_opts opts;

/* A subcommand. */
struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *synopsis;	/* one line, after the name */
	const char *help;	/* the rest of "SUBCMD --help" */
};

extern const struct command commands[];
const struct command *command_find(const char *name);

/* util.c: messages, memory, numbers, names */
void __noreturn __printf(1, 2) die(const char *fmt, ...);
void __printf(1, 2) warn(const char *fmt, ...);
void __noreturn __printf(2, 3) usage_error(const char *cmd,
					   const char *fmt, ...);
void *xmalloc(size_t size);
const char *temp_dir(void);
FILE *temp_file(void);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
int parse_u64(const char *s, u64 *out);
int parse_duration_ms(const char *s, u32 *out);
int parse_count(const char *s, u64 *out);
#define RATE_MIN	1e-9	/* false-positive rates: one part per 10^9 */
#define RATE_MAX	0.5
int parse_rate(const char *s, u64 *ppb);
int parse_percent(const char *s, u32 *pct);
const char *name_problem(const char *name);
void check_name(const char *cmd, const char *name);
int layout_parse(const char *s);
#define KEY_TYPE_RETIRED	(-2)	/* key_type_parse(): a retired type */
int key_type_parse(const char *s);

/* Options every subcommand takes: -h, -q, -o FORMAT. */
#define COMMON_SHORTOPTS	":hqo:"
#define COMMON_LONGOPTS					\
	{ "help",	no_argument,		NULL, 'h' },	\
	{ "quiet",	no_argument,		NULL, 'q' },	\
	{ "output",	required_argument,	NULL, 'o' },	\
	{ "json",	no_argument,		NULL, OPT_JSON }
/* --json: -o json, as nft spells it */
#define OPT_JSON	0x128
/* --out FILE: where save and build write (-o is the format everywhere) */
#define OPT_OUT		0x100
#define OUT_LONGOPT	{ "out", required_argument, NULL, OPT_OUT }
void set_format(const char *cmd, const char *fmt);
void common_option(const char *cmd, int c);
void command_help(const char *cmd);
int parse_options(int argc, char **argv, const char *shortopts,
		  const void *longopts);
const char *bad_option(char **argv);
void positional(const char *cmd, int n, int min, int max, const char *what);

/* keys.c: text to key encodings (uapi/bloom.h) */
#define KEY_BYTES_REC	(sizeof(u16) + BLOOM_KEY_BYTES_MAX)	/* bytes stride */
/* The longest record of any type: a buffer for one. */
#define KEY_REC_MAX	sizeof(struct bloom_key_digest)
static_assert(KEY_REC_MAX >= KEY_BYTES_REC, "a bytes record is longer");
#define WHY_MAX		256
size_t key_stride(u8 type);
int key_parse(u8 type, const char *text, size_t len, void *rec,
	      char *why, size_t whylen);
void text_shown(char *dst, size_t size, const char *s, size_t len);

int addr_parse(const char *s, size_t len, u8 addr[16]);
void key_netmask(int family, unsigned int len);
bool v4_parse(const char *s, size_t len, u8 addr[16]);

/* range.c: "a-b" in addr and net filters */
#define RANGE_ADDRS_MAX	65536U	/* addresses of a range in an addr filter */
typedef void (*range_emit_fn)(void *ctx, const void *rec);
int range_expand(u8 type, const char *text, size_t len, range_emit_fn emit,
		 void *ctx, char *why, size_t whylen);

/* input.c: the keys of add, del, test, count and build */
struct key_where {
	u64 text;		/* offset in the text arena */
	u32 line;		/* 0: a command-line argument */
	u32 source;		/* index in keylist.sources */
};

struct keylist {
	u8 type;
	size_t stride;		/* bytes per record */
	size_t count, cap;
	u8 *recs;
	struct key_where *where;
	char *arena;		/* NUL-terminated key texts */
	size_t arena_len, arena_cap;
	const char **sources;	/* the -f files, for messages */
	u32 nsources;
	/* Keys with values (build --values): one per record. */
	bool with_values;
	u32 *values;
	u32 value;		/* of the key being loaded */
	u32 value_max;		/* the largest value a key may have */
	bool file_has_value;	/* -f FILE=VALUE: lines need none */
	u32 file_value;
	u16 family;		/* BLOOM_F_INET, _INET6: refuse the other */
};

struct key_input {
	char **args;		/* keys on the command line */
	int nargs;
	const char **files;	/* every -f FILE, in order; "-" is stdin */
	int nfiles;
	bool values;		/* lines end in a value (build --values) */
	u8 value_bits;		/* their width; 0: BLOOM_FUSE_VALUE_BITS_MAX */
	u16 family;		/* the filter's: other keys are refused */
};

void key_input_file(struct key_input *in, const char *path);
/* --allow-empty: an input without a key is what was meant (test, build) */
#define OPT_ALLOW_EMPTY	0x127
#define ALLOW_EMPTY_LONGOPT						\
	{ "allow-empty", no_argument,		NULL, OPT_ALLOW_EMPTY }
void __noreturn keys_none(const char *cmd, const char *what,
			  const struct key_input *in, const char *allowed);
int keylist_add_line(struct keylist *kl, const char *line, size_t len,
		     u32 lineno, char *why, size_t whylen);
void keylist_load(struct keylist *kl, u8 type, const struct key_input *in,
		  const char *cmd);
struct key_stream;
void keys_read(struct keylist *kl, u8 type, const struct key_input *in,
	       const char *cmd, struct key_stream *ks);
void keylist_reserve(struct keylist *kl, size_t count, size_t arena_len);

/* stream.c: the input of add and build, in passes of bounded memory */
struct key_stream {
	u8 type;
	const struct key_input *in;
	const char *cmd;
	bool read_done;		/* the first pass is over */
	FILE *spool;		/* its full chunks, for the later passes */
	u64 spooled;		/* the keys of those chunks */
	struct keylist last;	/* its last chunk, and the sources */
	const char *label;
	void (*chunk)(struct keylist *kl, void *ctx);
	void *ctx;
};

void key_stream_init(struct key_stream *ks, u8 type,
		     const struct key_input *in, const char *cmd);
void key_stream_pass(struct key_stream *ks, const char *label,
		     void (*chunk)(struct keylist *kl, void *ctx), void *ctx);
void key_stream_free(struct key_stream *ks);
void key_stream_line(struct key_stream *ks, struct keylist *kl);

/* distinct.c: how many different records, in bounded memory */
struct distinct {
	size_t stride, n, cap;
	u8 *buf;
	FILE *runs;		/* sorted runs, when the buffer filled */
	struct { off_t at; size_t n; } *run;
	size_t nruns;
};

void distinct_init(struct distinct *d, size_t stride);
void distinct_add(struct distinct *d, const void *rec);
u64 distinct_count(struct distinct *d);
void keylist_push(struct keylist *kl, const void *rec);
u64 keylist_distinct(const struct keylist *kl, const u8 *skip);
void keylist_free(struct keylist *kl);
const void *keylist_rec(const struct keylist *kl, size_t i);
const char *keylist_text(const struct keylist *kl, size_t i);
void keylist_where(const struct keylist *kl, size_t i, char *buf,
		   size_t size);
const void *rec_key(u8 type, const void *rec, size_t *len);

/* A growing filter's stages, oldest first; s.stages_max 0: not one. */
struct stage_list {
	struct bloom_ioc_stages s;
	struct bloom_ioc_stage st[BLOOM_STAGES_MAX];
};

/* How many stages @sl holds (never more than it has room for). */
static inline u32 stage_count(const struct stage_list *sl)
{
	return min(sl->s.stages, BLOOM_STAGES_MAX);
}

/* dev.c: /dev/bloom */
int dev_ioctl(unsigned long cmd, void *arg);
void name_copy(char *dst, const char *name);
int dev_info(const char *name, struct bloom_ioc_info *in);
int dev_stages(const char *name, struct stage_list *sl);
int dev_names(char (**names)[BLOOM_NAME_MAX], u32 *count);
int dev_fuse(const char *name, struct bloom_ioc_fuse *f);
int dev_batch(unsigned long cmd, const char *name, const struct keylist *kl,
	      size_t first, u32 count, void *results,
	      struct bloom_ioc_batch *out);
int dev_pair(unsigned long cmd, const char *a, const char *b,
	     struct bloom_ioc_pair *out);
int dev_name_op(unsigned long cmd, const char *name);
const char *dev_strerror(int err, const char *name);
void __noreturn die_dev(const char *what, int err, const char *name);
void __noreturn die_pair(const char *what, int err, const char *a,
			 const char *b);
u8 filter_key_type(const char *cmd, const char *name,
		   struct bloom_ioc_info *in);

/* output.c: tables, JSON, sizes, progress */
void human_bytes(u64 bytes, char *buf, size_t size);
void human_count(u64 n, char *buf, size_t size);
void human_rate(u64 ppb, char *buf, size_t size);

#define JSON_DEPTH	8
struct json {
	FILE *f;
	int depth;
	bool items[JSON_DEPTH];	/* something printed at this depth */
};

void json_start(struct json *j);
void json_finish(struct json *j);
void json_object(struct json *j, const char *key);
void json_array(struct json *j, const char *key);
void json_close(struct json *j, char bracket);
void json_str(struct json *j, const char *key, const char *val);
void json_u64(struct json *j, const char *key, u64 val);
void json_double(struct json *j, const char *key, double val);
void json_bool(struct json *j, const char *key, bool val);
void json_null(struct json *j, const char *key);
void json_seed(struct json *j, u64 seed);

#define TABLE_COLS	12
struct table {
	int ncols;
	const char *heads[TABLE_COLS];
	bool right[TABLE_COLS];	/* right-aligned (numbers) */
	char **cells;		/* rows * ncols strings */
	size_t ncells, rows;
};

void table_init(struct table *t, const char *spec);
void __printf(2, 3) table_cell(struct table *t, const char *fmt, ...);
void table_print(struct table *t);
void table_free(struct table *t);

struct progress {
	const char *label;
	u64 total;
	double start, last;
	bool on, drawn, bytes;
};

void progress_start(struct progress *p, const char *label, u64 total,
		    bool bytes);
void progress_update(struct progress *p, u64 done);
void progress_end(struct progress *p);

/* geom.c: geometry options shared by create and build */
struct geom_opts {
	u64 capacity, fpr_ppb, bits, seed;
	u32 hashes;
	int layout, key_type;
	bool seeded;
	bool by_rate;		/* sized from capacity and rate */
	u8 generations;		/* aging: 0 = plain */
	u8 age_flags;		/* BLOOM_AGE_F_* */
	u32 period_ms;
	bool grow;		/* growing (scalable): the three below */
	u8 stages_max;
	u8 growth;
	u8 tighten_pct;
	bool transport;		/* sized for the wire (transport.c) */
	u64 max_mem;		/* --max-memory; 0: the default */
	unsigned int probes;	/* net: lengths a lookup is sized for */
	u16 family;		/* BLOOM_F_INET, _INET6, or 0: both */
	bool net_doubled;	/* net: --capacity made keys (geom.c) */
	bool own_lengths;	/* net: --capacity counts keys (create) */
	u8 value_bits;		/* create --value-bits: cuckoo values */
};

/*
 * The prefix lengths a net filter's lookups are sized for when create is
 * not told (--probes): what the default expansion of real lists takes,
 * both families in one filter (4 to 6 for IPv4 blocklists, 12 for the
 * IPv6 fullbogons, 16 for FireHOL level 1 with them). Twice the
 * lengths cost about 1.4 bits a key more.
 */
#define NET_PROBES_DEFAULT	16

/* Aging options of create (long only). */
#define OPT_GENERATIONS	0x101
#define OPT_ROTATE	0x102
#define OPT_ROTATE_FULL	0x103
#define AGE_LONGOPTS							\
	{ "generations", required_argument,	NULL, OPT_GENERATIONS },	\
	{ "rotate",	required_argument,	NULL, OPT_ROTATE },	\
	{ "rotate-full", no_argument,		NULL, OPT_ROTATE_FULL }

/* Growing (scalable) options of create and calc (long only). */
#define OPT_GROW	0x104
#define OPT_GROWTH	0x105
#define OPT_TIGHTENING	0x106
#define OPT_MAX_STAGES	0x107
#define GROW_LONGOPTS							\
	{ "grow",	no_argument,		NULL, OPT_GROW },	\
	{ "growth",	required_argument,	NULL, OPT_GROWTH },	\
	{ "tightening",	required_argument,	NULL, OPT_TIGHTENING },	\
	{ "max-stages",	required_argument,	NULL, OPT_MAX_STAGES }

#define GEOM_LONGOPTS						\
	{ "capacity",	required_argument,	NULL, 'n' },	\
	{ "fp-rate",	required_argument,	NULL, 'e' },	\
	{ "bits",	required_argument,	NULL, 'm' },	\
	{ "hashes",	required_argument,	NULL, 'k' },	\
	{ "layout",	required_argument,	NULL, 'l' },	\
	{ "key",	required_argument,	NULL, 't' },	\
	{ "seed",	required_argument,	NULL, 's' },	\
	{ "family",	required_argument,	NULL, OPT_FAMILY }
#define GEOM_SHORTOPTS	"n:e:m:k:l:t:s:"

void geom_opts_init(struct geom_opts *o);
bool geom_option(struct geom_opts *o, const char *cmd, int c,
		 const char *arg);
void geom_opts_finish(struct geom_opts *o, const char *cmd);
void geom_family_check(const struct geom_opts *o, const char *cmd);
bool age_option(struct geom_opts *o, const char *cmd, int c, const char *arg);
void age_opts_finish(struct geom_opts *o, const char *cmd);
bool grow_option(struct geom_opts *o, const char *cmd, int c, const char *arg);
void grow_opts_finish(struct geom_opts *o, const char *cmd);
u64 first_fpr_ppb(const struct geom_opts *o);
u16 geom_flags(const struct geom_opts *o);
#define OPT_FAMILY	0x12b	/* create, build: --family */
const char *family_name(u16 flags);
const char *key_label(u8 key_type, u16 flags);
void json_family(struct json *j, u8 key_type, u16 flags);
void geom_net_capacity(struct geom_opts *o);
unsigned int info_probes(const struct bloom_ioc_info *in);
void geom_resolve(const struct geom_opts *o, const char *cmd,
		  struct bloom_geom *g);
void geom_seed(const struct geom_opts *o, const char *cmd,
	       struct bloom_geom *g);
const char *geom_problem(const struct bloom_geom *g);
double geom_theory_fpr(const struct bloom_geom *g, u64 n);
const char *capacity_problem(const char *what, const struct bloom_geom *g,
			     u64 keys);
void first_stage_geom(const struct bloom_ioc_info *in,
		      const struct stage_list *sl, struct bloom_geom *g);
const char *stages_problem(const char *what, const struct stage_list *sl,
			   const struct bloom_geom *g, u64 fresh);

/* snapshot.c: snapshot files */
struct snap_image {
	u8 *buf;		/* header, then payload */
	size_t len;
};

int snap_fetch(const char *name, struct snap_image *img);
int snap_fetch_tail(const char *name, void *buf, u64 len, u16 flags);
void snap_seal(struct snap_image *img);
void snap_read_file(const char *path, struct snap_image *img);
int snap_verify(const struct snap_image *img, struct bloom_snap_info *info);
/* snap_verify(): a snapshot of a retired key type (bloomctl's own code) */
#define SNAP_E_RETIRED_KEY	(-EKEYEXPIRED)
/* snap_verify(): fewer bytes than the header's payload length */
#define SNAP_E_TRUNCATED	(-EPIPE)
const char *snap_strerror(int err);
int write_file_atomic(const char *path, const void *buf, size_t len);
char *snap_default_name(const char *path);
void snap_free(struct snap_image *img);

/* outfile.c: --out FILE */
void out_check(const char *cmd, const char *out, const struct key_input *in);
int out_tmp_create(char *tmpl);
void out_tmp_done(void);

/* compress.c: compressed snapshots, for transport */
#define SNAPZ_HDR_BYTES	48
enum snapz_method {
	SNAPZ_STORED,
	SNAPZ_RICE,		/* golomb-rice coded gaps between set bits */
	SNAPZ_ZSTD,
};

/*
 * --max-memory B of info, test, count, restore: a compressed snapshot's
 * decoded size at most B (default TRANSPORT_MEM_DEFAULT)
 */
#define READ_LONGOPT	{ "max-memory", required_argument, NULL, OPT_MAX_MEMORY }
bool read_option(const char *cmd, int c, const char *arg);
bool snapz_is(const u8 *buf, size_t len);
unsigned int snapz_pack(const struct snap_image *in, struct snap_image *out);
void snapz_unpack(const char *path, struct snap_image *img);
const char *snapz_method_name(unsigned int method);
double rice_model_bits(double s, double bits, unsigned int r);
unsigned int rice_pick(double s, double bits);
double snapz_rice_model_bytes(double s, u64 bytes);

/* transport.c: calc --transport, build --transport */
#define OPT_TRANSPORT	0x120
#define OPT_MAX_MEMORY	0x121
#define OPT_COMPRESS	0x122
#define OPT_KIND	0x123	/* build --kind */
#define OPT_VALUES	0x124	/* build --values */
#define TRANSPORT_LONGOPTS						\
	{ "transport",	no_argument,		NULL, OPT_TRANSPORT },	\
	{ "max-memory",	required_argument,	NULL, OPT_MAX_MEMORY }
#define COMPRESS_LONGOPT { "compress", no_argument, NULL, OPT_COMPRESS }
/* The kernel's default memory limit of a network namespace. */
#define TRANSPORT_MEM_DEFAULT	(1ULL << 30)
bool transport_option(struct geom_opts *o, const char *cmd, int c,
		      const char *arg);
void transport_geom(const struct geom_opts *o, struct bloom_geom *g);
void calc_transport(const struct geom_opts *o);

/* summary.c: the /16 summary of net filters */
bloom_word_t *summary_new(const struct bloom_geom *g);
void summary_note_keys(bloom_word_t *s, const struct bloom_geom *g,
		       const struct keylist *kl);
bloom_word_t *summary_from_le(const struct bloom_geom *g, const void *payload);
bloom_word_t *summary_fetch(const char *name, u16 flags);

/* fuse.c: static filters, built offline */
u32 fuse_kind_bits(const char *kind);
u32 fuse_value_bits(const struct keylist *kl);
struct bloom_bits *fuse_build(struct bloom_geom *g, const struct keylist *kl,
			      const char *cmd);

/* prefixes.c: net keys stored at a few prefix lengths */
#define BLOOM_PLEN_MAX		128
#define EXPAND_MAX_BITS		16	/* a prefix becomes at most 2^16 keys */
#define EXPAND_BUDGET		2	/* by default, at most twice the keys */
#define EXPAND_KEYS_MAX		(1ULL << 24)	/* an explicit list, no capacity */
#define OPT_PREFIX_LENGTHS	0x125
#define OPT_PROBES		0x126
#define OPT_VALUE_BITS		0x12c	/* create */
#define OPT_NETMASK4		0x129	/* add, del */
#define OPT_NETMASK6		0x12a
#define PREFIX_LONGOPTS							\
	{ "prefix-lengths", required_argument,	NULL, OPT_PREFIX_LENGTHS }, \
	{ "probes",	required_argument,	NULL, OPT_PROBES }

struct plen_set {
	u64 w[BLOOM_PLEN_WORDS];
};

enum { PREFIX_AUTO, PREFIX_ALL, PREFIX_LIST };

struct prefix_opts {
	int mode;		/* PREFIX_* */
	struct plen_set lens;	/* PREFIX_LIST */
	unsigned int probes;	/* PREFIX_AUTO: at most this many; 0: any */
	unsigned int lookup_max;	/* the filter's P, or 0 */
	bool force;		/* past the room or P, as --force */
};

bool prefix_option(struct prefix_opts *po, const char *cmd, int c,
		   const char *arg);
unsigned int probes_option(const char *cmd, const char *arg);
unsigned int plen_count(const struct plen_set *s);
unsigned int plen_target(const struct plen_set *s, unsigned int l);
u64 prefix_choose(const u64 *hist, unsigned int max_probes, u64 budget,
		  struct plen_set *out);
size_t prefix_expand(const void *keys, size_t n, size_t stride,
		     const struct plen_set *lens, bool longest_only,
		     void (*emit)(void *ctx, const struct bloom_key_net *k,
				  size_t origin),
		     void *ctx);
u64 prefix_keys(const u64 *hist, const struct plen_set *lens);
unsigned int prefix_stored_lengths(const u64 *hist,
				   const struct plen_set *lens);
void prefix_covers(const struct bloom_key_net *k, unsigned int t,
		   struct keylist *out);
void lengths_text(const struct plen_set *s, char *buf, size_t size);
void prefix_count(const struct keylist *kl, u64 *hist);
void prefix_histogram(const struct keylist *kl, u64 *hist);
bool prefix_expands(const u64 *hist, const struct plen_set *lens);
void prefix_plan(const struct prefix_opts *po, const u64 *hist, u64 count,
		 const struct plen_set *held, u64 room, struct plen_set *lens,
		 const char *cmd);
bool keylist_expand(struct keylist *kl, const struct plen_set *lens);
void calc_prefixes(const struct keylist *kl, u64 ppb);

/* target.c: a filter name or a snapshot file */
bool is_snap_path(const char *arg);
void refuse_file(const char *cmd, const char *name);

/* snapfilter.c: a snapshot file queried as a filter, offline */
struct snap_filter {
	u32 nstages;		/* arrays: 1, or a growing filter's stages */
	struct bloom_core core[BLOOM_STAGES_MAX];	/* oldest first */
	struct bloom_bits *bits[BLOOM_STAGES_MAX];
	bloom_word_t *summary;	/* net: the /16 summary, or NULL */
	struct stage_list sl;	/* a growing filter's, as STAGES says */
};

void snap_filter_load(const char *cmd, const char *path,
		      struct snap_filter *sf, struct bloom_ioc_info *in);
u64 snap_filter_batch(const struct snap_filter *sf, unsigned long cmd,
		      const struct keylist *kl, size_t first, u32 n, u8 *out);
void snap_filter_free(struct snap_filter *sf);

/* cmd_filter.c: a filter's INFO, printed */
void info_print(const struct bloom_ioc_info *in,
		const struct bloom_ioc_gen *gens, const struct stage_list *sl);

/* The subcommands, by group. */
int cmd_create(int argc, char **argv);
int cmd_destroy(int argc, char **argv);
int cmd_rename(int argc, char **argv);
int cmd_clear(int argc, char **argv);
int cmd_swap(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_limits(int argc, char **argv);
int cmd_add(int argc, char **argv);
int cmd_del(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_count(int argc, char **argv);
int cmd_save(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_save_all(int argc, char **argv);
int cmd_restore_all(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_union(int argc, char **argv);
int cmd_intersect(int argc, char **argv);
int cmd_halve(int argc, char **argv);
int cmd_rotate(int argc, char **argv);
int cmd_estimate(int argc, char **argv);
int cmd_calc(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_xdp(int argc, char **argv);
int cmd_nf(int argc, char **argv);

/* cmd_nf.c: save-all and restore-all keep the nf attachments */
#define NF_SAVED	"nf-attachments"
#define NF_SAVED_HEAD	"# bloomctl nf attach, an attachment a line"
char *nf_saved(size_t *len, bool *seen);
int nf_restore(const char *path, int *attached);

/* bpfobj.c: what the xdp and nf programs' loaders share */
enum libbpf_print_level;
int bpf_keep_log(enum libbpf_print_level level, const char *fmt, va_list ap);
const char *bpf_log_text(void);
const char *bpf_obj_path(const char *file, const char *env,
			 const char *what);
void bpf_counters_read(int map_fd, u64 *out, u32 n);
void need_module_btf(const char *what);
const char *filter_of_id(u32 id);
u32 bpf_filter_id(const char *set, int key_type, const char *cmd,
		  const char *what);

#endif /* _BLOOMCTL_H */
