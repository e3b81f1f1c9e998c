/* SPDX-License-Identifier: Apache-2.0 */
/*
 * transpose.c — TRANSPOSE (BuiltinOperator 39): output dimension d is input
 * dimension perm[d] (input 1: a constant int32 vector of the input's rank;
 * negative entries count from the end, as TFLite reads them). Up to 6-D.
 * A perm that is not a permutation (TFLite only bounds-checks it) is
 * refused. Types as TFLite's kernel: float32, int32, int8, uint8, int16,
 * int64 and bool, quantized types with the output's scale and zero point.
 */
#include "data_move.h"

static const edge_op_form form = {2, 2, 2, EDGE_FORM_SAME_TYPE, EDGE_BUILTIN_OPTIONS_TRANSPOSE_OPTIONS, 0,
                                   "TransposeOptions"};

static int transpose_type(edge_type t) {
    return t == EDGE_INT8 || t == EDGE_UINT8 || t == EDGE_INT16 || t == EDGE_INT32 || t == EDGE_FLOAT32 ||
           t == EDGE_INT64 || t == EDGE_BOOL;
}

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    if (!transpose_type(in->t.type))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "type %s not supported (float32, int8, uint8, int16, int32, int64, bool)",
                            edge_type_name(in->t.type));
    const int32_t rank = in->t.rank;
    const edge_tensor_rt *perm = edge_in(c, 1);
    st = edge_index_check(c, perm, "perm", 0, rank, 1);
    if (st) return st;
    if (in->t.type == EDGE_INT8 || in->t.type == EDGE_UINT8 || in->t.type == EDGE_INT16) {
        st = edge_same_quant(c, in, out, "the input");
        if (st) return st;
    }
    if (out->t.rank != rank)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "output is %d-D, the input %d-D", out->t.rank, rank);
    int32_t stride[EDGE_MAX_DIMS];
    edge_strides(&in->t, stride);
    edge_walk w;
    edge_memset(&w, 0, sizeof w);
    uint32_t seen = 0;
    for (int32_t d = 0; d < rank; d++) {
        const int32_t p0 = (int32_t)edge_index_at(perm->t.data, perm->t.type, (uint32_t)d);
        const int32_t p = p0 < 0 ? p0 + rank : p0;
        if (p < 0 || p >= rank || (seen >> p & 1u))
            return edge_op_fail(c, EDGE_ERR_MODEL, "perm[%d] = %d: perm is not a permutation of 0..%d", d, p0,
                                rank - 1);
        seen |= 1u << p;
        if (out->t.dims[d] != in->t.dims[p])
            return edge_op_fail(c, EDGE_ERR_SHAPE, "output dimension %d is %d, input dimension %d is %d", d,
                                out->t.dims[d], p, in->t.dims[p]);
        w.count[d] = in->t.dims[p];
        w.stride[d] = stride[p];
    }
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

const edge_op_impl edge_op_transpose = {EDGE_BUILTIN_TRANSPOSE, "TRANSPOSE", prepare, eval, 0, 0, 0};
