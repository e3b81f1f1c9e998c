/* SPDX-License-Identifier: Apache-2.0 */
/*
 * relu.h — RELU and RELU6 share one body: RELU6 is RELU with an upper
 * bound at 6. relu.c also reads the quantization the requantizing
 * activations (RELU, RELU6, LEAKY_RELU, HARD_SWISH) share.
 */
#ifndef EDGE_OPS_RELU_H
#define EDGE_OPS_RELU_H

#include "ops.h"

/* float_ok: the float twin's inner op (edge_op_relu_float ...); the int8
 * op refuses float32 (edge_act_quant_read), so that an int8-only build
 * links no float code. */
edge_status edge_relu_prepare(edge_op_ctx *c, int capped_at_6, int float_ok);

/* The scales (both must be positive) and zero points of a quantized
 * activation's input and output; int16 needs zero points 0. float32 is
 * refused: it reaches an int8 op only in a build without its float twin. */
typedef struct edge_act_quant {
    float in_s, out_s;
    int32_t in_zp, out_zp;
} edge_act_quant;
edge_status edge_act_quant_read(const edge_op_ctx *c, const edge_tensor_rt *in, const edge_tensor_rt *out,
                                edge_act_quant *q);
edge_status edge_relu_eval(edge_op_ctx *c);
edge_status edge_relu_eval_f(edge_op_ctx *c);

#endif
