/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pool.h — 2-D average and max pooling over NHWC tensors, bit for bit as
 * TFLite's reference kernels (reference_integer_ops::AveragePool / MaxPool
 * for int8 and int16, reference_ops:: for uint8 and float32).
 *
 * The window of output (y, x) starts at (y * stride_h - pad_h,
 * x * stride_w - pad_w) and is clipped to the image: taps outside are not
 * counted, so an average divides by the number of taps inside. Quantized
 * pools never rescale (TFLite requires the output to share the input's
 * scale and zero point); the result is clamped to [act_min, act_max].
 * Integer averages round half away from zero: (sum + n/2) / n for a
 * positive sum, (sum - n/2) / n otherwise, in C's truncating division.
 */
#ifndef EDGE_KERNELS_POOL_H
#define EDGE_KERNELS_POOL_H

#include <stdint.h>

typedef struct edge_pool_params {
    int32_t batches, in_h, in_w, depth, out_h, out_w;
    int32_t filter_h, filter_w, stride_h, stride_w, pad_h, pad_w;
    int32_t act_min, act_max; /* quantized clamp */
    float f_min, f_max;       /* float32 clamp */
} edge_pool_params;

/* 1 when every output window holds at least one input tap (TFLite's
 * average pool fails at run time otherwise). */
int edge_pool_windows_nonempty(const edge_pool_params *p);

/* Element types of the integer pools. */
enum { EDGE_POOL_S8, EDGE_POOL_U8, EDGE_POOL_S16 };

/* Average (is_max 0) or max pool of int8, uint8 or int16 (kind) tensors. */
void edge_pool_int(const edge_pool_params *p, const void *in, void *out, int kind, int is_max);
/* The same of float32 tensors. */
void edge_pool_f32(const edge_pool_params *p, const float *in, float *out, int is_max);

#endif
