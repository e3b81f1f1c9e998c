/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_systolic.c — the systolic GEMM and the depthwise vector kernel
 * against straightforward transcriptions of TFLite's reference loops:
 * every tile remainder, int8 and uint8, per-tensor and per-channel,
 * fixed-point and double requantization, int32 wrap-around, clamps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/depthwise.h"
#include "kernels/systolic.h"
#include "quant.h"

static uint32_t rng_state = 0x12345678u;
static uint32_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}
static int32_t rnd_range(int32_t lo, int32_t hi) { return lo + (int32_t)(rnd() % (uint32_t)(hi - lo + 1)); }

/* Element i of an int8 or uint8 buffer, as an int. */
static int32_t elem(const uint8_t *buf, int is_unsigned, size_t i) {
    return is_unsigned ? (int32_t)buf[i] : (int32_t)(int8_t)buf[i];
}

/* TFLite's per-element requantization, written out directly. */
static int32_t ref_requant(const systolic_params *p, int32_t acc, int32_t ch) {
    int32_t i = p->per_channel ? ch : 0, v;
    if (p->requant == SYSTOLIC_REQUANT_DOUBLE) {
        double r = edge_round((double)acc * p->scale[i]);
        v = (r >= -2147483648.0 && r < 2147483648.0) ? (int32_t)r : INT32_MIN;
    } else {
        v = edge_mbqm(acc, p->multiplier[i], p->shift[i]);
    }
    v = (int32_t)((uint32_t)v + (uint32_t)p->output_offset);
    return v < p->act_min ? p->act_min : (v > p->act_max ? p->act_max : v);
}

/* The reference FullyConnected loop: sum (w + fo)(a + io) + bias, wrapping. */
static int32_t ref_acc(const systolic_params *p, const uint8_t *a, const uint8_t *w, const int32_t *bias,
                       int32_t c) {
    uint32_t acc = 0;
    for (int32_t i = 0; i < p->k; i++) {
        int32_t x = elem(a, p->is_unsigned, (size_t)i) + p->input_offset;
        int32_t f = elem(w, p->is_unsigned, (size_t)c * (size_t)p->k + (size_t)i) + p->filter_offset;
        acc += (uint32_t)(x * f);
    }
    if (bias) acc += (uint32_t)bias[c];
    return (int32_t)acc;
}

typedef struct gemm_case {
    systolic_params p;
    uint8_t *a, *w, *out;
    int32_t *bias, *eff, *mult;
    int8_t *shift;
    double *scale;
    int32_t m;
    int has_bias;
} gemm_case;

static void make_case(gemm_case *g, int32_t m, int32_t n, int32_t k, int is_unsigned, int per_channel,
                      int requant) {
    memset(g, 0, sizeof *g);
    g->m = m;
    g->a = malloc((size_t)m * (size_t)k);
    g->w = malloc((size_t)n * (size_t)k);
    g->out = malloc((size_t)m * (size_t)n);
    g->bias = malloc(4u * (size_t)n);
    g->eff = malloc(4u * (size_t)n);
    g->mult = malloc(4u * (size_t)n);
    g->shift = malloc((size_t)n);
    g->scale = malloc(8u * (size_t)n);
    for (size_t i = 0; i < (size_t)m * (size_t)k; i++) g->a[i] = (uint8_t)rnd();
    for (size_t i = 0; i < (size_t)n * (size_t)k; i++) g->w[i] = (uint8_t)rnd();
    for (int32_t i = 0; i < n; i++) {
        double real = (double)(rnd() % 4000 + 1) * 2e-6;
        int s;
        g->bias[i] = rnd_range(-20000, 20000);
        edge_quantize_multiplier(real, &g->mult[i], &s);
        g->shift[i] = (int8_t)s;
        g->scale[i] = real;
    }
    systolic_params *p = &g->p;
    p->k = k;
    p->n = n;
    p->is_unsigned = (uint8_t)is_unsigned;
    p->per_channel = (uint8_t)per_channel;
    p->requant = (uint8_t)requant;
    p->input_offset = is_unsigned ? -rnd_range(0, 255) : -rnd_range(-128, 127);
    p->filter_offset = is_unsigned ? -rnd_range(0, 255) : 0;
    p->output_offset = is_unsigned ? rnd_range(0, 255) : rnd_range(-128, 127);
    p->act_min = is_unsigned ? 0 : -128;
    p->act_max = is_unsigned ? 255 : 127;
    if (rnd() % 3 == 0) {
        p->act_min += 7;
        p->act_max -= 30;
    }
    p->weights = g->w;
    p->multiplier = g->mult;
    p->shift = g->shift;
    p->scale = g->scale;
    g->has_bias = rnd() % 4 != 0;
    systolic_fold_bias(p, g->has_bias ? g->bias : NULL, g->eff);
    p->bias = g->eff;
}

static void free_case(gemm_case *g) {
    free(g->a);
    free(g->w);
    free(g->out);
    free(g->bias);
    free(g->eff);
    free(g->mult);
    free(g->shift);
    free(g->scale);
}

static void check_case(const gemm_case *g) {
    const systolic_params *p = &g->p;
    for (int32_t r = 0; r < g->m; r++) {
        for (int32_t c = 0; c < p->n; c++) {
            int32_t acc = ref_acc(p, g->a + (size_t)r * (size_t)p->k, g->w, g->has_bias ? g->bias : NULL, c);
            int32_t want = ref_requant(p, acc, c);
            int32_t got = elem(g->out, p->is_unsigned, (size_t)r * (size_t)p->n + (size_t)c);
            if (got != want) {
                print_message("m=%d n=%d k=%d u8=%d pc=%d rq=%d: [%d][%d] got %d want %d\n", g->m, p->n, p->k,
                              p->is_unsigned, p->per_channel, p->requant, r, c, got, want);
                fail();
            }
        }
    }
}

static void test_gemm_matches_reference_loops(void **state) {
    (void)state;
    for (int t = 0; t < 2000; t++) {
        gemm_case g;
        int32_t m = rnd_range(1, 3 * EDGE_SYSTOLIC_ROWS + 1), n = rnd_range(1, 3 * EDGE_SYSTOLIC_COLS + 5),
                k = rnd_range(1, 90);
        make_case(&g, m, n, k, t & 1, (t >> 1) & 1, (t >> 2) & 1);
        systolic_gemm_dense(&g.p, g.a, k, m, g.out, n);
        check_case(&g);
        free_case(&g);
    }
}

static void test_gemm_row_pointers_and_strides(void **state) {
    (void)state;
    /* Rows taken out of order from a larger buffer, output rows padded. */
    gemm_case g;
    const int32_t m = 7, n = 9, k = 37, out_stride = 13;
    make_case(&g, m, n, k, 0, 1, SYSTOLIC_REQUANT_FIXED);
    const void *rows[7];
    for (int32_t r = 0; r < m; r++) rows[r] = g.a + (size_t)(m - 1 - r) * (size_t)k;
    uint8_t *out = calloc((size_t)m * (size_t)out_stride, 1);
    memset(out, 0x5a, (size_t)m * (size_t)out_stride);
    systolic_gemm(&g.p, rows, m, out, out_stride);
    for (int32_t r = 0; r < m; r++) {
        for (int32_t c = 0; c < out_stride; c++) {
            int32_t got = (int8_t)out[(size_t)r * (size_t)out_stride + (size_t)c];
            if (c >= n) {
                assert_int_equal(out[(size_t)r * (size_t)out_stride + (size_t)c], 0x5a);
                continue;
            }
            int32_t acc = ref_acc(&g.p, g.a + (size_t)(m - 1 - r) * (size_t)k, g.w, g.has_bias ? g.bias : NULL, c);
            assert_int_equal(got, ref_requant(&g.p, acc, c));
        }
    }
    free(out);
    free_case(&g);
}

static void test_accumulator_wraps_like_int32(void **state) {
    (void)state;
    /* 70000 products of 127 * 255 overflow int32: the kernel must wrap
     * exactly as the reference's int32 accumulator does in practice. */
    gemm_case g;
    const int32_t k = 70000;
    make_case(&g, 2, 3, k, 1, 0, SYSTOLIC_REQUANT_FIXED);
    memset(g.a, 255, (size_t)2 * (size_t)k);
    memset(g.w, 255, (size_t)3 * (size_t)k);
    g.p.input_offset = -1;
    g.p.filter_offset = 0;
    systolic_fold_bias(&g.p, g.has_bias ? g.bias : NULL, g.eff);
    systolic_gemm_dense(&g.p, g.a, k, 2, g.out, 3);
    check_case(&g);
    free_case(&g);
}

static void test_double_requant_rounds_half_away_from_zero(void **state) {
    (void)state;
    static const int8_t w[2] = {1, 0};
    static const double scale[1] = {0.5};
    systolic_params p;
    memset(&p, 0, sizeof p);
    p.k = 2;
    p.n = 1;
    p.act_min = -128;
    p.act_max = 127;
    p.weights = w;
    p.scale = scale;
    p.requant = SYSTOLIC_REQUANT_DOUBLE;
    const int8_t a[4][2] = {{3, 0}, {-3, 0}, {5, 0}, {-5, 0}};
    int8_t out[4];
    systolic_gemm_dense(&p, a, 2, 4, out, 1);
    assert_int_equal(out[0], 2);  /* 1.5 -> 2 */
    assert_int_equal(out[1], -2); /* -1.5 -> -2 */
    assert_int_equal(out[2], 3);  /* 2.5 -> 3 */
    assert_int_equal(out[3], -3);
}

/* The eval-time bias fold: every tail of k (SIMD blocks and the scalar
 * rest), int8 and uint8, input and filter offsets, with and without the x86
 * tile offset and the AVX2 sums, against the sum written out. */
static void test_fold_bias_tile_matches_reference(void **state) {
    (void)state;
    static const int32_t ks[] = {1, 3, 15, 16, 17, 31, 32, 33, 47, 48, 64, 100, 147, 640};
    int avx2_max = 0; /* the AVX2 sums only where the CPU has AVX2 */
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    avx2_max = __builtin_cpu_supports("avx2") ? 1 : 0;
#endif
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
        for (int is_unsigned = 0; is_unsigned < 2; is_unsigned++) {
            const int32_t k = ks[ki], n = 5;
            uint8_t *w = malloc((size_t)n * (size_t)k);
            int32_t bias[5], eff[5];
            for (int32_t i = 0; i < n * k; i++) w[i] = (uint8_t)rnd();
            for (int32_t c = 0; c < n; c++) bias[c] = (int32_t)rnd();
            systolic_params p;
            memset(&p, 0, sizeof p);
            p.k = k;
            p.n = n;
            p.weights = w;
            p.is_unsigned = (uint8_t)is_unsigned;
            p.input_offset = rnd_range(-255, 255);
            p.filter_offset = is_unsigned ? rnd_range(-255, 0) : 0;
            for (int32_t tile = 0; tile <= 128; tile += 128) {
                for (int avx2 = 0; avx2 <= avx2_max; avx2++) {
                    for (int with_bias = 0; with_bias < 2; with_bias++) {
                        systolic_fold_bias_tile(&p, with_bias ? bias : NULL, tile, avx2, eff);
                        for (int32_t c = 0; c < n; c++) {
                            uint32_t ws = 0;
                            for (int32_t i = 0; i < k; i++) ws += (uint32_t)elem(w, is_unsigned, (size_t)(c * k + i));
                            uint32_t want = (with_bias ? (uint32_t)bias[c] : 0u) + (uint32_t)p.input_offset * ws +
                                            (uint32_t)k * (uint32_t)p.input_offset * (uint32_t)p.filter_offset -
                                            (uint32_t)tile * ws;
                            assert_int_equal(eff[c], (int32_t)want);
                        }
                    }
                }
            }
            /* The input offset the tile cancels (-128 zero point): no pass. */
            p.input_offset = 128;
            p.filter_offset = 0;
            systolic_fold_bias_tile(&p, bias, 128, 0, eff);
            for (int32_t c = 0; c < n; c++) assert_int_equal(eff[c], bias[c]);
            free(w);
        }
    }
}

static void test_cycle_estimate(void **state) {
    (void)state;
    const uint64_t R = EDGE_SYSTOLIC_ROWS, C = EDGE_SYSTOLIC_COLS;
    assert_int_equal(systolic_cycles(0, 5, 5), 0);
    assert_int_equal(systolic_cycles(R, C, 10), 10 + (R - 1) + (C - 1) + R);
    assert_int_equal(systolic_cycles(R + 1, 2 * C, 10), 4 * (10 + (R - 1) + (C - 1) + R));
}

/* reference_integer_ops::DepthwiseConvPerChannel / reference_ops::DepthwiseConv. */
static void ref_depthwise(const depthwise_params *p, const uint8_t *in, const uint8_t *f, uint8_t *out) {
    const int u = p->is_unsigned;
    for (int32_t b = 0; b < p->batches; b++)
        for (int32_t oy = 0; oy < p->out_h; oy++)
            for (int32_t ox = 0; ox < p->out_w; ox++)
                for (int32_t oc = 0; oc < p->out_c; oc++) {
                    const int32_t ic = oc / p->depth_mult;
                    uint32_t acc = 0;
                    for (int32_t ky = 0; ky < p->k_h; ky++)
                        for (int32_t kx = 0; kx < p->k_w; kx++) {
                            int32_t iy = oy * p->stride_h - p->pad_h + ky * p->dil_h;
                            int32_t ix = ox * p->stride_w - p->pad_w + kx * p->dil_w;
                            if (iy < 0 || iy >= p->in_h || ix < 0 || ix >= p->in_w) continue;
                            int32_t x = elem(in, u, (((size_t)b * (size_t)p->in_h + (size_t)iy) * (size_t)p->in_w +
                                                     (size_t)ix) * (size_t)p->in_c + (size_t)ic);
                            int32_t w = elem(f, u, ((size_t)ky * (size_t)p->k_w + (size_t)kx) * (size_t)p->out_c +
                                                       (size_t)oc);
                            acc += (uint32_t)((w + p->filter_offset) * (x + p->input_offset));
                        }
                    if (p->bias) acc += (uint32_t)p->bias[oc];
                    const int32_t ch = p->per_channel ? oc : 0;
                    int32_t v = edge_mbqm((int32_t)acc, p->multiplier[ch], p->shift[ch]) + p->output_offset;
                    v = v < p->act_min ? p->act_min : (v > p->act_max ? p->act_max : v);
                    out[(((size_t)b * (size_t)p->out_h + (size_t)oy) * (size_t)p->out_w + (size_t)ox) *
                            (size_t)p->out_c + (size_t)oc] = (uint8_t)v;
                }
}

/* simd_shapes: channel counts and depth multipliers the AVX2 kernel takes,
 * and multipliers above 1 too (left shifts); the kernel then runs with
 * simd set when the CPU has AVX2, and must equal the loops as well. */
static void depthwise_cases(int simd_shapes) {
    for (int t = 0; t < 400; t++) {
        depthwise_params p;
        memset(&p, 0, sizeof p);
        const int u = t % 3 == 0;
        p.is_unsigned = (uint8_t)u;
        p.batches = rnd_range(1, 2);
        p.in_h = rnd_range(1, 9);
        p.in_w = rnd_range(1, 9);
        p.in_c = rnd() % 2 ? rnd_range(1, 5) : rnd_range(30, 70);
        p.depth_mult = rnd() % 2 ? 1 : rnd_range(2, 3);
        p.out_c = p.in_c * p.depth_mult;
        p.k_h = rnd_range(1, 4);
        p.k_w = rnd_range(1, 4);
        p.stride_h = rnd_range(1, 3);
        p.stride_w = rnd_range(1, 3);
        p.dil_h = rnd_range(1, 2);
        p.dil_w = rnd_range(1, 2);
        p.pad_h = rnd_range(0, 2);
        p.pad_w = rnd_range(0, 2);
        p.out_h = rnd_range(1, 8);
        p.out_w = rnd_range(1, 8);
        p.input_offset = u ? -rnd_range(0, 255) : -rnd_range(-128, 127);
        p.filter_offset = u ? -rnd_range(0, 255) : 0;
        p.output_offset = u ? rnd_range(0, 255) : rnd_range(-128, 127);
        p.act_min = u ? 0 : -128;
        p.act_max = u ? 255 : 127;
        p.per_channel = (uint8_t)(!u && rnd() % 2);
        if (simd_shapes) {
            p.depth_mult = rnd() % 2 ? 1 : 8 * rnd_range(1, 2);
            p.in_c = p.depth_mult == 1 ? 8 * rnd_range(1, 10) : rnd_range(1, 3);
            p.out_c = p.in_c * p.depth_mult;
            p.simd = (uint8_t)depthwise_avx2_usable();
        }
        const size_t n_in = (size_t)p.batches * (size_t)p.in_h * (size_t)p.in_w * (size_t)p.in_c;
        const size_t n_f = (size_t)p.k_h * (size_t)p.k_w * (size_t)p.out_c;
        const size_t n_out = (size_t)p.batches * (size_t)p.out_h * (size_t)p.out_w * (size_t)p.out_c;
        uint8_t *in = malloc(n_in), *f = malloc(n_f), *got = malloc(n_out), *want = malloc(n_out);
        int32_t *bias = malloc(4u * (size_t)p.out_c), *mult = malloc(4u * (size_t)p.out_c);
        int8_t *shift = malloc((size_t)p.out_c);
        for (size_t i = 0; i < n_in; i++) in[i] = (uint8_t)rnd();
        for (size_t i = 0; i < n_f; i++) f[i] = (uint8_t)rnd();
        for (int32_t i = 0; i < p.out_c; i++) {
            int s;
            bias[i] = rnd_range(-5000, 5000);
            double real = (double)(rnd() % 4000 + 1) * 1e-5;
            if (simd_shapes && rnd() % 4 == 0) real = (double)(rnd() % 3000 + 1) * 1e-3; /* up to 3 */
            edge_quantize_multiplier(real, &mult[i], &s);
            shift[i] = (int8_t)s;
        }
        p.bias = rnd() % 4 ? bias : NULL;
        p.multiplier = mult;
        p.shift = shift;
        depthwise_conv(&p, in, f, got);
        ref_depthwise(&p, in, f, want);
        assert_memory_equal(got, want, n_out);
        free(in);
        free(f);
        free(got);
        free(want);
        free(bias);
        free(mult);
        free(shift);
    }
}

static void test_depthwise_matches_reference_loops(void **state) {
    (void)state;
    depthwise_cases(0);
}

static void test_depthwise_simd_matches_reference_loops(void **state) {
    (void)state;
    depthwise_cases(1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm_matches_reference_loops),
        cmocka_unit_test(test_gemm_row_pointers_and_strides),
        cmocka_unit_test(test_accumulator_wraps_like_int32),
        cmocka_unit_test(test_double_requant_rounds_half_away_from_zero),
        cmocka_unit_test(test_cycle_estimate),
        cmocka_unit_test(test_fold_bias_tile_matches_reference),
        cmocka_unit_test(test_depthwise_matches_reference_loops),
        cmocka_unit_test(test_depthwise_simd_matches_reference_loops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
