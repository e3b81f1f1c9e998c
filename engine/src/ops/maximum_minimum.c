/* SPDX-License-Identifier: Apache-2.0 */
/*
 * maximum_minimum.c — MAXIMUM (BuiltinOperator 55) and MINIMUM (57):
 * the elementwise larger or smaller of two operands, with NumPy
 * broadcasting up to 6 dimensions, as TFLite's reference kernel
 * (maximum_minimum.cc, MaximumMinimumBroadcastSlow): int8, uint8, int16,
 * int32 and float32 values compared as stored, `a > b ? a : b` (`<` for
 * MINIMUM), so a NaN in a gives b. Quantization parameters are not used:
 * TFLite compares the stored values, and its converter gives both inputs
 * and the output one scale.
 */
#include "../kernels/broadcast.h"
#include "op_common.h"

typedef struct minmax_params {
    edge_bcast bc;
    int32_t type;
    int32_t is_max;
} minmax_params;

static const edge_op_form form = {2, 2, 2, EDGE_FORM_SAME_TYPE, EDGE_BUILTIN_OPTIONS_MAXIMUM_MINIMUM_OPTIONS, 0,
                                  "MaximumMinimumOptions"};

static edge_status prepare(edge_op_ctx *c, int is_max) {
    edge_tensor_rt *in, *out;
    edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    const edge_tensor_rt *in2 = edge_in(c, 1);
    const edge_type t = in->t.type;
    if (in2->t.type != t)
        return edge_op_fail(c, EDGE_ERR_MODEL, "inputs %s and %s (must have one type)", edge_type_name(t),
                            edge_type_name(in2->t.type));
    if (t != EDGE_INT8 && !(EDGE_WITH_UINT8 && t == EDGE_UINT8) && t != EDGE_INT16 && t != EDGE_INT32 &&
        t != EDGE_FLOAT32)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "type %s not supported (int8, int16, int32, float32" EDGE_UINT8_NAME ")",
                            edge_type_name(t));
    minmax_params p;
    edge_memset(&p, 0, sizeof p);
    if (!edge_bcast_plan(&p.bc, in->t.dims, in->t.rank, in2->t.dims, in2->t.rank, out->t.dims, out->t.rank))
        return edge_op_fail(c, EDGE_ERR_SHAPE,
                            "output shape is not the broadcast of the input shapes (ranks %d, %d -> %d, at most 6)",
                            in->t.rank, in2->t.rank, out->t.rank);
    p.type = (int32_t)t;
    p.is_max = is_max;
    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

static edge_status prepare_max(edge_op_ctx *c) { return prepare(c, 1); }
static edge_status prepare_min(edge_op_ctx *c) { return prepare(c, 0); }

/* One broadcast run for element type T: a and b advance by sa and sb
 * (0 or 1) per output. */
#define MINMAX_ROW(NAME, T)                                                                          \
    static void NAME(const void *ctx, const void *a, int32_t sa, const void *b, int32_t sb, void *out, \
                     int32_t n) {                                                                    \
        const T *x = (const T *)a, *y = (const T *)b;                                                \
        T *o = (T *)out;                                                                             \
        if (((const minmax_params *)ctx)->is_max) {                                                  \
            for (int32_t i = 0; i < n; i++, x += sa, y += sb) o[i] = *x > *y ? *x : *y;              \
        } else {                                                                                     \
            for (int32_t i = 0; i < n; i++, x += sa, y += sb) o[i] = *x < *y ? *x : *y;              \
        }                                                                                            \
    }
MINMAX_ROW(row_s8, int8_t)
#if EDGE_WITH_UINT8
MINMAX_ROW(row_u8, uint8_t)
#endif
MINMAX_ROW(row_s16, int16_t)
MINMAX_ROW(row_s32, int32_t)
MINMAX_ROW(row_f32, float)

static edge_status eval(edge_op_ctx *c) {
    const minmax_params *p = (const minmax_params *)c->params;
    const void *a = edge_in_data(c, 0), *b = edge_in_data(c, 1);
    void *o = edge_out_data(c, 0);
    switch (p->type) {
    case EDGE_INT8: edge_bcast_run(&p->bc, a, b, o, 1, row_s8, p); break;
#if EDGE_WITH_UINT8
    case EDGE_UINT8: edge_bcast_run(&p->bc, a, b, o, 1, row_u8, p); break;
#endif
    case EDGE_INT16: edge_bcast_run(&p->bc, a, b, o, 2, row_s16, p); break;
    case EDGE_INT32: edge_bcast_run(&p->bc, a, b, o, 4, row_s32, p); break;
    default: edge_bcast_run(&p->bc, a, b, o, 4, row_f32, p); break;
    }
    return EDGE_OK;
}

const edge_op_impl edge_op_maximum = {EDGE_BUILTIN_MAXIMUM, "MAXIMUM", prepare_max, eval, 0, 0, 0};
const edge_op_impl edge_op_minimum = {EDGE_BUILTIN_MINIMUM, "MINIMUM", prepare_min, eval, 0, 0, 0};
