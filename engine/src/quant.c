/* SPDX-License-Identifier: Apache-2.0 */
/*
 * quant.c — TFLite's fixed-point requantization rules (see quant.h).
 * The per-element primitives are inline in quant.h.
 */
#include "quant.h"

double edge_frexp(double x, int *exp) {
    union { double d; uint64_t u; } v;
    v.d = x;
    int e = (int)((v.u >> 52) & 0x7ff);
    *exp = 0;
    if (x == 0.0 || e == 0x7ff) return x; /* zero, inf, nan */
    if (e == 0) {                         /* subnormal: scale into range first */
        v.d = x * 18014398509481984.0;    /* 2^54 */
        e = (int)((v.u >> 52) & 0x7ff) - 54;
    }
    *exp = e - 1022;
    v.u = (v.u & ~((uint64_t)0x7ff << 52)) | ((uint64_t)1022 << 52);
    return v.d;
}

double edge_round(double x) {
    double a = x < 0 ? -x : x;
    if (!(a < 4503599627370496.0)) return x; /* >= 2^52 is integral; NaN too */
    double t = (double)(int64_t)a;
    if (a - t >= 0.5) t += 1.0;
    return x < 0 ? -t : t;
}

float edge_roundf(float x) {
    float a = x < 0 ? -x : x;
    if (!(a < 8388608.0f)) return x; /* >= 2^23 is integral; NaN too */
    float t = (float)(int32_t)a;
    if (a - t >= 0.5f) t += 1.0f;
    return x < 0 ? -t : t;
}

int32_t edge_round_to_i32(double x) {
    double r = edge_round(x);
    if (!(r > -2147483648.0)) return INT32_MIN; /* also NaN */
    if (r > 2147483647.0) return INT32_MAX;
    return (int32_t)r;
}

void edge_quantize_multiplier(double real, int32_t *q, int *shift) {
    if (real == 0.0) {
        *q = 0;
        *shift = 0;
        return;
    }
    /* NaN and infinities (from hostile scales) get a zero multiplier
     * rather than an undefined float-to-integer conversion. */
    if (!(real > -1.0e300 && real < 1.0e300)) {
        *q = 0;
        *shift = 0;
        return;
    }
    double frac = edge_frexp(real, shift);
    int64_t fixed = (int64_t)edge_round(frac * 2147483648.0);
    if (fixed == ((int64_t)1 << 31)) {
        fixed /= 2;
        ++*shift;
    }
    /* Shifts beyond 31 bits would shift everything out: TFLite zeroes the
     * multiplier instead. */
    if (*shift < -31) {
        *shift = 0;
        fixed = 0;
    }
    *q = (int32_t)fixed;
}

void edge_quantize_multiplier_smaller_than_one(double real, int32_t *q, int *shift) {
    edge_quantize_multiplier(real, q, shift);
}

void edge_quantize_multiplier_greater_than_one(double real, int32_t *q, int *left_shift) {
    edge_quantize_multiplier(real, q, left_shift);
}

void edge_preprocess_softmax_scaling(double beta, double input_scale, int input_integer_bits,
                                     int32_t *q, int *left_shift) {
    /* The cap keeps exp() of a unit difference from overflowing: above it
     * every non-maximal input rounds to zero anyway. */
    double real = beta * input_scale * (double)(1 << (31 - input_integer_bits));
    double cap = 2147483648.0 - 1.0;
    if (real > cap) real = cap;
    edge_quantize_multiplier_greater_than_one(real, q, left_shift);
}

int edge_calculate_input_radius(int input_integer_bits, int input_left_shift, int total_signed_bits) {
    double max_rescaled = 1.0 * (double)((1 << input_integer_bits) - 1) *
                          (double)((int64_t)1 << (total_signed_bits - input_integer_bits)) /
                          (double)((int64_t)1 << input_left_shift);
    double t = (double)(int64_t)max_rescaled; /* floor of a non-negative value */
    return (int)t;
}

static int32_t edge_bound_q(int32_t zp, float r) {
    int64_t v;
    if (r != r) v = 0; /* 0/0 */
    else if (r >= 4294967296.0f) v = (int64_t)1 << 32;
    else if (r <= -4294967296.0f) v = -((int64_t)1 << 32);
    else v = (int64_t)r;
    v += zp;
    if (v > INT32_MAX) return INT32_MAX;
    if (v < INT32_MIN) return INT32_MIN;
    return (int32_t)v;
}

int edge_act_range_q(int act, float scale, int32_t zp, int32_t qmin, int32_t qmax, int32_t *lo,
                     int32_t *hi) {
    /* The float bounds, quantized as TFLite does it, in float:
     * zp + round(f / scale), saturated so that a tiny or zero scale cannot
     * overflow the conversion. An unbounded side keeps qmin (qmax). */
    float flo, fhi;
    *lo = qmin;
    *hi = qmax;
    if (!edge_act_range_f(act, &flo, &fhi)) return 0;
    if (flo > -3.402823466e38f) {
        const int32_t z = edge_bound_q(zp, edge_roundf(flo / scale));
        if (z > qmin) *lo = z;
    }
    if (fhi < 3.402823466e38f) {
        const int32_t z = edge_bound_q(zp, edge_roundf(fhi / scale));
        if (z < qmax) *hi = z;
    }
    return 1;
}

int edge_act_range_f(int act, float *lo, float *hi) {
    *lo = -3.402823466e38f;
    *hi = 3.402823466e38f;
    switch (act) {
    case EDGE_ACT_NONE: return 1;
    case EDGE_ACT_RELU: *lo = 0.0f; return 1;
    case EDGE_ACT_RELU6: *lo = 0.0f; *hi = 6.0f; return 1;
    case EDGE_ACT_RELU_N1_TO_1: *lo = -1.0f; *hi = 1.0f; return 1;
    default: return 0;
    }
}

#ifdef __OPTIMIZE_SIZE__
int32_t edge_mbqm_shared(int32_t x, int32_t multiplier, int shift) {
    return edge_mbqm(x, multiplier, shift);
}
#endif
