/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reverse_v2.c — REVERSE_V2 (BuiltinOperator 105): input 0 with the order
 * of the elements reversed along each dimension input 1 lists (a constant
 * int32 vector; negative entries count from the end; one contiguous run
 * of axes, in any order, as TFLite's kernel takes). Types as TFLite's
 * kernel: float32, int8, uint8, int16, int32, int64 and bool.
 */
#include "data_move.h"

static const edge_op_form form = {2, 2, 2, EDGE_FORM_SAME_TYPE, EDGE_BUILTIN_OPTIONS_REVERSE_V2_OPTIONS, 0,
                                   "ReverseV2Options"};

static int reverse_type(edge_type t) {
    return t == EDGE_INT8 || t == EDGE_UINT8 || t == EDGE_INT16 || t == EDGE_INT32 || t == EDGE_FLOAT32 ||
           t == EDGE_INT64 || t == EDGE_BOOL;
}

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    if (!reverse_type(in->t.type))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "type %s not supported (float32, int8, uint8, int16, int32, int64, bool)",
                            edge_type_name(in->t.type));
    const int32_t rank = in->t.rank;
    const edge_tensor_rt *axes = edge_in(c, 1);
    st = edge_index_check(c, axes, "axis", 0, -1, 1);
    if (st) return st;
    const int64_t n = edge_numel(&axes->t);
    if (n > rank)
        return edge_op_fail(c, EDGE_ERR_MODEL, "%ld axes for a %d-D input", (long)n, rank);
    if (!edge_same_shape(&in->t, &out->t))
        return edge_op_fail(c, EDGE_ERR_SHAPE, "output shape differs from the input's");
    st = edge_same_quant(c, in, out, "the input");
    if (st) return st;
    edge_walk w;
    edge_memset(&w, 0, sizeof w);
    edge_strides(&in->t, w.stride);
    for (int32_t d = 0; d < rank; d++) w.count[d] = in->t.dims[d];
    uint32_t seen = 0;
    for (uint32_t i = 0; i < (uint32_t)n; i++) {
        const int32_t a0 = (int32_t)edge_index_at(axes->t.data, axes->t.type, i);
        const int32_t a = a0 < 0 ? a0 + rank : a0;
        if (a < 0 || a >= rank || (seen >> a & 1u))
            return edge_op_fail(c, EDGE_ERR_MODEL, "axis[%u] = %d is outside the input's %d dimensions or repeated",
                                i, a0, rank);
        seen |= 1u << a;
        if (w.count[a] > 0) w.base += (w.count[a] - 1) * w.stride[a];
        w.stride[a] = -w.stride[a];
    }
    uint32_t run = seen;
    while (run && !(run & 1u)) run >>= 1;
    if (run & (run + 1u))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "the axes are not contiguous (TFLite's kernel reverses one run of axes)");
    w.rank = rank;
    w.elem = (uint32_t)edge_type_size(in->t.type);
    edge_walk_simplify(&w);
    return edge_op_keep_params(c, &w, (uint32_t)sizeof w);
}

static edge_status eval(edge_op_ctx *c) {
    edge_walk_copy((const edge_walk *)c->params, (const uint8_t *)edge_in_data(c, 0),
                   (uint8_t *)edge_out_data(c, 0));
    return EDGE_OK;
}

const edge_op_impl edge_op_reverse_v2 = {EDGE_BUILTIN_REVERSE_V2, "REVERSE_V2", prepare, eval, 0, 0, 0};
