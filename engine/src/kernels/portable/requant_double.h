/* SPDX-License-Identifier: Apache-2.0 */
/*
 * requant_double.h — LiteRT's reference FULLY_CONNECTED requantization,
 * round(double(acc) * scale), shared by the portable GEMM (systolic.c) and
 * the per-channel requantization variants fall back to
 * (systolic_requant.c).
 */
#ifndef EDGE_KERNELS_PORTABLE_REQUANT_DOUBLE_H
#define EDGE_KERNELS_PORTABLE_REQUANT_DOUBLE_H

#include <stdint.h>

#include "../../quant.h" /* edge_round */

/* (int32) of a double as x86 converts it: out-of-range gives INT32_MIN,
 * which is what the oracle (LiteRT on x86) does with its static_cast. */
static inline int32_t double_to_i32(double x) {
    double r = edge_round(x);
    if (!(r >= -2147483648.0 && r < 2147483648.0)) return INT32_MIN;
    return (int32_t)r;
}

/* The double-scale requantization (LiteRT's reference FULLY_CONNECTED). */
static inline int32_t requant_double(uint32_t acc, double scale) {
    return double_to_i32((double)(int32_t)acc * scale);
}

#endif
