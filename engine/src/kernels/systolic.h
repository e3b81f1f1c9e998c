/* SPDX-License-Identifier: Apache-2.0 */
/*
 * systolic.h — the one fixed-function MAC primitive (docs/kernels.md): a
 * weight-stationary int8/uint8 array of EDGE_SYSTOLIC_ROWS x _COLS cells,
 *   C[m][n] = clamp(requant_n(sum_k (A[m][k] + io) * (W[n][k] + fo) + bias[n]) + oo)
 * bit for bit as TFLite's reference kernels (int32 wrap; gemmlowp's
 * MultiplyByQuantizedMultiplier, or LiteRT FULLY_CONNECTED's
 * round(double(acc) * scale)). W is [n][k] as TFLite stores it, used in
 * place; rows come as pointers (implicit im2col). io * sum W goes into an
 * effective bias (systolic_fold_bias, folded per eval into scratch); the
 * fo * sum A row term only runs for uint8. Padded taps hold the input zero
 * point. No allocation; every buffer is the caller's.
 */
#ifndef EDGE_KERNELS_SYSTOLIC_H
#define EDGE_KERNELS_SYSTOLIC_H

#include <stdint.h>

/* The array's geometry: build-time constants, like a real array's size.
 * They change the tiling and the im2col scratch, never the results. */
#ifndef EDGE_SYSTOLIC_ROWS
#define EDGE_SYSTOLIC_ROWS 4
#endif
#ifndef EDGE_SYSTOLIC_COLS
#define EDGE_SYSTOLIC_COLS 4
#endif
/* The rows one GEMM tile takes, under the name ops use. */
#define SYSTOLIC_TILE_ROWS EDGE_SYSTOLIC_ROWS

/* LiteRT's reference FULLY_CONNECTED (ai-edge-litert 2.x, BUILTIN_REF)
 * requantizes int8/uint8 with round(double(acc) * in_s * w_s / out_s);
 * TFLM's reference kernel uses the fixed-point multiplier. The two differ by
 * one LSB on rare ties. 1 = match LiteRT (the project's oracle), 0 = TFLM. */
#ifndef EDGE_FC_REQUANT_DOUBLE
#define EDGE_FC_REQUANT_DOUBLE 1
#endif

enum {
    SYSTOLIC_REQUANT_FIXED = 0, /* MultiplyByQuantizedMultiplier(acc, mult, shift) */
    SYSTOLIC_REQUANT_DOUBLE = 1 /* (int32) round(double(acc) * scale) */
};

typedef struct systolic_params {
    int32_t k;             /* reduction length (> 0) */
    int32_t n;             /* output channels (> 0) */
    int32_t input_offset;  /* added to every activation: -input zero point */
    int32_t filter_offset; /* added to every weight: -filter zero point (0 for int8) */
    int32_t output_offset; /* output zero point */
    int32_t act_min, act_max;
    const void *weights;       /* [n][k] int8 or uint8 */
    const int32_t *bias;       /* [n] effective bias from systolic_fold_bias, or NULL */
    const int32_t *multiplier; /* FIXED: [n] if per_channel else [1] */
    const int8_t *shift;       /* FIXED: TFLite shift (> 0 = left), same length */
    const double *scale;       /* DOUBLE: [n] if per_channel else [1] */
    uint8_t per_channel;
    uint8_t requant;     /* SYSTOLIC_REQUANT_* */
    uint8_t is_unsigned; /* activations, weights and outputs are uint8 */
    uint8_t simd;        /* run-time int8 tile chosen at prepare (x86: SYSTOLIC_X86_*,
                          * bias lowered by 128 * sum W); 0 = the build's tile */
} systolic_params;

/* Accelerated variants, chosen at build time by defining one of
 * EDGE_SYSTOLIC_NEON (Arm NEON, aarch64 or armhf; sdot where the target has
 * dotprod), EDGE_SYSTOLIC_DSP (Cortex-M DSP extension, SMLAD) or
 * EDGE_SYSTOLIC_MVE (Cortex-M Helium). A variant (systolic_<name>.c)
 * supplies the int8 inner tile, one activation row against nc weight
 * rows ws elements apart:
 *   acc[c] = sum_{i<k} a[i] * w[c * ws + i]   (c < nc <= EDGE_SYSTOLIC_COLS)
 * wrapping like int32. Tiling, the uint8 path, bias and requantization stay
 * the portable code's, so a variant is bit-exact whenever its tile is; the
 * DSP variant also has its own int8 GEMM and convolution (below), checked
 * against reference loops on its cores by tests/boards/systolic_check.c. */
#if defined(EDGE_SYSTOLIC_NEON) || defined(EDGE_SYSTOLIC_DSP) || defined(EDGE_SYSTOLIC_MVE)
#define EDGE_SYSTOLIC_VARIANT 1
void systolic_tile_dot_s8_variant(const int8_t *a, const int8_t *w, int32_t ws, int32_t k,
                                  int32_t nc, uint32_t *acc);
#endif
/* The DSP variant (EDGE_SYSTOLIC_VARIANT_WIDE) also has its own GEMM for
 * int8 with symmetric weights (filter_offset 0), fixed-point or double
 * requantization: blocks of 6 (or, for k > 384, 4) activation rows are
 * widened to int16 once, on the stack, for all channels, and each weight
 * word is split once for the whole block (systolic_dsp.c). The block is a
 * stack buffer of 4 * EDGE_SYSTOLIC_WIDE_WORDS bytes, not arena: the memory
 * plan stays the same on every target, and the host that sizes a
 * firmware's arena plans without this variant. With its gathering row and
 * a table of per-channel constants (36 bytes a channel, 128 at most),
 * systolic_conv_variant takes about 10.5 KiB of stack,
 * systolic_gemm_wide_variant about 5.5 KiB. Both entry
 * points return 0, having done nothing, for the cases they do not take
 * (then the portable tiling runs). */
#if defined(EDGE_SYSTOLIC_DSP)
#define EDGE_SYSTOLIC_VARIANT_WIDE 1
#ifndef EDGE_SYSTOLIC_WIDE_WORDS
#define EDGE_SYSTOLIC_WIDE_WORDS 1152 /* 6 rows of k <= 384, or 4 of k <= 576 */
#endif
/* systolic_gemm's contract, for m >= 1 rows. */
int systolic_gemm_wide_variant(const systolic_params *p, const void *const *rows, int32_t m, void *out,
                               int32_t out_stride);

/* A grouped, strided, dilated, padded NHWC convolution as CONV_2D lowers it
 * (output pixels are GEMM rows, im2col rows in (ky, kx, c) order; padded
 * taps hold the input zero point). */
typedef struct systolic_conv_geom {
    int32_t batches, in_h, in_w, in_c, out_h, out_w;
    int32_t k_h, k_w, group_in_c, groups;
    int32_t stride_h, stride_w, dil_h, dil_w, pad_h, pad_w;
    int32_t pad_value; /* the input zero point */
} systolic_conv_geom;

/* p: the GEMM of one group (k = k_h * k_w * group_in_c, n = output channels
 * per group) with weights, bias, multiplier and shift of all groups (group
 * g's at g * n channels). p->bias is the model's bias (or NULL), not the
 * effective one: the widening adds p->input_offset to every activation
 * (SXTAB16, for free), padded taps widen to 0, and the sums are
 * bias + sum (x + input_offset) * w directly, so no per-invoke pass over
 * the weights (systolic_fold_bias) is needed. Writes the output in raster
 * order, a tile of at most 6 pixels (all channels) at a time. */
int systolic_conv_variant(const systolic_params *p, const systolic_conv_geom *g, const int8_t *in,
                          int8_t *out);
/* 1 when systolic_conv_variant (and systolic_gemm_wide_variant) take p:
 * int8, filter offset 0, k <= 2 * EDGE_SYSTOLIC_WIDE_WORDS / 4. */
int systolic_conv_variant_takes(const systolic_params *p);

/* The portable requantization of `count` accumulators of one channel ch
 * (bias included), output j at dst[j * stride]: the DSP GEMM's exact path
 * for the channels and blocks its fast form does not take. */
void systolic_requant_channel(const systolic_params *p, int32_t ch, const int32_t *acc,
                              int32_t count, uint8_t *dst, int32_t stride);
#endif

/* eff_bias[i] = bias[i] + input_offset * sum_k W[i][k]
 *               + k * input_offset * filter_offset   (bias may be NULL).
 * Uses p->weights, n, k, input_offset, filter_offset, is_unsigned.
 * One pass over the weights (vectorised row sums): CONV_2D and
 * FULLY_CONNECTED run it at every eval into per-op scratch rather than
 * keeping 4 bytes per output channel in the arena's records. */
void systolic_fold_bias(const systolic_params *p, const int32_t *bias, int32_t *eff_bias);

/* The same, for a tile that adds tile_offset to every activation before
 * multiplying (the x86 VNNI tile: 128, see systolic_x86.h): the result is
 * further lowered by tile_offset * sum_k W[i][k], in the same pass. With
 * tile_offset 128 it equals systolic_fold_bias then systolic_x86_bias_shift
 * (int32 wrap-around throughout). avx2: the op's prepare found AVX2 on this
 * x86 CPU (the sums may use it); ignored elsewhere. */
void systolic_fold_bias_tile(const systolic_params *p, const int32_t *bias, int32_t tile_offset,
                             int avx2, int32_t *eff_bias);

/* C for m activation rows: rows[r] points at k elements (int8 or uint8 as
 * p->is_unsigned says). Output row r goes to out + r * out_stride elements;
 * channel j to element j of it. Any m >= 0; tiled internally. */
void systolic_gemm(const systolic_params *p, const void *const *rows, int32_t m, void *out,
                   int32_t out_stride);

/* Same for rows stored densely: row r at a + r * a_stride elements. */
void systolic_gemm_dense(const systolic_params *p, const void *a, int32_t a_stride, int32_t m,
                         void *out, int32_t out_stride);

/* Estimated array cycles for an m x n x k product on the array: every
 * ROWS x COLS output tile streams k operands after a fill of
 * (ROWS - 1) + (COLS - 1) skew cycles, then drains ROWS results. */
uint64_t systolic_cycles(uint64_t m, uint64_t n, uint64_t k);

/* Bytes of scratch an implicit-im2col conv needs for one tile of rows. */
static inline uint32_t systolic_im2col_bytes(uint32_t k) { return (uint32_t)EDGE_SYSTOLIC_ROWS * k; }

#endif
