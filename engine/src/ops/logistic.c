/* SPDX-License-Identifier: Apache-2.0 */
/*
 * logistic.c — LOGISTIC (BuiltinOperator 14): 1 / (1 + exp(-x)).
 *
 * int8 and uint8 as TFLite's reference registration runs them
 * (activations.cc SigmoidPrepare/SigmoidEval with kReference): a 256-entry
 * table filled at prepare from the float function, see kernels/act_lut.h.
 * The output scale must be exactly 1/256 (SigmoidPrepare's check); the
 * output zero point is not checked there (-128 for int8 and 0 for uint8 is
 * what converters write) and is honoured as given. float32 as
 * reference_ops::Logistic: 1 above 16.619047, exp(x) below -9. The body is
 * shared with TANH (lut_activation.c).
 */
#include "lut_activation.h"

static edge_status prepare(edge_op_ctx *c) { return edge_lut_act_prepare(c, EDGE_LUT_LOGISTIC, 0); }
static edge_status prepare_f(edge_op_ctx *c) { return edge_lut_act_prepare(c, EDGE_LUT_LOGISTIC, 1); }

const edge_op_impl edge_op_logistic = {EDGE_BUILTIN_LOGISTIC, "LOGISTIC", prepare, edge_lut_act_eval, 0, 0, 0};
/* Only the float twin runs it (float_wrap.c). */
const edge_op_impl edge_op_logistic_float = {EDGE_BUILTIN_LOGISTIC, "LOGISTIC", prepare_f, edge_lut_act_eval_f, 0, 0, 0};
