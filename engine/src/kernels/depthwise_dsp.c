/*
 * depthwise_dsp.c — the int8 depthwise kernel with the Cortex-M DSP
 * extension (M4, M7, M33, M55 built with EDGE_SYSTOLIC_DSP), bit-exact with
 * depthwise.c.
 *
 * Taken: int8, filter offset 0, depth multiplier 1, channels a multiple of
 * 4 (so one word holds four channels of one pixel or of one tap's
 * weights). Four output channels are summed in registers at once: SXTB16
 * splits a word into channels 0,2 and (rotated by 8) 1,3 as int16 pairs,
 * for the input and for the weights alike, and SMLABB / SMLATT add the
 * bottom and the top products to their channel's int32 (wrapping as the
 * portable kernel's uint32 sums do). Border pixels add the input offset to
 * both halves with SADD16 first (|x + io| <= 255 fits int16); interior ones
 * start from bias + io * sum(w) instead, as the portable kernel does.
 */
#include "depthwise.h"

#if defined(EDGE_SYSTOLIC_DSP)

#if !defined(__ARM_FEATURE_DSP)
#error "EDGE_SYSTOLIC_DSP needs a core with the DSP extension (-mcpu=cortex-m4/m7/m33/m55)"
#endif

#include <arm_acle.h>

#include "requant.h"

#define DWD_BLOCK 64

static inline uint32_t load4(const int8_t *p) {
    uint32_t v;
    __builtin_memcpy(&v, p, 4);
    return v;
}

static inline int16x2_t even_s16(uint32_t v) { return __sxtb16((int8x4_t)v); }
/* SXTB16 with its built-in rotate (GCC does not fold a separate ROR). */
static inline int16x2_t odd_s16(uint32_t v) {
    int16x2_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v));
    return r;
}

/* Four channels' sums over taps [kx_lo, kx_hi) of one kernel row; io2 is
 * the input offset in both halves (0 for interior pixels). */
#define DWD_ROW(ADD_IO)                                                                  \
    for (int32_t kx = kx_lo; kx < kx_hi; kx++) {                                         \
        const uint32_t xv = load4(s), wv = load4(w);                                     \
        int16x2_t x02 = even_s16(xv), x13 = odd_s16(xv);                                 \
        if (ADD_IO) {                                                                    \
            x02 = __sadd16(x02, io2);                                                    \
            x13 = __sadd16(x13, io2);                                                    \
        }                                                                                \
        const int16x2_t w02 = even_s16(wv), w13 = odd_s16(wv);                           \
        a0 = __smlabb(x02, w02, a0);                                                     \
        a2 = __smlatt(x02, w02, a2);                                                     \
        a1 = __smlabb(x13, w13, a1);                                                     \
        a3 = __smlatt(x13, w13, a3);                                                     \
        s += sstep;                                                                      \
        w += out_c;                                                                      \
    }

/* One tap for four channels, no input offset (interior pixels). */
#define DWD_TAP(SP, WP)                                                                  \
    do {                                                                                 \
        const uint32_t xv = load4(SP), wv = load4(WP);                                   \
        const int16x2_t x02 = even_s16(xv), x13 = odd_s16(xv);                           \
        const int16x2_t w02 = even_s16(wv), w13 = odd_s16(wv);                           \
        a0 = __smlabb(x02, w02, a0);                                                     \
        a2 = __smlatt(x02, w02, a2);                                                     \
        a1 = __smlabb(x13, w13, a1);                                                     \
        a3 = __smlatt(x13, w13, a3);                                                     \
    } while (0)

/* edge_rq_apply for a multiplier >= 0 (the kernel checks), in 32-bit
 * steps: with it the high mul cannot saturate, bits 31..62 of
 * x * mult + 2^30 are the floor, and gemmlowp's RoundingDivideByPOT
 * (remainder against threshold) needs no 64-bit add. */
static inline int32_t rq_apply(int32_t acc, int32_t mult, int32_t left, int32_t right) {
    const int64_t ab = (int64_t)(int32_t)((uint32_t)acc << left) * (int64_t)mult;
    const uint64_t sum = (uint64_t)ab + (1u << 30);
    const int32_t h = (int32_t)(uint32_t)(sum >> 31);
    const int32_t mask = (int32_t)(((uint32_t)1 << right) - 1u);
    const int32_t thr = (mask >> 1) + (int32_t)((uint32_t)h >> 31);
    return (h >> right) + ((h & mask) > thr);
}

/* Requantize, offset, clamp and store one output. */
#define DWD_OUT(A, I)                                                                    \
    do {                                                                                 \
        int32_t v = rq_apply(A, mult[g + (I)], left[g + (I)], right[g + (I)]);           \
        v = (int32_t)((uint32_t)v + (uint32_t)oo);                                       \
        v = v < lo ? lo : (v > hi ? hi : v);                                             \
        dst[g + (I)] = (int8_t)v;                                                        \
    } while (0)

int depthwise_s8_dsp(const depthwise_params *p, const int8_t *in, const int8_t *filt, int8_t *out) {
    if (p->is_unsigned || p->filter_offset != 0 || p->depth_mult != 1 || (p->in_c & 3)) return 0;
    for (int32_t c = 0; c < (p->per_channel ? p->out_c : 1); c++)
        if (p->multiplier[c] < 0) return 0;
    const int unroll3 = p->k_h == 3 && p->k_w == 3 && p->dil_h == 1 && p->dil_w == 1;
    uint32_t folded[DWD_BLOCK], bias0[DWD_BLOCK];
    int32_t mult[DWD_BLOCK], left[DWD_BLOCK], right[DWD_BLOCK];
    const int32_t io = p->input_offset, oo = p->output_offset, lo = p->act_min, hi = p->act_max;
    const int32_t k_h = p->k_h, k_w = p->k_w, dil_h = p->dil_h, dil_w = p->dil_w;
    const int32_t in_h = p->in_h, in_w = p->in_w, out_c = p->out_c;
    const int32_t sstep = dil_w * out_c;
    const size_t row = (size_t)in_w * (size_t)out_c, taps = (size_t)k_h * (size_t)k_w;
    const int16x2_t io2 = (int16x2_t)(((uint32_t)io & 0xffffu) | ((uint32_t)io << 16));
    for (int32_t b = 0; b < p->batches; b++) {
        const int8_t *img = in + (size_t)b * (size_t)in_h * row;
        int8_t *out_img = out + (size_t)b * (size_t)p->out_h * (size_t)p->out_w * (size_t)out_c;
        for (int32_t c0 = 0; c0 < out_c; c0 += DWD_BLOCK) {
            const int32_t nc = out_c - c0 < DWD_BLOCK ? out_c - c0 : DWD_BLOCK;
            for (int32_t j = 0; j < nc; j++) {
                uint32_t wsum = 0;
                for (size_t t = 0; t < taps; t++) {
                    const int32_t f = filt[t * (size_t)out_c + (size_t)(c0 + j)];
                    wsum += (uint32_t)f;
                }
                bias0[j] = p->bias ? (uint32_t)p->bias[c0 + j] : 0u;
                folded[j] = bias0[j] + wsum * (uint32_t)io;
                const int32_t ch = p->per_channel ? c0 + j : 0;
                const edge_rq r = edge_rq_make(p->multiplier[ch], p->shift[ch]);
                mult[j] = r.mult;
                left[j] = r.left;
                right[j] = r.right;
            }
            for (int32_t oy = 0; oy < p->out_h; oy++) {
                const int32_t iy0 = oy * p->stride_h - p->pad_h;
                int32_t ky_lo = 0, ky_hi = k_h;
                while (ky_lo < k_h && iy0 + (int64_t)ky_lo * dil_h < 0) ky_lo++;
                while (ky_hi > ky_lo && iy0 + (int64_t)(ky_hi - 1) * dil_h >= in_h) ky_hi--;
                for (int32_t ox = 0; ox < p->out_w; ox++) {
                    const int32_t ix0 = ox * p->stride_w - p->pad_w;
                    int32_t kx_lo = 0, kx_hi = k_w;
                    while (kx_lo < k_w && ix0 + (int64_t)kx_lo * dil_w < 0) kx_lo++;
                    while (kx_hi > kx_lo && ix0 + (int64_t)(kx_hi - 1) * dil_w >= in_w) kx_hi--;
                    const int inside = ky_lo == 0 && ky_hi == k_h && kx_lo == 0 && kx_hi == k_w;
                    const uint32_t *init = inside ? folded : bias0;
                    const int8_t *base = img + (size_t)(ix0 + kx_lo * dil_w) * (size_t)out_c + (size_t)c0;
                    const int8_t *wbase = filt + (size_t)kx_lo * (size_t)out_c + (size_t)c0;
                    int8_t *dst = out_img + ((size_t)oy * (size_t)p->out_w + (size_t)ox) * (size_t)out_c +
                                  (size_t)c0;
                    for (int32_t g = 0; g < nc; g += 4) {
                        int32_t a0 = (int32_t)init[g], a1 = (int32_t)init[g + 1], a2 = (int32_t)init[g + 2],
                                a3 = (int32_t)init[g + 3];
                        if (inside && unroll3) {
                            /* The common 3x3 interior pixel: rows in a loop, taps
                             * straight-line. */
                            const int8_t *s = base + (size_t)iy0 * row + (size_t)g;
                            const int8_t *w = wbase + (size_t)g;
                            for (int32_t ky = 0; ky < 3; ky++) {
                                DWD_TAP(s, w);
                                DWD_TAP(s + out_c, w + out_c);
                                DWD_TAP(s + 2 * out_c, w + 2 * out_c);
                                s += row;
                                w += 3 * out_c;
                            }
                        } else
                        for (int32_t ky = ky_lo; ky < ky_hi; ky++) {
                            const int8_t *s = base + (size_t)(iy0 + ky * dil_h) * row + (size_t)g;
                            const int8_t *w = wbase + (size_t)ky * (size_t)k_w * (size_t)out_c + (size_t)g;
                            if (inside) {
                                DWD_ROW(0)
                            } else {
                                DWD_ROW(1)
                            }
                        }
                        DWD_OUT(a0, 0);
                        DWD_OUT(a1, 1);
                        DWD_OUT(a2, 2);
                        DWD_OUT(a3, 3);
                    }
                }
            }
        }
    }
    return 1;
}

#endif
