// SPDX-License-Identifier: GPL-2.0
/*
 * bloomctl nf: attach the shipped netfilter-hook program
 * (tools/xdp/bloom_nf.bpf.c, BPF_PROG_TYPE_NETFILTER, Linux 6.4 on) at a
 * hook of this network namespace, for IPv4, IPv6 or both, at a
 * priority among nftables' chains; detach it; show what is attached.
 *
 * A netfilter link lives as long as something holds it: bloomctl pins
 * each in bpffs ($BLOOM_BPFFS, or /sys/fs/bpf where systemd mounts it),
 * in bloom-nf/, named by the namespace (its inode), the family, the
 * hook and the priority, so that status and detach find their own
 * namespace's links and no other. "ip netns exec" mounts a /sys of its
 * own, without bpffs: there BLOOM_BPFFS names one mounted elsewhere. Debian 12's libbpf
 * (1.1) and uapi headers (6.1) predate the program type: the numbers
 * and the link's attributes are spelt out below, as 6.4's uapi has them.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bloomctl.h"
#include "../xdp/bloom_nf.h"

#define NF_OBJ		"bloom_nf.bpf.o"
#define BPF_FS		"/sys/fs/bpf"
#define BPF_NF_DIR	"bloom-nf"
#define BPF_FS_MAGIC_	0xcafe4a11

/* Linux 6.4's uapi: the program type, its attach type, its link. */
#define PROG_TYPE_NETFILTER	32
#define ATTACH_NETFILTER	45
#define NFPROTO_IPV4_		2
#define NFPROTO_IPV6_		10

/*
 * Before conntrack (-200: a BPF hook may not share a priority with any
 * other hook, and conntrack is on wherever nft matches ct state), so a
 * dropped source never gets a conntrack entry; after raw (-300) and
 * defragmentation (-400).
 */
#define NF_PRIORITY_DEFAULT	-250

struct nf_link_create {
	__u32	prog_fd;
	__u32	target_fd;	/* 0 */
	__u32	attach_type;	/* ATTACH_NETFILTER */
	__u32	flags;		/* 0 */
	__u32	pf;		/* NFPROTO_IPV4 or _IPV6 */
	__u32	hooknum;	/* NF_INET_* */
	__s32	priority;	/* not NF_IP_PRI_FIRST or _LAST */
	__u32	nf_flags;	/* 0: no defragmentation */
};

static const char *const hooks[] = {
	"prerouting", "input", "forward", "output", "postrouting",
};

struct nf_args {
	const char *set;
	int key_type;		/* -1: either */
	u8 dir;
	int family;		/* 4, 6, 0: both, -1: not given (both) */
	int hook;		/* NF_INET_*, or -1: none given */
	int priority;
	bool priority_set;
};

static int hook_parse(const char *s)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(hooks); i++)
		if (!strcmp(s, hooks[i]))
			return (int)i;
	return -1;
}

/* This namespace, as pins name it: its inode. */
static unsigned long long netns_ino(void)
{
	struct stat st;

	if (stat("/proc/self/ns/net", &st))
		die("cannot read this network namespace: %s", strerror(errno));
	return (unsigned long long)st.st_ino;
}

/* Where bpffs is said to be: $BLOOM_BPFFS, else /sys/fs/bpf. */
static const char *bpffs_dir(void)
{
	const char *fs = getenv("BLOOM_BPFFS");

	return fs && *fs ? fs : BPF_FS;
}

/* The directory of the pins: bloom-nf/ in bpffs. */
static const char *nf_dir(void)
{
	static char dir[PATH_MAX / 2];

	snprintf(dir, sizeof(dir), "%s/%s", bpffs_dir(), BPF_NF_DIR);
	return dir;
}

static void pin_path(char *buf, size_t len, int family, int hook,
		     int priority)
{
	snprintf(buf, len, "%s/%llu-ip%s-%s-%d", nf_dir(), netns_ino(),
		 family == 6 ? "6" : "", hooks[hook], priority);
}

/* Whether the pins can be looked for: a bpffs where they would be. */
static bool have_bpffs(void)
{
	struct statfs st;

	return !statfs(bpffs_dir(), &st) && st.f_type == BPF_FS_MAGIC_;
}

/*
 * bpffs, where the pins outlive bloomctl. Not mounted here: a mount made
 * inside "ip netns exec" would go, and the links with it, when
 * bloomctl exits.
 */
static void need_bpffs(void)
{
	const char *fs = bpffs_dir();

	if (!have_bpffs())
		die("nf: %s is not a bpffs, where the attachments are pinned: "
		    "mount one (mount -t bpf bpf %s), or name one with "
		    "BLOOM_BPFFS (\"ip netns exec\" hides /sys/fs/bpf)", fs, fs);
}

/* Where attach pins: bpffs, and bloom-nf/ in it. */
static void need_pin_dir(void)
{
	need_bpffs();
	if (mkdir(nf_dir(), 0700) && errno != EEXIST)
		die("nf: cannot make %s: %s", nf_dir(), strerror(errno));
}


static struct bpf_object *nf_load(const struct nf_args *a, u32 id)
{
	struct bloom_nf_cfg cfg = { .filter_id = id, .dir = a->dir };
	const char *path = bpf_obj_path(NF_OBJ, "BLOOM_NF_OBJ", "netfilter");
	struct bpf_program *prog;
	struct bpf_object *obj;
	struct bpf_map *rodata;
	int err;

	snprintf(cfg.name, sizeof(cfg.name), "%s", a->set);
	libbpf_set_print(bpf_keep_log);
	obj = bpf_object__open_file(path, NULL);
	if (!obj)
		die("cannot open %s: %s", path, strerror(errno));
	rodata = bpf_object__find_map_by_name(obj, ".rodata");
	prog = bpf_object__find_program_by_name(obj, BLOOM_NF_PROG);
	if (!rodata || !prog ||
	    bpf_map__set_initial_value(rodata, &cfg, sizeof(cfg)))
		die("%s is not bloomctl's netfilter program", path);
	bpf_program__set_type(prog, PROG_TYPE_NETFILTER);
	bpf_program__set_expected_attach_type(prog, ATTACH_NETFILTER);
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "%s", bpf_log_text());
		die("cannot load the netfilter program (%s): the kernel refused "
		    "it (above); netfilter-hook programs need Linux 6.4 or later "
		    "and bloom.ko's kfuncs (dmesg); on older kernels use -m bloom",
		    strerror(-err));
	}
	return obj;
}

static int link_create(int prog_fd, int pf, int hook, int priority)
{
	union {
		struct nf_link_create nf;
		char attr[128];	/* union bpf_attr's size, zero beyond */
	} u;

	memset(&u, 0, sizeof(u));
	u.nf.prog_fd = (__u32)prog_fd;
	u.nf.attach_type = ATTACH_NETFILTER;
	u.nf.pf = (__u32)pf;
	u.nf.hooknum = (__u32)hook;
	u.nf.priority = priority;
	return (int)syscall(__NR_bpf, BPF_LINK_CREATE, &u, sizeof(u));
}

/* Before 6.4 no program runs at a netfilter hook: say so first. */
static void need_nf_programs(void)
{
	struct utsname u;
	int major, minor;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return;		/* the kernel will say */
	if (major < 6 || (major == 6 && minor < 4))
		die("nf: netfilter-hook programs need Linux 6.4 or later, and "
		    "this is %s: use the iptables match (-m bloom, through "
		    "iptables-nft on an nftables host)", u.release);
}

static void __noreturn link_failed(const struct nf_args *a, bool create,
				   int err)
{
	if (!create)
		die("nf attach: cannot pin the link in %s: %s", nf_dir(),
		    strerror(err));
	if (err == EBUSY)
		die("nf attach: priority %d is taken at %s (a netfilter program "
		    "may not share its priority with any other hook: nft list "
		    "hooks shows them): give another --priority", a->priority,
		    hooks[a->hook]);
	die("nf attach: the kernel refused the netfilter link (%s): "
	    "netfilter-hook programs need Linux 6.4 or later "
	    "(CONFIG_NETFILTER_BPF_LINK); on older kernels use -m bloom",
	    strerror(err));
}

static void nf_attach(const struct nf_args *a)
{
	struct bpf_object *obj;
	char path[PATH_MAX];
	int fams[2], nfam = 0, i, fd, prog_fd, err;
	u32 id;

	need_nf_programs();
	id = bpf_filter_id(a->set, a->key_type, "nf attach", "netfilter");
	need_module_btf("nf");
	need_pin_dir();
	if (a->family != 6)
		fams[nfam++] = 4;
	if (a->family != 4)
		fams[nfam++] = 6;
	for (i = 0; i < nfam; i++) {
		pin_path(path, sizeof(path), fams[i], a->hook, a->priority);
		if (!access(path, F_OK))
			die("nf attach: bloomctl's program is attached at %s ip%s "
			    "priority %d already: detach it first", hooks[a->hook],
			    fams[i] == 6 ? "6" : "", a->priority);
	}
	obj = nf_load(a, id);
	prog_fd = bpf_program__fd(bpf_object__find_program_by_name(obj,
							BLOOM_NF_PROG));
	for (i = 0; i < nfam; i++) {
		fd = link_create(prog_fd, fams[i] == 6 ? NFPROTO_IPV6_ :
				 NFPROTO_IPV4_, a->hook, a->priority);
		err = fd < 0 ? errno : 0;
		pin_path(path, sizeof(path), fams[i], a->hook, a->priority);
		if (fd >= 0 && bpf_obj_pin(fd, path))
			err = errno;
		if (fd >= 0)
			close(fd);
		if (err) {
			/* All or nothing: the other family's link goes too. */
			while (i-- > 0) {
				pin_path(path, sizeof(path), fams[i], a->hook,
					 a->priority);
				unlink(path);
			}
			link_failed(a, fd < 0, err);
		}
	}
	bpf_object__close(obj);	/* the pinned links keep the program */
	if (!opts.quiet)
		printf("attached at %s, %s, priority %d: %s packets whose %s "
		       "address is in %s (id %u)\n", hooks[a->hook],
		       a->family ? (a->family == 6 ? "ip6" : "ip") : "ip and ip6",
		       a->priority, "drops", a->dir == BLOOM_XDP_DST ? "destination" :
		       "source", a->set, id);
}

/*
 * A pin of this namespace, "INO-FAMILY-HOOK-PRIO": its family ("ip" or
 * "ip6"), hook and priority; false for another namespace's.
 */
static bool pin_fields(const char *name, char fam[8], char hook[16],
		       int *prio)
{
	char prefix[32];
	int n = snprintf(prefix, sizeof(prefix), "%llu-", netns_ino());

	return !strncmp(name, prefix, (size_t)n) &&
	       sscanf(name + n, "%7[^-]-%15[^-]-%d", fam, hook, prio) == 3;
}

/* A pin of this namespace as "ip prerouting priority -200". */
static bool pin_ours(const char *name, char *what, size_t len)
{
	char fam[8] = "", hook[16] = "";
	int prio;

	if (!pin_fields(name, fam, hook, &prio))
		return false;
	snprintf(what, len, "%s %s priority %d", fam, hook, prio);
	return true;
}

/*
 * The program behind the link pinned at @path: its configuration and
 * counters (zero when it cannot be read); returns the link's id, or 0.
 */
static u32 link_read(const char *path, struct bloom_nf_cfg *cfg,
		     u64 *counters)
{
	struct bpf_link_info li = { 0 };
	struct bpf_prog_info pi = { 0 };
	u32 llen = sizeof(li), plen = sizeof(pi), ids[4], i, zero = 0;
	int lfd = bpf_obj_get(path), pfd = -1, mfd;

	memset(cfg, 0, sizeof(*cfg));
	memset(counters, 0, BLOOM_XDP_NCOUNTERS * sizeof(*counters));
	if (lfd < 0 || bpf_obj_get_info_by_fd(lfd, &li, &llen))
		goto out;
	pfd = bpf_prog_get_fd_by_id(li.prog_id);
	pi.nr_map_ids = ARRAY_SIZE(ids);
	pi.map_ids = (uintptr_t)ids;
	if (pfd < 0 || bpf_obj_get_info_by_fd(pfd, &pi, &plen))
		goto out;
	for (i = 0; i < pi.nr_map_ids && i < ARRAY_SIZE(ids); i++) {
		struct bpf_map_info mi = { 0 };
		u32 mlen = sizeof(mi);

		mfd = bpf_map_get_fd_by_id(ids[i]);
		if (mfd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(mfd, &mi, &mlen)) {
			if (!strcmp(mi.name, BLOOM_XDP_COUNTERS))
				bpf_counters_read(mfd, counters,
						  BLOOM_XDP_NCOUNTERS);
			else if (mi.value_size == sizeof(*cfg))
				bpf_map_lookup_elem(mfd, &zero, cfg);
		}
		close(mfd);
	}
out:
	if (pfd >= 0)
		close(pfd);
	if (lfd >= 0)
		close(lfd);
	return li.id;
}

/* The program behind a pinned link: its config and counters. */
static void link_show(struct json *j, const char *path, const char *what)
{
	u64 counters[BLOOM_XDP_NCOUNTERS];
	struct bloom_nf_cfg cfg;
	u32 link_id = link_read(path, &cfg, counters);
	const char *now;

	now = cfg.filter_id ? filter_of_id(cfg.filter_id) : NULL;
	if (opts.format == OUT_JSON) {
		json_object(j, NULL);
		json_str(j, "attachment", what);
		json_u64(j, "link_id", link_id);
		json_u64(j, "filter_id", cfg.filter_id);
		json_str(j, "filter", now ? now : "");
		json_str(j, "direction", cfg.dir == BLOOM_XDP_DST ? "dst" : "src");
		json_u64(j, "seen", counters[BLOOM_XDP_SEEN]);
		json_u64(j, "matched", counters[BLOOM_XDP_MATCHED]);
		json_u64(j, "dropped", counters[BLOOM_XDP_DROPPED]);
		json_u64(j, "errors", counters[BLOOM_XDP_ERRORS]);
		json_close(j, '}');
	} else if (!opts.quiet) {
		printf("%s: %s packets whose %s address is in filter id %u (%s)\n",
		       what, "drops",
		       cfg.dir == BLOOM_XDP_DST ? "destination" : "source",
		       cfg.filter_id, now ? now : "gone: packets go on");
		printf("  seen %llu, matched %llu, dropped %llu, errors %llu\n",
		       (unsigned long long)counters[BLOOM_XDP_SEEN],
		       (unsigned long long)counters[BLOOM_XDP_MATCHED],
		       (unsigned long long)counters[BLOOM_XDP_DROPPED],
		       (unsigned long long)counters[BLOOM_XDP_ERRORS]);
	}
}

/* Each of this namespace's pins: shown (status) or removed (detach). */
static int nf_each(bool detach, const struct nf_args *a)
{
	char what[NAME_MAX + 1], path[PATH_MAX], want[64] = "";
	struct dirent *e;
	struct json j;
	int n = 0;
	DIR *d;

	need_bpffs();	/* or the pins are out of sight, not absent */
	if (a && a->hook >= 0)
		snprintf(want, sizeof(want), "-%s-", hooks[a->hook]);
	if (!detach && opts.format == OUT_JSON) {
		json_start(&j);
		json_array(&j, NULL);
	}
	d = opendir(nf_dir());
	while (d && (e = readdir(d))) {
		if (!pin_ours(e->d_name, what, sizeof(what)) ||
		    (*want && !strstr(e->d_name, want)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", nf_dir(), e->d_name);
		n++;
		if (!detach) {
			link_show(&j, path, what);
		} else if (unlink(path)) {
			die("nf detach: cannot remove %s: %s", path,
			    strerror(errno));
		} else if (!opts.quiet) {
			printf("detached %s\n", what);
		}
	}
	if (d)
		closedir(d);
	if (!detach && opts.format == OUT_JSON) {
		json_close(&j, ']');
		json_finish(&j);
	} else if (!detach && !n && !opts.quiet) {
		printf("no netfilter program of bloomctl's in this namespace\n");
	}
	return n;
}

/*
 * For save-all: this namespace's attachments, a line of nf attach's
 * options each; NULL when there are none. *@seen is false when there is
 * no bpffs to look in. One whose filter is gone is left out: it drops
 * nothing.
 */
char *nf_saved(size_t *len, bool *seen)
{
	u64 counters[BLOOM_XDP_NCOUNTERS];
	char path[PATH_MAX], fam[8], hook[16], *buf = NULL;
	struct bloom_nf_cfg cfg;
	const char *name;
	struct dirent *e;
	int prio, n = 0;
	FILE *f;
	DIR *d;

	*seen = have_bpffs();
	d = *seen ? opendir(nf_dir()) : NULL;
	if (!d)
		return NULL;
	f = open_memstream(&buf, len);
	if (!f)
		die("out of memory");
	fprintf(f, "%s\n", NF_SAVED_HEAD);
	while ((e = readdir(d))) {
		if (!pin_fields(e->d_name, fam, hook, &prio))
			continue;
		snprintf(path, sizeof(path), "%s/%s", nf_dir(), e->d_name);
		if (!link_read(path, &cfg, counters) || !cfg.filter_id)
			continue;
		name = filter_of_id(cfg.filter_id);
		if (!name)
			continue;
		fprintf(f, "--set %s --family %s --hook %s --priority %d "
			"--dir %s\n", name, fam, hook, prio,
			cfg.dir == BLOOM_XDP_DST ? "dst" : "src");
		n++;
	}
	closedir(d);
	if (fclose(f))
		die("out of memory");
	if (!n) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* One line nf_saved wrote into @a; false if it is not one. */
static bool saved_parse(const char *line, struct nf_args *a, char *set)
{
	char fam[8], hook[16], dir[4];
	int prio, end = 0;

	if (sscanf(line, "--set %31s --family %7s --hook %15s --priority %d "
		   "--dir %3s%n", set, fam, hook, &prio, dir, &end) != 5 ||
	    line[end + strspn(line + end, " \t\r\n")] || name_problem(set) ||
	    prio == INT_MIN || prio == INT_MAX ||
	    (strcmp(fam, "ip") && strcmp(fam, "ip6")) ||
	    (strcmp(dir, "src") && strcmp(dir, "dst")) ||
	    hook_parse(hook) < 0)
		return false;
	*a = (struct nf_args){ .set = set, .key_type = -1, .priority = prio,
			       .priority_set = true, .hook = hook_parse(hook),
			       .family = strcmp(fam, "ip6") ? 4 : 6,
			       .dir = strcmp(dir, "dst") ? BLOOM_XDP_SRC :
							   BLOOM_XDP_DST };
	return true;
}

/* Attach @a in a child, whose failure (a message, an exit) is its own. */
static bool attach_child(const struct nf_args *a)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!pid) {
		nf_attach(a);
		exit(EXIT_OK);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid &&
	       WIFEXITED(status) && WEXITSTATUS(status) == EXIT_OK;
}

/*
 * For restore-all: attach again what @path (nf_saved's) lists and is not
 * attached. Returns how many could not be; *attached counts the others.
 */
int nf_restore(const char *path, int *attached)
{
	char line[256], set[BLOOM_NAME_MAX], pin[PATH_MAX];
	struct nf_args a;
	int failed = 0;
	FILE *f;

	*attached = 0;
	f = fopen(path, "re");
	if (!f)
		return 0;	/* nothing was attached at save-all */
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (!saved_parse(line, &a, set)) {
			fprintf(stderr, "bloomctl: restore-all: %s: not an "
				"attachment: %s", path, line);
			failed++;
			continue;
		}
		pin_path(pin, sizeof(pin), a.family, a.hook, a.priority);
		if (!access(pin, F_OK))
			continue;	/* attached already */
		if (attach_child(&a)) {
			++*attached;
			continue;
		}
		fprintf(stderr, "bloomctl: restore-all: could not attach the "
			"netfilter program again (ip%s %s priority %d, filter "
			"%s): see above\n", a.family == 6 ? "6" : "",
			hooks[a.hook], a.priority, a.set);
		failed++;
	}
	fclose(f);
	return failed;
}

enum { OPT_SET = 0x300, OPT_KEY, OPT_DIR, OPT_FAMILY_NF, OPT_HOOK,
	OPT_PRIORITY };

static const struct option nf_longopts[] = {
	COMMON_LONGOPTS,
	{ "set",	required_argument,	NULL, OPT_SET },
	{ "key",	required_argument,	NULL, OPT_KEY },
	{ "dir",	required_argument,	NULL, OPT_DIR },
	{ "family",	required_argument,	NULL, OPT_FAMILY_NF },
	{ "hook",	required_argument,	NULL, OPT_HOOK },
	{ "priority",	required_argument,	NULL, OPT_PRIORITY },
	{ NULL, 0, NULL, 0 }
};

static void nf_option(struct nf_args *a, int c)
{
	long v;
	char *end;

	switch (c) {
	case OPT_SET:
		check_name("nf", optarg);
		a->set = optarg;
		break;
	case OPT_KEY:
		if (strcmp(optarg, "addr") && strcmp(optarg, "net"))
			usage_error("nf", "--key takes addr or net, not '%s'",
				    optarg);
		a->key_type = key_type_parse(optarg);
		break;
	case OPT_DIR:
		if (strcmp(optarg, "src") && strcmp(optarg, "dst"))
			usage_error("nf", "--dir takes src or dst, not '%s'",
				    optarg);
		a->dir = !strcmp(optarg, "dst") ? BLOOM_XDP_DST : BLOOM_XDP_SRC;
		break;
	case OPT_FAMILY_NF:
		if (!strcmp(optarg, "ip"))
			a->family = 4;
		else if (!strcmp(optarg, "ip6"))
			a->family = 6;
		else if (!strcmp(optarg, "inet"))
			a->family = 0;
		else
			usage_error("nf", "--family takes ip, ip6 or inet (both), as nft does, not '%s'",
				    optarg);
		break;
	case OPT_HOOK:
		a->hook = hook_parse(optarg);
		if (a->hook < 0)
			usage_error("nf", "--hook takes prerouting, input, forward, output or postrouting, not '%s'",
				    optarg);
		break;
	case OPT_PRIORITY:
		errno = 0;
		v = strtol(optarg, &end, 10);
		/* NF_IP_PRI_FIRST and _LAST are the kernel's own. */
		if (errno || *end || end == optarg || v <= INT_MIN ||
		    v >= INT_MAX)
			usage_error("nf", "bad --priority '%s' (an integer, as nft's; -300 is before raw, 0 is filter)",
				    optarg);
		a->priority = (int)v;
		a->priority_set = true;
		break;
	default:
		common_option("nf", c);
	}
}

/* nf attach --set NAME ... | detach [--hook H] | status */
int cmd_nf(int argc, char **argv)
{
	struct nf_args a = { .key_type = -1, .hook = -1, .family = -1,
			     .priority = NF_PRIORITY_DEFAULT };
	const char *verb;
	int c, n;

	while ((c = parse_options(argc, argv, COMMON_SHORTOPTS,
				  nf_longopts)) != -1)
		nf_option(&a, c);
	n = argc - optind;
	verb = n ? argv[optind] : "";
	if (!strcmp(verb, "attach")) {
		positional("nf attach", n - 1, 0, 0, "");
		if (!a.set)
			usage_error("nf", "attach needs --set NAME");
		if (a.hook < 0)
			a.hook = 0;	/* prerouting */
		if (a.family < 0)
			a.family = 0;	/* inet */
		nf_attach(&a);
	} else if (!strcmp(verb, "detach")) {
		positional("nf detach", n - 1, 0, 0, "");
		if (a.set || a.priority_set || a.family >= 0 || a.key_type >= 0)
			usage_error("nf", "detach takes --hook only: it detaches every attachment of this namespace (at that hook)");
		if (!nf_each(true, &a))
			die("nf detach: no netfilter program of bloomctl's%s%s in this namespace",
			    a.hook >= 0 ? " at " : "", a.hook >= 0 ? hooks[a.hook] : "");
	} else if (!strcmp(verb, "status")) {
		positional("nf status", n - 1, 0, 0, "");
		if (a.set || a.priority_set || a.family >= 0 || a.key_type >= 0 ||
		    a.hook >= 0)
			usage_error("nf", "status takes no options but the output's");
		nf_each(false, NULL);
	} else {
		usage_error("nf", n ? "unknown action '%s': attach, detach or status" :
			    "attach, detach or status?%s", n ? verb : "");
	}
	return EXIT_OK;
}
