/* SPDX-License-Identifier: Apache-2.0 */
/*
 * systolic_mve.c — the systolic array's int8 inner tile on Cortex-M
 * Helium (MVE: Cortex-M55, M85).
 *
 * Built when EDGE_SYSTOLIC_MVE is defined (see systolic.h); otherwise this
 * file is empty and the portable tile in systolic.c is used.
 *
 * VMLADAVA.S8 multiplies 16 int8 pairs and adds all 16 products to a
 * general-purpose register: one instruction per 16 MACs, and each
 * activation vector is loaded once for four output channels. The last
 * k % 16 elements use tail predication (VCTP: lanes past k load as zero and
 * are left out). The 32-bit accumulate wraps modulo 2^32 like the portable
 * tile's uint32 sums, so the results are bit-exact.
 */
#include "../systolic.h"

#if defined(EDGE_SYSTOLIC_MVE)

#if !defined(__ARM_FEATURE_MVE)
#error "EDGE_SYSTOLIC_MVE needs a core with MVE (-mcpu=cortex-m55 or -march=armv8.1-m.main+mve)"
#endif

#include <arm_mve.h>

void systolic_tile_dot_s8_variant(const int8_t *a, const int8_t *w, int32_t ws, int32_t k,
                                  int32_t nc, uint32_t *acc) {
    const int32_t k16 = k & ~15;
    const mve_pred16_t tail = vctp8q((uint32_t)(k - k16));
    int32_t c = 0;
    for (; c + 4 <= nc; c += 4) {
        const int8_t *w0 = w + c * ws, *w1 = w0 + ws, *w2 = w1 + ws, *w3 = w2 + ws;
        int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (int32_t i = 0; i < k16; i += 16) {
            const int8x16_t x = vld1q_s8(a + i);
            s0 = vmladavaq_s8(s0, x, vld1q_s8(w0 + i));
            s1 = vmladavaq_s8(s1, x, vld1q_s8(w1 + i));
            s2 = vmladavaq_s8(s2, x, vld1q_s8(w2 + i));
            s3 = vmladavaq_s8(s3, x, vld1q_s8(w3 + i));
        }
        if (k16 < k) {
            const int8x16_t x = vld1q_z_s8(a + k16, tail);
            s0 = vmladavaq_p_s8(s0, x, vld1q_z_s8(w0 + k16, tail), tail);
            s1 = vmladavaq_p_s8(s1, x, vld1q_z_s8(w1 + k16, tail), tail);
            s2 = vmladavaq_p_s8(s2, x, vld1q_z_s8(w2 + k16, tail), tail);
            s3 = vmladavaq_p_s8(s3, x, vld1q_z_s8(w3 + k16, tail), tail);
        }
        acc[c] = (uint32_t)s0;
        acc[c + 1] = (uint32_t)s1;
        acc[c + 2] = (uint32_t)s2;
        acc[c + 3] = (uint32_t)s3;
    }
    for (; c < nc; c++) {
        const int8_t *w0 = w + c * ws;
        int32_t s0 = 0;
        for (int32_t i = 0; i < k16; i += 16) s0 = vmladavaq_s8(s0, vld1q_s8(a + i), vld1q_s8(w0 + i));
        if (k16 < k) s0 = vmladavaq_p_s8(s0, vld1q_z_s8(a + k16, tail), vld1q_z_s8(w0 + k16, tail), tail);
        acc[c] = (uint32_t)s0;
    }
}

#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int systolic_mve_unused;
#endif
