/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dynamic_update_slice.c — DYNAMIC_UPDATE_SLICE (BuiltinOperator 151):
 * input 0 with input 1 (update) written over it at the start indices of
 * input 2 (int32 or int64, one per dimension, usually computed), each
 * clamped into [0, dim - update_dim] as TFLite's kernel does (so no index
 * is ever out of range). Types as TFLite's: float32, int8, int16, int32,
 * int64 and bool (uint8 too), moved as bytes.
 */
#include "data_move.h"

typedef struct dus_params {
    int32_t rank;
    uint32_t elem;
    uint32_t idx64;
    uint32_t bytes;   /* of the whole operand */
    int32_t dims[EDGE_MAX_DIMS];
    int32_t upd[EDGE_MAX_DIMS];
    int32_t stride[EDGE_MAX_DIMS]; /* the operand's */
} dus_params;

static const edge_op_form form = {3, 3, 6, EDGE_FORM_SAME_TYPE, EDGE_BUILTIN_OPTIONS_DYNAMIC_UPDATE_SLICE_OPTIONS,
                                   0, "DynamicUpdateSliceOptions"};

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    const edge_type t = in->t.type;
    if (t != EDGE_FLOAT32 && t != EDGE_INT8 && t != EDGE_UINT8 && t != EDGE_INT16 && t != EDGE_INT32 &&
        t != EDGE_INT64 && t != EDGE_BOOL)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "type %s not supported (float32, int8, uint8, int16, int32, int64, bool)",
                            edge_type_name(t));
    const edge_tensor_rt *upd = edge_in(c, 1), *start = edge_in(c, 2);
    const int32_t rank = in->t.rank;
    st = edge_index_check(c, start, "start indices", 1, rank, 0);
    if (st) return st;
    if (upd->t.type != t)
        return edge_op_fail(c, EDGE_ERR_MODEL, "update is %s, the operand %s", edge_type_name(upd->t.type),
                            edge_type_name(t));
    if (upd->t.rank != rank) return edge_op_fail(c, EDGE_ERR_SHAPE, "update is %d-D, the operand %d-D", upd->t.rank, rank);
    if (!edge_same_shape(&in->t, &out->t)) return edge_op_fail(c, EDGE_ERR_SHAPE, "output shape differs from the operand's");
    dus_params p;
    edge_memset(&p, 0, sizeof p);
    p.rank = rank;
    p.elem = (uint32_t)edge_type_size(t);
    p.idx64 = start->t.type == EDGE_INT64;
    p.bytes = (uint32_t)in->t.bytes;
    edge_strides(&in->t, p.stride);
    for (int32_t d = 0; d < rank; d++) {
        if (upd->t.dims[d] > in->t.dims[d])
            return edge_op_fail(c, EDGE_ERR_SHAPE, "update dimension %d (%d) exceeds the operand's (%d)", d,
                                upd->t.dims[d], in->t.dims[d]);
        p.dims[d] = in->t.dims[d];
        p.upd[d] = upd->t.dims[d];
    }
    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

static edge_status eval(edge_op_ctx *c) {
    const dus_params *p = (const dus_params *)c->params;
    const uint8_t *src = (const uint8_t *)edge_in_data(c, 0), *upd = (const uint8_t *)edge_in_data(c, 1);
    const void *start = edge_in_data(c, 2);
    uint8_t *dst = (uint8_t *)edge_out_data(c, 0);
    if (dst != src) edge_memmove(dst, src, p->bytes);
    edge_walk w; /* the update's elements, walked in the output */
    edge_memset(&w, 0, sizeof w);
    int64_t base = 0;
    for (int32_t d = 0; d < p->rank; d++) {
        int64_t s = edge_index_at(start, p->idx64 ? EDGE_INT64 : EDGE_INT32, (uint32_t)d);
        const int64_t hi = (int64_t)p->dims[d] - p->upd[d];
        s = s < 0 ? 0 : s > hi ? hi : s;
        base += s * p->stride[d];
        w.count[d] = p->upd[d];
    }
    for (int32_t d = 0; d < p->rank; d++)
        if (w.count[d] == 0) return EDGE_OK;
    /* Row by row of the update's last dimension. */
    const uint32_t es = p->elem;
    const int32_t last = p->rank - 1;
    const size_t row = p->rank ? (size_t)p->upd[last] * es : es;
    int32_t k[EDGE_MAX_DIMS] = {0};
    for (;;) {
        size_t at = (size_t)base;
        for (int32_t d = 0; d < last; d++) at += (size_t)k[d] * (size_t)p->stride[d];
        edge_memcpy(dst + at * es, upd, row);
        upd += row;
        int32_t d = last - 1;
        while (d >= 0 && ++k[d] == w.count[d]) k[d--] = 0;
        if (d < 0) return EDGE_OK;
    }
}

const edge_op_impl edge_op_dynamic_update_slice = {EDGE_BUILTIN_DYNAMIC_UPDATE_SLICE, "DYNAMIC_UPDATE_SLICE",
                                                   prepare, eval, 0, 0, 0};
