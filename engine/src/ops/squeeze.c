/* SPDX-License-Identifier: Apache-2.0 */
/*
 * squeeze.c — SQUEEZE (BuiltinOperator 43): a pure view of its input.
 *
 * Removes the size-1 dimensions named by SqueezeOptions.squeeze_dims
 * (negative ones count from the end), or every size-1 dimension when the
 * list is empty, as TFLite does. The model's static output shape must be
 * that result. Any element type: the bytes are copied, and only when the
 * planner did not already place the output on the input.
 */
#include "op_common.h"

enum { SQUEEZE_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_SQUEEZE_OPTIONS };
enum { OPT_SQUEEZE_DIMS = EDGE_F_SQUEEZE_OPTIONS_SQUEEZE_DIMS };

static const edge_op_form form = {1, 1, 0, EDGE_FORM_SAME_TYPE | EDGE_FORM_SIZED, SQUEEZE_OPTIONS_TYPE, 0,
                                   "SqueezeOptions"};

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;

    const int32_t rank = in->t.rank;
    uint8_t squeeze[EDGE_MAX_DIMS] = {0};
    uint32_t n = 0;
    const uint8_t *sq = edge_opt_vec_i32(c, OPT_SQUEEZE_DIMS, &n);
    if (n == 0) {
        for (int32_t d = 0; d < rank; d++) squeeze[d] = in->t.dims[d] == 1;
    } else {
        for (uint32_t i = 0; i < n; i++) {
            int32_t d = fb_i32_at(sq, i);
            if (d < 0 && d >= -rank) d += rank;
            if (d < 0 || d >= rank || in->t.dims[d] != 1)
                return edge_op_fail(c, EDGE_ERR_MODEL,
                                    "squeeze_dims[%u] = %d is not a size-1 dimension of the %d-D input",
                                    i, fb_i32_at(sq, i), rank);
            squeeze[d] = 1;
        }
    }
    int32_t kept = 0;
    int same = 1;
    for (int32_t d = 0; d < rank; d++) {
        if (squeeze[d]) continue;
        if (kept >= out->t.rank || out->t.dims[kept] != in->t.dims[d]) same = 0;
        kept++;
    }
    if (!same || kept != out->t.rank)
        return edge_op_fail(c, EDGE_ERR_SHAPE,
                            "squeezing the %d-D input leaves %d dimensions that do not match the "
                            "%d-D output's shape",
                            rank, kept, out->t.rank);
    if (in->t.bytes != out->t.bytes)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "input and output sizes differ");
    return EDGE_OK;
}

const edge_op_impl edge_op_squeeze = {EDGE_BUILTIN_SQUEEZE, "SQUEEZE", prepare, edge_op_view_eval, 1, 0, 0};
