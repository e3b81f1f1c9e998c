/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zeros_like.c — ZEROS_LIKE (BuiltinOperator 93): zeros of input 0's shape
 * and type. As TFLite's kernel: int32, int64 and float32 only.
 */
#include "data_move.h"

static const edge_op_form form = {1, 1, 0, EDGE_FORM_SAME_TYPE, EDGE_BUILTIN_OPTIONS_ZEROS_LIKE_OPTIONS, 0,
                                   "ZerosLikeOptions"};

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    const edge_type t = in->t.type;
    if (t != EDGE_INT32 && t != EDGE_INT64 && t != EDGE_FLOAT32)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "type %s not supported (int32, int64, float32)",
                            edge_type_name(t));
    if (!edge_same_shape(&in->t, &out->t))
        return edge_op_fail(c, EDGE_ERR_SHAPE, "output shape differs from the input's");
    return EDGE_OK;
}

static edge_status eval(edge_op_ctx *c) {
    const edge_tensor_rt *out = edge_out(c, 0);
    edge_memset(out->t.data, 0, out->t.bytes);
    return EDGE_OK;
}

const edge_op_impl edge_op_zeros_like = {EDGE_BUILTIN_ZEROS_LIKE, "ZEROS_LIKE", prepare, eval, 0, 0, 0};
