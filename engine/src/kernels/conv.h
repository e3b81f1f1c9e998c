/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conv.h — the int8/uint8 convolution family (CONV_2D on the systolic GEMM).
 *
 * The op fills edge_conv_params (geometry, offsets, clamp; prepare) and
 * calls edge_conv_s8_select once, then edge_conv_s8_fold + edge_conv_s8_run
 * per eval. The dispatcher (conv.c) picks the variant; whatever layout a
 * variant wants (panels, re-laid weights, packed state) stays behind these
 * calls. Scratch: edge_conv_s8_buffer_size bytes.
 */
#ifndef EDGE_KERNELS_CONV_H
#define EDGE_KERNELS_CONV_H

#include <stdint.h>

#include "edge/edge.h" /* edge_status */
#include "dispatch.h"
#include "systolic.h"

/* Output pixels per streaming tile: the widest variant's row block (16)
 * or the portable GEMM's, whichever is larger; tiles aligned to the
 * smaller nest in the larger's. */
#if 16 % SYSTOLIC_TILE_ROWS != 0 && SYSTOLIC_TILE_ROWS % 16 != 0
#error "the systolic array's rows must divide 16 or be a multiple of it (CONV_2D streaming tiles)"
#endif
#define EDGE_CONV_STREAM_TILE (SYSTOLIC_TILE_ROWS > 16 ? SYSTOLIC_TILE_ROWS : 16)

typedef struct edge_conv_params {
    systolic_params sp; /* pointer fields are set per group at eval; sp.simd: the variant */
    int32_t batches, in_h, in_w, in_c, out_h, out_w, out_c;
    int32_t k_h, k_w, group_in_c, groups, group_out_c, k;
    int32_t stride_h, stride_w, dil_h, dil_w, pad_h, pad_w;
    uint32_t mult_off, shift_off; /* byte offsets inside the params block */
    uint32_t scratch_bias_off;    /* where eval folds the effective bias in scratch */
    uint32_t ring_off, ring_rows; /* fused pair head: the tail's input rows in scratch */
    uint8_t fused;    /* the head of a fused pair (ops/fused.c) */
    uint8_t direct;   /* 1x1 filter: rows come straight from the input */
    uint8_t pad_byte; /* input zero point, as stored */
#if EDGE_KERNELS_RUNTIME
    uint8_t v_gather;   /* variant state, set by edge_conv_s8_select (conv.c) */
    uint8_t v_first;
    uint8_t v_lanes;
    uint8_t sum_fast;   /* the bias fold's weight sums may use the wider unit */
    const void *packed; /* edge_conv_s8_pack's state, or NULL */
#endif
} edge_conv_params;

/* One eval's tensors: filt, bias and per-channel constants. eff_bias is
 * the folded bias (edge_conv_s8_fold), raw_bias the model's (or NULL). */
typedef struct edge_conv_data {
    const uint8_t *in, *filt;
    uint8_t *out;
    const int32_t *eff_bias, *raw_bias, *mult;
    const int8_t *shift;
    uint8_t *scratch;
    const void *state; /* a chunked run's prepared state (edge_conv_s8_chunked), or NULL */
} edge_conv_data;

/* Scratch of one conv: an im2col tile then the folded bias. */
static inline uint32_t edge_conv_s8_bias_offset(int32_t k, int direct) {
    const uint32_t im2col = direct ? 0u : systolic_im2col_bytes((uint32_t)k);
    return (im2col + 3u) & ~3u;
}
static inline uint32_t edge_conv_s8_buffer_size(int32_t k, int32_t out_c, int direct) {
    return edge_conv_s8_bias_offset(k, direct) + 4u * (uint32_t)out_c;
}

/* Picks the variant for p (filled but for the variant state); mult and
 * shift: all channels'; filt: the weights, filt_const when constant. */
void edge_conv_s8_select(edge_conv_params *p, const int32_t *mult, const int8_t *shift, const void *filt,
                         int filt_const);

/* The effective bias into eff_bias (out_c entries) when the chosen
 * variant wants it folded (the others fold the input offset themselves). */
void edge_conv_s8_fold(const edge_conv_params *p, const uint8_t *filt, const int32_t *raw_bias,
                       int32_t *eff_bias);

/* The conv of d->in (p's geometry) into d->out. */
void edge_conv_s8_run(const edge_conv_params *p, const edge_conv_data *d);

/* A run split into chunks by the caller (a fused pair's head): the
 * variant prepares its state once, then calls fn with it and, if it
 * prefers larger chunks than the plan's ring, a ring of ring_bytes and
 * a chunk size in pixels (else ring NULL). fn sets d->state for each
 * edge_conv_s8_run it makes. */
#define EDGE_CONV_CHUNK_RING EDGE_KERNELS_RUNTIME /* some variant may bring its own ring */
typedef edge_status (*edge_conv_chunks_fn)(void *ctx, const void *state, uint8_t *ring, uint32_t ring_bytes,
                                           int32_t pixels);
edge_status edge_conv_s8_chunked(const edge_conv_params *p, const edge_conv_data *d, edge_conv_chunks_fn fn,
                                 void *ctx);

/* Bytes of state the chosen variant lays out once from constant weights
 * (0: none); with dst, writes them and records them in p. */
uint32_t edge_conv_s8_pack(edge_conv_params *p, const void *filt, const int32_t *bias, uint8_t *dst);

/* The portable lowering (portable/conv_gemm.c; its im2col row, which
 * variants share, is portable/conv_im2col.h). */
void edge_conv_s8_portable(const edge_conv_params *p, const edge_conv_data *d);

#endif
