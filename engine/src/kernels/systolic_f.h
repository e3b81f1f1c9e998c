/* SPDX-License-Identifier: Apache-2.0 */
/*
 * systolic_f.h — the float / bfloat16 variant of the systolic kernel (see
 * systolic.h for the int8 one): the same weight-stationary GEMM interface,
 * with fp32 accumulation as TPUs run bf16 (a bf16 x bf16 product is exact
 * in fp32):
 *
 *   C[m][n] = clamp(sum_k A[m][k] * W[n][k] + bias[n], act_min, act_max)
 *
 * A (activations) and W ([n][k], used in place: OHWI filters and FC weights
 * straight from flash) are each FLOAT32 or BFLOAT16; bias FLOAT32, BFLOAT16
 * or absent; C is stored as FLOAT32 or BFLOAT16 (round to nearest even).
 * Each output sums its k products in order, then adds the bias, as TFLite's
 * reference float kernels do, so float32 results match them bit for bit
 * when the compiler does not contract multiply-adds.
 *
 * No allocation; bf16 activation rows are widened into caller scratch
 * (systolic_f_scratch_bytes).
 */
#ifndef EDGE_KERNELS_SYSTOLIC_F_H
#define EDGE_KERNELS_SYSTOLIC_F_H

#include <stdint.h>

#include "systolic.h"

/* Element types: TFLite TensorType numbers (FLOAT32 = 0, BFLOAT16 = 18);
 * SYSTOLIC_F_NONE for an absent bias. */
enum { SYSTOLIC_F_F32 = 0, SYSTOLIC_F_BF16 = 18, SYSTOLIC_F_NONE = -1 };

typedef struct systolic_f_params {
    int32_t k;        /* reduction length (> 0) */
    int32_t n;        /* output channels (> 0) */
    float act_min, act_max;
    const void *weights; /* [n][k] */
    const void *bias;    /* [n] or NULL */
    int8_t a_type, w_type, bias_type, out_type;
} systolic_f_params;

/* C for m activation rows: rows[r] points at k elements of p->a_type.
 * Output row r goes to out + r * out_stride elements (of p->out_type),
 * channel j to element j of it. scratch: systolic_f_scratch_bytes(p) bytes,
 * 4-byte aligned (may be NULL when that is 0). */
void systolic_f_gemm(const systolic_f_params *p, const void *const *rows, int32_t m, void *out,
                     int32_t out_stride, float *scratch);

/* Same for rows stored densely: row r at a + r * a_stride elements. */
void systolic_f_gemm_dense(const systolic_f_params *p, const void *a, int32_t a_stride, int32_t m,
                           void *out, int32_t out_stride, float *scratch);

/* Scratch systolic_f_gemm needs: bf16 rows are widened a tile at a time. */
static inline uint32_t systolic_f_scratch_bytes(int32_t a_type, int32_t k) {
    return a_type == SYSTOLIC_F_BF16 ? 4u * (uint32_t)EDGE_SYSTOLIC_ROWS * (uint32_t)k : 0u;
}

#endif
