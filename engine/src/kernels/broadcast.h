/* SPDX-License-Identifier: Apache-2.0 */
/*
 * broadcast.h — NumPy-style broadcasting of two operands for the
 * elementwise binary ops (ADD, SUB, MUL), as TFLite's BroadcastAdd6DSlow /
 * BroadcastMul6DSlow / BroadcastQuantSubSlow visit them.
 *
 * Shapes are aligned at their last dimension; a dimension of extent 1 is
 * repeated to the other operand's extent. Every output element depends only
 * on its two input elements, so the visiting order does not change results;
 * the plan merges adjacent dimensions that broadcast alike, so two operands
 * of one shape become a single run over all elements.
 *
 * No allocation: the plan is a small struct kept in an op's params block.
 */
#ifndef EDGE_KERNELS_BROADCAST_H
#define EDGE_KERNELS_BROADCAST_H

#include <stddef.h>
#include <stdint.h>

#define EDGE_BCAST_MAX_DIMS 6

typedef struct edge_bcast {
    int32_t rank;                          /* merged rank, 1..EDGE_BCAST_MAX_DIMS */
    int32_t dims[EDGE_BCAST_MAX_DIMS];     /* output extent per merged dimension */
    int32_t stride_a[EDGE_BCAST_MAX_DIMS]; /* element strides; 0 = broadcast */
    int32_t stride_b[EDGE_BCAST_MAX_DIMS];
    int32_t count;                         /* output elements */
} edge_bcast;

/* Plans a ⊕ b → out. Returns 1 when out's shape is exactly the broadcast of
 * a's and b's shapes (ranks up to EDGE_BCAST_MAX_DIMS, rank 0 = scalar),
 * 0 otherwise. The shapes are loaded tensors': at most 2^31 - 1 elements
 * each, so every count and stride fits int32 (a shape with a 0 extent
 * plans no elements). Entries past rank are left as they were. */
int edge_bcast_plan(edge_bcast *p, const int32_t *dims_a, int32_t rank_a, const int32_t *dims_b,
                    int32_t rank_b, const int32_t *dims_out, int32_t rank_out);

/* One run of the innermost dimension: n outputs written contiguously from
 * out; a advances by stride_a elements per output and b by stride_b (each 0
 * or 1). ctx is the op's prepared parameters. */
typedef void (*edge_bcast_row_fn)(const void *ctx, const void *a, int32_t stride_a, const void *b,
                                  int32_t stride_b, void *out, int32_t n);

/* Visits every output run; elem_size is the bytes of one element (the
 * same for a, b and out). */
void edge_bcast_run(const edge_bcast *p, const void *a, const void *b, void *out, size_t elem_size,
                    edge_bcast_row_fn row, const void *ctx);

#endif
