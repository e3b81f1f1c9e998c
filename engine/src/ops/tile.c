/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tile.c — TILE (BuiltinOperator 69): input 0 repeated multiples[d] times
 * along each dimension d (input 1: a constant int32 or int64 vector of the
 * input's rank, no entry negative). Each input row is copied once and then
 * its copies duplicated, dimension by dimension from the last, as TFLite's
 * kernel does. Types as TFLite's: float32, int8, uint8, int16, int32,
 * int64 and bool.
 */
#include "data_move.h"

typedef struct tile_params {
    int32_t rank;
    uint32_t elem;
    int32_t dims[EDGE_MAX_DIMS];  /* the input's */
    int32_t mult[EDGE_MAX_DIMS];
    uint32_t in_step[EDGE_MAX_DIMS]; /* input bytes per index of dimension d */
} tile_params;

static const edge_op_form form = {2, 2, 2, EDGE_FORM_SAME_TYPE, EDGE_BUILTIN_OPTIONS_TILE_OPTIONS, 0,
                                   "TileOptions"};

static int tile_type(edge_type t) {
    return t == EDGE_INT8 || t == EDGE_UINT8 || t == EDGE_INT16 || t == EDGE_INT32 || t == EDGE_FLOAT32 ||
           t == EDGE_INT64 || t == EDGE_BOOL;
}

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    if (!tile_type(in->t.type))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "type %s not supported (float32, int8, uint8, int16, int32, int64, bool)",
                            edge_type_name(in->t.type));
    const int32_t rank = in->t.rank;
    const edge_tensor_rt *m = edge_in(c, 1);
    st = edge_index_check(c, m, "multiples", 1, rank, 1);
    if (st) return st;
    if (out->t.rank != rank)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "output is %d-D, the input %d-D", out->t.rank, rank);
    tile_params p;
    edge_memset(&p, 0, sizeof p);
    p.rank = rank;
    p.elem = (uint32_t)edge_type_size(in->t.type);
    int32_t stride[EDGE_MAX_DIMS];
    edge_strides(&in->t, stride);
    for (int32_t d = 0; d < rank; d++) {
        const int64_t k = edge_index_at(m->t.data, m->t.type, (uint32_t)d);
        if (k < 0 || k > INT32_MAX)
            return edge_op_fail(c, EDGE_ERR_MODEL, "multiples[%d] = %ld is negative or too large", d, (long)k);
        if ((int64_t)in->t.dims[d] * k != out->t.dims[d])
            return edge_op_fail(c, EDGE_ERR_SHAPE, "output dimension %d is %d, not %d x %ld", d, out->t.dims[d],
                                in->t.dims[d], (long)k);
        p.dims[d] = in->t.dims[d];
        p.mult[d] = (int32_t)k;
        p.in_step[d] = (uint32_t)stride[d] * p.elem;
    }
    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

/* Dimension d onwards of the input block at src, tiled, to dst; returns
 * the bytes written. */
static size_t tile_dim(const tile_params *p, int32_t d, const uint8_t *src, uint8_t *dst) {
    size_t n = 0;
    if (d == p->rank - 1) {
        n = (size_t)p->dims[d] * p->elem;
        edge_memcpy(dst, src, n);
    } else {
        for (int32_t i = 0; i < p->dims[d]; i++) n += tile_dim(p, d + 1, src + (size_t)i * p->in_step[d], dst + n);
    }
    for (int32_t r = 1; r < p->mult[d]; r++) edge_memcpy(dst + (size_t)r * n, dst, n);
    return n * (size_t)p->mult[d];
}

static edge_status eval(edge_op_ctx *c) {
    const tile_params *p = (const tile_params *)c->params;
    const uint8_t *src = (const uint8_t *)edge_in_data(c, 0);
    uint8_t *dst = (uint8_t *)edge_out_data(c, 0);
    if (p->rank == 0) {
        edge_memcpy(dst, src, p->elem);
        return EDGE_OK;
    }
    for (int32_t d = 0; d < p->rank; d++)
        if (p->dims[d] == 0 || p->mult[d] == 0) return EDGE_OK;
    tile_dim(p, 0, src, dst);
    return EDGE_OK;
}

const edge_op_impl edge_op_tile = {EDGE_BUILTIN_TILE, "TILE", prepare, eval, 0, 0, 0};
