/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/bloom, inside bloom.ko. */
#ifndef _BLOOM_CHARDEV_H
#define _BLOOM_CHARDEV_H

struct net;

int bloom_chardev_init(void);
void bloom_chardev_exit(void);

/* transfer.c: the commands that move keys and snapshots. */
long bloom_ioc_batch(struct net *net, void *arg, unsigned int cmd);
long bloom_ioc_save(struct net *net, void *arg, unsigned int cmd);
long bloom_ioc_restore(struct net *net, void *arg, unsigned int cmd);

#endif /* _BLOOM_CHARDEV_H */
