/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mirror_pad.c — MIRROR_PAD (BuiltinOperator 100): input 0 padded by the
 * constant paddings of input 1 (int32 or int64, [rank, 2]) with its own
 * mirror image, MirrorPadOptions.mode REFLECT (the edge not repeated:
 * padding up to size - 1) or SYMMETRIC (repeated: up to size), as
 * TFLite's kernel maps each output index to an input index. Types as
 * TFLite's: float32, int8, uint8, int16, int32 and int64, quantized as the
 * output.
 */
#include "data_move.h"

typedef struct mirror_pad_params {
    int32_t rank;
    uint32_t elem;
    int32_t symmetric;
    int32_t in_dims[EDGE_MAX_DIMS];
    int32_t out_dims[EDGE_MAX_DIMS];
    int32_t left[EDGE_MAX_DIMS];
    int32_t stride[EDGE_MAX_DIMS]; /* the input's */
} mirror_pad_params;

static const edge_op_form form = {2, 2, 2, EDGE_FORM_SAME_TYPE, EDGE_BUILTIN_OPTIONS_MIRROR_PAD_OPTIONS, 0,
                                   "MirrorPadOptions"};

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    const edge_type t = in->t.type;
    if (t != EDGE_FLOAT32 && t != EDGE_INT8 && t != EDGE_UINT8 && t != EDGE_INT16 && t != EDGE_INT32 &&
        t != EDGE_INT64)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "type %s not supported (float32, int8, uint8, int16, int32, int64)", edge_type_name(t));
    st = edge_same_quant(c, in, out, "the input");
    if (st) return st;
    const int32_t rank = in->t.rank;
    const edge_tensor_rt *pads = edge_in(c, 1);
    if (pads->t.type != EDGE_INT32 && pads->t.type != EDGE_INT64)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "paddings are %s (int32 or int64 supported)",
                            edge_type_name(pads->t.type));
    if (!pads->is_const) return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "paddings are not a constant tensor");
    if (pads->t.rank != 2 || pads->t.dims[0] != rank || pads->t.dims[1] != 2)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "paddings must be [%d, 2]", rank);
    if (out->t.rank != rank) return edge_op_fail(c, EDGE_ERR_SHAPE, "output is %d-D, the input %d-D", out->t.rank, rank);
    const uint32_t mode = (uint32_t)edge_opt_u8(c, EDGE_F_MIRROR_PAD_OPTIONS_MODE, 0);
    if (mode > 1) return edge_op_fail(c, EDGE_ERR_MODEL, "mode %u is neither REFLECT nor SYMMETRIC", mode);
    mirror_pad_params p;
    edge_memset(&p, 0, sizeof p);
    p.rank = rank;
    p.elem = (uint32_t)edge_type_size(t);
    p.symmetric = (int32_t)mode;
    edge_strides(&in->t, p.stride);
    for (int32_t d = 0; d < rank; d++) {
        const int64_t l = edge_index_at(pads->t.data, pads->t.type, 2u * (uint32_t)d);
        const int64_t r = edge_index_at(pads->t.data, pads->t.type, 2u * (uint32_t)d + 1u);
        const int64_t n = in->t.dims[d], lim = mode ? n : n - 1;
        if (l < 0 || r < 0 || l > lim || r > lim)
            return edge_op_fail(c, EDGE_ERR_MODEL, "paddings of dimension %d (%ld, %ld) exceed %ld for %s", d,
                                (long)l, (long)r, (long)lim, mode ? "SYMMETRIC" : "REFLECT");
        if (out->t.dims[d] != n + l + r)
            return edge_op_fail(c, EDGE_ERR_SHAPE, "output dimension %d is %d, not %ld", d, out->t.dims[d],
                                (long)(n + l + r));
        p.in_dims[d] = (int32_t)n;
        p.out_dims[d] = out->t.dims[d];
        p.left[d] = (int32_t)l;
    }
    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

/* The input index output index o of dimension d reads. */
static int32_t source(const mirror_pad_params *p, int32_t d, int32_t o) {
    const int32_t i = o - p->left[d], n = p->in_dims[d];
    if (i < 0) return p->symmetric ? -i - 1 : -i;
    if (i >= n) return p->symmetric ? 2 * n - 1 - i : 2 * n - 2 - i;
    return i;
}

static edge_status eval(edge_op_ctx *c) {
    const mirror_pad_params *p = (const mirror_pad_params *)c->params;
    const uint8_t *src = (const uint8_t *)edge_in_data(c, 0);
    uint8_t *dst = (uint8_t *)edge_out_data(c, 0);
    const uint32_t es = p->elem;
    if (p->rank == 0) {
        edge_memcpy(dst, src, es);
        return EDGE_OK;
    }
    for (int32_t d = 0; d < p->rank; d++)
        if (p->out_dims[d] == 0) return EDGE_OK;
    const int32_t last = p->rank - 1;
    int32_t k[EDGE_MAX_DIMS] = {0};
    for (;;) {
        size_t at = 0;
        for (int32_t d = 0; d < last; d++) at += (size_t)source(p, d, k[d]) * (size_t)p->stride[d];
        for (int32_t o = 0; o < p->out_dims[last]; o++, dst += es)
            edge_memcpy(dst, src + (at + (size_t)source(p, last, o)) * es, es);
        int32_t d = last - 1;
        while (d >= 0 && ++k[d] == p->out_dims[d]) k[d--] = 0;
        if (d < 0) return EDGE_OK;
    }
}

const edge_op_impl edge_op_mirror_pad = {EDGE_BUILTIN_MIRROR_PAD, "MIRROR_PAD", prepare, eval, 0, 0, 0};
