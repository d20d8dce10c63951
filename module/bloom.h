/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-kernel API of bloom.ko: named filters of a network namespace,
 * for xt_bloom and any other module. Every call but bloom_get() and
 * bloom_put() is lockless; all but bloom_rotate() are callable from
 * softirq. They work on aging filters unchanged: see api.c for the window a key
 * stays present in.
 */
#ifndef _BLOOM_H
#define _BLOOM_H

#include <linux/types.h>
#include "../uapi/bloom.h"

struct net;
struct sk_buff;
struct bloom_filter;

struct bloom_filter *bloom_get(struct net *net, const char *name);
void bloom_put(struct bloom_filter *f);
u8 bloom_key_type(const struct bloom_filter *f);
u16 bloom_family(const struct bloom_filter *f);
bool bloom_test(struct bloom_filter *f, const void *key, size_t len);
int bloom_add(struct bloom_filter *f, const void *key, size_t len);
int bloom_add_value(struct bloom_filter *f, const void *key, size_t len,
		    u32 value);
int bloom_test_and_add(struct bloom_filter *f, const void *key, size_t len);
int bloom_del(struct bloom_filter *f, const void *key, size_t len);
bool bloom_test_net(struct bloom_filter *f, const u8 addr[16]);
bool bloom_value(struct bloom_filter *f, const void *key, size_t len,
		 u32 *value);
bool bloom_value_net(struct bloom_filter *f, const u8 addr[16], u32 *value);
int bloom_rotate(struct bloom_filter *f);
const char *bloom_key_type_name(unsigned int key_type);
int bloom_name_check(const char *name);
int bloom_digest_skb(const struct sk_buff *skb, unsigned int nbytes,
		     struct bloom_key_digest *key);

#endif /* _BLOOM_H */
