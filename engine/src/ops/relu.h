/*
 * relu.h — RELU and RELU6 share one body: RELU6 is RELU with an upper
 * bound at 6. relu.c also reads the quantization the requantizing
 * activations (RELU, RELU6, LEAKY_RELU, HARD_SWISH) share.
 */
#ifndef EDGE_OPS_RELU_H
#define EDGE_OPS_RELU_H

#include "ops.h"

edge_status edge_relu_prepare(edge_op_ctx *c, int capped_at_6);

/* The scales (both must be positive) and zero points of a quantized
 * activation's input and output; int16 needs zero points 0. */
typedef struct edge_act_quant {
    float in_s, out_s;
    int32_t in_zp, out_zp;
} edge_act_quant;
edge_status edge_act_quant_read(const edge_op_ctx *c, const edge_tensor_rt *in, const edge_tensor_rt *out,
                                edge_act_quant *q);
edge_status edge_relu_eval(edge_op_ctx *c);

#endif
