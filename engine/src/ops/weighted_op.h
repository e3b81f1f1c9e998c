/* SPDX-License-Identifier: Apache-2.0 */
/*
 * weighted_op.h — the operand checks CONV_2D, DEPTHWISE_CONV_2D and
 * FULLY_CONNECTED share: input, weights, optional int32 bias and output,
 * int8 or uint8 throughout, and the expected options table.
 */
#ifndef EDGE_OPS_WEIGHTED_OP_H
#define EDGE_OPS_WEIGHTED_OP_H

#include "ops.h"

typedef struct weighted_operands {
    edge_tensor_rt *in, *w, *bias, *out; /* bias NULL when absent */
    int is_u8;                           /* uint8 (TF1 asymmetric) rather than int8 */
    const char *w_name;                  /* "filter" or "weights", for messages */
} weighted_operands;

/* w_name ("filter", "weights") and options_name word the errors. */
edge_status edge_weighted_operands(edge_op_ctx *c, uint8_t options_type, const char *options_name,
                                   const char *w_name, weighted_operands *o);

/* The quantization checks the three share: input, weights and output
 * quantized; per-channel weights only with int8, with n scales on
 * dimension q_dim; the fused activation `act` within the output's range.
 * Sets *per_channel and the output clamp [*act_min, *act_max]. */
edge_status edge_weighted_quant(const edge_op_ctx *c, const weighted_operands *o, int32_t n, int32_t q_dim,
                                int act, int *per_channel, int32_t *act_min, int32_t *act_max);

/* CONV_2D's and DEPTHWISE_CONV_2D's requantization: n multipliers and
 * shifts (one per output channel, or one), from input, filter and output
 * scales as TFLite computes them (PopulateConvolutionQuantizationParams in
 * double for int8; GetQuantizedConvolutionMultipler's float product for
 * uint8). Fails when a shift is out of range. */
edge_status edge_conv_multipliers(const edge_op_ctx *c, const weighted_operands *o, uint32_t n,
                                  int32_t *mult, int8_t *shift);

static inline uint32_t align16(uint32_t x) { return (x + 15u) & ~15u; }

/* Whether the weights (input 1) and the bias (input 2, if any) are the
 * model's constants: what an op may lay out once (edge_model_pack). */
static inline int edge_weights_const(const edge_op_ctx *c, const edge_tensor_rt **w, const edge_tensor_rt **bias) {
    *w = edge_in(c, 1);
    *bias = edge_in(c, 2);
    return *w && (*w)->is_const && (!*bias || (*bias)->is_const);
}

#endif
