/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pad.c — PAD (BuiltinOperator 34) and PADV2 (60).
 *
 * Constant paddings (int32 or int64, shape [rank, 2], non-negative) on up to
 * 5 dimensions, TFLite's limit. The pad value, as TFLite's kernel picks it:
 * PADV2's scalar third input when present (a quantized one must share the
 * output's scale and zero point); otherwise the output's zero point for
 * quantized 8/16-bit tensors (so padding means real 0.0) and 0 for the rest.
 * Every element type is moved as bytes.
 */
#include "op_common.h"

enum { PAD_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_PAD_OPTIONS, PADV2_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_PAD_V2_OPTIONS };
enum { PAD_DIMS = 5 };

typedef struct pad_params {
    int32_t in_dims[PAD_DIMS]; /* extended to 5-D with leading 1s */
    int32_t out_dims[PAD_DIMS];
    int32_t left[PAD_DIMS];
    uint32_t elem_size;
    uint32_t value_at_eval; /* PADV2 value input is not a constant */
    uint8_t value[8];       /* the pad element's bytes */
} pad_params;

static int is_quantized_int(const edge_tensor_rt *t) {
    return t->t.type == EDGE_UINT8 ||
           ((t->t.type == EDGE_INT8 || t->t.type == EDGE_INT16) && t->q_count > 0);
}

static const edge_op_form form = {2, 3, 2, EDGE_FORM_SAME_TYPE, PAD_OPTIONS_TYPE, PADV2_OPTIONS_TYPE,
                                   "PadOptions"};

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    const edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    const edge_tensor_rt *pads = edge_in(c, 1), *value = edge_in(c, 2);
    const edge_type type = in->t.type;
    const uint32_t elem = (uint32_t)edge_type_size(type);
    if (elem == 0 || elem > 8)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "element type %s not supported",
                            edge_type_name(type));
    const int32_t rank = in->t.rank;
    if (rank > PAD_DIMS)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "input is %d-D (TFLite pads up to 5-D)", rank);

    if (pads->t.type != EDGE_INT32 && pads->t.type != EDGE_INT64)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "paddings are %s (int32 or int64 supported)",
                            edge_type_name(pads->t.type));
    if (!pads->is_const)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "paddings are not a constant tensor");
    if (pads->t.rank != 2 || pads->t.dims[0] != rank || pads->t.dims[1] != 2)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "paddings must have shape [%d,2]", rank);
    if (out->t.rank != rank)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "output is %d-D but the input is %d-D", out->t.rank,
                            rank);

    /* Each padding as int32 words: the low one, and for int64 the high one,
     * which must be 0 for a value in [0, 2^31). */
    int32_t left[PAD_DIMS];
    const uint8_t *pd = (const uint8_t *)pads->t.data;
    const uint32_t words = pads->t.type == EDGE_INT64 ? 2u : 1u;
    for (int32_t d = 0; d < rank; d++) {
        const uint32_t at = 2u * words * (uint32_t)d;
        const int32_t l = fb_i32_at(pd, at), r = fb_i32_at(pd, at + words);
        if (l < 0 || r < 0 || (words == 2 && (fb_i32_at(pd, at + 1) != 0 || fb_i32_at(pd, at + 3) != 0)))
            return edge_op_fail(c, EDGE_ERR_MODEL, "paddings of dimension %d are not in [0, 2^31)", d);
        if ((int64_t)in->t.dims[d] + l + r != out->t.dims[d])
            return edge_op_fail(c, EDGE_ERR_SHAPE,
                                "dimension %d: input %d padded by %d and %d is not the output's %d", d,
                                in->t.dims[d], l, r, out->t.dims[d]);
        left[d] = l;
    }

    if (value) {
        if (value->t.type != type)
            return edge_op_fail(c, EDGE_ERR_MODEL, "pad value is %s but the input is %s",
                                edge_type_name(value->t.type), edge_type_name(type));
        const int64_t n_value = edge_numel(&value->t);
        if (n_value != 1)
            return edge_op_fail(c, EDGE_ERR_SHAPE, "pad value must hold one element, holds %ld", (long)n_value);
        if (is_quantized_int(in) &&
            (edge_q_zero(value, 0) != edge_q_zero(out, 0) || edge_q_scale(value, 0) != edge_q_scale(out, 0)))
            return edge_op_fail(c, EDGE_ERR_MODEL,
                                "quantized pad value must share the output's scale and zero point");
    }
    int32_t zp = 0;
    if (!value && is_quantized_int(in)) {
        zp = edge_q_zero(out, 0);
        const int32_t lo = type == EDGE_UINT8 ? 0 : type == EDGE_INT8 ? -128 : -32768;
        const int32_t hi = type == EDGE_UINT8 ? 255 : type == EDGE_INT8 ? 127 : 32767;
        if (zp < lo || zp > hi)
            return edge_op_fail(c, EDGE_ERR_MODEL, "output zero point %d is outside the %s range", zp,
                                edge_type_name(type));
    }

    if (!c->params) {
        c->op->params_bytes = (uint32_t)sizeof(pad_params);
        return EDGE_OK;
    }
    pad_params *p = (pad_params *)c->params;
    const int32_t lead = PAD_DIMS - rank;
    for (int32_t d = 0; d < PAD_DIMS; d++) {
        const int32_t s = d - lead;
        p->in_dims[d] = s >= 0 ? in->t.dims[s] : 1;
        p->out_dims[d] = s >= 0 ? out->t.dims[s] : 1;
        p->left[d] = s >= 0 ? left[s] : 0;
    }
    p->elem_size = elem;
    if (value && !value->is_const) {
        p->value_at_eval = 1;
    } else if (value) {
        edge_memcpy(p->value, value->t.data, elem);
    } else {
        /* Little-endian bytes of zp (0 for unquantized types: all-zero bytes). */
        const uint32_t u = (uint32_t)zp;
        for (uint32_t b = 0; b < elem && b < 4; b++) p->value[b] = (uint8_t)(u >> (8u * b));
    }
    return EDGE_OK;
}

static uint8_t *fill(uint8_t *dst, const uint8_t *value, uint32_t es, size_t count) {
    if (es == 1) {
        edge_memset(dst, value[0], count);
        return dst + count;
    }
    for (size_t i = 0; i < count; i++, dst += es) edge_memcpy(dst, value, es);
    return dst;
}

/* Output rows (the last dimension) in raster order, by odometer over the
 * four outer dimensions: a row outside the input is all padding, one
 * inside is the next input row (they come in the input's raster order)
 * between its left and right padding. */
static edge_status eval(edge_op_ctx *c) {
    const pad_params *p = (const pad_params *)c->params;
    const uint8_t *src = (const uint8_t *)edge_in_data(c, 0);
    uint8_t *dst = (uint8_t *)edge_out_data(c, 0);
    const uint32_t es = p->elem_size;
    uint8_t value[8];
    edge_memcpy(value, p->value_at_eval ? (const uint8_t *)edge_in_data(c, 2) : p->value, es);

    const int32_t *od = p->out_dims, *id = p->in_dims, *l = p->left;
    const size_t row = (size_t)od[4], in_bytes = (size_t)id[4] * es;
    const size_t right = row - (size_t)id[4] - (size_t)l[4];
    int32_t o[4] = {0};
    for (int32_t d = 0; d < 4; d++)
        if (od[d] == 0) return EDGE_OK;
    for (;;) {
        int inside = 1;
        for (int32_t d = 0; d < 4; d++)
            if (o[d] < l[d] || o[d] - l[d] >= id[d]) inside = 0;
        if (!inside) {
            dst = fill(dst, value, es, row);
        } else {
            dst = fill(dst, value, es, (size_t)l[4]);
            edge_memcpy(dst, src, in_bytes);
            src += in_bytes;
            dst = fill(dst + in_bytes, value, es, right);
        }
        int32_t d = 3;
        while (d >= 0 && ++o[d] == od[d]) o[d--] = 0;
        if (d < 0) return EDGE_OK;
    }
}

const edge_op_impl edge_op_pad = {EDGE_BUILTIN_PAD, "PAD", prepare, eval, 0, 0, 0};
/* Not yet in ops.h's EDGE_OP_LIST: the lead registers it there. */
const edge_op_impl edge_op_padv2 = {EDGE_BUILTIN_PADV2, "PADV2", prepare, eval, 0, 0, 0};
