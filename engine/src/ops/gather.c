/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gather.c — GATHER (BuiltinOperator 36): slices of input 0 (params) along
 * GatherOptions.axis picked by input 1 (indices: int16, int32 or int64),
 * with batch_dims leading dimensions shared by both (negative axis and
 * batch_dims count from the end), as TFLite's reference kernel:
 *   output = params[:axis] + indices[batch_dims:] + params[axis + 1:].
 * Constant indices are checked at load; computed ones at invoke, where an
 * index outside [0, params[axis]) stops the op with EDGE_ERR_ARG before
 * anything is read out of bounds. Params of any fixed-size type (TFLite:
 * float32, int8, uint8, int16, int32, int64, bool), moved as bytes.
 */
#include "data_move.h"

typedef struct gather_params {
    uint32_t batch;  /* product of params' first batch_dims dimensions */
    uint32_t outer;  /* product of params' dimensions batch_dims..axis */
    uint32_t coords; /* indices per batch */
    uint32_t axis_size;
    uint32_t chunk;  /* bytes of one slice (params' dimensions after axis) */
    uint32_t idx_type;
} gather_params;

static const edge_op_form form = {2, 2, 2, EDGE_FORM_SAME_TYPE | EDGE_FORM_SIZED,
                                   EDGE_BUILTIN_OPTIONS_GATHER_OPTIONS, 0, "GatherOptions"};

static int64_t index_at(const void *data, uint32_t type, uint32_t i) {
    if (type == EDGE_INT16) return (int16_t)fb_rd_u16((const uint8_t *)data + 2u * i);
    return edge_index_at(data, (edge_type)type, i);
}

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    const edge_tensor_rt *idx = edge_in(c, 1);
    const edge_type it = idx->t.type;
    if (it != EDGE_INT32 && it != EDGE_INT64 && it != EDGE_INT16)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "indices are %s (int16, int32 or int64 supported)",
                            edge_type_name(it));
    const int32_t rank = in->t.rank, irank = idx->t.rank;
    int32_t axis = edge_opt_i32(c, EDGE_F_GATHER_OPTIONS_AXIS, 0);
    int32_t bd = edge_opt_i32(c, EDGE_F_GATHER_OPTIONS_BATCH_DIMS, 0);
    if (axis < 0) axis += rank;
    if (bd < 0) bd += irank;
    if (axis < 0 || axis >= rank)
        return edge_op_fail(c, EDGE_ERR_MODEL, "axis %d is outside params' %d dimensions",
                            edge_opt_i32(c, EDGE_F_GATHER_OPTIONS_AXIS, 0), rank);
    if (bd < 0 || bd > irank || bd > axis)
        return edge_op_fail(c, EDGE_ERR_MODEL, "batch_dims %d does not fit indices' %d and axis %d",
                            edge_opt_i32(c, EDGE_F_GATHER_OPTIONS_BATCH_DIMS, 0), irank, axis);
    for (int32_t d = 0; d < bd; d++)
        if (in->t.dims[d] != idx->t.dims[d])
            return edge_op_fail(c, EDGE_ERR_SHAPE, "batch dimension %d differs between params and indices", d);
    /* The output's shape. */
    const int32_t orank = rank - 1 + irank - bd;
    int ok = out->t.rank == orank;
    for (int32_t d = 0, k = 0; ok && d < rank; d++) {
        if (d == axis) {
            for (int32_t j = bd; ok && j < irank; j++) ok = out->t.dims[k++] == idx->t.dims[j];
        } else {
            ok = out->t.dims[k++] == in->t.dims[d];
        }
    }
    if (!ok) return edge_op_fail(c, EDGE_ERR_SHAPE, "output shape is not params[:axis] + indices + params[axis+1:]");
    gather_params p;
    edge_memset(&p, 0, sizeof p);
    int64_t batch = 1, outer = 1, inner = 1, coords = 1;
    for (int32_t d = 0; d < bd; d++) batch *= in->t.dims[d];
    for (int32_t d = bd; d < axis; d++) outer *= in->t.dims[d];
    for (int32_t d = axis + 1; d < rank; d++) inner *= in->t.dims[d];
    for (int32_t d = bd; d < irank; d++) coords *= idx->t.dims[d];
    p.batch = (uint32_t)batch;
    p.outer = (uint32_t)outer;
    p.coords = (uint32_t)coords;
    p.axis_size = (uint32_t)in->t.dims[axis];
    p.chunk = (uint32_t)(inner * (int64_t)edge_type_size(in->t.type));
    p.idx_type = (uint32_t)it;
    if (idx->is_const) {
        const int64_t n = edge_numel(&idx->t);
        for (int64_t i = 0; i < n; i++) {
            const int64_t v = index_at(idx->t.data, it, (uint32_t)i);
            if (v < 0 || v >= p.axis_size)
                return edge_op_fail(c, EDGE_ERR_MODEL, "index %ld is %ld, outside [0, %u)", (long)i, (long)v,
                                    p.axis_size);
        }
    }
    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

static edge_status eval(edge_op_ctx *c) {
    const gather_params *p = (const gather_params *)c->params;
    const uint8_t *src = (const uint8_t *)edge_in_data(c, 0);
    const void *idx = edge_in_data(c, 1);
    uint8_t *dst = (uint8_t *)edge_out_data(c, 0);
    const uint32_t n = p->batch * p->coords;
    for (uint32_t i = 0; i < n; i++) {
        const int64_t v = index_at(idx, p->idx_type, i);
        if (v < 0 || v >= p->axis_size)
            return edge_op_fail(c, EDGE_ERR_ARG, "index %u is %ld, outside [0, %u)", i, (long)v, p->axis_size);
    }
    const size_t slab = (size_t)p->axis_size * p->chunk; /* one outer step of params */
    for (uint32_t b = 0; b < p->batch; b++) {
        for (uint32_t o = 0; o < p->outer; o++) {
            const uint8_t *base = src + ((size_t)b * p->outer + o) * slab;
            for (uint32_t k = 0; k < p->coords; k++) {
                const int64_t v = index_at(idx, p->idx_type, b * p->coords + k);
                edge_memcpy(dst, base + (size_t)v * p->chunk, p->chunk);
                dst += p->chunk;
            }
        }
    }
    return EDGE_OK;
}

const edge_op_impl edge_op_gather = {EDGE_BUILTIN_GATHER, "GATHER", prepare, eval, 0, 0, 0};
