/* SPDX-License-Identifier: Apache-2.0 */
/*
 * depth_to_space.c — DEPTH_TO_SPACE (BuiltinOperator 5): the inverse of
 * SPACE_TO_DEPTH on a 4-D NHWC input, in TFLite's order: output pixel
 * (h * block + by, w * block + bx) channel c is input pixel (h, w) channel
 * (by * block + bx) * C_out + c. Walked as a 6-D strided copy. Types as
 * TFLite's kernel: float32, int8, uint8, int32 and int64.
 */
#include "data_move.h"

static const edge_op_form form = {1, 1, 0, EDGE_FORM_SAME_TYPE, EDGE_BUILTIN_OPTIONS_DEPTH_TO_SPACE_OPTIONS, 0,
                                   "DepthToSpaceOptions"};

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    const edge_type t = in->t.type;
    if (t != EDGE_FLOAT32 && t != EDGE_INT8 && t != EDGE_UINT8 && t != EDGE_INT32 &&
        t != EDGE_INT64)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "type %s not supported (float32, int8, uint8, int32, int64)", edge_type_name(t));
    st = edge_same_quant(c, in, out, "the input");
    if (st) return st;
    const int32_t b = edge_opt_i32(c, EDGE_F_DEPTH_TO_SPACE_OPTIONS_BLOCK_SIZE, 0);
    if (in->t.rank != 4 || out->t.rank != 4)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "input and output must be 4-D");
    const int32_t n = in->t.dims[0], h = in->t.dims[1], w = in->t.dims[2], ch = in->t.dims[3];
    if (b < 1 || b > 46340 || ch % (b * b)) /* b * b fits int32 */
        return edge_op_fail(c, EDGE_ERR_MODEL, "block_size %d squared does not divide the %d channels", b, ch);
    const int32_t oc = ch / (b * b);
    if (out->t.dims[0] != n || (int64_t)out->t.dims[1] != (int64_t)h * b ||
        (int64_t)out->t.dims[2] != (int64_t)w * b || out->t.dims[3] != oc)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "output shape is not [%d, %ld, %ld, %d]", n, (long)h * b,
                            (long)w * b, oc);
    edge_walk wk;
    edge_memset(&wk, 0, sizeof wk);
    const int32_t cnt[6] = {n, h, b, w, b, oc};
    const int32_t str[6] = {h * w * ch, w * ch, b * oc, ch, oc, 1};
    for (int32_t d = 0; d < 6; d++) wk.count[d] = cnt[d], wk.stride[d] = str[d];
    wk.rank = 6;
    wk.elem = (uint32_t)edge_type_size(t);
    edge_walk_simplify(&wk);
    return edge_op_keep_params(c, &wk, (uint32_t)sizeof wk);
}

static edge_status eval(edge_op_ctx *c) {
    edge_walk_copy((const edge_walk *)c->params, (const uint8_t *)edge_in_data(c, 0),
                   (uint8_t *)edge_out_data(c, 0));
    return EDGE_OK;
}

const edge_op_impl edge_op_depth_to_space = {EDGE_BUILTIN_DEPTH_TO_SPACE, "DEPTH_TO_SPACE", prepare, eval, 0, 0, 0};
