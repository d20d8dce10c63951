// SPDX-License-Identifier: GPL-2.0
/*
 * The filter core as a library for other modules (xt_bloom, the KUnit
 * suites, in-kernel users wanting a private filter with no registry).
 */
#include <linux/export.h>
#include "core/bloom_core.h"

EXPORT_SYMBOL_GPL(bloom_geom_check);
EXPORT_SYMBOL_GPL(bloom_geom_size);
EXPORT_SYMBOL_GPL(bloom_core_init);
EXPORT_SYMBOL_GPL(bloom_array_bytes);
EXPORT_SYMBOL_GPL(bloom_geom_same);
EXPORT_SYMBOL_GPL(bloom_theory_fpr_ppb);
EXPORT_SYMBOL_GPL(bloom_theory_fpr_q32);
EXPORT_SYMBOL_GPL(bloom_add_hash);
EXPORT_SYMBOL_GPL(bloom_test_hash);
EXPORT_SYMBOL_GPL(bloom_del_hash);
EXPORT_SYMBOL_GPL(bloom_count_hash);
EXPORT_SYMBOL_GPL(bloom_add_batch);
EXPORT_SYMBOL_GPL(bloom_test_batch);
EXPORT_SYMBOL_GPL(bloom_bits_clear);
EXPORT_SYMBOL_GPL(bloom_note_plen);
EXPORT_SYMBOL_GPL(bloom_stats);
EXPORT_SYMBOL_GPL(bloom_est_union);
EXPORT_SYMBOL_GPL(bloom_est_intersection);
EXPORT_SYMBOL_GPL(bloom_union);
EXPORT_SYMBOL_GPL(bloom_intersect);
EXPORT_SYMBOL_GPL(bloom_halve_geom);
EXPORT_SYMBOL_GPL(bloom_halve);
EXPORT_SYMBOL_GPL(bloom_snap_check_hdr);
EXPORT_SYMBOL_GPL(bloom_snap_make_hdr);
EXPORT_SYMBOL_GPL(bloom_snap_csum_begin);
EXPORT_SYMBOL_GPL(bloom_words_to_le);
EXPORT_SYMBOL_GPL(bloom_words_from_le);
EXPORT_SYMBOL_GPL(bloom_snap_strerror);
EXPORT_SYMBOL_GPL(bloom_fx_ln);
EXPORT_SYMBOL_GPL(bloom_fx_exp);
EXPORT_SYMBOL_GPL(bloom_key_size);
EXPORT_SYMBOL_GPL(bloom_key_check);
EXPORT_SYMBOL_GPL(bloom_net_mask);
