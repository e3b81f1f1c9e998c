/* SPDX-License-Identifier: Apache-2.0 */
/*
 * shape.c — SHAPE (BuiltinOperator 77): input 0's dimensions as a 1-D int32
 * or int64 tensor (ShapeOptions.out_type, int32 when absent), as TFLite's
 * kernel writes them. Input 0's data is never read, so any element type
 * goes. The dimensions are known at load (the engine runs static shapes);
 * eval only writes them.
 */
#include "data_move.h"

typedef struct shape_params {
    int32_t rank;
    int32_t is64;
    int32_t dims[EDGE_MAX_DIMS];
} shape_params;

static const edge_op_form form = {1, 1, 0, 0, EDGE_BUILTIN_OPTIONS_SHAPE_OPTIONS, 0, "ShapeOptions"};

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    const int32_t want = edge_opt_u8(c, EDGE_F_SHAPE_OPTIONS_OUT_TYPE, EDGE_INT32);
    const edge_type ot = out->t.type;
    if (ot != EDGE_INT32 && ot != EDGE_INT64)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "output is %s (int32 or int64 supported)",
                            edge_type_name(ot));
    if ((int32_t)ot != want)
        return edge_op_fail(c, EDGE_ERR_MODEL, "output is %s but out_type asks for %s", edge_type_name(ot),
                            edge_type_name((edge_type)want));
    if (out->t.rank != 1 || out->t.dims[0] != in->t.rank)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "output must be a vector of %d elements", in->t.rank);
    shape_params p;
    edge_memset(&p, 0, sizeof p);
    p.rank = in->t.rank;
    p.is64 = ot == EDGE_INT64;
    for (int32_t d = 0; d < p.rank; d++) p.dims[d] = in->t.dims[d];
    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

static edge_status eval(edge_op_ctx *c) {
    const shape_params *p = (const shape_params *)c->params;
    uint8_t *dst = (uint8_t *)edge_out_data(c, 0);
    for (int32_t d = 0; d < p->rank; d++) {
        const int64_t v = p->dims[d];
        const uint32_t n = p->is64 ? 8u : 4u;
        for (uint32_t b = 0; b < n; b++) dst[(uint32_t)d * n + b] = (uint8_t)((uint64_t)v >> (8u * b));
    }
    return EDGE_OK;
}

const edge_op_impl edge_op_shape = {EDGE_BUILTIN_SHAPE, "SHAPE", prepare, eval, 0, 0, 0};
