/*
 * op_common.c — what most ops share (see op_common.h).
 */
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
    if (ot != 0 && ot != f->options_type && ot != f->options_alt)
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
