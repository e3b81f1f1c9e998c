/* SPDX-License-Identifier: Apache-2.0 */
/*
 * systolic_x86.h — x86-64 variants of the systolic kernel (GCC/Clang only,
 * each SIMD function with its own target attribute), picked per op at
 * prepare from cpuid (systolic_x86_level). The conv kernel takes a "panel"
 * of 16 activation rows, transposed four k at a time. VNNI: bytes XORed
 * with 0x80 (a + 128) against signed weights by vpdpbusd, the bias lowered
 * by 128 * sum W (exact in int32 wrap). AVX2: |a| against w * sign(a) by
 * vpmaddubsw, exact while no weight is -128 (systolic_x86_weights_ok).
 * Requantization runs across the 16 rows of a channel (requant.h's form).
 */
#ifndef EDGE_KERNELS_SYSTOLIC_X86_H
#define EDGE_KERNELS_SYSTOLIC_X86_H

#include "../systolic.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(EDGE_NO_X86_SIMD)
#define EDGE_SYSTOLIC_X86 1

enum { SYSTOLIC_X86_NONE = 0, SYSTOLIC_X86_AVX2 = 1, SYSTOLIC_X86_VNNI = 2 };

/* The highest variant the engine may pick (tests build with 1 to run the
 * AVX2 kernel on a VNNI machine, 0 for the portable one). */
#ifndef EDGE_X86_MAX_LEVEL
#define EDGE_X86_MAX_LEVEL 2
#endif

/* Rows in one panel (the vector width in int32 lanes). */
#define SYSTOLIC_X86_PANEL_ROWS 16
/* The largest k the conv kernel takes: its panel (16 * k bytes) and one
 * im2col row live on the stack, 34 KiB at most. */
#define SYSTOLIC_X86_MAX_K 2048

/* The best variant this CPU runs (SYSTOLIC_X86_*). */
uint8_t systolic_x86_level(void);

/* Whether the panel kernel computes p exactly: int8, symmetric weights,
 * fixed-point requantization with non-negative multipliers. */
int systolic_x86_panel_ok(const systolic_params *p);

/* Bytes of one panel for reduction length k. */
static inline uint32_t systolic_x86_panel_bytes(int32_t k) {
    return (uint32_t)SYSTOLIC_X86_PANEL_ROWS * 4u * (((uint32_t)k + 3u) / 4u);
}

/* eff_bias[c] -= 128 * sum_k W[c][k] (int8 weights p->weights, p->n x p->k). */
void systolic_x86_bias_shift(const systolic_params *p, int32_t *eff_bias);

/* Whether no weight of p (int8, p->n x p->k) is -128: the AVX2 kernel's
 * condition. */
int systolic_x86_weights_ok(const systolic_params *p);

/* The XOR a level's panels apply to activation bytes. */
static inline uint32_t systolic_x86_panel_flip(uint8_t level) {
    return level == SYSTOLIC_X86_VNNI ? 0x80808080u : 0u;
}

/* Store activation row `row` (k int8) as panel row r (< 16), each word
 * XORed with flip (systolic_x86_panel_flip). */
void systolic_x86_panel_row(uint8_t *panel, int32_t r, const int8_t *row, int32_t k, uint32_t flip);

/* A convolution's window geometry, for building panels straight from its
 * input (NHWC int8) without an im2col row: the taps are in the filter's
 * (ky, kx, c) order, c over group_in_c channels starting at g * group_in_c. */
typedef struct systolic_x86_conv {
    int32_t in_h, in_w, in_c, k_h, k_w, group_in_c;
    int32_t stride_h, stride_w, dil_h, dil_w, pad_h, pad_w, out_w;
    uint32_t pad_word; /* the input zero point in all four bytes */
} systolic_x86_conv;

/* Whether systolic_x86_panel_conv can serve a conv: group_in_c a multiple
 * of 4 and every input offset inside int32. */
int systolic_x86_conv_ok(const systolic_x86_conv *g);

/* The panel of output pixels px0 .. px0 + mr - 1 (mr <= 16) of group g:
 * AVX-512 gathers of four channels per tap, padding taps get pad_word. */
void systolic_x86_panel_conv(uint8_t *panel, const int8_t *img, const systolic_x86_conv *g,
                             int32_t px0, int32_t mr, int32_t group);

/* The same panel for the AVX2 kernel: activation bytes as they are, each
 * tap's channels transposed four words at a time from the input, padding
 * taps and rows past mr get the pad byte (systolic_avx2.c). */
void systolic_x86_panel_conv_avx2(uint8_t *panel, const int8_t *img, const systolic_x86_conv *g,
                                  int32_t px0, int32_t mr, int32_t group);

/* First layers: CONV_2D with at most 4 input channels (one group),
 * output channels a multiple of 8, dil_w 1, on AVX2 without panels:
 * channels across lanes, int16 pairs of input values broadcast against
 * pairs of weights (conv_first_x86.c). Whether it takes g: */
int systolic_x86_conv_first_ok(const systolic_x86_conv *g, int32_t out_c);
/* One image: out_h x g->out_w x out_c from img (in_h x in_w x in_c) and
 * filt (OHWI); sp gives the offsets, clamp, multipliers and shifts; bias is
 * the model's (not folded), or NULL. */
void systolic_x86_conv_first_avx2(const systolic_x86_conv *g, int32_t out_h, int32_t out_c,
                                  const systolic_params *sp, const int32_t *bias, const int8_t *img,
                                  const int8_t *filt, int8_t *out);

/* CONV_2D (one group, input channels a multiple of 4, output channels of
 * 8) with channels across lanes: conv_lanes_x86.c. Whether it takes g: */
int systolic_x86_conv_lanes_ok(const systolic_x86_conv *g, int32_t out_c);
/* One image, as systolic_x86_conv_first_avx2 (sp->bias the model's bias,
 * or NULL: the kernel folds the input offset in itself); no weight may be
 * -128 (systolic_x86_weights_ok). */
void systolic_x86_conv_lanes_avx2(const systolic_x86_conv *g, int32_t out_h, int32_t out_c,
                                  const systolic_params *sp, const int8_t *img, const int8_t *filt,
                                  int8_t *out);
/* The same in two steps, for callers that run several row ranges of one
 * conv per eval (a fused pair's chunks): prepare re-lays the weights and
 * builds the constants into `state` (SYSTOLIC_X86_LANES_STATE bytes, the
 * caller's stack, 32-byte aligned); run computes out_h rows of g from it. */
#define SYSTOLIC_X86_LANES_STATE (160 * 1024)
void systolic_x86_conv_lanes_prepare(const systolic_x86_conv *g, int32_t out_c, const systolic_params *sp,
                                     const int8_t *filt, void *state);
/* The bytes of `state` that prepare writes for g (at most
 * SYSTOLIC_X86_LANES_STATE when lanes_ok). */
uint32_t systolic_x86_conv_lanes_bytes(const systolic_x86_conv *g, int32_t out_c);
void systolic_x86_conv_lanes_run(const systolic_x86_conv *g, int32_t out_h, int32_t out_c, const void *state,
                                 const int8_t *img, int8_t *out);

/* C for the panel's first mr rows (all p->n channels): row r to
 * out + r * out_stride. For VNNI p->bias must be shifted by
 * systolic_x86_bias_shift. */
void systolic_x86_panel_gemm(uint8_t level, const systolic_params *p, const uint8_t *panel,
                             int32_t mr, int8_t *out, int32_t out_stride);

/* The AVX2 kernel's per-channel constants: the (effective) bias and
 * requant.h's steps for the multiplier. An eval builds them once for all
 * its channels (systolic_avx2.c). */
typedef struct systolic_x86_rq {
    int32_t bias, mult, left, right, mask, half;
} systolic_x86_rq;

/* rq[j] for channels c0 + j, j < nc, from p->bias, multiplier, shift. */
void systolic_x86_rq_table(const systolic_params *p, int32_t c0, int32_t nc, systolic_x86_rq *rq);

/* The AVX2 panel GEMM with its table (rq[c] for c < p->n), and without one
 * (built per call, 16 channels at a time). */
void systolic_x86_panel_gemm_rq(const systolic_params *p, const systolic_x86_rq *rq,
                                const uint8_t *panel, int32_t mr, int8_t *out, int32_t out_stride);
void systolic_x86_panel_gemm_avx2(const systolic_params *p, const uint8_t *panel, int32_t mr,
                                  int8_t *out, int32_t out_stride);

/* The int8 tile of systolic.c's systolic_gemm for p->simd != 0 (any m:
 * FULLY_CONNECTED): acc[c] = sum_{i<k} (a[i] + 128) * w[c * ws + i],
 * wrapping like int32, for c < nc; the bias must be shifted as above. */
void systolic_x86_tile_dot(const int8_t *a, const int8_t *w, int32_t ws, int32_t k, int32_t nc,
                           uint32_t *acc);

/* systolic_gemm for p->simd == SYSTOLIC_X86_VNNI, int8, double-scale
 * requantization (LiteRT's FULLY_CONNECTED): the tile above, then bias,
 * round(double(acc) * scale) with round-half-away and x86's INT32_MIN for
 * out-of-range, offset and clamp on 16 channels at once. */
void systolic_x86_gemm_double(const systolic_params *p, const void *const *rows, int32_t m,
                              void *out, int32_t out_stride);

/* systolic_gemm for p->simd == SYSTOLIC_X86_AVX2 (FULLY_CONNECTED): int8,
 * symmetric weights (any values), k <= SYSTOLIC_X86_FC_MAX_K, double-scale
 * requantization (LiteRT's). p->bias is the model's bias, NOT folded: each
 * row is widened once to x + input_offset in int16 and multiplied with the
 * widened weights by vpmaddwd, so no pass over the weights for their sums
 * is needed; then round(double(acc) * scale) half away from zero with
 * x86's INT32_MIN for out-of-range, offset and clamp, up to 512 channels
 * at a time (systolic_avx2.c). */
#define SYSTOLIC_X86_FC_MAX_K 8192
void systolic_x86_gemm_double_avx2(const systolic_params *p, const void *const *rows, int32_t m,
                                   void *out, int32_t out_stride);
/* The same from packed weights (FULLY_CONNECTED's edge_model_pack): the
 * weights re-laid in blocks of 32 channels as [k/4][channel][4] words and
 * the bias with the input offset folded in (bias + input_offset * each
 * channel's weight sum), so that the raw int8 row is multiplied with eight
 * channels per vector, |x| by w * sign(x) (vpmaddubsw: no weight may be
 * -128), one sequential pass over the weights and no horizontal sums.
 * Rows: m of k values, k apart, from `in`. bytes: the packed size for
 * k x n (0: too large); pack: 0 (nothing written that counts) when a
 * weight is -128. */
uint32_t systolic_x86_fc_lanes_bytes(int32_t k, int32_t n);
int systolic_x86_fc_lanes_pack(const systolic_params *p, const int32_t *bias, uint8_t *dst);
void systolic_x86_fc_lanes_avx2(const systolic_params *p, const uint8_t *packed, const int8_t *in,
                                int32_t m, void *out, int32_t out_stride);

#endif
#endif
