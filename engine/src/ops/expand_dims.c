/* SPDX-License-Identifier: Apache-2.0 */
/*
 * expand_dims.c — EXPAND_DIMS (BuiltinOperator 70): a pure view of input 0
 * with a dimension of 1 inserted at `axis` (input 1: one int32 or int64
 * element; negative counts from the end of the output's rank, TFLite's
 * axis + rank + 1). The output's static shape must be that result. A
 * non-constant axis cannot change the bytes, only the shape: then the
 * output must be the input's shape with one 1 inserted somewhere. Any
 * element type: the bytes are copied, and only when the planner did not
 * already place the output on the input.
 */
#include "data_move.h"

static const edge_op_form form = {2, 2, 2, EDGE_FORM_SAME_TYPE | EDGE_FORM_SIZED, EDGE_BUILTIN_OPTIONS_EXPAND_DIMS_OPTIONS, 0,
                                   "ExpandDimsOptions"};

/* Is out the input's shape with a 1 inserted at position a? */
static int inserted_at(const edge_tensor *in, const edge_tensor *out, int32_t a) {
    if (out->rank != in->rank + 1 || out->dims[a] != 1) return 0;
    for (int32_t d = 0, k = 0; d < out->rank; d++) {
        if (d == a) continue;
        if (out->dims[d] != in->dims[k++]) return 0;
    }
    return 1;
}

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    const edge_tensor_rt *axis = edge_in(c, 1);
    st = edge_index_check(c, axis, "axis", 1, 1, 0);
    if (st) return st;
    const int32_t rank = in->t.rank;
    if (rank + 1 > EDGE_MAX_DIMS)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "output would have %d dimensions (at most %d)", rank + 1,
                            EDGE_MAX_DIMS);
    if (axis->is_const) {
        const int64_t a0 = edge_index_at(axis->t.data, axis->t.type, 0);
        const int64_t a = a0 < 0 ? a0 + rank + 1 : a0;
        if (a < 0 || a > rank)
            return edge_op_fail(c, EDGE_ERR_MODEL, "axis %ld is outside [%d, %d]", (long)a0, -rank - 1, rank);
        if (!inserted_at(&in->t, &out->t, (int32_t)a))
            return edge_op_fail(c, EDGE_ERR_SHAPE, "output shape is not the input's with a 1 at %ld", (long)a);
    } else {
        int ok = 0;
        for (int32_t a = 0; a <= rank && !ok; a++) ok = inserted_at(&in->t, &out->t, a);
        if (!ok) return edge_op_fail(c, EDGE_ERR_SHAPE, "output shape is not the input's with a 1 inserted");
    }
    if (in->t.bytes != out->t.bytes) return edge_op_fail(c, EDGE_ERR_SHAPE, "input and output sizes differ");
    return EDGE_OK;
}

const edge_op_impl edge_op_expand_dims = {EDGE_BUILTIN_EXPAND_DIMS, "EXPAND_DIMS", prepare,
                                          edge_op_view_eval, 1, 0, 0};
