/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cast.c — CAST (BuiltinOperator 53): each element converted to the
 * output's type, quantization ignored, as TFLite's kernel does between
 * float32, int8, uint8, int16, uint16, int32, uint32, int64 and bool:
 *   - integers to integers: C's conversion (the low bits, two's complement);
 *   - anything to bool: value != 0; bool to anything: 0 or 1;
 *   - integers to float32: rounded to nearest;
 *   - float32 to an integer type: truncated towards zero, saturated to the
 *     type's range, NaN to its largest value (what ai-edge-litert's
 *     reference kernel gives, also where C++'s static_cast is undefined).
 */
#include "data_move.h"

typedef struct cast_params {
    uint32_t count;
    uint8_t from, to;
} cast_params;

static int cast_type(edge_type t) {
    return t == EDGE_FLOAT32 || t == EDGE_INT8 || t == EDGE_UINT8 || t == EDGE_INT16 || t == EDGE_UINT16 ||
           t == EDGE_INT32 || t == EDGE_UINT32 || t == EDGE_INT64 || t == EDGE_BOOL;
}

static const edge_op_form form = {1, 1, 0, 0, EDGE_BUILTIN_OPTIONS_CAST_OPTIONS, 0, "CastOptions"};

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    if (!cast_type(in->t.type) || !cast_type(out->t.type))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "%s to %s not supported (float32, int8, uint8, int16, uint16, int32, uint32, int64, "
                            "bool)",
                            edge_type_name(in->t.type), edge_type_name(out->t.type));
    st = edge_op_check_count(c, in, out);
    if (st) return st;
    cast_params p;
    edge_memset(&p, 0, sizeof p);
    p.count = (uint32_t)edge_numel(&in->t);
    p.from = (uint8_t)in->t.type;
    p.to = (uint8_t)out->t.type;
    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

static int64_t read_int(const uint8_t *p, edge_type t) {
    switch ((int)t) {
    case EDGE_INT8: return (int8_t)p[0];
    case EDGE_UINT8: return p[0];
    case EDGE_BOOL: return p[0] != 0;
    case EDGE_INT16: return (int16_t)fb_rd_u16(p);
    case EDGE_UINT16: return fb_rd_u16(p);
    case EDGE_INT32: return fb_rd_i32(p);
    case EDGE_UINT32: return fb_rd_u32(p);
    default: return (int64_t)fb_rd_u64(p);
    }
}

static void write_int(uint8_t *p, edge_type t, int64_t v) {
    if (t == EDGE_BOOL) v = v != 0;
    const uint32_t n = (uint32_t)edge_type_size(t);
    for (uint32_t b = 0; b < n; b++) p[b] = (uint8_t)((uint64_t)v >> (8u * b));
}

static int64_t float_to_int(float f, edge_type t) {
    if (t == EDGE_BOOL) return f != 0.0f;
    int64_t lo, hi;
    switch ((int)t) {
    case EDGE_INT8: lo = INT8_MIN, hi = INT8_MAX; break;
    case EDGE_UINT8: lo = 0, hi = UINT8_MAX; break;
    case EDGE_INT16: lo = INT16_MIN, hi = INT16_MAX; break;
    case EDGE_UINT16: lo = 0, hi = UINT16_MAX; break;
    case EDGE_INT32: lo = INT32_MIN, hi = INT32_MAX; break;
    case EDGE_UINT32: lo = 0, hi = (int64_t)UINT32_MAX; break;
    default: lo = INT64_MIN, hi = INT64_MAX; break;
    }
    /* The bounds as floats are exact (powers of two or small integers)
     * or round up to the first value past the range: in float alone, no
     * double arithmetic on single-precision FPUs. */
    if (!(f < (float)hi)) return hi; /* NaN too */
    if (f <= (float)lo) return lo;
    return (int64_t)f;
}

static float float_at(const uint8_t *p) {
    float f;
    edge_memcpy(&f, p, 4);
    return f;
}

static edge_status eval(edge_op_ctx *c) {
    const cast_params *p = (const cast_params *)c->params;
    const uint8_t *src = (const uint8_t *)edge_in_data(c, 0);
    uint8_t *dst = (uint8_t *)edge_out_data(c, 0);
    const edge_type from = (edge_type)p->from, to = (edge_type)p->to;
    const uint32_t si = (uint32_t)edge_type_size(from), so = (uint32_t)edge_type_size(to);
    if (from == to) {
        edge_memcpy(dst, src, (size_t)p->count * si);
        return EDGE_OK;
    }
    for (uint32_t i = 0; i < p->count; i++, src += si, dst += so) {
        if (from == EDGE_FLOAT32) {
            write_int(dst, to, float_to_int(float_at(src), to));
        } else if (to == EDGE_FLOAT32) {
            const float f = (float)read_int(src, from);
            edge_memcpy(dst, &f, 4);
        } else {
            write_int(dst, to, read_int(src, from));
        }
    }
    return EDGE_OK;
}

const edge_op_impl edge_op_cast = {EDGE_BUILTIN_CAST, "CAST", prepare, eval, 0, 0, 0};
