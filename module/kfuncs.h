/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BLOOM_KFUNCS_H
#define _BLOOM_KFUNCS_H

#ifdef CONFIG_BPF_SYSCALL
void bloom_kfuncs_init(void);
#else
static inline void bloom_kfuncs_init(void) { }
#endif

#endif /* _BLOOM_KFUNCS_H */
