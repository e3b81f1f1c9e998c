/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_systolic_f.c — the float / bf16 systolic GEMM against the reference
 * float loop written out directly (products summed in k order in fp32, then
 * the bias, then the clamp; bf16 operands widened, bf16 output rounded):
 * every mix of activation, weight, bias and output types, every tile
 * remainder of rows and channels, row pointers and dense rows, clamps.
 * Results must be bit-identical.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/bf16.h"
#include "kernels/systolic_f.h"

static uint32_t rng_state = 0x9e3779b9u;
static uint32_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}
static float rnd_f(void) { return ((float)(rnd() % 20001u) - 10000.0f) / 2500.0f; }

/* Element i of a FLOAT32 or BFLOAT16 buffer. */
static float ld(const void *p, int type, size_t i) {
    return type == SYSTOLIC_F_BF16 ? edge_bf16_to_f32(((const uint16_t *)p)[i]) : ((const float *)p)[i];
}

static void fill(void *p, int type, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const float v = rnd_f();
        if (type == SYSTOLIC_F_BF16) ((uint16_t *)p)[i] = edge_f32_to_bf16(v);
        else ((float *)p)[i] = v;
    }
}

static size_t es(int type) { return type == SYSTOLIC_F_BF16 ? 2u : 4u; }

static void check_case(int at, int wt, int bt, int ot, int32_t m, int32_t n, int32_t k, float lo,
                       float hi, int dense) {
    void *a = malloc((size_t)m * (size_t)k * 4u), *w = malloc((size_t)n * (size_t)k * 4u);
    void *b = malloc((size_t)n * 4u);
    float *scratch = malloc(systolic_f_scratch_bytes(at, k) + 4u);
    fill(a, at, (size_t)m * (size_t)k);
    fill(w, wt, (size_t)n * (size_t)k);
    if (bt != SYSTOLIC_F_NONE) fill(b, bt, (size_t)n);
    systolic_f_params p = {k, n, lo, hi, w, bt == SYSTOLIC_F_NONE ? NULL : b, (int8_t)at, (int8_t)wt,
                           (int8_t)bt, (int8_t)ot};
    const int32_t ostride = n + 3; /* a wider output row than n */
    void *o = calloc((size_t)m * (size_t)ostride + 8u, 4u);
    if (dense) {
        systolic_f_gemm_dense(&p, a, k, m, o, ostride, scratch);
    } else {
        const void **rows = malloc(sizeof(void *) * (size_t)(m ? m : 1));
        for (int32_t r = 0; r < m; r++) /* rows in reverse order: pointers, not positions */
            rows[r] = (const uint8_t *)a + (size_t)(m - 1 - r) * (size_t)k * es(at);
        systolic_f_gemm(&p, rows, m, o, ostride, scratch);
        free(rows);
    }
    for (int32_t r = 0; r < m; r++) {
        const int32_t src = dense ? r : m - 1 - r;
        for (int32_t c = 0; c < n; c++) {
            float s = 0.0f;
            for (int32_t i = 0; i < k; i++)
                s += ld(a, at, (size_t)src * (size_t)k + (size_t)i) * ld(w, wt, (size_t)c * (size_t)k + (size_t)i);
            float v = s + (bt == SYSTOLIC_F_NONE ? 0.0f : ld(b, bt, (size_t)c));
            v = v < lo ? lo : v;
            v = hi < v ? hi : v;
            const size_t at_o = (size_t)r * (size_t)ostride + (size_t)c;
            if (ot == SYSTOLIC_F_BF16) {
                const uint16_t want = edge_f32_to_bf16(v), got = ((const uint16_t *)o)[at_o];
                if (want != got)
                    fail_msg("a%d w%d b%d o%d m%d n%d k%d: [%d][%d] want 0x%04x got 0x%04x", at, wt, bt,
                             ot, m, n, k, r, c, want, got);
            } else {
                const float got = ((const float *)o)[at_o];
                if (memcmp(&v, &got, 4) != 0)
                    fail_msg("a%d w%d b%d o%d m%d n%d k%d: [%d][%d] want %.9g got %.9g", at, wt, bt, ot,
                             m, n, k, r, c, (double)v, (double)got);
            }
        }
    }
    free(a), free(w), free(b), free(o), free(scratch);
}

static void test_every_type_mix_and_remainder(void **state) {
    (void)state;
    static const int types[] = {SYSTOLIC_F_F32, SYSTOLIC_F_BF16};
    static const int btypes[] = {SYSTOLIC_F_F32, SYSTOLIC_F_BF16, SYSTOLIC_F_NONE};
    for (int ai = 0; ai < 2; ai++)
        for (int wi = 0; wi < 2; wi++)
            for (int bi = 0; bi < 3; bi++)
                for (int oi = 0; oi < 2; oi++)
                    for (int32_t m = 0; m <= 2 * EDGE_SYSTOLIC_ROWS + 1; m += 3)
                        for (int32_t n = 1; n <= 9; n += 2)
                            check_case(types[ai], types[wi], btypes[bi], types[oi], m, n, 1 + (m * 7 + n) % 23,
                                       -3.4e38f, 3.4e38f, (m + n) & 1);
}

static void test_clamps(void **state) {
    (void)state;
    check_case(SYSTOLIC_F_F32, SYSTOLIC_F_F32, SYSTOLIC_F_F32, SYSTOLIC_F_F32, 7, 5, 9, 0.0f, 6.0f, 0);
    check_case(SYSTOLIC_F_BF16, SYSTOLIC_F_BF16, SYSTOLIC_F_F32, SYSTOLIC_F_BF16, 6, 7, 13, -1.0f, 1.0f, 1);
    check_case(SYSTOLIC_F_F32, SYSTOLIC_F_BF16, SYSTOLIC_F_NONE, SYSTOLIC_F_F32, 9, 4, 31, 0.0f, 3.4e38f, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_type_mix_and_remainder),
        cmocka_unit_test(test_clamps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
