/*
 * test_systolic_x86.c — the x86 SIMD kernels (AVX-512 VNNI and AVX2, picked
 * at run time) against the portable systolic_gemm, which test_systolic.c
 * checks against TFLite's reference loops: random shapes covering every
 * k and channel remainder, the full int8 range, per-tensor and per-channel
 * requantization with shifts either way, clamps, and for the double-scale
 * path (FULLY_CONNECTED) out-of-range and negative scales. A variant the
 * CPU lacks is skipped; on a non-x86 build the whole file is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/systolic.h"
#include "kernels/systolic_x86.h"
#include "quant.h"

#ifdef EDGE_SYSTOLIC_X86

static uint32_t rng_state = 0x9e3779b9u;
static uint32_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}
static int32_t rnd_range(int32_t lo, int32_t hi) { return lo + (int32_t)(rnd() % (uint32_t)(hi - lo + 1)); }

enum { MAX_M = 16, MAX_N = 45, MAX_K = 600 };

/* The panel kernel at `level` against systolic_gemm on the same rows. */
static void check_panel(uint8_t level) {
    static int8_t a[MAX_M * MAX_K], w[MAX_N * MAX_K], want[MAX_M * MAX_N], got[MAX_M * MAX_N];
    static int32_t bias[MAX_N], eb[MAX_N], mult[MAX_N];
    static int8_t shift[MAX_N];
    static uint8_t panel[SYSTOLIC_X86_PANEL_ROWS * 4 * (MAX_K / 4 + 1)];
    for (int t = 0; t < 1500; t++) {
        const int32_t m = rnd_range(1, MAX_M), n = rnd_range(1, MAX_N);
        const int32_t k = t % 6 == 0 ? rnd_range(100, MAX_K) : rnd_range(1, 80);
        for (int32_t i = 0; i < m * k; i++) a[i] = (int8_t)rnd();
        for (int32_t i = 0; i < n * k; i++) {
            w[i] = (int8_t)rnd();
            if (level == SYSTOLIC_X86_AVX2 && w[i] == -128) w[i] = -127; /* its condition */
        }
        systolic_params p;
        memset(&p, 0, sizeof p);
        p.k = k;
        p.n = n;
        p.input_offset = rnd_range(-127, 128);
        p.output_offset = rnd_range(-128, 127);
        p.act_min = -128;
        p.act_max = 127;
        if (t % 3 == 0) p.act_min = -100, p.act_max = 60;
        p.per_channel = (uint8_t)(t % 2);
        p.requant = SYSTOLIC_REQUANT_FIXED;
        p.weights = w;
        for (int32_t c = 0; c < n; c++) {
            bias[c] = (int32_t)rnd() >> rnd_range(0, 31);
            int s;
            edge_quantize_multiplier((double)rnd_range(1, 1000000) * 1e-6 * (t % 7 == 0 ? 300.0 : 1.0),
                                     &mult[c], &s);
            shift[c] = (int8_t)s;
        }
        p.multiplier = mult;
        p.shift = shift;
        assert_true(systolic_x86_panel_ok(&p));
        systolic_fold_bias(&p, bias, eb);
        p.bias = eb;
        systolic_gemm_dense(&p, a, k, m, want, n);

        if (level == SYSTOLIC_X86_VNNI) systolic_x86_bias_shift(&p, eb);
        for (int32_t r = 0; r < m; r++)
            systolic_x86_panel_row(panel, r, a + r * k, k, systolic_x86_panel_flip(level));
        memset(got, 0x55, sizeof got);
        systolic_x86_panel_gemm(level, &p, panel, m, got, n);
        if (memcmp(want, got, (size_t)(m * n)) != 0)
            fail_msg("level %d case %d: m %d n %d k %d differs", level, t, m, n, k);
    }
}

static void test_vnni_panel_matches_portable(void **state) {
    (void)state;
    if (systolic_x86_level() < SYSTOLIC_X86_VNNI) skip();
    check_panel(SYSTOLIC_X86_VNNI);
}

static void test_avx2_panel_matches_portable(void **state) {
    (void)state;
    if (systolic_x86_level() < SYSTOLIC_X86_AVX2) skip();
    check_panel(SYSTOLIC_X86_AVX2);
}

/* The double-scale path (FULLY_CONNECTED) at `level` against the portable
 * systolic_gemm. AVX2 takes symmetric weights without -128 only. */
static void check_double(uint8_t level) {
    static int8_t a[5 * MAX_K], w[MAX_N * MAX_K];
    static uint8_t want[5 * MAX_N], got[5 * MAX_N];
    static int32_t bias[MAX_N], eb[MAX_N];
    static double scale[MAX_N];
    for (int t = 0; t < 4000; t++) {
        const int32_t m = rnd_range(1, 5), n = rnd_range(1, MAX_N);
        const int32_t k = t % 7 == 0 ? rnd_range(100, MAX_K) : rnd_range(1, 90);
        for (int32_t i = 0; i < m * k; i++) a[i] = (int8_t)rnd();
        for (int32_t i = 0; i < n * k; i++) {
            w[i] = (int8_t)rnd();
            if (level == SYSTOLIC_X86_AVX2 && w[i] == -128) w[i] = -127; /* its condition */
        }
        if (t % 5 == 0) /* the largest products */
            for (int32_t i = 0; i < m * k; i++) a[i] = (int8_t)(rnd() % 2 ? -128 : 127);
        for (int32_t c = 0; c < n; c++) {
            bias[c] = (int32_t)rnd() >> rnd_range(0, 31);
            const int e = rnd_range(0, 7);
            scale[c] = (double)rnd_range(0, 100000) * 1e-9 * (e == 0 ? 1e7 : e == 1 ? 1e4 : 1.0);
            if (rnd() % 9 == 0) scale[c] = -scale[c];
            if (rnd() % 40 == 0) scale[c] = 0.5; /* exact ties */
        }
        systolic_params p;
        memset(&p, 0, sizeof p);
        p.k = k;
        p.n = n;
        p.input_offset = rnd_range(-127, 128);
        p.filter_offset = t % 3 == 0 && level == SYSTOLIC_X86_VNNI ? rnd_range(-127, 128) : 0;
        p.output_offset = rnd_range(-128, 127);
        p.act_min = -128;
        p.act_max = 127;
        if (t % 4 == 1) p.act_min = rnd_range(-128, 0), p.act_max = rnd_range(1, 127);
        p.weights = w;
        p.scale = scale;
        p.per_channel = (uint8_t)(t % 2);
        p.requant = SYSTOLIC_REQUANT_DOUBLE;
        systolic_fold_bias(&p, t % 4 ? bias : NULL, eb);
        p.bias = eb;
        systolic_gemm_dense(&p, a, k, m, want, n);
        p.simd = level;
        if (level == SYSTOLIC_X86_VNNI) systolic_x86_bias_shift(&p, eb);
        memset(got, 0x55, sizeof got);
        systolic_gemm_dense(&p, a, k, m, got, n);
        if (memcmp(want, got, (size_t)(m * n)) != 0)
            fail_msg("level %d case %d: m %d n %d k %d differs", level, t, m, n, k);
    }
}

static void test_vnni_double_requant_matches_portable(void **state) {
    (void)state;
    if (systolic_x86_level() < SYSTOLIC_X86_VNNI) skip();
    check_double(SYSTOLIC_X86_VNNI);
}

static void test_avx2_double_requant_matches_portable(void **state) {
    (void)state;
    if (systolic_x86_level() < SYSTOLIC_X86_AVX2) skip();
    check_double(SYSTOLIC_X86_AVX2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vnni_panel_matches_portable),
        cmocka_unit_test(test_avx2_panel_matches_portable),
        cmocka_unit_test(test_vnni_double_requant_matches_portable),
        cmocka_unit_test(test_avx2_double_requant_matches_portable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else
int main(void) { return 0; }
#endif
