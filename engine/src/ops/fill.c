/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fill.c — FILL (BuiltinOperator 94): an output of the shape input 0 gives
 * (int32 or int64 vector), every element input 1's value (a scalar of the
 * output's type). The output's static shape is the one planned: constant
 * dims must be it; computed ones (the converter's SHAPE -> ... -> FILL)
 * are checked at every invoke (EDGE_ERR_SHAPE when they differ). Types as
 * TFLite's kernel: float32, int8, int16, int32, int64 and bool (uint8 too),
 * the value quantized as the output.
 */
#include "data_move.h"

typedef struct fill_params {
    int32_t rank; /* the output's, to check computed dims against; -1: constant */
    int32_t is64;
    uint32_t elem;
    uint32_t count;
    int32_t dims[EDGE_MAX_DIMS];
} fill_params;

static const edge_op_form form = {2, 2, 2, 0, EDGE_BUILTIN_OPTIONS_FILL_OPTIONS, 0, "FillOptions"};

static int fill_type(edge_type t) {
    return t == EDGE_INT8 || t == EDGE_UINT8 || t == EDGE_INT16 || t == EDGE_INT32 || t == EDGE_FLOAT32 ||
           t == EDGE_INT64 || t == EDGE_BOOL;
}

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *dims, *out;
    edge_status st = edge_op_begin(c, &form, &dims, &out);
    if (st) return st;
    const int32_t rank = out->t.rank;
    st = edge_index_check(c, dims, "dims", 1, rank, 0);
    if (st) return st;
    const edge_tensor_rt *value = edge_in(c, 1);
    if (value->t.type != out->t.type)
        return edge_op_fail(c, EDGE_ERR_MODEL, "value is %s but the output is %s", edge_type_name(value->t.type),
                            edge_type_name(out->t.type));
    if (!fill_type(out->t.type))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "type %s not supported (float32, int8, uint8, int16, int32, int64, bool)",
                            edge_type_name(out->t.type));
    if (value->t.rank != 0 && edge_numel(&value->t) != 1)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "value must be a scalar");
    if (out->t.type == EDGE_INT8 || out->t.type == EDGE_UINT8 || out->t.type == EDGE_INT16) {
        st = edge_same_quant(c, value, out, "the value");
        if (st) return st;
    }
    if (dims->is_const)
        for (int32_t d = 0; d < rank; d++) {
            const int64_t v = edge_index_at(dims->t.data, dims->t.type, (uint32_t)d);
            if (v != out->t.dims[d])
                return edge_op_fail(c, EDGE_ERR_SHAPE, "dims[%d] = %ld but the output's dimension is %d", d, (long)v,
                                    out->t.dims[d]);
        }
    fill_params p;
    edge_memset(&p, 0, sizeof p);
    p.rank = dims->is_const ? -1 : rank;
    p.is64 = dims->t.type == EDGE_INT64;
    p.elem = (uint32_t)edge_type_size(out->t.type);
    p.count = (uint32_t)edge_numel(&out->t);
    for (int32_t d = 0; d < rank; d++) p.dims[d] = out->t.dims[d];
    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

static edge_status eval(edge_op_ctx *c) {
    const fill_params *p = (const fill_params *)c->params;
    if (p->rank >= 0) {
        const void *s = edge_in_data(c, 0);
        const edge_type t = p->is64 ? EDGE_INT64 : EDGE_INT32;
        for (int32_t d = 0; d < p->rank; d++)
            if (edge_index_at(s, t, (uint32_t)d) != p->dims[d])
                return edge_op_fail(c, EDGE_ERR_SHAPE, "dims[%d] = %ld differs from the planned output's %d", d,
                                    (long)edge_index_at(s, t, (uint32_t)d), p->dims[d]);
    }
    const uint8_t *v = (const uint8_t *)edge_in_data(c, 1);
    uint8_t *dst = (uint8_t *)edge_out_data(c, 0);
    if (p->elem == 1) {
        edge_memset(dst, v[0], p->count);
        return EDGE_OK;
    }
    for (uint32_t i = 0; i < p->count; i++, dst += p->elem) edge_memcpy(dst, v, p->elem);
    return EDGE_OK;
}

const edge_op_impl edge_op_fill = {EDGE_BUILTIN_FILL, "FILL", prepare, eval, 0, 0, 0};
