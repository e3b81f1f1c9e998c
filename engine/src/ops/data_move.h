/* SPDX-License-Identifier: Apache-2.0 */
/*
 * data_move.h — what the shape and data-movement ops share (TRANSPOSE,
 * SLICE, TILE, BROADCAST_TO, REVERSE_V2, PACK, UNPACK, SPLIT, SPLIT_V,
 * FILL...): reading their small int32/int64 index tensors at load, and one
 * copy loop that walks the output in order while the input is read at any
 * affine stride (negative for a reversal, 0 for a broadcast). Only these
 * ops reference it, so firmware without them links none of it.
 */
#ifndef EDGE_OPS_DATA_MOVE_H
#define EDGE_OPS_DATA_MOVE_H

#include "op_common.h"

/* The output walked in order: count[d] elements along output dimension d,
 * the input read at src + (base + sum k[d] * stride[d]) * elem. After
 * edge_walk_simplify, dimensions of 1 are gone and contiguous ones merged
 * (rank 0: one element). Offsets fit 32 bits: tensors are below 2 GiB. */
typedef struct edge_walk {
    int32_t rank;
    uint32_t elem;
    int32_t base;
    int32_t count[EDGE_MAX_DIMS];
    int32_t stride[EDGE_MAX_DIMS];
} edge_walk;

void edge_walk_simplify(edge_walk *w);
/* Writes every output element, in order, to dst. */
void edge_walk_copy(const edge_walk *w, const uint8_t *src, uint8_t *dst);

/* The input's element strides (row-major), for building a walk. */
void edge_strides(const edge_tensor *t, int32_t *stride);

/* An index tensor the op reads at load: int32 (or also int64 when
 * allow64), at most one dimension, `n` elements (n < 0: any count),
 * constant. EDGE_OK, or the failure recorded naming `what`. */
edge_status edge_index_check(const edge_op_ctx *c, const edge_tensor_rt *t, const char *what, int allow64,
                             int32_t n, int need_const);
/* Element i of an int32 or int64 tensor's bytes. */
int64_t edge_index_at(const void *data, edge_type type, uint32_t i);

/* In and out hold the same quantization (per tensor), as TFLite's movers
 * that do not rescale require: EDGE_OK, else EDGE_ERR_UNSUPPORTED. */
edge_status edge_same_quant(const edge_op_ctx *c, const edge_tensor_rt *in, const edge_tensor_rt *out,
                            const char *what);

#endif
