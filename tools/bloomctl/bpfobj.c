// SPDX-License-Identifier: GPL-2.0
/*
 * What bloomctl's BPF programs (xdp, nf) share on the way in: finding
 * the program object, keeping libbpf's messages for when the kernel
 * refuses it, checking for bloom.ko's BTF, and reading a program's
 * per-CPU counters and the filter it names back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bloomctl.h"

#define MODULE_BTF	"/sys/kernel/btf/bloom"

/* libbpf's messages, kept for when loading fails. */
static char bpf_log[8192];
static size_t bpf_log_len;

int bpf_keep_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	int n;

	if (level == LIBBPF_DEBUG || bpf_log_len >= sizeof(bpf_log) - 1)
		return 0;
	n = vsnprintf(bpf_log + bpf_log_len, sizeof(bpf_log) - bpf_log_len,
		      fmt, ap);
	if (n > 0)
		bpf_log_len = min(bpf_log_len + n, sizeof(bpf_log) - 1);
	return 0;
}

const char *bpf_log_text(void)
{
	return bpf_log;
}

/*
 * The program object @file: $@env, beside bloomctl, or ../lib/bloom/.
 * @what names the program in the message when it is nowhere.
 */
const char *bpf_obj_path(const char *file, const char *env,
			 const char *what)
{
	static char path[PATH_MAX + 64];
	const char *given = getenv(env);
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if (given && *given)
		return given;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/%s", exe, file);
			if (!access(path, R_OK))
				return path;
			snprintf(path, sizeof(path), "%s/../lib/bloom/%s", exe,
				 file);
			if (!access(path, R_OK))
				return path;
		}
	}
	die("cannot find the %s program %s (beside bloomctl, in ../lib/bloom, "
	    "or in $%s): reinstall bloom-tools", what, file, env);
}

/* Sum the @n counters of a per-CPU array map. */
void bpf_counters_read(int map_fd, u64 *out, u32 n)
{
	int ncpus = libbpf_num_possible_cpus();
	u64 *v;
	u32 k;
	int c;

	if (ncpus <= 0)
		return;
	v = xcalloc(ncpus, sizeof(*v));
	for (k = 0; k < n; k++) {
		out[k] = 0;
		if (bpf_map_lookup_elem(map_fd, &k, v))
			continue;
		for (c = 0; c < ncpus; c++)
			out[k] += v[c];
	}
	free(v);
}

/*
 * The kfuncs need bloom.ko's BTF: without it the program cannot load,
 * and the kernel's reason is obscure. Say what is missing instead.
 */
void need_module_btf(const char *what)
{
	if (!access(MODULE_BTF, F_OK))
		return;
	if (access("/sys/kernel/btf/vmlinux", F_OK))
		die("%s needs BTF: this kernel was built without "
		    "CONFIG_DEBUG_INFO_BTF, so no program can call bloom.ko",
		    what);
	die("%s needs bloom.ko's BTF and %s is missing: bloom.ko was built "
	    "without it. Its build log says what was missing: usually pahole "
	    "(apt-get install dwarves) or resolve_btfids (on Debian's 6.1, "
	    "install a linux-kbuild-6.12.* package); then rebuild it "
	    "(dkms build --force bloom/VERSION, dkms install --force "
	    "bloom/VERSION) and reload it (see the README)",
	    what, MODULE_BTF);
}

/* The current name of filter @id, or NULL when it is gone. */
const char *filter_of_id(u32 id)
{
	static char found[BLOOM_NAME_MAX];
	char (*names)[BLOOM_NAME_MAX] = NULL;
	struct bloom_ioc_id q;
	u32 n = 0, i;

	if (access(BLOOM_DEVICE, F_OK) || dev_names(&names, &n))
		return NULL;
	for (i = 0; i < n; i++) {
		memset(&q, 0, sizeof(q));
		name_copy(q.name, names[i]);
		if (!dev_ioctl(BLOOM_IOC_ID, &q) && q.id == id) {
			memcpy(found, names[i], sizeof(found));
			free(names);
			return found;
		}
	}
	free(names);
	return NULL;
}

/*
 * The id of filter @set, for a program that looks up addresses: its keys
 * must be addresses or prefixes, and of @key_type unless that is -1.
 * @cmd and @what name the command and the program in messages.
 */
u32 bpf_filter_id(const char *set, int key_type, const char *cmd,
		  const char *what)
{
	struct bloom_ioc_info in = { 0 };
	struct bloom_ioc_id id = { 0 };
	int err;

	name_copy(in.name, set);
	name_copy(id.name, set);
	err = dev_ioctl(BLOOM_IOC_INFO, &in) ?: dev_ioctl(BLOOM_IOC_ID, &id);
	if (err)
		die_dev(cmd, err, set);
	if (in.key_type != BLOOM_KEY_ADDR && in.key_type != BLOOM_KEY_NET)
		die("filter %s holds %s keys: the %s program looks up "
		    "addresses (an addr or a net filter)", set,
		    bloom_key_type_name(in.key_type), what);
	if (key_type >= 0 && in.key_type != key_type)
		die("filter %s holds %s keys, not %s", set,
		    bloom_key_type_name(in.key_type),
		    bloom_key_type_name((unsigned int)key_type));
	return id.id;
}
