/* SPDX-License-Identifier: Apache-2.0 */
/*
 * depthwise.h — the depthwise-convolution vector kernel (a sibling of the
 * systolic array: one MAC lane per channel, no reduction across channels).
 *
 * For output channel oc = ic * depth_mult + m of input channel ic:
 *   acc = sum over taps inside the image of
 *           (W[ky][kx][oc] + filter_offset) * (In[iy][ix][ic] + input_offset)
 *         + bias[oc]
 *   out = clamp(MultiplyByQuantizedMultiplier(acc, mult, shift) + output_offset,
 *               act_min, act_max)
 * bit for bit as reference_integer_ops::DepthwiseConvPerChannel (int8,
 * filter_offset 0) and reference_ops::DepthwiseConv (uint8) compute it: taps
 * outside the image are skipped. Filter layout [1][k_h][k_w][out_c], NHWC
 * activations. No allocation; a small fixed block of accumulators lives on
 * the stack.
 */
#ifndef EDGE_KERNELS_DEPTHWISE_H
#define EDGE_KERNELS_DEPTHWISE_H

#include <stddef.h>
#include <stdint.h>

typedef struct depthwise_params {
    int32_t batches, in_h, in_w, in_c;
    int32_t out_h, out_w, out_c, depth_mult; /* out_c == in_c * depth_mult */
    int32_t k_h, k_w, stride_h, stride_w, dil_h, dil_w, pad_h, pad_w;
    int16_t input_offset, filter_offset, output_offset; /* within +-255 */
    int16_t act_min, act_max;                            /* within the 8-bit type */
    uint8_t per_channel;
    uint8_t simd;        /* 1: may run the AVX2 kernel (the op asked the CPU at prepare) */
    uint8_t is_unsigned; /* uint8 input, filter and output; else int8; stored last of these */
    /* The pointers come last: an op stores the fields before them only
     * (DEPTHWISE_PARAMS_STORED bytes) and sets these at eval. */
    const int32_t *bias;       /* [out_c] or NULL */
    const int32_t *multiplier; /* [out_c] if per_channel else [1] */
    const int8_t *shift;       /* TFLite shift (> 0 = left), same length */
} depthwise_params;

#define DEPTHWISE_PARAMS_STORED ((offsetof(depthwise_params, is_unsigned) + 4u) & ~(size_t)3u)

void depthwise_conv(const depthwise_params *p, const void *input, const void *filter, void *output);

/* 1 when this CPU runs depthwise_x86.c's AVX2 kernel (x86 only; else 0). */
int depthwise_avx2_usable(void);
/* The family's choice for the `simd` field, at prepare. */
static inline uint8_t edge_depthwise_s8_select(void) { return (uint8_t)depthwise_avx2_usable(); }
/* The AVX2 kernel; returns 0 (having done nothing) for shapes it does not take. */
int depthwise_s8_avx2(const depthwise_params *p, const int8_t *in, const int8_t *filt, int8_t *out);
/* The Cortex-M DSP kernel (depthwise_dsp.c, EDGE_SYSTOLIC_DSP builds), likewise. */
int depthwise_s8_dsp(const depthwise_params *p, const int8_t *in, const int8_t *filt, int8_t *out);

#endif
