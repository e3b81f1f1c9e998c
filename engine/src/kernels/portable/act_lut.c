/* SPDX-License-Identifier: Apache-2.0 */
/*
 * act_lut.c — LOGISTIC/TANH lookup tables and the float exp/tanh they need
 * (see act_lut.h for why these reproduce glibc bit for bit).
 *
 * Only IEEE binary32/binary64 additions, multiplications, divisions and
 * conversions are used, each in its own statement where the order matters,
 * and contraction into hardware fused multiply-adds is switched off: a
 * compiler-made FMA would round differently from the reference.
 */
#include "../act_lut.h"

#include "../../quant.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

static double as_double(uint64_t u) {
    union { uint64_t u; double d; } v;
    v.u = u;
    return v.d;
}
static uint64_t double_bits(double d) {
    union { uint64_t u; double d; } v;
    v.d = d;
    return v.u;
}
static float as_float(uint32_t u) {
    union { uint32_t u; float f; } v;
    v.u = u;
    return v.f;
}
static uint32_t float_bits(float f) {
    union { uint32_t u; float f; } v;
    v.f = f;
    return v.u;
}

/* ---- expf -------------------------------------------------------------- */

/* 2^(i/32) rounded to double, minus i << 47 in the bit pattern so that
 * adding k << 47 (k = the integer part in 1/32 steps) builds 2^(k/32). */
static const uint64_t exp2_32nds[32] = {
    0x3ff0000000000000u, 0x3fefd9b0d3158574u, 0x3fefb5586cf9890fu, 0x3fef9301d0125b51u,
    0x3fef72b83c7d517bu, 0x3fef54873168b9aau, 0x3fef387a6e756238u, 0x3fef1e9df51fdee1u,
    0x3fef06fe0a31b715u, 0x3feef1a7373aa9cbu, 0x3feedea64c123422u, 0x3feece086061892du,
    0x3feebfdad5362a27u, 0x3feeb42b569d4f82u, 0x3feeab07dd485429u, 0x3feea47eb03a5585u,
    0x3feea09e667f3bcdu, 0x3fee9f75e8ec5f74u, 0x3feea11473eb0187u, 0x3feea589994cce13u,
    0x3feeace5422aa0dbu, 0x3feeb737b0cdc5e5u, 0x3feec49182a3f090u, 0x3feed503b23e255du,
    0x3feee89f995ad3adu, 0x3feeff76f2fb5e47u, 0x3fef199bdd85529cu, 0x3fef3720dcef9069u,
    0x3fef5818dcfba487u, 0x3fef7c97337b9b5fu, 0x3fefa4afa2a490dau, 0x3fefd0765b6e4540u,
};

float edge_expf(float x) {
    const uint32_t ux = float_bits(x);
    const uint32_t abstop = (ux >> 20) & 0x7ff;
    if (abstop >= 0x42bu) { /* |x| >= 88, inf or nan */
        if (ux == 0xff800000u) return 0.0f;
        if (abstop >= 0x7f8u) return x + x;
        if (x > 0x1.62e42ep6f) return as_float(0x7f800000u); /* overflow */
        if (x < -0x1.9fe368p6f) return 0.0f;                 /* underflow */
    }
    /* x = (k + r) * ln2 / 32 with integer k and |r| <= 1/2, then
     * exp(x) = 2^(k/32) * p(r) with a cubic p. glibc rounds z = x * 32 / ln2
     * to the integer k and takes r = z - k rounded once (fused
     * multiply-adds). Here z = z_hi + z_lo exactly (32 / ln2 split into 29
     * and 21 significant bits: each product with a float is exact), and no
     * z is a half-integer, so k is z_hi's nearest integer unless z_lo
     * (|z_lo| < 2^-18) carries z past the half; d -+ 1/2 is exact wherever
     * that can happen, and so is z_hi - k. glibc's FMA build fuses the
     * cubic's multiply-adds too; unfused they give the same float for every
     * x (checked for all 2^32 inputs), so plain operations do here. */
    const double inv_ln2_32_hi = 0x1.7154765p+5, inv_ln2_32_lo = 0x1.5c17fp-26;
    const double shift = 0x1.8p+52;
    const double c0 = 0x1.c6af84b912394p-5 / 32.0 / 32.0 / 32.0;
    const double c1 = 0x1.ebfce50fac4f3p-3 / 32.0 / 32.0;
    const double c2 = 0x1.62e42ff0c52d6p-1 / 32.0;
    const double xd = (double)x;
    const double z_hi = inv_ln2_32_hi * xd, z_lo = inv_ln2_32_lo * xd;
    double kd = z_hi + shift; /* rounds z_hi to an integer */
    kd = kd - shift;
    const double d = z_hi - kd; /* exact, |d| <= 1/2 */
    const double above = d - 0.5, below = d + 0.5;
    const double past_up = above + z_lo, past_down = below + z_lo;
    if (past_up > 0.0) kd = kd + 1.0;
    else if (past_down < 0.0) kd = kd - 1.0;
    const double d_k = z_hi - kd; /* exact */
    const double r = d_k + z_lo;  /* z - k, rounded once */
    const double kd_shifted = kd + shift;
    const uint64_t ki = double_bits(kd_shifted);
    const uint64_t t = exp2_32nds[ki % 32] + (ki << 47);
    const double s = as_double(t);
    const double c0r = c0 * r;
    const double z = c0r + c1;
    const double r2 = r * r;
    const double c2r = c2 * r;
    double y = c2r + 1.0;
    const double zr2 = z * r2;
    y = zr2 + y;
    y = y * s;
    return (float)y;
}

/* ---- tanhf ------------------------------------------------------------- */

/* exp(x) - 1 in float (the fdlibm algorithm glibc 2.36 uses): x = k ln2 +
 * r, a rational approximation of expm1(r), then scaling by 2^k with the
 * rounding-friendly forms for each range of k. Only for the arguments
 * edge_tanhf gives it, 2 <= x < 44 or -2 < x < 0: the branches for the
 * other ranges (overflow, x near -inf, 0 < x < 1.5 ln2, so k = 1) are left
 * out. */
static float expm1f_fdlibm(float x) {
    const float ln2_hi = as_float(0x3f317180u);
    const float ln2_lo = as_float(0x3717f7d1u);
    const float inv_ln2 = as_float(0x3fb8aa3bu);
    const float q1 = as_float(0xbd088889u), q2 = as_float(0x3ad00d01u),
                q3 = as_float(0xb8a670cdu), q4 = as_float(0x36867e54u),
                q5 = as_float(0xb457edbbu);
    const uint32_t ux = float_bits(x);
    const int negative = (ux >> 31) != 0;
    const uint32_t hx = ux & 0x7fffffffu;
    float hi, lo, c = 0.0f, t;
    int32_t k;

    if (hx > 0x3eb17218u) { /* |x| > ln2 / 2: reduce */
        if (hx < 0x3f851592u) { /* |x| < 1.5 ln2, so x < 0 here */
            hi = x + ln2_hi;
            lo = -ln2_lo;
            k = -1;
        } else {
            const float kf = inv_ln2 * x;
            const float kr = kf + (negative ? -0.5f : 0.5f);
            k = (int32_t)kr;
            t = (float)k;
            const float t_hi = t * ln2_hi; /* exact */
            hi = x - t_hi;
            lo = t * ln2_lo;
        }
        x = hi - lo;
        const float d = hi - x;
        c = d - lo;
    } else if (hx < 0x33000000u) { /* |x| < 2^-25 */
        const float big = 1.0e30f + x;
        const float back = big - (1.0e30f + x);
        return x - back;
    } else {
        k = 0;
    }

    const float hfx = 0.5f * x;
    const float hxs = x * hfx;
    float p = hxs * q5;
    p = q4 + p;
    p = hxs * p;
    p = q3 + p;
    p = hxs * p;
    p = q2 + p;
    p = hxs * p;
    p = q1 + p;
    p = hxs * p;
    const float r1 = 1.0f + p;
    const float r1_hfx = r1 * hfx;
    t = 3.0f - r1_hfx;
    const float x_t = x * t;
    const float den = 6.0f - x_t;
    const float num = r1 - t;
    const float quot = num / den;
    float e = hxs * quot;
    if (k == 0) {
        const float xe = x * e;
        const float xe_m = xe - hxs;
        return x - xe_m;
    }
    {
        const float emc = e - c;
        const float xemc = x * emc;
        e = xemc - c;
        e = e - hxs;
    }
    if (k == -1) {
        const float xm = x - e;
        const float h = 0.5f * xm;
        return h - 0.5f;
    }
    if (k <= -2 || k > 56) {
        const float ex = e - x;
        float y = 1.0f - ex;
        y = as_float(float_bits(y) + ((uint32_t)k << 23));
        return y - 1.0f;
    }
    if (k < 23) {
        t = as_float(0x3f800000u - (0x1000000u >> k)); /* 1 - 2^-k */
        const float ex = e - x;
        float y = t - ex;
        return as_float(float_bits(y) + ((uint32_t)k << 23));
    }
    {
        t = as_float((uint32_t)(0x7f - k) << 23); /* 2^-k */
        const float et = e + t;
        float y = x - et;
        y = y + 1.0f;
        return as_float(float_bits(y) + ((uint32_t)k << 23));
    }
}

float edge_tanhf(float x) {
    const uint32_t ux = float_bits(x);
    const uint32_t ix = ux & 0x7fffffffu;
    const int negative = (ux >> 31) != 0;
    float z;
    if (ix >= 0x7f800000u) { /* inf or nan */
        const float inv = 1.0f / x;
        return negative ? inv - 1.0f : inv + 1.0f;
    }
    if (ix < 0x41b00000u) { /* |x| < 22 */
        if (ix == 0) return x;
        if (ix < 0x24000000u) { /* |x| < 2^-55 */
            const float one_plus = 1.0f + x;
            return x * one_plus;
        }
        const float ax = as_float(ix);
        if (ix >= 0x3f800000u) { /* |x| >= 1 */
            const float t = expm1f_fdlibm(2.0f * ax);
            const float den = t + 2.0f;
            const float q = 2.0f / den;
            z = 1.0f - q;
        } else {
            const float t = expm1f_fdlibm(-2.0f * ax);
            const float den = t + 2.0f;
            const float mt = -t;
            z = mt / den;
        }
    } else {
        z = 1.0f - 1.0e-30f;
    }
    return negative ? -z : z;
}

float edge_logistic_f32(float x) {
    const float e = edge_expf(-x);
    const float den = 1.0f + e;
    return 1.0f / den;
}

/* ---- tables ------------------------------------------------------------ */

void edge_lut8_populate(edge_lut_fn fn, int is_signed, float in_scale, int32_t in_zp,
                        float out_scale, int32_t out_zp, uint8_t lut[256]) {
    const int32_t qmin = is_signed ? -128 : 0, qmax = is_signed ? 127 : 255;
    const float inverse_scale = 1.0f / out_scale;
    for (int32_t q = qmin; q <= qmax; q++) {
        const float x = in_scale * (float)(q - in_zp);
        const float y = fn == EDGE_LUT_TANH ? edge_tanhf(x) : edge_logistic_f32(x);
        const float scaled = y * inverse_scale;
        const float rounded = edge_roundf(scaled);
        const float shifted = rounded + (float)out_zp;
        int32_t code = (int32_t)shifted;
        code = code < qmin ? qmin : (code > qmax ? qmax : code);
        lut[(uint8_t)(q & 0xff)] = (uint8_t)(code & 0xff);
    }
}

void edge_lut8_apply(const uint8_t lut[256], const uint8_t *in, uint8_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = lut[in[i]];
}
