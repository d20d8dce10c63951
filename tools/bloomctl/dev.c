// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/bloom: opening it (with the ABI handshake), the ioctl wrappers,
 * and what each errno means to an operator.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bloomctl.h"

#define LIST_CHUNK	1024	/* names per BLOOM_IOC_LIST */

static int dev_fd = -1;

/* Run modprobe bloom: its exit status, or -1 if it could not run. */
static int modprobe_bloom(void)
{
	static const char *const paths[] = { "/sbin/modprobe",
					     "/usr/sbin/modprobe" };
	char *argv[] = { "modprobe", "bloom", NULL };
	int status, pid;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		if (access(paths[i], X_OK))
			continue;
		if (posix_spawn(&pid, paths[i], NULL, NULL, argv, environ))
			return -1;
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				return -1;
		return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	}
	return -1;
}

/*
 * /dev/bloom is missing: load bloom.ko as iptables loads its matches,
 * or say exactly what is wrong and what to run.
 */
static void load_module(void)
{
	struct utsname u;
	int status;

	if (!access("/sys/module/bloom", F_OK))
		die("%s is missing although bloom.ko is loaded (no devtmpfs "
		    "or udev?)", BLOOM_DEVICE);
	if (geteuid())
		die("%s is missing: bloom.ko is not loaded; as root, run: "
		    "modprobe bloom", BLOOM_DEVICE);
	status = modprobe_bloom();
	if (status) {
		uname(&u);
		die("%s is missing: bloom.ko is not loaded and 'modprobe "
		    "bloom' failed (%s); install bloom-dkms, or 'make install' "
		    "from the source, for kernel %s", BLOOM_DEVICE,
		    status < 0 ? "cannot run modprobe" : "see above",
		    u.release);
	}
}

static void dev_open(void)
{
	struct bloom_ioc_version v;
	int err;

	dev_fd = open(BLOOM_DEVICE, O_RDWR | O_CLOEXEC);
	if (dev_fd < 0 && errno == ENOENT) {
		load_module();
		dev_fd = open(BLOOM_DEVICE, O_RDWR | O_CLOEXEC);
	}
	if (dev_fd < 0) {
		err = errno;
		if (err == ENOENT || err == ENODEV || err == ENXIO)
			die("%s: %s (is bloom.ko loaded?)", BLOOM_DEVICE,
			    strerror(err));
		if (err == EACCES || err == EPERM)
			die("%s: %s (needs root)", BLOOM_DEVICE, strerror(err));
		die("%s: %s", BLOOM_DEVICE, strerror(err));
	}
	memset(&v, 0, sizeof(v));
	if (ioctl(dev_fd, BLOOM_IOC_VERSION, &v))
		die("%s: version handshake: %s", BLOOM_DEVICE, strerror(errno));
	if (v.abi_version != BLOOM_ABI_VERSION)
		die("%s: the kernel speaks ABI %u, bloomctl speaks %u",
		    BLOOM_DEVICE, v.abi_version, BLOOM_ABI_VERSION);
}

/* ioctl on /dev/bloom, opened on first use: 0 or -errno. */
int dev_ioctl(unsigned long cmd, void *arg)
{
	if (dev_fd < 0)
		dev_open();
	return ioctl(dev_fd, cmd, arg) ? -errno : 0;
}

/* A name into a zero-padded char[BLOOM_NAME_MAX]; checked beforehand. */
void name_copy(char *dst, const char *name)
{
	memset(dst, 0, BLOOM_NAME_MAX);
	memcpy(dst, name, strnlen(name, BLOOM_NAME_MAX - 1));
}

int dev_info(const char *name, struct bloom_ioc_info *in)
{
	memset(in, 0, sizeof(*in));
	name_copy(in->name, name);
	return dev_ioctl(BLOOM_IOC_INFO, in);
}

/**
 * dev_stages() - the stages of a growing filter
 * @name: the filter
 * @sl: filled in; all zero when @name does not grow (EOPNOTSUPP), or
 *	when the kernel predates growing filters (ENOTTY)
 *
 * Return: 0 or another -errno of BLOOM_IOC_STAGES.
 */
int dev_stages(const char *name, struct stage_list *sl)
{
	int err;

	memset(sl, 0, sizeof(*sl));
	name_copy(sl->s.name, name);
	sl->s.buf = (uintptr_t)sl->st;
	sl->s.count = BLOOM_STAGES_MAX;
	err = dev_ioctl(BLOOM_IOC_STAGES, &sl->s);
	if (err == -EOPNOTSUPP || err == -ENOTTY) {
		memset(sl, 0, sizeof(*sl));
		return 0;
	}
	return err;
}

/* Every filter name in the namespace, in creation order. */
int dev_names(char (**names)[BLOOM_NAME_MAX], u32 *count)
{
	char (*all)[BLOOM_NAME_MAX] = NULL;
	struct bloom_ioc_list l;
	u32 n = 0;
	int err;

	do {
		all = xrealloc(all, (size_t)(n + LIST_CHUNK) * BLOOM_NAME_MAX);
		memset(&l, 0, sizeof(l));
		l.names = (uintptr_t)(all + n);
		l.offset = n;
		l.count = LIST_CHUNK;
		err = dev_ioctl(BLOOM_IOC_LIST, &l);
		if (err) {
			free(all);
			return err;
		}
		n += l.returned;
	} while (l.returned == LIST_CHUNK);
	*names = all;
	*count = n;
	return 0;
}

int dev_batch(unsigned long cmd, const char *name, const struct keylist *kl,
	      size_t first, u32 count, void *results,
	      struct bloom_ioc_batch *out)
{
	struct bloom_ioc_batch b;
	int err;

	memset(&b, 0, sizeof(b));
	name_copy(b.name, name);
	b.keys = (uintptr_t)keylist_rec(kl, first);
	b.results = (uintptr_t)results;
	b.count = count;
	b.stride = (u32)kl->stride;
	if (cmd == BLOOM_IOC_ADD && kl->with_values)
		b.values = (uintptr_t)&kl->values[first];
	err = dev_ioctl(cmd, &b);
	if (out)
		*out = b;
	return err;
}

int dev_pair(unsigned long cmd, const char *a, const char *b,
	     struct bloom_ioc_pair *out)
{
	struct bloom_ioc_pair p;
	int err;

	memset(&p, 0, sizeof(p));
	name_copy(p.name, a);
	name_copy(p.other, b);
	err = dev_ioctl(cmd, &p);
	if (out)
		*out = p;
	return err;
}

int dev_name_op(unsigned long cmd, const char *name)
{
	struct bloom_ioc_name n;

	memset(&n, 0, sizeof(n));
	name_copy(n.name, name);
	return dev_ioctl(cmd, &n);
}

/* A static filter's shape (BLOOM_IOC_FUSE). */
int dev_fuse(const char *name, struct bloom_ioc_fuse *f)
{
	memset(f, 0, sizeof(*f));
	name_copy(f->name, name);
	return dev_ioctl(BLOOM_IOC_FUSE, f);
}

/* Why a command is not supported for filter @name (EOPNOTSUPP). */
static const char *dev_unsupported(const char *name)
{
	static char buf[160];
	struct bloom_ioc_info in;
	struct stage_list sl;
	int err = dev_info(name, &in);

	if (!err && in.layout == BLOOM_LAYOUT_FUSE)
		snprintf(buf, sizeof(buf),
			 "%s is a static filter: rebuild it (bloomctl build --kind, then restore --replace); no add, del, count or set algebra",
			 name);
	else if (!err && in.layout == BLOOM_LAYOUT_CUCKOO)
		snprintf(buf, sizeof(buf),
			 "%s is a cuckoo filter: halve, union, intersect and estimate do not apply to it",
			 name);
	else if (!err && in.generations)
		snprintf(buf, sizeof(buf),
			 "%s is an aging filter: halve, union, intersect, estimate, del and count do not apply to it",
			 name);
	else if (!dev_stages(name, &sl) && sl.s.stages_max)
		snprintf(buf, sizeof(buf),
			 "%s is a growing filter, which this command does not apply to",
			 name);
	else
		snprintf(buf, sizeof(buf), "%s is not a counting filter", name);
	return buf;
}

/**
 * dev_strerror() - what an ioctl's error means, in words
 * @err: a negative errno
 * @name: the filter concerned, for the message
 *
 * Return: a sentence; valid until the next call.
 */
const char *dev_strerror(int err, const char *name)
{
	static char buf[128];

	switch (-err) {
	case ENOENT:
		snprintf(buf, sizeof(buf), "no filter named %s", name);
		return buf;
	case EEXIST:
		snprintf(buf, sizeof(buf), "a filter named %s exists", name);
		return buf;
	case EBUSY:
		snprintf(buf, sizeof(buf),
			 "%s is in use by a rule or kernel user", name);
		return buf;
	case EOPNOTSUPP:
		return dev_unsupported(name);
	case EPERM:
	case EACCES:
		return "needs CAP_NET_ADMIN";
	case ENOSPC:
		return "over the namespace's limit of filters or memory (see 'bloomctl limits')";
	case E2BIG:
		return "larger than the namespace's memory limit or the 16 GiB cap";
	case ENOTTY:
		return "the kernel does not know this command (bloom.ko too old?)";
	case ENODATA:
	case EPROTO:
	case EPROTONOSUPPORT:
	case EMSGSIZE:
	case EBADMSG:
	case ERANGE:
		return bloom_snap_strerror(err);
	default:
		return strerror(-err);
	}
}

void die_dev(const char *what, int err, const char *name)
{
	die("%s: %s", what, dev_strerror(err, name));
}

/* As die_dev(), naming whichever of the two filters is missing. */
void die_pair(const char *what, int err, const char *a, const char *b)
{
	struct bloom_ioc_info in;

	if (err == -ENOENT && !dev_info(a, &in))
		die_dev(what, err, b);
	die_dev(what, err, a);
}

/* The key type of filter @name, from INFO; dies if there is no such. */
u8 filter_key_type(const char *cmd, const char *name,
		   struct bloom_ioc_info *in)
{
	char what[64 + BLOOM_NAME_MAX];
	int err = dev_info(name, in);

	if (err) {
		snprintf(what, sizeof(what), "%s %s", cmd, name);
		die_dev(what, err, name);
	}
	return in->key_type;
}
