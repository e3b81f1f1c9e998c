/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dequantize.c — DEQUANTIZE (BuiltinOperator 6).
 *
 * int8 / uint8 / int16 -> float32 as TFLite's reference Dequantize:
 * x = float(double(scale) * (q - zp)). That double product of a float and
 * an integer below 2^24 is exact, so its one rounding to float equals the
 * correctly rounded float product scale * float(q - zp): the engine
 * multiplies in float (single-precision FPUs, e.g. Cortex-M4, have no
 * double). Per-channel int8 / uint8 (PerChannelDequantize) uses each
 * channel's scale and zero point. int16 needs zero point 0, as the LiteRT
 * used as the oracle requires. float16 -> float32 is an exact widening.
 */
#include "../quant.h"
#include "op_common.h"

enum { DEQUANTIZE_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_DEQUANTIZE_OPTIONS };

typedef struct dequantize_params {
    edge_channel_layout lay; /* of the input: each channel its scale and zero point */
    int32_t in_type;
} dequantize_params;

/* IEEE binary16 bits -> float, exactly (subnormals, inf and NaN kept). */
static float half_to_float(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else if (exp != 0) {
        bits = sign | ((exp + 112u) << 23) | (mant << 13);
    } else if (mant == 0) {
        bits = sign;
    } else { /* subnormal half: normalize */
        int32_t e = 113;
        while (!(mant & 0x400u)) {
            mant <<= 1;
            e--;
        }
        bits = sign | ((uint32_t)e << 23) | ((mant & 0x3ffu) << 13);
    }
    union { uint32_t u; float f; } v;
    v.u = bits;
    return v.f;
}

static const edge_op_form form = {1, 1, 0, 0, DEQUANTIZE_OPTIONS_TYPE, 0, "DequantizeOptions"};

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    const edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    const edge_type it = in->t.type;
    if (it != EDGE_INT8 && it != EDGE_UINT8 && it != EDGE_INT16 && it != EDGE_FLOAT16)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "input %s not supported (int8, uint8, int16, float16)",
                            edge_type_name(it));
    if (out->t.type != EDGE_FLOAT32)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "output %s not supported (float32)",
                            edge_type_name(out->t.type));
    const edge_status sc = edge_op_check_count(c, in, out);
    if (sc) return sc;

    dequantize_params p;
    edge_memset(&p, 0, sizeof p);
    p.in_type = (int32_t)it;
    /* float16 reads no scale: its channels, if any, change nothing. */
    edge_op_channels(in, &p.lay);
    if (it != EDGE_FLOAT16) {
        if (in->q_count < 1) return edge_op_fail(c, EDGE_ERR_MODEL, "%s input must be quantized",
                                                 edge_type_name(it));
        if (in->q_count > 1 && it == EDGE_INT16)
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "per-channel int16 (TFLite's neither)");
        if (in->q_count == 1 && it == EDGE_INT16 && edge_q_zero(in, 0) != 0)
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "int16 needs zero point 0 (has %d)",
                                edge_q_zero(in, 0));
    }

    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

static int32_t load(int32_t type, const void *in, int32_t i) {
    if (type == EDGE_INT8) return ((const int8_t *)in)[i];
    if (type == EDGE_UINT8) return ((const uint8_t *)in)[i];
    return ((const int16_t *)in)[i];
}

static edge_status eval(edge_op_ctx *c) {
    const dequantize_params *p = (const dequantize_params *)c->params;
    const edge_tensor_rt *in_t = edge_in(c, 0);
    const void *in = in_t->t.data;
    float *out = (float *)edge_out_data(c, 0);
    int32_t i = 0;
    for (int32_t o = 0; o < p->lay.outer; o++)
        for (int32_t ch = 0; ch < p->lay.channels; ch++) {
            const float s = edge_q_scale(in_t, (uint32_t)ch);
            const int32_t zp = edge_q_zero(in_t, (uint32_t)ch);
            for (int32_t k = 0; k < p->lay.inner; k++, i++)
                out[i] = p->in_type == EDGE_FLOAT16 ? half_to_float(((const uint16_t *)in)[i])
                                                    : s * (float)(load(p->in_type, in, i) - zp);
        }
    return EDGE_OK;
}

const edge_op_impl edge_op_dequantize = {EDGE_BUILTIN_DEQUANTIZE, "DEQUANTIZE", prepare, eval, 0, 0, 0};
