/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fused.h — what fused.c needs from DEPTHWISE_CONV_2D, the tail of a fused
 * pair (see edge_internal.h, "fused pair").
 */
#ifndef EDGE_OPS_FUSED_H
#define EDGE_OPS_FUSED_H

#include "ops.h"

/* The rows a depthwise op reads and writes: input [in_h][in_w][in_c],
 * output [out_h][out_w][out_c], its window's rows. */
typedef struct edge_dw_geom {
    int32_t in_h, in_w, in_c, out_h, out_w, out_c;
    int32_t k_h, stride_h, dil_h, pad_h;
} edge_dw_geom;

/* From op's tensors and options (its own prepare may not have run yet):
 * 1 for an int8/uint8 batch-1 depthwise conv whose shapes agree, else 0. */
int edge_depthwise_geom(const edge_model *m, const edge_op_rt *op, edge_dw_geom *g);

/* Output rows [oy0, oy1) of a prepared depthwise op (c: its context, its
 * params) into out, from input rows [row0, row0 + nrows) at `in`: every
 * row the window of those outputs reads inside the image, and no other
 * (row0 = the first one's window start clipped to 0, row0 + nrows = the
 * last one's window end clipped to in_h). Same bytes as the whole op. */
void edge_depthwise_rows(const edge_op_ctx *c, const void *in, int32_t row0, int32_t nrows, int32_t oy0,
                         int32_t oy1, void *out);

#endif
