// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the small initramfs that lets scripts/vm-run boot Debian's
 * packaged kernels (scripts/stock-initramfs builds it). Those kernels
 * build virtio and 9p as modules, so the root the test kernel mounts by
 * itself needs them loaded first: load the modules listed in /modules, in
 * order, mount the host's / over 9p as the test kernel would (root= and
 * rootflags= of the command line), and hand over to its init=.
 *
 * Static, with no shell: the initramfs holds this program and the modules.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NEWROOT	"/newroot"

static void fail(const char *what)
{
	fprintf(stderr, "stock-init: %s: %s\n", what, strerror(errno));
	/* PID 1 exiting panics the kernel, and panic=-1 ends QEMU. */
	exit(1);
}

static void load_modules(void)
{
	char line[512];
	FILE *f = fopen("/modules", "re");

	if (!f)
		fail("/modules");
	while (fgets(line, sizeof(line), f)) {
		int fd;

		line[strcspn(line, "\n")] = 0;
		if (!*line)
			continue;
		fd = open(line, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			fail(line);
		if (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST)
			fail(line);
		close(fd);
	}
	fclose(f);
}

/* The value of @key= on the kernel command line, or NULL. */
static char *cmdline_arg(const char *cmdline, const char *key)
{
	size_t n = strlen(key);
	const char *p = cmdline;

	while ((p = strstr(p, key))) {
		if ((p == cmdline || p[-1] == ' ') && p[n] == '=') {
			p += n + 1;
			return strndup(p, strcspn(p, " \n"));
		}
		p += n;
	}
	return NULL;
}

int main(void)
{
	struct timespec wait = { 0, 100 * 1000 * 1000 };
	char cmdline[4096] = "", *init, *root, *flags;
	int fd, tries;
	ssize_t n;

	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) && errno != EBUSY)
		fail("mount /dev");
	fd = open("/dev/console", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	if (mount("proc", "/proc", "proc", 0, NULL))
		fail("mount /proc");
	fd = open("/proc/cmdline", O_RDONLY);
	n = fd < 0 ? -1 : read(fd, cmdline, sizeof(cmdline) - 1);
	if (n < 0)
		fail("/proc/cmdline");
	cmdline[n] = 0;
	close(fd);
	init = cmdline_arg(cmdline, "init");
	root = cmdline_arg(cmdline, "root");
	flags = cmdline_arg(cmdline, "rootflags");
	if (!init || !root)
		fail("init= and root= are needed on the command line");

	load_modules();
	/* virtio devices may still be probing: give the root a few seconds. */
	for (tries = 0; mount(root, NEWROOT, "9p", MS_RDONLY, flags); tries++) {
		if (tries == 100)
			fail("mount the 9p root");
		nanosleep(&wait, NULL);
	}
	umount2("/proc", MNT_DETACH);
	umount2("/dev", MNT_DETACH);
	if (chdir(NEWROOT) || mount(".", "/", NULL, MS_MOVE, NULL) ||
	    chroot(".") || chdir("/"))
		fail("switch to the 9p root");
	execl(init, init, (char *)NULL);
	fail(init);
	return 1;
}
