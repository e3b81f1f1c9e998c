/* SPDX-License-Identifier: Apache-2.0 */
/*
 * slice.c — SLICE (BuiltinOperator 65): the block of input 0 starting at
 * `begin` (input 1) of `size` elements per dimension (input 2; -1: to the
 * end), both constant int32 or int64 vectors of the input's rank, up to
 * 5-D as TFLite. A block that leaves the input is refused at load. Types
 * as TFLite's kernel: float32, int8, uint8, int16, int32, int64 and bool.
 */
#include "data_move.h"

static const edge_op_form form = {3, 3, 6, EDGE_FORM_SAME_TYPE, EDGE_BUILTIN_OPTIONS_SLICE_OPTIONS, 0,
                                   "SliceOptions"};

static int slice_type(edge_type t) {
    return t == EDGE_INT8 || t == EDGE_UINT8 || t == EDGE_INT16 || t == EDGE_INT32 || t == EDGE_FLOAT32 ||
           t == EDGE_INT64 || t == EDGE_BOOL;
}

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    if (!slice_type(in->t.type))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "type %s not supported (float32, int8, uint8, int16, int32, int64, bool)",
                            edge_type_name(in->t.type));
    const int32_t rank = in->t.rank;
    if (rank > 5) return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "input is %d-D (TFLite slices up to 5-D)", rank);
    const edge_tensor_rt *tb = edge_in(c, 1), *ts = edge_in(c, 2);
    st = edge_index_check(c, tb, "begin", 1, rank, 1);
    if (!st) st = edge_index_check(c, ts, "size", 1, rank, 1);
    if (st) return st;
    if (tb->t.type != ts->t.type) return edge_op_fail(c, EDGE_ERR_MODEL, "begin and size differ in type");
    if (out->t.rank != rank)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "output is %d-D, the input %d-D", out->t.rank, rank);
    int32_t stride[EDGE_MAX_DIMS];
    edge_strides(&in->t, stride);
    edge_walk w;
    edge_memset(&w, 0, sizeof w);
    int64_t base = 0;
    for (int32_t d = 0; d < rank; d++) {
        const int64_t b = edge_index_at(tb->t.data, tb->t.type, (uint32_t)d);
        int64_t s = edge_index_at(ts->t.data, ts->t.type, (uint32_t)d);
        const int64_t dim = in->t.dims[d];
        if (b < 0 || b > dim)
            return edge_op_fail(c, EDGE_ERR_MODEL, "begin[%d] = %ld is outside [0, %ld]", d, (long)b, (long)dim);
        if (s == -1) s = dim - b;
        if (s < 0 || s > dim - b)
            return edge_op_fail(c, EDGE_ERR_MODEL, "begin[%d] + size[%d] = %ld + %ld leaves dimension %d (%ld)", d,
                                d, (long)b, (long)s, d, (long)dim);
        if (out->t.dims[d] != s)
            return edge_op_fail(c, EDGE_ERR_SHAPE, "output dimension %d is %d, the slice %ld", d, out->t.dims[d],
                                (long)s);
        w.count[d] = (int32_t)s;
        w.stride[d] = stride[d];
        base += b * stride[d];
    }
    w.rank = rank;
    w.base = (int32_t)base;
    w.elem = (uint32_t)edge_type_size(in->t.type);
    edge_walk_simplify(&w);
    return edge_op_keep_params(c, &w, (uint32_t)sizeof w);
}

static edge_status eval(edge_op_ctx *c) {
    edge_walk_copy((const edge_walk *)c->params, (const uint8_t *)edge_in_data(c, 0),
                   (uint8_t *)edge_out_data(c, 0));
    return EDGE_OK;
}

const edge_op_impl edge_op_slice = {EDGE_BUILTIN_SLICE, "SLICE", prepare, eval, 0, 0, 0};
