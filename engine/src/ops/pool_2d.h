/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pool_2d.h — the shared prepare of AVERAGE_POOL_2D and MAX_POOL_2D: int8,
 * uint8, int16 and float32 NHWC, SAME/VALID padding, any stride and filter,
 * fused RELU / RELU_N1_TO_1 / RELU6. Quantized values are not rescaled:
 * TFLite expects the output to share the input's scale and zero point and,
 * like it, the engine takes the output's only for the activation clamp.
 */
#ifndef EDGE_OPS_POOL_2D_H
#define EDGE_OPS_POOL_2D_H

#include "../kernels/pool.h"
#include "ops.h"

typedef struct pool2d_params {
    edge_pool_params pp;
    int32_t type;
} pool2d_params;

/* average: AVERAGE_POOL_2D also refuses windows that lie wholly in the
 * padding (it would divide by zero). */
/* float_ok: the float32 code's prepare, for the op's float twin; the int8
 * op refuses float32, so int8 firmware carries no float pooling. */
edge_status edge_pool2d_prepare(edge_op_ctx *c, int average, int float_ok);
/* The shared evals: the average (is_max 0) or max pool of the op's
 * integer type, and of float32. */
edge_status edge_pool2d_eval(edge_op_ctx *c, int is_max);
edge_status edge_pool2d_eval_f(edge_op_ctx *c, int is_max);

#endif
