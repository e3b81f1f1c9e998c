/* SPDX-License-Identifier: Apache-2.0 */
/*
 * weighted_op_f.c — see weighted_op_f.h.
 */
#include "weighted_op_f.h"

#include "op_common.h"

edge_status edge_weighted_operands_f(edge_op_ctx *c, uint8_t options_type, const char *options_name,
                                     const char *w_name, weighted_operands_f *o) {
    const edge_op_form form = {2, 3, 2, 0, options_type, 0, options_name};
    edge_status st = edge_op_begin(c, &form, &o->in, &o->out);
    if (st) return st;
    o->w = edge_in(c, 1);
    o->bias = edge_in(c, 2);
    const edge_type it = o->in->t.type, wt = o->w->t.type, ot = o->out->t.type;
    if (edge_is_float_type(it) && (wt == EDGE_INT8 || wt == EDGE_UINT8))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "hybrid op (input %s, %s %s) is not supported: dequantize the %s to "
                            "float or quantize the whole model",
                            edge_type_name(it), w_name, edge_type_name(wt), w_name);
    if (!edge_is_float_type(it) || !edge_is_float_type(wt) || !edge_is_float_type(ot))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "input %s, %s %s, output %s not supported (float32 or bfloat16 each)",
                            edge_type_name(it), w_name, edge_type_name(wt), edge_type_name(ot));
    if (o->bias && !edge_is_float_type(o->bias->t.type))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "bias %s not supported with %s input (float32 or bfloat16)",
                            edge_type_name(o->bias->t.type), edge_type_name(it));
    return EDGE_OK;
}
