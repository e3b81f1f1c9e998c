/* SPDX-License-Identifier: Apache-2.0 */
/*
 * op_common.c — what most ops share (see op_common.h).
 */
#include "../quant.h"
#include "op_common.h"

edge_status edge_op_check_type(const edge_op_ctx *c, const edge_tensor_rt *in,
                               const edge_tensor_rt *out, uint32_t checks) {
    const edge_type t = in->t.type, ot = out->t.type;
    if ((checks & (EDGE_FORM_SAME_TYPE | EDGE_FORM_ONE_TYPE)) && ot != t)
        return edge_op_fail(c, checks & EDGE_FORM_ONE_TYPE ? EDGE_ERR_UNSUPPORTED : EDGE_ERR_MODEL,
                            "input is %s but output is %s", edge_type_name(t), edge_type_name(ot));
    if ((checks & EDGE_FORM_SIZED) && edge_type_size(t) == 0)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "element type %s not supported",
                            edge_type_name(t));
    if ((checks & EDGE_FORM_NUMERIC) && t != EDGE_INT8 && !(EDGE_WITH_UINT8 && t == EDGE_UINT8) &&
        t != EDGE_INT16 && t != EDGE_FLOAT32)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "type %s not supported (int8, int16, float32" EDGE_UINT8_NAME ")",
                            edge_type_name(t));
    return EDGE_OK;
}

edge_status edge_op_begin(const edge_op_ctx *c, const edge_op_form *f, edge_tensor_rt **in,
                          edge_tensor_rt **out) {
    const edge_op_rt *op = c->op;
    const uint32_t n = op->n_in, lo = f->in_min, hi = f->in_max;
    if (n < lo || n > hi || op->n_out != 1) {
        if (lo == hi)
            return edge_op_fail(c, EDGE_ERR_MODEL, "expects %u input%s and 1 output, has %u and %u", lo,
                                lo == 1 ? "" : "s", n, op->n_out);
        return edge_op_fail(c, EDGE_ERR_MODEL, "expects %u %s %u inputs and 1 output, has %u and %u", lo,
                            hi == lo + 1 ? "or" : "to", hi, n, op->n_out);
    }
    for (uint32_t i = 0; i < n; i++)
        if ((i == 0 || (f->need >> i & 1u)) && !edge_in(c, i))
            return edge_op_fail(c, EDGE_ERR_MODEL, "input %u missing", i);
    *in = edge_in(c, 0);
    *out = edge_out(c, 0);
    if (!*out) return edge_op_fail(c, EDGE_ERR_MODEL, "output missing");
    const uint32_t ot = op->options_type;
    if (ot != 0 && ot != f->options_type && ot != f->options_alt && !(f->checks & EDGE_FORM_ANY_OPTIONS))
        return edge_op_fail(c, EDGE_ERR_MODEL, "options are not %s (type %u)", f->options_name, ot);
    return edge_op_check_type(c, *in, *out, f->checks);
}

edge_status edge_op_keep_params(const edge_op_ctx *c, const void *p, uint32_t n) {
    if (c->params) edge_memcpy(c->params, p, n);
    else c->op->params_bytes = n;
    return EDGE_OK;
}

edge_status edge_op_view_eval(edge_op_ctx *c) {
    const edge_tensor_rt *in = edge_in(c, 0);
    edge_tensor_rt *out = edge_out(c, 0);
    if (out->t.data != in->t.data) edge_memcpy(out->t.data, in->t.data, in->t.bytes);
    return EDGE_OK;
}

edge_status edge_op_requant(const edge_op_ctx *c, const edge_tensor_rt *in, const edge_tensor_rt *out,
                            int32_t *mult, int *shift) {
    const float si = edge_q_scale(in, 0), so = edge_q_scale(out, 0);
    if (!(si > 0.0f) || !(so > 0.0f)) return edge_op_fail(c, EDGE_ERR_MODEL, "scales must be positive");
    edge_quantize_multiplier((double)si / (double)so, mult, shift);
    if (*shift > 30)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "requantization shift %d out of range", *shift);
    return EDGE_OK;
}

void edge_op_channels(const edge_tensor_rt *t, edge_channel_layout *l) {
    uint32_t outer = 1, inner = 1;
    for (int32_t d = 0; d < t->t.rank; d++) {
        if (t->q_count > 1 && d < t->q_dim) outer *= (uint32_t)t->t.dims[d];
        else if (t->q_count <= 1 || d > t->q_dim) inner *= (uint32_t)t->t.dims[d];
    }
    l->outer = (int32_t)outer;
    l->channels = t->q_count > 1 ? (int32_t)t->q_count : 1;
    l->inner = (int32_t)inner;
}

edge_status edge_op_check_count(const edge_op_ctx *c, const edge_tensor_rt *in, const edge_tensor_rt *out) {
    const int64_t ni = edge_numel(&in->t), no = edge_numel(&out->t);
    if (ni != no)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "input has %ld elements, output %ld", (long)ni, (long)no);
    return EDGE_OK;
}

edge_status edge_unary_prepare(const edge_op_ctx *c, uint32_t types, const char *names,
                               edge_tensor_rt **in, edge_tensor_rt **out) {
    static const edge_op_form unary = {1, 1, 0, EDGE_FORM_SAME_TYPE | EDGE_FORM_ANY_OPTIONS, 0, 0, ""};
    const edge_status st = edge_op_begin(c, &unary, in, out);
    if (st) return st;
    const edge_tensor_rt *i = *in, *o = *out;
    const edge_type t = i->t.type;
    if ((uint32_t)t >= 32 || !(types & EDGE_TYPE_BIT(t)))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "type %s not supported (%s)", edge_type_name(t),
                            names);
    if (!edge_same_shape(&i->t, &o->t))
        return edge_op_fail(c, EDGE_ERR_SHAPE, "output shape differs from the input's");
    if (t != EDGE_FLOAT32 && (i->q_count < 1 || o->q_count < 1))
        return edge_op_fail(c, EDGE_ERR_MODEL, "%s input and output must be quantized",
                            edge_type_name(t));
    return EDGE_OK;
}
