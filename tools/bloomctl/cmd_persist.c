// SPDX-License-Identifier: GPL-2.0
/*
 * save-all and restore-all: every filter of the namespace to and from a
 * directory, the state of persistence across reboots (/var/lib/bloom).
 *
 * save-all writes the whole set into a new directory beside DIR, fsyncs
 * every file and the directory, and swaps it in with one rename
 * (RENAME_EXCHANGE, or on filesystems without it two renames with the
 * old set kept at .DIR.old until the new one is in place). A crash at
 * any point leaves DIR, or .DIR.old, holding a whole set; the next
 * save-all or restore-all finds it. DIR ends up holding exactly the
 * filters that exist.
 *
 * Beside the snapshots, a manifest lists each filter's geometry, so that
 * restore-all can put an empty filter of the same geometry in place of a
 * snapshot that is missing or damaged: the firewall rules naming it still
 * load, and only that list is empty. That is logged as an error and
 * reported by the exit status EXIT_DEGRADED.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>
#include "bloomctl.h"

#define SNAP_EXT	".bloom"
#define MANIFEST	"manifest"
/*
 * Version 2 adds the aging settings, as three more fields on the lines
 * of aging filters only: version 1 lines (plain filters) still parse.
 * Version 3 adds the growing settings, three more after the aging ones
 * (zero then) on the lines of growing filters only.
 */
#define MANIFEST_HEAD	"# bloom manifest 3"
#define MANIFEST_COLS	"# name layout key bits hashes seed flags capacity [generations period_ms age_flags [stages_max growth tighten_pct] | value_bits]"
#define MANIFEST_TAIL	6	/* numbers after the capacity, at most */

static const struct option common_opts[] = {
	COMMON_LONGOPTS,
	{ NULL, 0, NULL, 0 }
};

/* One line of the manifest: what an empty stand-in needs. */
struct manifest_entry {
	char name[BLOOM_NAME_MAX];
	struct bloom_geom g;	/* capacity 0: unknown ("-") */
};

/* Where a set lives: DIR, split for the renames beside it. */
struct set_dir {
	char *path;		/* DIR, symlinks resolved */
	char *parent;
	char *base;
	char *old;		/* PARENT/.BASE.old */
};

static void set_dir_init(struct set_dir *sd, const char *cmd, const char *dir)
{
	char *resolved = realpath(dir, NULL);
	char *p, *b;

	/* A symlinked DIR: replace the directory it points to, not the link. */
	sd->path = resolved ? resolved : xstrdup(dir);
	p = xstrdup(sd->path);
	b = xstrdup(sd->path);
	sd->parent = xstrdup(dirname(p));
	sd->base = xstrdup(basename(b));
	free(p);
	free(b);
	if (!strcmp(sd->base, "/") || !strcmp(sd->base, ".") ||
	    !strcmp(sd->base, ".."))
		die("%s: %s: give a directory of its own", cmd, dir);
	if (asprintf(&sd->old, "%s/.%s.old", sd->parent, sd->base) < 0)
		die("out of memory");
}

static void set_dir_free(struct set_dir *sd)
{
	free(sd->path);
	free(sd->parent);
	free(sd->base);
	free(sd->old);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

/* A file save-all writes: NAME.bloom, the manifest, the nf attachments. */
static bool ours(const char *file)
{
	return has_suffix(file, SNAP_EXT) || !strcmp(file, MANIFEST) ||
	       !strcmp(file, NF_SAVED);
}

static void sync_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/*
 * Remove a set directory save-all made: its snapshots and manifest, then
 * the directory. Anything else in it is left, with a warning.
 */
static void remove_set(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (ours(e->d_name))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	if (rmdir(path) && errno != ENOENT)
		warn("save-all: cannot remove %s: %s", path, strerror(errno));
}

/*
 * Finish what an interrupted save-all left: a .BASE.old beside a DIR is
 * the set the swap replaced (remove it); without DIR it is the last
 * whole set (put it back). Unfinished .BASE.new-* directories go.
 */
static void recover(const struct set_dir *sd)
{
	size_t plen = strlen(sd->base) + 6;
	char *prefix, *path;
	struct dirent *e;
	DIR *d;

	if (is_dir(sd->old)) {
		if (is_dir(sd->path))
			remove_set(sd->old);
		else if (rename(sd->old, sd->path))
			die("save-all: cannot put %s back as %s: %s", sd->old,
			    sd->path, strerror(errno));
	}
	if (asprintf(&prefix, ".%s.new-", sd->base) < 0)
		die("out of memory");
	d = opendir(sd->parent);
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, prefix, plen) ||
		    strlen(e->d_name) != plen + 6)
			continue;
		if (asprintf(&path, "%s/%s", sd->parent, e->d_name) < 0)
			die("out of memory");
		remove_set(path);
		free(path);
	}
	if (d)
		closedir(d);
	free(prefix);
}

/*
 * save-all replaces DIR whole: refuse a directory that holds anything
 * it did not write (save-all /etc must not empty /etc).
 */
static void check_replaceable(const struct set_dir *sd, const char *given)
{
	DIR *d = opendir(sd->path);
	struct dirent *e;
	struct stat st;

	if (!d) {
		if (errno == ENOENT)
			return;
		die("save-all: %s: %s", given, strerror(errno));
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!ours(e->d_name) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			die("save-all: %s holds '%s', which save-all did not write; "
			    "it replaces the whole directory, so give one that "
			    "holds only snapshots", given, e->d_name);
	}
	closedir(d);
}

static int write_new(int dfd, const char *file, const void *buf, size_t len)
{
	const u8 *p = buf;
	int fd, err = 0;

	fd = openat(dfd, file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (len && !err) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno != EINTR)
			err = -errno;
		if (n > 0) {
			p += n;
			len -= (size_t)n;
		}
	}
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

static void manifest_line(FILE *f, const char *name,
			  const struct bloom_snap_info *si)
{
	const struct bloom_geom *g = &si->geom;

	fprintf(f, "%s %s %s %llu %u 0x%016llx %u ", name,
		bloom_layout_name(g->layout), bloom_key_type_name(g->key_type),
		(unsigned long long)g->bits, g->hashes,
		(unsigned long long)g->seed, g->flags);
	if (g->capacity)
		fprintf(f, "%llu", (unsigned long long)g->capacity);
	else
		fputc('-', f);
	if (g->gens || g->stages_max)
		fprintf(f, " %u %u %u", g->gens, g->period_ms, g->age_flags);
	if (g->stages_max)
		fprintf(f, " %u %u %u", g->stages_max, g->growth,
			g->tighten_pct);
	if (g->value_bits)	/* a static map, a cuckoo filter with values */
		fprintf(f, " %u", g->value_bits);
	fputc('\n', f);
}

/*
 * The netfilter programs attached in this namespace into @dfd; where no
 * bpffs is in sight ("ip netns exec" without BLOOM_BPFFS), those saved
 * last in @dir, kept rather than lost.
 */
static void save_nf(const char *tmp, int dfd, const char *dir)
{
	struct snap_image old = { 0 };
	size_t len = 0;
	char *buf, *path;
	bool seen;
	int err;

	buf = nf_saved(&len, &seen);
	if (!seen) {
		if (asprintf(&path, "%s/%s", dir, NF_SAVED) < 0)
			die("out of memory");
		if (!access(path, F_OK)) {
			snap_read_file(path, &old);	/* the bytes, as they are */
			buf = (char *)old.buf;
			len = old.len;
			old.buf = NULL;
		}
		free(path);
	}
	err = buf ? write_new(dfd, NF_SAVED, buf, len) : 0;
	if (err)
		die("save-all: %s/%s: %s", tmp, NF_SAVED, strerror(-err));
	free(buf);
}

/* Write every filter into the new directory @dfd; the count saved. */
static u32 save_set(const char *tmp, int dfd, const char *dir)
{
	char (*names)[BLOOM_NAME_MAX];
	char *mbuf = NULL, *file;
	size_t mlen = 0;
	u32 n, i, saved = 0;
	FILE *m;
	int err;

	err = dev_names(&names, &n);
	if (err)
		die_dev("save-all", err, "");
	m = open_memstream(&mbuf, &mlen);
	if (!m)
		die("out of memory");
	fprintf(m, "%s\n%s\n", MANIFEST_HEAD, MANIFEST_COLS);
	for (i = 0; i < n; i++) {
		struct bloom_snap_info si;
		struct snap_image img;

		err = snap_fetch(names[i], &img);
		if (err == -ENOENT)
			continue;	/* destroyed meanwhile */
		if (err == -EAGAIN)
			die("save-all %s: its contents kept being replaced; "
			    "try again", names[i]);
		if (err)
			die("save-all %s: %s", names[i],
			    dev_strerror(err, names[i]));
		err = snap_verify(&img, &si);
		if (err)
			die("save-all %s: %s", names[i],
			    snap_strerror(err));
		if (asprintf(&file, "%s%s", names[i], SNAP_EXT) < 0)
			die("out of memory");
		err = write_new(dfd, file, img.buf, img.len);
		if (err)
			die("save-all %s: %s/%s: %s", names[i], tmp, file,
			    strerror(-err));
		manifest_line(m, names[i], &si);
		if (!opts.quiet)
			printf("saved %s\n", names[i]);
		free(file);
		snap_free(&img);
		saved++;
	}
	if (fclose(m))
		die("out of memory");
	err = write_new(dfd, MANIFEST, mbuf, mlen);
	if (err)
		die("save-all: %s/%s: %s", tmp, MANIFEST, strerror(-err));
	free(mbuf);
	save_nf(tmp, dfd, dir);
	free(names);
	return saved;
}

/* Put the new set @tmp in place of DIR; the old one is removed. */
static void swap_in(const struct set_dir *sd, const char *tmp)
{
	if (!is_dir(sd->path)) {
		if (rename(tmp, sd->path))
			goto failed;
	} else if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, sd->path,
			      RENAME_EXCHANGE)) {
		sync_path(sd->parent);
		remove_set(tmp);	/* now the old set */
	} else if (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP) {
		/*
		 * No atomic exchange here (9p, NFS, older kernels): keep the
		 * old set at .BASE.old until the new one is DIR; recover()
		 * and restore-all know where to look if we stop in between.
		 */
		if (rename(sd->path, sd->old))
			goto failed;
		sync_path(sd->parent);
		if (rename(tmp, sd->path))
			goto failed;
		sync_path(sd->parent);
		remove_set(sd->old);
	} else {
		goto failed;
	}
	sync_path(sd->parent);
	return;
failed:
	die("save-all: cannot put the new set in place of %s: %s%s", sd->path,
	    strerror(errno), errno == EBUSY || errno == EXDEV ?
	    " (a mount point? save into a directory below it)" : "");
}

int cmd_save_all(int argc, char **argv)
{
	struct set_dir sd;
	char *tmp;
	u32 saved;
	int c, dfd;

	while ((c = parse_options(argc, argv, COMMON_SHORTOPTS,
				  common_opts)) != -1)
		common_option(argv[0], c);
	positional(argv[0], argc - optind, 1, 1, "DIR");
	/* Never load the module to save nothing over the last saved set. */
	if (access("/sys/module/bloom", F_OK))
		die("save-all: bloom.ko is not loaded, so there is no filter to "
		    "save; %s is left as it was", argv[optind]);
	set_dir_init(&sd, "save-all", argv[optind]);
	if (!is_dir(sd.parent))
		die("save-all: %s: %s", sd.parent, strerror(ENOENT));
	if (!access(sd.path, F_OK) && !is_dir(sd.path))
		die("save-all: %s: %s", argv[optind], strerror(ENOTDIR));
	recover(&sd);
	check_replaceable(&sd, argv[optind]);
	if (asprintf(&tmp, "%s/.%s.new-XXXXXX", sd.parent, sd.base) < 0)
		die("out of memory");
	if (!mkdtemp(tmp))
		die("save-all: %s: %s", sd.parent, strerror(errno));
	dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		die("save-all: %s: %s", tmp, strerror(errno));
	saved = save_set(tmp, dfd, sd.path);
	if (fsync(dfd))
		die("save-all: %s: %s", tmp, strerror(errno));
	close(dfd);
	swap_in(&sd, tmp);
	if (!opts.quiet)
		printf("saved %u filter%s to %s\n", saved, PLURAL(saved),
		       argv[optind]);
	free(tmp);
	set_dir_free(&sd);
	return EXIT_OK;
}

/* An error of restore-all: on stderr and in the system log. */
static void __printf(1, 2) log_error(const char *fmt, ...)
{
	static bool opened;
	va_list ap;

	if (!opened) {
		openlog("bloomctl", LOG_PID, LOG_DAEMON);
		opened = true;
	}
	va_start(ap, fmt);
	vsyslog(LOG_ERR, fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	fflush(stdout);
	fputs("bloomctl: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* The numbers ending a manifest line, at most @max: how many, or -1. */
static int tail_numbers(const char *s, unsigned int *v, int max)
{
	int n, used;

	for (n = 0; *s; n++, s += used)
		if (n == max || sscanf(s, "%u %n", &v[n], &used) != 1)
			return -1;
	return n;
}

/*
 * The aging and growing settings (0, 3 or 6 numbers) into @g; for a
 * static or cuckoo filter, its values' width (none: no values).
 */
static const char *manifest_tail(const char *s, struct bloom_geom *g)
{
	unsigned int v[MANIFEST_TAIL] = { 0 };
	int n = tail_numbers(s, v, MANIFEST_TAIL);

	if (g->layout == BLOOM_LAYOUT_FUSE ||
	    g->layout == BLOOM_LAYOUT_CUCKOO) {
		if (n > 1 || v[0] > 0xff)
			return "bad value width of a static map or cuckoo filter";
		g->value_bits = (u8)v[0];
		return NULL;
	}
	if (n % 3)
		return "not eight fields (eleven for an aging filter, fourteen for a growing one)";
	if (v[0] > BLOOM_GENERATIONS_MAX || v[2] > 0xff || v[3] > 0xff ||
	    v[4] > 0xff || v[5] > 0xff)
		return "bad aging or growing settings";
	g->gens = (u8)v[0];
	g->period_ms = v[1];
	g->age_flags = (u8)v[2];
	g->stages_max = (u8)v[3];
	g->growth = (u8)v[4];
	g->tighten_pct = (u8)v[5];
	return NULL;
}

/* One manifest line into @e; false (and *why) if it does not parse. */
static bool manifest_parse(const char *line, struct manifest_entry *e,
			   const char **why)
{
	char name[64], layout[32], key[32], cap[32];
	unsigned int hashes, flags;
	unsigned long long bits, seed;
	int l, k, end = 0;

	memset(e, 0, sizeof(*e));
	if (sscanf(line, "%63s %31s %31s %llu %u %llx %u %31s %n", name,
		   layout, key, &bits, &hashes, &seed, &flags, cap, &end) != 8) {
		*why = "not eight fields (eleven for an aging filter, fourteen for a growing one)";
		return false;
	}
	*why = name_problem(name);
	if (*why)
		return false;
	l = layout_parse(layout);
	k = key_type_parse(key);
	if (l < 0 || k < 0 || flags & ~BLOOM_F_ALL) {
		*why = "unknown layout, key type or flags";
		return false;
	}
	memcpy(e->name, name, strlen(name) + 1);
	e->g.bits = bits;
	e->g.seed = seed;
	e->g.hashes = hashes;
	e->g.layout = (u8)l;
	e->g.key_type = (u8)k;
	e->g.flags = (u16)flags;
	*why = manifest_tail(line + end, &e->g);
	if (*why)
		return false;
	if (strcmp(cap, "-") && parse_u64(cap, &e->g.capacity)) {
		*why = "bad capacity";
		return false;
	}
	if (bloom_geom_check(&e->g)) {
		*why = geom_problem(&e->g);
		return false;
	}
	return true;
}

/* The manifest of @dir, *n entries; none if it is missing. */
static struct manifest_entry *manifest_read(const char *dir, size_t *n,
					    int *bad)
{
	struct manifest_entry *all = NULL, e;
	char *path, *line = NULL;
	size_t cap = 0, lineno = 0;
	const char *why;
	ssize_t len;
	FILE *f;

	*n = 0;
	if (asprintf(&path, "%s/%s", dir, MANIFEST) < 0)
		die("out of memory");
	f = fopen(path, "re");
	if (!f) {
		if (errno != ENOENT) {
			log_error("restore-all: %s: %s", path, strerror(errno));
			(*bad)++;
		}
		free(path);
		return NULL;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		if (!len || line[0] == '#')
			continue;
		if (!manifest_parse(line, &e, &why)) {
			log_error("restore-all: %s:%zu: %s: ignored", path,
				  lineno, why);
			(*bad)++;
			continue;
		}
		all = xrealloc(all, (*n + 1) * sizeof(*all));
		all[(*n)++] = e;
	}
	free(line);
	fclose(f);
	free(path);
	return all;
}

/* What restore-all will do with one filter. */
struct restore_item {
	char *name;			/* from the manifest or the file */
	const struct manifest_entry *m;	/* NULL: not in the manifest */
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct restore_item *)a)->name,
		      ((const struct restore_item *)b)->name);
}

/* The manifest's filters in its order, then other NAME.bloom by name. */
static struct restore_item *restore_items(const char *dir,
					  const struct manifest_entry *m,
					  size_t nm, size_t *n)
{
	struct restore_item *items = xcalloc(nm ? nm : 1, sizeof(*items));
	size_t i, first_extra = nm;
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		die("restore-all: %s: %s", dir, strerror(errno));
	for (i = 0; i < nm; i++) {
		items[i].name = xstrdup(m[i].name);
		items[i].m = &m[i];
	}
	*n = nm;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char *name;

		if (!has_suffix(e->d_name, SNAP_EXT))
			continue;
		name = xstrdup(e->d_name);
		name[len - strlen(SNAP_EXT)] = 0;
		for (i = 0; i < nm; i++)
			if (!strcmp(items[i].name, name))
				break;
		if (i < nm) {
			free(name);
			continue;
		}
		items = xrealloc(items, (*n + 1) * sizeof(*items));
		items[*n].name = name;
		items[*n].m = NULL;
		(*n)++;
	}
	closedir(d);
	qsort(items + first_extra, *n - first_extra, sizeof(*items), by_name);
	return items;
}

/* The whole of @path into @img: 0 or -errno. */
static int read_snapshot(const char *path, struct snap_image *img)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 1 << 16;
	ssize_t n;

	memset(img, 0, sizeof(*img));
	if (fd < 0)
		return -errno;
	img->buf = xmalloc(cap);
	while ((n = read(fd, img->buf + img->len, cap - img->len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(fd);
			snap_free(img);
			return (int)n;
		}
		img->len += (size_t)n;
		if (img->len == cap) {
			cap *= 2;
			img->buf = xrealloc(img->buf, cap);
		}
	}
	close(fd);
	return 0;
}

static int restore_image(const char *name, const struct snap_image *img,
			 bool replace)
{
	struct bloom_ioc_restore r;

	memset(&r, 0, sizeof(r));
	name_copy(r.name, name);
	r.buf = (uintptr_t)img->buf;
	r.len = img->len;
	r.flags = replace ? BLOOM_RESTORE_REPLACE : 0;
	return dev_ioctl(BLOOM_IOC_RESTORE, &r);
}

/* An empty filter of the saved geometry, under the saved seed. */
static int create_empty(const struct manifest_entry *m)
{
	struct bloom_ioc_create c;

	memset(&c, 0, sizeof(c));
	name_copy(c.name, m->name);
	c.bits = m->g.bits;
	c.hashes = m->g.hashes;
	c.layout = m->g.layout;
	c.key_type = m->g.key_type;
	c.seed = m->g.seed;
	c.capacity = m->g.capacity;	/* 0: derived from m and k */
	c.flags = m->g.flags | BLOOM_F_FIXED_SEED;
	c.generations = m->g.gens;
	c.period_ms = m->g.period_ms;
	c.age_flags = m->g.age_flags;
	c.stages_max = m->g.stages_max;
	c.growth = m->g.growth;
	c.tighten_pct = m->g.tighten_pct;
	return dev_ioctl(BLOOM_IOC_CREATE, &c);
}

enum restore_result { RESTORED, STAND_IN, FAILED };

/* A snapshot that cannot be restored: an empty stand-in if possible. */
static enum restore_result stand_in(const char *path,
				    const struct restore_item *it,
				    const char *why, bool replace)
{
	struct bloom_ioc_info in;
	const struct bloom_geom *g;
	int err;

	if (!it->m) {
		log_error("restore-all: %s: %s, and the manifest does not "
			  "list %s: not restored", path, why, it->name);
		return FAILED;
	}
	if (replace && !dev_info(it->name, &in)) {
		log_error("restore-all: %s: %s: filter %s keeps its current "
			  "contents", path, why, it->name);
		return STAND_IN;
	}
	g = &it->m->g;
	err = create_empty(it->m);
	if (err) {
		log_error("restore-all: %s: %s, and creating %s empty failed: "
			  "%s", path, why, it->name,
			  dev_strerror(err, it->name));
		return FAILED;
	}
	log_error("restore-all: %s: %s: created %s EMPTY with the saved "
		  "geometry (%s, %s, m=%llu, k=%u, capacity %llu); its keys "
		  "are lost until it is filled again", path, why, it->name,
		  bloom_layout_name(g->layout), key_label(g->key_type, g->flags),
		  (unsigned long long)g->bits, g->hashes,
		  (unsigned long long)g->capacity);
	return STAND_IN;
}

static enum restore_result restore_one(const char *dir,
				       const struct restore_item *it,
				       bool replace)
{
	struct bloom_snap_info si;
	struct snap_image img;
	enum restore_result res = RESTORED;
	char *path;
	int err;

	if (asprintf(&path, "%s/%s%s", dir, it->name, SNAP_EXT) < 0)
		die("out of memory");
	if (name_problem(it->name)) {
		log_error("restore-all: %s: cannot name a filter '%s' (%s): "
			  "not restored", path, it->name,
			  name_problem(it->name));
		free(path);
		return FAILED;
	}
	err = read_snapshot(path, &img);
	if (err) {
		res = stand_in(path, it, err == -ENOENT ? "missing" :
			       strerror(-err), replace);
		goto out;
	}
	err = snap_verify(&img, &si);
	if (err) {
		res = stand_in(path, it, snap_strerror(err), replace);
		goto out;
	}
	err = restore_image(it->name, &img, replace);
	if (err == -EEXIST) {
		log_error("restore-all: %s: a filter named %s exists (use "
			  "--replace)", path, it->name);
		res = FAILED;
	} else if (err == -EINVAL) {
		log_error("restore-all: %s: the snapshot's key type or family "
			  "is not %s's", path, it->name);
		res = FAILED;
	} else if (err == -ENOSPC || err == -E2BIG || err == -ENOMEM) {
		/* An empty filter of that size would not fit either. */
		log_error("restore-all: %s: %s", path,
			  dev_strerror(err, it->name));
		res = FAILED;
	} else if (err) {
		res = stand_in(path, it, dev_strerror(err, it->name), replace);
	} else if (!opts.quiet) {
		printf("restored %s from %s\n", it->name, path);
	}
out:
	snap_free(&img);
	free(path);
	return res;
}

/*
 * The netfilter programs save-all found attached, attached again (those
 * not attached still) once their filters are back; how many could not be.
 */
static int restore_nf(const char *dir)
{
	int failed, attached;
	char *path;

	if (asprintf(&path, "%s/%s", dir, NF_SAVED) < 0)
		die("out of memory");
	failed = nf_restore(path, &attached);
	if (attached && !opts.quiet)
		printf("attached %d netfilter program%s again\n", attached,
		       PLURAL(attached));
	if (failed)
		log_error("restore-all: %d netfilter program%s of %s could not "
			  "be attached again (above)", failed, PLURAL(failed),
			  path);
	free(path);
	return failed;
}

/*
 * restore-all: nothing changes unless every name is free (or --replace);
 * then each filter is restored, and one whose snapshot is missing or
 * damaged is created empty from the manifest, so that the rules naming
 * it still load. Exit status EXIT_DEGRADED says that happened.
 */
int cmd_restore_all(int argc, char **argv)
{
	static const struct option longopts[] = {
		COMMON_LONGOPTS,
		{ "replace",	no_argument,		NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	size_t nm, n, i, counts[FAILED + 1] = { 0 };
	struct manifest_entry *m;
	struct restore_item *items;
	struct bloom_ioc_info in;
	const char *dir;
	struct set_dir sd;
	bool replace = false;
	int c, bad = 0, nf_failed;

	while ((c = parse_options(argc, argv, COMMON_SHORTOPTS,
				  longopts)) != -1) {
		if (c == 'r')
			replace = true;
		else
			common_option(argv[0], c);
	}
	positional(argv[0], argc - optind, 1, 1, "DIR");
	set_dir_init(&sd, "restore-all", argv[optind]);
	dir = argv[optind];
	if (!is_dir(sd.path) && is_dir(sd.old)) {
		/* save-all stopped between its two renames. */
		log_error("restore-all: %s is missing: restoring the previous "
			  "set from %s", dir, sd.old);
		dir = sd.old;
	}
	m = manifest_read(dir, &nm, &bad);
	items = restore_items(dir, m, nm, &n);

	for (i = 0; i < n && !replace; i++)
		if (!name_problem(items[i].name) &&
		    !dev_info(items[i].name, &in))
			die("restore-all %s/%s%s: a filter named %s exists "
			    "(use --replace)", dir, items[i].name, SNAP_EXT,
			    items[i].name);
	for (i = 0; i < n; i++)
		counts[restore_one(dir, &items[i], replace)]++;

	if (!opts.quiet)
		printf("restored %zu filter%s from %s (%zu created empty, "
		       "%zu failed)\n", counts[RESTORED],
		       PLURAL(counts[RESTORED]), dir, counts[STAND_IN],
		       counts[FAILED]);
	nf_failed = restore_nf(dir);
	for (i = 0; i < n; i++)
		free(items[i].name);
	free(items);
	free(m);
	set_dir_free(&sd);
	if (counts[FAILED])
		return EXIT_ERROR;
	/* The filters are back: the boot unit must save them at shutdown. */
	return counts[STAND_IN] || bad || nf_failed ? EXIT_DEGRADED : EXIT_OK;
}
