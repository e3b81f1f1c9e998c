/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pool.c — average and max pooling (see pool.h).
 *
 * Each output pixel's clipped window is walked tap by tap with a block of
 * channels accumulated side by side (the input is NHWC, so a tap's
 * channels are contiguous). Per channel the taps are visited in the
 * reference's order (rows, then columns), which keeps float sums identical.
 */
#include "../../edge_config.h"
#include "../../quant.h" /* edge_clamp_i32 */
#include "../pool.h"

#define POOL_BLOCK 64

typedef struct window {
    int32_t y0, y1, x0, x1; /* input rows [y0, y1), columns [x0, x1) */
} window;

static window window_at(const edge_pool_params *p, int32_t oy, int32_t ox) {
    window w;
    const int32_t iy = oy * p->stride_h - p->pad_h, ix = ox * p->stride_w - p->pad_w;
    w.y0 = iy < 0 ? 0 : iy;
    w.x0 = ix < 0 ? 0 : ix;
    w.y1 = iy + p->filter_h < p->in_h ? iy + p->filter_h : p->in_h;
    w.x1 = ix + p->filter_w < p->in_w ? ix + p->filter_w : p->in_w;
    return w;
}

int edge_pool_windows_nonempty(const edge_pool_params *p) {
    /* Rows and columns clip independently: check each axis once. */
    for (int32_t oy = 0; oy < p->out_h; oy++) {
        window w = window_at(p, oy, 0);
        if (w.y1 <= w.y0) return 0;
    }
    for (int32_t ox = 0; ox < p->out_w; ox++) {
        window w = window_at(p, 0, ox);
        if (w.x1 <= w.x0) return 0;
    }
    return 1;
}

/* (sum + n/2) / n for a positive sum, (sum - n/2) / n otherwise, in C's
 * truncating division: on magnitudes in unsigned 32 bits (|sum| <= 2^31,
 * n/2 < 2^30), so no 64-bit division. */
static int32_t rounded_div(int32_t sum, int32_t n) {
    const uint32_t half = (uint32_t)(n / 2);
    if (sum > 0) return (int32_t)(((uint32_t)sum + half) / (uint32_t)n);
    return (int32_t)(0u - ((0u - (uint32_t)sum + half) / (uint32_t)n));
}

/* Sum or max of one window's taps over a block of nc channels into acc,
 * one small loop per element type and kind, so the channel loop stays a
 * plain vectorisable one while the pooling loop around it is shared.
 * Sums are int32 as in the reference kernels (uint32 here: wrap-around is
 * defined), exact for any window under 2^16 taps. Offsets are in elements,
 * below 2^31 as the tensors are. */
typedef void (*window_fn)(int32_t *acc, const void *base, int32_t at, int32_t row, int32_t px, window w,
                          int32_t nc);
#define WINDOW_FN(NAME, T, STEP)                                                                    \
    static void NAME(int32_t *acc, const void *base, int32_t at, int32_t row, int32_t px,        \
                     window w, int32_t nc) {                                                      \
        for (int32_t y = w.y0; y < w.y1; y++)                                                     \
            for (int32_t x = w.x0; x < w.x1; x++) {                                               \
                const T *t = (const T *)base + at + y * row + x * px;                             \
                for (int32_t k = 0; k < nc; k++) STEP;                                            \
            }                                                                                     \
    }
WINDOW_FN(sum_s8, int8_t, acc[k] = (int32_t)((uint32_t)acc[k] + (uint32_t)(int32_t)t[k]))
#if EDGE_WITH_UINT8
WINDOW_FN(sum_u8, uint8_t, acc[k] = (int32_t)((uint32_t)acc[k] + (uint32_t)t[k]))
#endif
WINDOW_FN(sum_s16, int16_t, acc[k] = (int32_t)((uint32_t)acc[k] + (uint32_t)(int32_t)t[k]))
WINDOW_FN(max_s8, int8_t, acc[k] = t[k] > acc[k] ? t[k] : acc[k])
#if EDGE_WITH_UINT8
WINDOW_FN(max_u8, uint8_t, acc[k] = t[k] > acc[k] ? t[k] : acc[k])
#else
/* Never chosen: the pools refuse uint8 in this build. */
#define sum_u8 sum_s8
#define max_u8 max_s8
#endif
WINDOW_FN(max_s16, int16_t, acc[k] = t[k] > acc[k] ? t[k] : acc[k])

static void store(void *base, int32_t at, int kind, int32_t v) {
    if (kind == EDGE_POOL_S16)
        ((int16_t *)base)[at] = (int16_t)v;
    else if (EDGE_WITH_UINT8 && kind == EDGE_POOL_U8)
        ((uint8_t *)base)[at] = (uint8_t)v;
    else
        ((int8_t *)base)[at] = (int8_t)v;
}

void edge_pool_int(const edge_pool_params *p, const void *in, void *out, int kind, int is_max) {
    static const window_fn fns[2][3] = {{sum_s8, sum_u8, sum_s16}, {max_s8, max_u8, max_s16}};
    const window_fn fn = fns[is_max ? 1 : 0][kind];
    const int32_t px = p->depth, row = p->in_w * p->depth;
    int32_t o = 0; /* the output pixel's first element */
    for (int32_t b = 0; b < p->batches; b++)
        for (int32_t oy = 0; oy < p->out_h; oy++)
            for (int32_t ox = 0; ox < p->out_w; ox++, o += p->depth) {
                const window w = window_at(p, oy, ox);
                const int32_t n = (w.y1 - w.y0) * (w.x1 - w.x0);
                if (n == 0) continue; /* refused in prepare */
                for (int32_t c0 = 0; c0 < p->depth; c0 += POOL_BLOCK) {
                    const int32_t nc = p->depth - c0 < POOL_BLOCK ? p->depth - c0 : POOL_BLOCK;
                    int32_t acc[POOL_BLOCK];
                    for (int32_t k = 0; k < nc; k++) acc[k] = is_max ? INT32_MIN : 0;
                    fn(acc, in, b * p->in_h * row + c0, row, px, w, nc);
                    for (int32_t k = 0; k < nc; k++) {
                        const int32_t r = is_max ? acc[k] : rounded_div(acc[k], n);
                        store(out, o + c0 + k, kind, edge_clamp_i32(r, p->act_min, p->act_max));
                    }
                }
            }
}

/* ActivationFunctionWithMinMax: std::min(std::max(x, lo), hi). */
static float clamp_f(float v, float lo, float hi) {
    v = v < lo ? lo : v;
    return hi < v ? hi : v;
}

void edge_pool_f32(const edge_pool_params *p, const float *in, float *out, int is_max) {
    for (int32_t b = 0; b < p->batches; b++)
        for (int32_t oy = 0; oy < p->out_h; oy++)
            for (int32_t ox = 0; ox < p->out_w; ox++) {
                const window w = window_at(p, oy, ox);
                const float n = (float)((w.y1 - w.y0) * (w.x1 - w.x0));
                float *o = out + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * p->depth;
                for (int32_t c0 = 0; c0 < p->depth; c0 += POOL_BLOCK) {
                    const int32_t nc = p->depth - c0 < POOL_BLOCK ? p->depth - c0 : POOL_BLOCK;
                    float acc[POOL_BLOCK];
                    for (int32_t k = 0; k < nc; k++) acc[k] = is_max ? -3.402823466e38f : 0.0f;
                    for (int32_t y = w.y0; y < w.y1; y++)
                        for (int32_t x = w.x0; x < w.x1; x++) {
                            const float *t = in + (((int64_t)b * p->in_h + y) * p->in_w + x) * p->depth + c0;
                            if (is_max) {
                                for (int32_t k = 0; k < nc; k++) acc[k] = acc[k] < t[k] ? t[k] : acc[k];
                            } else {
                                for (int32_t k = 0; k < nc; k++) acc[k] += t[k];
                            }
                        }
                    for (int32_t k = 0; k < nc; k++)
                        o[c0 + k] = clamp_f(is_max ? acc[k] : acc[k] / n, p->f_min, p->f_max);
                }
            }
}
