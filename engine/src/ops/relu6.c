/* SPDX-License-Identifier: Apache-2.0 */
/*
 * relu6.c — RELU6 (BuiltinOperator 21).
 *
 * As activations.cc ReluPrepare / Relu6Eval (the same registration under
 * the reference resolver): quantized types are requantized from the input
 * to the output scale with QuantizeMultiplier(in_scale / out_scale) (the
 * ratio taken in float), then clamped to [zp + round(0 / scale),
 * zp + round(6 / scale)] within the type's range (QuantizedReluX). int8,
 * uint8, int16 (symmetric, zero points 0) and float32 (clamp to [0, 6]).
 */
#include "relu.h"

static edge_status prepare(edge_op_ctx *c) { return edge_relu_prepare(c, 1, 0); }
static edge_status prepare_f(edge_op_ctx *c) { return edge_relu_prepare(c, 1, 1); }

const edge_op_impl edge_op_relu6 = {EDGE_BUILTIN_RELU6, "RELU6", prepare, edge_relu_eval, 0, 0, 0};
/* Only the float twin runs it (float_wrap.c). */
const edge_op_impl edge_op_relu6_float = {EDGE_BUILTIN_RELU6, "RELU6", prepare_f, edge_relu_eval_f, 0, 0, 0};
