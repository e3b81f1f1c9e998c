/* SPDX-License-Identifier: Apache-2.0 */
/*
 * broadcast_to.c — BROADCAST_TO (BuiltinOperator 130): input 0 broadcast
 * to the shape input 1 gives (int32 or int64 vector), NumPy's rule: the
 * shapes aligned at the end, each input dimension 1 or the output's. The
 * output's static shape is the one planned: a constant shape must be it;
 * a computed one is checked at every invoke (EDGE_ERR_SHAPE when it is
 * not). Any element type, moved as bytes, as TFLite's kernel.
 */
#include "data_move.h"

typedef struct bcast_params {
    edge_walk w;
    int32_t rank; /* the output's, to check a computed shape against */
    int32_t is64;
    int32_t dims[EDGE_MAX_DIMS];
} bcast_params;

static const edge_op_form form = {2, 2, 2, EDGE_FORM_SAME_TYPE | EDGE_FORM_SIZED,
                                   EDGE_BUILTIN_OPTIONS_BROADCAST_TO_OPTIONS, 0, "BroadcastToOptions"};

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    const int32_t rank = out->t.rank, in_rank = in->t.rank;
    const edge_tensor_rt *shape = edge_in(c, 1);
    st = edge_index_check(c, shape, "shape", 1, rank, 0);
    if (st) return st;
    if (shape->is_const)
        for (int32_t d = 0; d < rank; d++) {
            const int64_t v = edge_index_at(shape->t.data, shape->t.type, (uint32_t)d);
            if (v != out->t.dims[d])
                return edge_op_fail(c, EDGE_ERR_SHAPE, "shape[%d] = %ld but the output's dimension is %d", d,
                                    (long)v, out->t.dims[d]);
        }
    if (in_rank > rank)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "input is %d-D, more than the %d-D output", in_rank, rank);
    st = edge_same_quant(c, in, out, "the input");
    if (st) return st;
    bcast_params p;
    edge_memset(&p, 0, sizeof p);
    int32_t stride[EDGE_MAX_DIMS];
    edge_strides(&in->t, stride);
    for (int32_t d = 0; d < rank; d++) {
        const int32_t k = d - (rank - in_rank), od = out->t.dims[d];
        const int32_t id = k >= 0 ? in->t.dims[k] : 1;
        if (id != od && id != 1)
            return edge_op_fail(c, EDGE_ERR_SHAPE, "input dimension %d (%d) does not broadcast to %d", k, id, od);
        p.w.count[d] = od;
        p.w.stride[d] = k >= 0 && id != 1 ? stride[k] : 0;
        p.dims[d] = od;
    }
    p.w.rank = rank;
    p.w.elem = (uint32_t)edge_type_size(in->t.type);
    edge_walk_simplify(&p.w);
    p.rank = shape->is_const ? -1 : rank;
    p.is64 = shape->t.type == EDGE_INT64;
    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

static edge_status eval(edge_op_ctx *c) {
    const bcast_params *p = (const bcast_params *)c->params;
    if (p->rank >= 0) {
        const void *s = edge_in_data(c, 1);
        for (int32_t d = 0; d < p->rank; d++)
            if (edge_index_at(s, p->is64 ? EDGE_INT64 : EDGE_INT32, (uint32_t)d) != p->dims[d])
                return edge_op_fail(c, EDGE_ERR_SHAPE, "shape[%d] = %ld differs from the planned output's %d", d,
                                    (long)edge_index_at(s, p->is64 ? EDGE_INT64 : EDGE_INT32, (uint32_t)d),
                                    p->dims[d]);
    }
    edge_walk_copy(&p->w, (const uint8_t *)edge_in_data(c, 0), (uint8_t *)edge_out_data(c, 0));
    return EDGE_OK;
}

const edge_op_impl edge_op_broadcast_to = {EDGE_BUILTIN_BROADCAST_TO, "BROADCAST_TO", prepare, eval, 0, 0, 0};
