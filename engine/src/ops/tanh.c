/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tanh.c — TANH (BuiltinOperator 28).
 *
 * int8 and uint8 as TFLite's reference registration runs them
 * (activations.cc TanhPrepare/TanhEval with kReference): a 256-entry table
 * filled at prepare from float tanh, see kernels/act_lut.h. TanhPrepare
 * checks no output parameters on this path (converters write scale 1/128,
 * zero point 0 for int8 and 128 for uint8); any are honoured, with a
 * positive scale. float32 as reference_ops::Tanh (std::tanh per element).
 * The body is shared with LOGISTIC (lut_activation.c).
 */
#include "lut_activation.h"

static edge_status prepare(edge_op_ctx *c) { return edge_lut_act_prepare(c, EDGE_LUT_TANH, 0); }
static edge_status prepare_f(edge_op_ctx *c) { return edge_lut_act_prepare(c, EDGE_LUT_TANH, 1); }

const edge_op_impl edge_op_tanh = {EDGE_BUILTIN_TANH, "TANH", prepare, edge_lut_act_eval, 0, 0, 0};
/* Only the float twin runs it (float_wrap.c). */
const edge_op_impl edge_op_tanh_float = {EDGE_BUILTIN_TANH, "TANH", prepare_f, edge_lut_act_eval_f, 0, 0, 0};
