/* SPDX-License-Identifier: GPL-2.0 */
/* /proc/net/bloom, inside bloom.ko. */
#ifndef _BLOOM_PROCFS_H
#define _BLOOM_PROCFS_H

int bloom_proc_init(void);
void bloom_proc_exit(void);

#endif /* _BLOOM_PROCFS_H */
