/*
 * depthwise_x86.c — the int8 depthwise kernel with AVX2, eight output
 * channels per vector, bit-exact with depthwise.c (same sums, same
 * requantization).
 *
 * Built on x86 only, as a function with target("avx2") inside an ordinary
 * build: the op's prepare asks the CPU once (depthwise_avx2_usable) and keeps
 * the answer in its params (depthwise_params.simd), so nothing global is
 * written and a CPU without AVX2 runs the portable kernel.
 *
 * Taken: int8, filter offset 0, and either depth multiplier 1 with input
 * channels a multiple of 8 (contiguous loads), or a depth multiplier that is
 * a multiple of 8 (the eight lanes share one input channel: a broadcast).
 * The sum is the reference's: interior pixels start from bias + io * sum(w)
 * and add w * x; border pixels start from the bias and add w * (x + io) over
 * their valid taps only. int32 lanes wrap as the portable kernel's uint32
 * sums do.
 *
 * Requantization per lane (edge_rq_apply, whose multiplier is never
 * negative here: it comes from non-negative scales): x << left, the 64-bit
 * product with the multiplier, + 2^30, bits 31..62 (the high mul's floor),
 * then gemmlowp's RoundingDivideByPOT: (h >> right) + (rem > threshold).
 */
#include "depthwise.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include "requant.h"

#define DWX_BLOCK 64

int depthwise_avx2_usable(void) { return __builtin_cpu_supports("avx2") ? 1 : 0; }

__attribute__((target("avx2"))) static inline __m256i rq8(__m256i acc, __m256i mult, __m256i left,
                                                         __m256i right, __m256i mask, __m256i half) {
    const __m256i x = _mm256_sllv_epi32(acc, left);
    const __m256i r30 = _mm256_set1_epi64x(1ll << 30);
    __m256i e = _mm256_add_epi64(_mm256_mul_epi32(x, mult), r30);
    __m256i o = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(mult, 32)), r30);
    e = _mm256_srli_epi64(e, 31);
    o = _mm256_slli_epi64(_mm256_srli_epi64(o, 31), 32);
    const __m256i h = _mm256_blend_epi32(e, o, 0xAA);
    const __m256i rem = _mm256_and_si256(h, mask);
    const __m256i thr = _mm256_sub_epi32(half, _mm256_srai_epi32(h, 31));
    return _mm256_sub_epi32(_mm256_srav_epi32(h, right), _mm256_cmpgt_epi32(rem, thr));
}

__attribute__((target("avx2"))) static inline __m256i load8(const int8_t *p) {
    return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p));
}

__attribute__((target("avx2"))) static inline __m256i ld(const int32_t *p) {
    return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

__attribute__((target("avx2"))) int depthwise_s8_avx2(const depthwise_params *p, const int8_t *in,
                                                      const int8_t *filt, int8_t *out) {
    const int32_t dm = p->depth_mult, in_c = p->in_c, out_c = p->out_c;
    const int bcast = dm % 8 == 0;
    if (p->is_unsigned || p->filter_offset != 0 || !(bcast || (dm == 1 && in_c % 8 == 0))) return 0;
    int32_t folded[DWX_BLOCK], bias0[DWX_BLOCK], mult[DWX_BLOCK], left[DWX_BLOCK], right[DWX_BLOCK],
        mask[DWX_BLOCK], half[DWX_BLOCK];
    const int32_t io = p->input_offset, oo = p->output_offset;
    const int32_t k_h = p->k_h, k_w = p->k_w, dil_h = p->dil_h, dil_w = p->dil_w;
    const int32_t in_h = p->in_h, in_w = p->in_w;
    const size_t row = (size_t)in_w * (size_t)in_c, taps = (size_t)k_h * (size_t)k_w;
    const __m256i voo = _mm256_set1_epi32(oo), vlo = _mm256_set1_epi32(p->act_min),
                  vhi = _mm256_set1_epi32(p->act_max), vio = _mm256_set1_epi32(io);
    for (int32_t b = 0; b < p->batches; b++) {
        const int8_t *img = in + (size_t)b * (size_t)in_h * row;
        int8_t *out_img = out + (size_t)b * (size_t)p->out_h * (size_t)p->out_w * (size_t)out_c;
        for (int32_t c0 = 0; c0 < out_c; c0 += DWX_BLOCK) {
            const int32_t nc = out_c - c0 < DWX_BLOCK ? out_c - c0 : DWX_BLOCK;
            for (int32_t j = 0; j < nc; j++) {
                uint32_t wsum = 0;
                for (size_t t = 0; t < taps; t++) {
                    const int32_t f = filt[t * (size_t)out_c + (size_t)(c0 + j)];
                    wsum += (uint32_t)f;
                }
                bias0[j] = p->bias ? p->bias[c0 + j] : 0;
                folded[j] = (int32_t)((uint32_t)bias0[j] + wsum * (uint32_t)io);
                const int32_t ch = p->per_channel ? c0 + j : 0;
                const edge_rq r = edge_rq_make(p->multiplier[ch], p->shift[ch]);
                mult[j] = r.mult;
                left[j] = r.left;
                right[j] = r.right;
                mask[j] = (int32_t)(((uint32_t)1 << r.right) - 1u);
                half[j] = mask[j] >> 1;
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
                    const __m256i xo = inside ? _mm256_setzero_si256() : vio;
                    const int32_t *init = inside ? folded : bias0;
                    int8_t *dst = out_img + ((size_t)oy * (size_t)p->out_w + (size_t)ox) * (size_t)out_c +
                                  (size_t)c0;
                    for (int32_t g = 0; g < nc; g += 8) {
                        const int32_t oc = c0 + g;
                        /* Input channel of these eight outputs (dm == 1: the same index). */
                        const size_t ic = (size_t)(oc / dm);
                        __m256i acc = ld(init + g);
                        for (int32_t ky = ky_lo; ky < ky_hi; ky++) {
                            const int8_t *srow = img + (size_t)(iy0 + ky * dil_h) * row + ic;
                            const int8_t *wrow = filt + (size_t)ky * (size_t)k_w * (size_t)out_c + (size_t)oc;
                            for (int32_t kx = kx_lo; kx < kx_hi; kx++) {
                                const int8_t *s = srow + (size_t)(ix0 + kx * dil_w) * (size_t)in_c;
                                __m256i x = bcast ? _mm256_set1_epi32(*s) : load8(s);
                                x = _mm256_add_epi32(x, xo);
                                acc = _mm256_add_epi32(acc, _mm256_mullo_epi32(x, load8(wrow + (size_t)kx * (size_t)out_c)));
                            }
                        }
                        __m256i v = rq8(acc, ld(mult + g), ld(left + g), ld(right + g), ld(mask + g), ld(half + g));
                        v = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(v, voo), vlo), vhi);
                        const __m256i p16 = _mm256_packs_epi32(v, v);
                        const __m256i p8 = _mm256_packs_epi16(p16, p16);
                        const int32_t lo4 = _mm256_cvtsi256_si32(p8);
                        const int32_t hi4 = _mm_cvtsi128_si32(_mm256_extracti128_si256(p8, 1));
                        __builtin_memcpy(dst + g, &lo4, 4);
                        __builtin_memcpy(dst + g + 4, &hi4, 4);
                    }
                }
            }
        }
    }
    return 1;
}

#else

int depthwise_avx2_usable(void) { return 0; }

#endif
