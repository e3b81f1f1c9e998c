/* SPDX-License-Identifier: Apache-2.0 */
/*
 * binary_op.c — see binary_op.h.
 */
#include "binary_op.h"

#include "op_common.h"

#include "../quant.h"

edge_status edge_binary_operands(edge_op_ctx *c, uint8_t options_type, const char *options_name,
                                 int out_follows_inputs, binary_operands *o) {
    const edge_op_form form = {2, 2, 2, 0, options_type, 0, options_name};
    edge_tensor_rt *in1, *out;
    edge_status st = edge_op_begin(c, &form, &in1, &out);
    if (st) return st;
    edge_tensor_rt *in2 = edge_in(c, 1);
    /* LiteRT's add_quantized test model declares a float32 intermediate
     * between uint8 ADDs; fixed before planning. */
    if (out_follows_inputs && !c->params && out->t.type != in2->t.type && !out->is_const &&
        in1->t.type == in2->t.type) {
        out->t.type = in2->t.type;
        out->t.bytes = (size_t)edge_numel(&out->t) * edge_type_size(out->t.type);
    }
    const edge_type t = out->t.type;
    if (in1->t.type != t || in2->t.type != t)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "inputs %s and %s with output %s (all three must have one type)",
                            edge_type_name(in1->t.type), edge_type_name(in2->t.type), edge_type_name(t));
    if (t != EDGE_INT8 && !(EDGE_WITH_UINT8 && t == EDGE_UINT8) && t != EDGE_INT16 && t != EDGE_FLOAT32)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "type %s not supported (int8, int16, float32" EDGE_UINT8_NAME ")",
                            edge_type_name(t));
    edge_memset(o, 0, sizeof *o);
    o->in1 = in1, o->in2 = in2, o->out = out, o->type = t;
    if (!edge_bcast_plan(&o->bc, in1->t.dims, in1->t.rank, in2->t.dims, in2->t.rank, out->t.dims,
                         out->t.rank))
        return edge_op_fail(c, EDGE_ERR_SHAPE,
                            "output shape is not the broadcast of the input shapes (ranks %d, %d -> %d, at most 6)",
                            in1->t.rank, in2->t.rank, out->t.rank);
    /* Field 0 of AddOptions, SubOptions and MulOptions alike. */
    const int act = edge_opt_u8(c, EDGE_F_ADD_OPTIONS_FUSED_ACTIVATION_FUNCTION, 0);
    if (t == EDGE_FLOAT32) {
        if (!edge_act_range_f(act, &o->f_min, &o->f_max))
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "fused activation %d", act);
        return EDGE_OK;
    }
    if (in1->q_count < 1 || in2->q_count < 1 || out->q_count < 1)
        return edge_op_fail(c, EDGE_ERR_MODEL, "%s inputs and output must be quantized", edge_type_name(t));
    o->s1 = edge_q_scale(in1, 0), o->s2 = edge_q_scale(in2, 0), o->so = edge_q_scale(out, 0);
    o->z1 = edge_q_zero(in1, 0), o->z2 = edge_q_zero(in2, 0), o->zo = edge_q_zero(out, 0);
    if (!(o->s1 > 0.0f) || !(o->s2 > 0.0f) || !(o->so > 0.0f))
        return edge_op_fail(c, EDGE_ERR_MODEL, "scales must be positive");
    const int32_t qmin = t == EDGE_INT8 ? -128 : (t == EDGE_UINT8 ? 0 : -32768);
    const int32_t qmax = t == EDGE_INT8 ? 127 : (t == EDGE_UINT8 ? 255 : 32767);
    if (o->z1 < qmin || o->z1 > qmax || o->z2 < qmin || o->z2 > qmax || o->zo < qmin || o->zo > qmax)
        return edge_op_fail(c, EDGE_ERR_MODEL, "zero points %d, %d, %d outside the %s range", o->z1, o->z2,
                            o->zo, edge_type_name(t));
    if (!edge_act_range_q(act, o->so, o->zo, qmin, qmax, &o->act_min, &o->act_max))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "fused activation %d", act);
    return EDGE_OK;
}
