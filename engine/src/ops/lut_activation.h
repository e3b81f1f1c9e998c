/*
 * lut_activation.h — LOGISTIC and TANH share one body (lut_activation.c):
 * int8 / uint8 through a 256-entry table filled at prepare
 * (kernels/act_lut.h), float32 element by element.
 */
#ifndef EDGE_OPS_LUT_ACTIVATION_H
#define EDGE_OPS_LUT_ACTIVATION_H

#include "../kernels/act_lut.h"
#include "ops.h"

edge_status edge_lut_act_prepare(edge_op_ctx *c, edge_lut_fn fn);
edge_status edge_lut_act_eval(edge_op_ctx *c);

#endif
