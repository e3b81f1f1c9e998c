/* SPDX-License-Identifier: Apache-2.0 */
/*
 * weighted_op.c — see weighted_op.h.
 */
#include "weighted_op.h"

#include "op_common.h"

#include "../quant.h"

edge_status edge_weighted_operands(edge_op_ctx *c, uint8_t options_type, const char *options_name,
                                   const char *w_name, weighted_operands *o) {
    const edge_op_form form = {2, 3, 2, 0, options_type, 0, options_name};
    edge_status st = edge_op_begin(c, &form, &o->in, &o->out);
    if (st) return st;
    o->w = edge_in(c, 1);
    o->bias = edge_in(c, 2);
    o->w_name = w_name;
    const edge_type it = o->in->t.type, wt = o->w->t.type, ot = o->out->t.type;
    if (it == EDGE_INT8 && wt == EDGE_INT8 && ot == EDGE_INT8) o->is_u8 = 0;
    else if (EDGE_WITH_UINT8 && it == EDGE_UINT8 && wt == EDGE_UINT8 && ot == EDGE_UINT8) o->is_u8 = 1;
    else
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "input %s, %s %s, output %s not supported (int8 or uint8 "
                            "throughout" EDGE_UINT8_HINT ")",
                            edge_type_name(it), w_name, edge_type_name(wt), edge_type_name(ot));
    if (o->bias && o->bias->t.type != EDGE_INT32)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "bias %s not supported (int32)",
                            edge_type_name(o->bias->t.type));
    return EDGE_OK;
}

edge_status edge_weighted_quant(const edge_op_ctx *c, const weighted_operands *o, int32_t n, int32_t q_dim,
                                int act, int *per_channel, int32_t *act_min, int32_t *act_max) {
    const edge_tensor_rt *w = o->w, *out = o->out;
    if (o->in->q_count < 1 || out->q_count < 1 || w->q_count < 1)
        return edge_op_fail(c, EDGE_ERR_MODEL, "input, %s and output must be quantized", o->w_name);
    const int is_u8 = EDGE_WITH_UINT8 && o->is_u8;
    *per_channel = w->q_count > 1;
    if (*per_channel) {
        if (is_u8) return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "per-channel %s with uint8 input", o->w_name);
        if (w->q_count != (uint32_t)n || w->q_dim != q_dim)
            return edge_op_fail(c, EDGE_ERR_MODEL, "per-channel %s: %u scales on dimension %d, expected %d on %d",
                                o->w_name, w->q_count, w->q_dim, n, q_dim);
    }
    if (!edge_act_range_q(act, edge_q_scale(out, 0), edge_q_zero(out, 0), is_u8 ? 0 : -128, is_u8 ? 255 : 127,
                          act_min, act_max))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "fused activation %d (only NONE, RELU, RELU_N1_TO_1, RELU6)",
                            act);
    return EDGE_OK;
}

edge_status edge_conv_multipliers(const edge_op_ctx *c, const weighted_operands *o, uint32_t n,
                                  int32_t *mult, int8_t *shift) {
    const float in_s = edge_q_scale(o->in, 0), out_s = edge_q_scale(o->out, 0);
    for (uint32_t i = 0; i < n; i++) {
        double real;
        if (o->is_u8) {
            /* GetQuantizedConvolutionMultipler: the product is taken in float. */
            float prod = in_s * edge_q_scale(o->w, 0);
            real = (double)prod / (double)out_s;
        } else {
            /* PopulateConvolutionQuantizationParams: all in double. */
            real = (double)in_s * (double)edge_q_scale(o->w, i) / (double)out_s;
        }
        int s;
        edge_quantize_multiplier(real, &mult[i], &s);
        if (s > 31 || s < -31)
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                                "requantization multiplier out of range (shift %d)", s);
        shift[i] = (int8_t)s;
    }
    return EDGE_OK;
}
