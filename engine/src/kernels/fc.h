/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fc.h — the int8/uint8 fully-connected family (FULLY_CONNECTED on the
 * systolic GEMM): rows of k inputs against n weight rows [n][k].
 *
 * The op fills edge_fc_params (its requantization constants live in the
 * same params block, at the offsets given) and calls edge_fc_s8_select
 * once, edge_fc_s8 per eval. The dispatcher (fc.c) picks the variant; a
 * variant's packed weights stay behind edge_fc_s8_pack.
 */
#ifndef EDGE_KERNELS_FC_H
#define EDGE_KERNELS_FC_H

#include <stdint.h>

#include "dispatch.h"
#include "systolic.h"

/* Output channels whose effective bias is folded at a time (scratch:
 * 4 bytes each); 32 rows of weights stay in L1 between the fold and the
 * GEMV that reads them again. */
#define EDGE_FC_BIAS_CHUNK 32

typedef struct edge_fc_params {
    systolic_params sp; /* pointer fields are set at eval; sp.simd: the variant */
    int32_t batch;
    uint32_t scale_off, mult_off, shift_off; /* byte offsets in the params block (from p) */
    uint8_t sum_fast; /* the bias fold's weight sums may use the wider unit */
#if EDGE_KERNELS_RUNTIME
    const uint8_t *packed; /* edge_fc_s8_pack's weights and bias, or NULL */
#endif
} edge_fc_params;

static inline uint32_t edge_fc_s8_buffer_size(int32_t n) {
    return 4u * (uint32_t)(n < EDGE_FC_BIAS_CHUNK ? n : EDGE_FC_BIAS_CHUNK);
}

/* Picks the variant for p (sp filled). */
void edge_fc_s8_select(edge_fc_params *p);

/* out[batch][n] from in[batch][k], weights w [n][k] and the model's bias
 * (or NULL); scratch: edge_fc_s8_buffer_size bytes. */
void edge_fc_s8(const edge_fc_params *p, const void *in, const uint8_t *w, const int32_t *bias, uint8_t *out,
                int32_t *scratch);

/* Bytes the chosen variant lays out once from constant int8 weights and
 * bias (0: none); with dst, writes them and records them in p. */
uint32_t edge_fc_s8_pack(edge_fc_params *p, const void *w, const int32_t *bias, uint8_t *dst);

#endif
