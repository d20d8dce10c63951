/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BENCH_LIBBLOOM_H
#define _BENCH_LIBBLOOM_H

struct lb;
struct lb *lb_new(unsigned long n, double error);
int lb_add(struct lb *f, const void *key, int len);
int lb_check(struct lb *f, const void *key, int len);
unsigned long lb_bytes(const struct lb *f);
unsigned int lb_hashes(const struct lb *f);
void lb_free(struct lb *f);

#endif
