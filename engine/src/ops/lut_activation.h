/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lut_activation.h — LOGISTIC and TANH share one body (lut_activation.c):
 * int8 / uint8 through a 256-entry table filled at prepare
 * (kernels/act_lut.h), float32 element by element.
 */
#ifndef EDGE_OPS_LUT_ACTIVATION_H
#define EDGE_OPS_LUT_ACTIVATION_H

#include "../kernels/act_lut.h"
#include "ops.h"

/* float_ok: the float twin's inner op (edge_op_logistic_float ...); the
 * int8 op refuses float32, so that an int8-only build links no float code
 * (nor the float-only paths of edge_expf / edge_tanhf). */
edge_status edge_lut_act_prepare(edge_op_ctx *c, edge_lut_fn fn, int float_ok);
edge_status edge_lut_act_eval(edge_op_ctx *c);
edge_status edge_lut_act_eval_f(edge_op_ctx *c);

#endif
