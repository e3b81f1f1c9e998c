/* SPDX-License-Identifier: Apache-2.0 */
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
#include "kernels/x86/systolic_x86.h"
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

/* Case t's FULLY_CONNECTED parameters (double-scale requantization) for
 * weights w and scales: random offsets, a clamp every fourth case, per
 * channel every other one. */
static systolic_params fc_case(int t, int32_t k, int32_t n, const int8_t *w, const double *scale) {
    systolic_params p;
    memset(&p, 0, sizeof p);
    p.k = k;
    p.n = n;
    p.input_offset = rnd_range(-127, 128);
    p.output_offset = rnd_range(-128, 127);
    p.act_min = -128;
    p.act_max = 127;
    if (t % 4 == 1) p.act_min = rnd_range(-128, 0), p.act_max = rnd_range(1, 127);
    p.weights = w;
    p.scale = scale;
    p.per_channel = (uint8_t)(t % 2);
    p.requant = SYSTOLIC_REQUANT_DOUBLE;
    return p;
}

/* The double-scale path (FULLY_CONNECTED) at `level` against the portable
 * systolic_gemm. AVX2 takes symmetric weights (-128 too) and the model's
 * bias, unfolded. */
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
        systolic_params p = fc_case(t, k, n, w, scale);
        p.filter_offset = t % 3 == 0 && level == SYSTOLIC_X86_VNNI ? rnd_range(-127, 128) : 0;
        systolic_fold_bias(&p, t % 4 ? bias : NULL, eb);
        p.bias = eb;
        systolic_gemm_dense(&p, a, k, m, want, n);
        p.simd = level;
        if (level == SYSTOLIC_X86_VNNI) systolic_x86_bias_shift(&p, eb);
        if (level == SYSTOLIC_X86_AVX2) p.bias = t % 4 ? bias : NULL; /* it takes the model's */
        memset(got, 0x55, sizeof got);
        systolic_gemm_dense(&p, a, k, m, got, n);
        if (memcmp(want, got, (size_t)(m * n)) != 0)
            fail_msg("level %d case %d: m %d n %d k %d differs", level, t, m, n, k);
    }
}

/* FULLY_CONNECTED from packed weights (systolic_x86_fc_lanes_*: channels
 * across lanes, the input offset folded into the bias at pack) against the
 * portable systolic_gemm: odd k and n, several rows, more channels than one
 * requantization chunk (512) and weights without -128, its condition. */
static void test_avx2_fc_lanes_matches_portable(void **state) {
    (void)state;
    if (systolic_x86_level() < SYSTOLIC_X86_AVX2) skip();
    enum { LN = 700, LK = 300 };
    static int8_t a[3 * LK], w[LN * LK];
    static uint8_t want[3 * LN], got[3 * LN];
    static int32_t bias[LN], eb[LN];
    static double scale[LN];
    static _Alignas(32) uint8_t packed[LN * LK + 8 * LK + 4 * LN + 64];
    for (int t = 0; t < 600; t++) {
        const int32_t m = rnd_range(1, 3), n = t % 10 == 0 ? rnd_range(513, LN) : rnd_range(1, 80);
        const int32_t k = t % 6 == 0 ? rnd_range(100, LK) : rnd_range(1, 40);
        for (int32_t i = 0; i < m * k; i++) a[i] = (int8_t)rnd();
        if (t % 5 == 0) /* the largest products */
            for (int32_t i = 0; i < m * k; i++) a[i] = (int8_t)(rnd() % 2 ? -128 : 127);
        for (int32_t i = 0; i < n * k; i++) {
            w[i] = (int8_t)rnd();
            if (w[i] == -128) w[i] = -127;
        }
        for (int32_t c = 0; c < n; c++) {
            bias[c] = (int32_t)rnd() >> rnd_range(0, 31);
            scale[c] = (double)rnd_range(0, 100000) * 1e-9 * (rnd() % 3 ? 1.0 : 1e4);
            if (rnd() % 9 == 0) scale[c] = -scale[c];
        }
        systolic_params p = fc_case(t, k, n, w, scale);
        systolic_fold_bias(&p, t % 4 ? bias : NULL, eb);
        p.bias = eb;
        systolic_gemm_dense(&p, a, k, m, want, n);
        const uint32_t bytes = systolic_x86_fc_lanes_bytes(k, n);
        assert_true(bytes > 0 && bytes <= sizeof packed);
        assert_int_equal(systolic_x86_fc_lanes_pack(&p, t % 4 ? bias : NULL, packed), 1);
        memset(got, 0x55, sizeof got);
        systolic_x86_fc_lanes_avx2(&p, packed, a, m, got, n);
        if (memcmp(want, got, (size_t)(m * n)) != 0) fail_msg("case %d: m %d n %d k %d differs", t, m, n, k);
    }
    /* A -128 weight is refused. */
    w[0] = -128;
    systolic_params p;
    memset(&p, 0, sizeof p);
    p.k = p.n = 1;
    p.weights = w;
    assert_int_equal(systolic_x86_fc_lanes_pack(&p, NULL, packed), 0);
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

/* Output height of conv geometry g, and its out_w, as TFLite sizes
 * explicit padding (<= 0: the filter does not fit). */
static int32_t conv_out_size(systolic_x86_conv *g) {
    const int32_t out_h = (g->in_h + 2 * g->pad_h - (g->k_h - 1) * g->dil_h - 1) / g->stride_h + 1;
    g->out_w = (g->in_w + 2 * g->pad_w - (g->k_w - 1) * g->dil_w - 1) / g->stride_w + 1;
    return out_h;
}

/* Output pixel (oy, ox)'s im2col row of group grp: the filter's (ky, kx, c)
 * order, `pad` outside the image. */
static void im2col_px(const systolic_x86_conv *g, const int8_t *img, int32_t oy, int32_t ox, int32_t grp,
                      int8_t pad, int8_t *d) {
    for (int32_t ky = 0; ky < g->k_h; ky++)
        for (int32_t kx = 0; kx < g->k_w; kx++)
            for (int32_t c = 0; c < g->group_in_c; c++) {
                const int32_t iy = oy * g->stride_h - g->pad_h + ky * g->dil_h;
                const int32_t ix = ox * g->stride_w - g->pad_w + kx * g->dil_w;
                const int in = iy >= 0 && iy < g->in_h && ix >= 0 && ix < g->in_w;
                *d++ = in ? img[(iy * g->in_w + ix) * g->in_c + grp * g->group_in_c + c] : pad;
            }
}

/* systolic_x86_panel_conv_avx2 against im2col rows stored by
 * systolic_x86_panel_row, on random geometries (groups, strides,
 * dilations, padding on every side, partial last panels). */
static void test_avx2_panel_conv_matches_im2col(void **state) {
    (void)state;
    if (systolic_x86_level() < SYSTOLIC_X86_AVX2) skip();
    static int8_t img[20 * 20 * 64], row[2048];
    static uint8_t want[16 * 2048], got[16 * 2048];
    int checked = 0;
    for (int t = 0; t < 3000; t++) {
        systolic_x86_conv g;
        memset(&g, 0, sizeof g);
        g.in_h = rnd_range(1, 20);
        g.in_w = rnd_range(1, 20);
        const int32_t groups = t % 5 == 0 ? rnd_range(2, 4) : 1;
        g.group_in_c = 4 * rnd_range(1, 16 / groups);
        g.in_c = g.group_in_c * groups;
        g.k_h = rnd_range(1, 5);
        g.k_w = rnd_range(1, 5);
        g.stride_h = rnd_range(1, 3);
        g.stride_w = rnd_range(1, 3);
        g.dil_h = t % 4 == 0 ? rnd_range(1, 3) : 1;
        g.dil_w = t % 4 == 1 ? rnd_range(1, 3) : 1;
        g.pad_h = rnd_range(0, (g.k_h - 1) * g.dil_h);
        g.pad_w = rnd_range(0, (g.k_w - 1) * g.dil_w);
        const int32_t out_h = conv_out_size(&g);
        if (out_h <= 0 || g.out_w <= 0) continue;
        const uint8_t pad = (uint8_t)rnd();
        g.pad_word = pad * 0x01010101u;
        const int32_t k = g.k_h * g.k_w * g.group_in_c;
        if (k > 2048 || !systolic_x86_conv_ok(&g)) continue;
        for (int32_t i = 0; i < g.in_h * g.in_w * g.in_c; i++) img[i] = (int8_t)rnd();
        const int32_t pixels = out_h * g.out_w;
        const int32_t px0 = rnd_range(0, pixels - 1) / 16 * 16, grp = rnd_range(0, groups - 1);
        const int32_t mr = pixels - px0 < 16 ? pixels - px0 : 16;
        for (int32_t r = 0; r < mr; r++) {
            im2col_px(&g, img, (px0 + r) / g.out_w, (px0 + r) % g.out_w, grp, (int8_t)pad, row);
            systolic_x86_panel_row(want, r, row, k, 0);
        }
        systolic_x86_panel_conv_avx2(got, img, &g, px0, mr, grp);
        for (int32_t q = 0; q < k / 4; q++)
            if (memcmp(want + 64 * q, got + 64 * q, (size_t)(4 * mr)) != 0)
                fail_msg("case %d: word %d of %dx%dx%d k %dx%d differs", t, q, g.in_h, g.in_w, g.in_c, g.k_h, g.k_w);
        checked++;
    }
    assert_true(checked > 1000);
}

/* The first-layer kernel (systolic_x86_conv_first_avx2, 1-4 input
 * channels, -128 weights allowed) or the channels-across-lanes one
 * (systolic_x86_conv_lanes_avx2, input channels of 4, column dilation)
 * against im2col rows through the portable systolic_gemm: filters up to
 * 6x6, strides, row dilation, padding on every side, per-channel and
 * per-tensor requantization with shifts either way, clamps, NULL bias. */
static void check_conv_kernel(int lanes) {
    enum { FMAX_OUT = 24 * 24, FMAX_C = 48, FMAX_K = 6 * 6 * 24 };
    static int8_t img[24 * 24 * 24], filt[FMAX_C * FMAX_K], rows[FMAX_OUT * FMAX_K];
    static int8_t want[FMAX_OUT * FMAX_C], got[FMAX_OUT * FMAX_C];
    static int32_t bias[FMAX_C], eb[FMAX_C], mult[FMAX_C];
    static int8_t shift[FMAX_C];
    int checked = 0;
    for (int t = 0; t < 2000; t++) {
        systolic_x86_conv g;
        memset(&g, 0, sizeof g);
        g.in_h = rnd_range(1, 24);
        g.in_w = rnd_range(1, 24);
        g.in_c = g.group_in_c = lanes ? 4 * rnd_range(1, 6) : rnd_range(1, 4);
        g.k_h = rnd_range(1, 6);
        g.k_w = rnd_range(1, 6);
        g.stride_h = rnd_range(1, 3);
        g.stride_w = rnd_range(1, 3);
        g.dil_h = t % 4 == 0 ? rnd_range(1, 3) : 1;
        g.dil_w = lanes && t % 4 == 1 ? rnd_range(1, 3) : 1;
        if (lanes && t % 8 == 2) /* pointwise: the lanes kernel's direct path */
            g.k_h = g.k_w = g.stride_h = g.stride_w = 1;
        g.pad_h = rnd_range(0, (g.k_h - 1) * g.dil_h);
        g.pad_w = rnd_range(0, (g.k_w - 1) * g.dil_w);
        const int32_t out_h = conv_out_size(&g);
        const int32_t out_c = 8 * rnd_range(1, FMAX_C / 8), k = g.k_h * g.k_w * g.in_c;
        if (out_h <= 0 || g.out_w <= 0 || out_h * g.out_w > FMAX_OUT) continue;
        if (lanes ? !systolic_x86_conv_lanes_ok(&g, out_c) : !systolic_x86_conv_first_ok(&g, out_c)) continue;
        const int32_t in_zp = rnd_range(-128, 127);
        g.pad_word = (uint8_t)in_zp * 0x01010101u;
        for (int32_t i = 0; i < g.in_h * g.in_w * g.in_c; i++) img[i] = (int8_t)rnd();
        for (int32_t i = 0; i < out_c * k; i++) {
            filt[i] = (int8_t)rnd();
            if (lanes && filt[i] == -128) filt[i] = -127; /* its condition */
        }
        systolic_params p;
        memset(&p, 0, sizeof p);
        p.k = k;
        p.n = out_c;
        p.input_offset = -in_zp;
        p.output_offset = rnd_range(-128, 127);
        p.act_min = -128;
        p.act_max = 127;
        if (t % 3 == 0) p.act_min = rnd_range(-128, 0), p.act_max = rnd_range(1, 127);
        p.per_channel = (uint8_t)(t % 2);
        p.requant = SYSTOLIC_REQUANT_FIXED;
        p.weights = filt;
        for (int32_t c = 0; c < out_c; c++) {
            bias[c] = (int32_t)rnd() >> rnd_range(0, 31);
            int s;
            edge_quantize_multiplier((double)rnd_range(1, 1000000) * 1e-6 * (t % 7 == 0 ? 300.0 : 0.01),
                                     &mult[c], &s);
            shift[c] = (int8_t)s;
        }
        p.multiplier = mult;
        p.shift = shift;
        const int32_t *b = t % 9 == 0 ? NULL : bias;
        for (int32_t oy = 0; oy < out_h; oy++)
            for (int32_t ox = 0; ox < g.out_w; ox++)
                im2col_px(&g, img, oy, ox, 0, (int8_t)in_zp, rows + (oy * g.out_w + ox) * k);
        systolic_fold_bias(&p, b, eb);
        p.bias = eb;
        systolic_gemm_dense(&p, rows, k, out_h * g.out_w, want, out_c);
        memset(got, 0x55, sizeof got);
        p.bias = b; /* both take the model's bias */
        if (lanes) systolic_x86_conv_lanes_avx2(&g, out_h, out_c, &p, img, filt, got);
        else systolic_x86_conv_first_avx2(&g, out_h, out_c, &p, b, img, filt, got);
        if (memcmp(want, got, (size_t)(out_h * g.out_w * out_c)) != 0)
            fail_msg("case %d: %dx%dx%d k %dx%d s %dx%d -> %d differs", t, g.in_h, g.in_w, g.in_c, g.k_h, g.k_w,
                     g.stride_h, g.stride_w, out_c);
        checked++;
    }
    assert_true(checked > 1000);
}

static void test_avx2_conv_first_matches_portable(void **state) {
    (void)state;
    if (systolic_x86_level() < SYSTOLIC_X86_AVX2) skip();
    check_conv_kernel(0);
}

static void test_avx2_conv_lanes_matches_portable(void **state) {
    (void)state;
    if (systolic_x86_level() < SYSTOLIC_X86_AVX2) skip();
    check_conv_kernel(1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vnni_panel_matches_portable),
        cmocka_unit_test(test_avx2_panel_matches_portable),
        cmocka_unit_test(test_vnni_double_requant_matches_portable),
        cmocka_unit_test(test_avx2_double_requant_matches_portable),
        cmocka_unit_test(test_avx2_fc_lanes_matches_portable),
        cmocka_unit_test(test_avx2_panel_conv_matches_im2col),
        cmocka_unit_test(test_avx2_conv_first_matches_portable),
        cmocka_unit_test(test_avx2_conv_lanes_matches_portable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else
/* systolic_x86_panel_conv_avx2 against im2col rows stored by
 * systolic_x86_panel_row, on random geometries (groups, strides,
 * dilations, padding on every side, partial last panels). */
static void test_avx2_panel_conv_matches_im2col(void **state) {
    (void)state;
    if (systolic_x86_level() < SYSTOLIC_X86_AVX2) skip();
    static int8_t img[20 * 20 * 64], row[2048];
    static uint8_t want[16 * 2048], got[16 * 2048];
    int checked = 0;
    for (int t = 0; t < 3000; t++) {
        systolic_x86_conv g;
        memset(&g, 0, sizeof g);
        g.in_h = rnd_range(1, 20);
        g.in_w = rnd_range(1, 20);
        const int32_t groups = t % 5 == 0 ? rnd_range(2, 4) : 1;
        g.group_in_c = 4 * rnd_range(1, 16 / groups);
        g.in_c = g.group_in_c * groups;
        g.k_h = rnd_range(1, 5);
        g.k_w = rnd_range(1, 5);
        g.stride_h = rnd_range(1, 3);
        g.stride_w = rnd_range(1, 3);
        g.dil_h = t % 4 == 0 ? rnd_range(1, 3) : 1;
        g.dil_w = t % 4 == 1 ? rnd_range(1, 3) : 1;
        if (lanes && t % 8 == 2) /* pointwise: the lanes kernel's direct path */
            g.k_h = g.k_w = g.stride_h = g.stride_w = 1;
        g.pad_h = rnd_range(0, (g.k_h - 1) * g.dil_h);
        g.pad_w = rnd_range(0, (g.k_w - 1) * g.dil_w);
        const int32_t out_h = conv_out_size(&g);
        if (out_h <= 0 || g.out_w <= 0) continue;
        const uint8_t pad = (uint8_t)rnd();
        g.pad_word = pad * 0x01010101u;
        const int32_t k = g.k_h * g.k_w * g.group_in_c;
        if (k > 2048 || !systolic_x86_conv_ok(&g)) continue;
        for (int32_t i = 0; i < g.in_h * g.in_w * g.in_c; i++) img[i] = (int8_t)rnd();
        const int32_t pixels = out_h * g.out_w;
        const int32_t px0 = rnd_range(0, pixels - 1) / 16 * 16, grp = rnd_range(0, groups - 1);
        const int32_t mr = pixels - px0 < 16 ? pixels - px0 : 16;
        for (int32_t r = 0; r < mr; r++) {
            im2col_px(&g, img, (px0 + r) / g.out_w, (px0 + r) % g.out_w, grp, (int8_t)pad, row);
            systolic_x86_panel_row(want, r, row, k, 0);
        }
        systolic_x86_panel_conv_avx2(got, img, &g, px0, mr, grp);
        for (int32_t q = 0; q < k / 4; q++)
            if (memcmp(want + 64 * q, got + 64 * q, (size_t)(4 * mr)) != 0)
                fail_msg("case %d: word %d of %dx%dx%d k %dx%d differs", t, q, g.in_h, g.in_w, g.in_c, g.k_h, g.k_w);
        checked++;
    }
    assert_true(checked > 1000);
}

/* The first-layer kernel (systolic_x86_conv_first_avx2) against im2col
 * rows through the portable systolic_gemm: 1-4 input channels, filters
 * up to 6x6, strides, row dilation, padding on every side, per-channel and
 * per-tensor requantization with shifts either way, -128 weights, clamps,
 * NULL bias. */
static void test_avx2_conv_first_matches_portable(void **state) {
    (void)state;
    if (systolic_x86_level() < SYSTOLIC_X86_AVX2) skip();
    enum { FMAX_OUT = 24 * 24, FMAX_C = 48, FMAX_K = 6 * 6 * 4 };
    static int8_t img[24 * 24 * 4], filt[FMAX_C * FMAX_K], rows[FMAX_OUT * FMAX_K];
    static int8_t want[FMAX_OUT * FMAX_C], got[FMAX_OUT * FMAX_C];
    static int32_t bias[FMAX_C], eb[FMAX_C], mult[FMAX_C];
    static int8_t shift[FMAX_C];
    int checked = 0;
    for (int t = 0; t < 2000; t++) {
        systolic_x86_conv g;
        memset(&g, 0, sizeof g);
        g.in_h = rnd_range(1, 24);
        g.in_w = rnd_range(1, 24);
        g.in_c = g.group_in_c = rnd_range(1, 4);
        g.k_h = rnd_range(1, 6);
        g.k_w = rnd_range(1, 6);
        g.stride_h = rnd_range(1, 3);
        g.stride_w = rnd_range(1, 3);
        g.dil_h = t % 4 == 0 ? rnd_range(1, 3) : 1;
        g.dil_w = 1;
        g.pad_h = rnd_range(0, (g.k_h - 1) * g.dil_h);
        g.pad_w = rnd_range(0, g.k_w - 1);
        const int32_t out_h = (g.in_h + 2 * g.pad_h - (g.k_h - 1) * g.dil_h - 1) / g.stride_h + 1;
        g.out_w = (g.in_w + 2 * g.pad_w - g.k_w) / g.stride_w + 1;
        const int32_t out_c = 8 * rnd_range(1, FMAX_C / 8), k = g.k_h * g.k_w * g.in_c;
        if (out_h <= 0 || g.out_w <= 0 || out_h * g.out_w > FMAX_OUT) continue;
        if (!systolic_x86_conv_first_ok(&g, out_c)) continue;
        const int32_t in_zp = rnd_range(-128, 127);
        g.pad_word = (uint8_t)in_zp * 0x01010101u;
        for (int32_t i = 0; i < g.in_h * g.in_w * g.in_c; i++) img[i] = (int8_t)rnd();
        for (int32_t i = 0; i < out_c * k; i++) filt[i] = (int8_t)rnd();
        systolic_params p;
        memset(&p, 0, sizeof p);
        p.k = k;
        p.n = out_c;
        p.input_offset = -in_zp;
        p.output_offset = rnd_range(-128, 127);
        p.act_min = -128;
        p.act_max = 127;
        if (t % 3 == 0) p.act_min = rnd_range(-128, 0), p.act_max = rnd_range(1, 127);
        p.per_channel = (uint8_t)(t % 2);
        p.requant = SYSTOLIC_REQUANT_FIXED;
        p.weights = filt;
        for (int32_t c = 0; c < out_c; c++) {
            bias[c] = (int32_t)rnd() >> rnd_range(0, 31);
            int s;
            edge_quantize_multiplier((double)rnd_range(1, 1000000) * 1e-6 * (t % 7 == 0 ? 300.0 : 0.01),
                                     &mult[c], &s);
            shift[c] = (int8_t)s;
        }
        p.multiplier = mult;
        p.shift = shift;
        const int32_t *b = t % 9 == 0 ? NULL : bias;
        for (int32_t oy = 0; oy < out_h; oy++)
            for (int32_t ox = 0; ox < g.out_w; ox++) {
                int8_t *d = rows + (oy * g.out_w + ox) * k;
                for (int32_t ky = 0; ky < g.k_h; ky++)
                    for (int32_t kx = 0; kx < g.k_w; kx++)
                        for (int32_t c = 0; c < g.in_c; c++) {
                            const int32_t iy = oy * g.stride_h - g.pad_h + ky * g.dil_h;
                            const int32_t ix = ox * g.stride_w - g.pad_w + kx;
                            const int in = iy >= 0 && iy < g.in_h && ix >= 0 && ix < g.in_w;
                            *d++ = in ? img[(iy * g.in_w + ix) * g.in_c + c] : (int8_t)in_zp;
                        }
            }
        systolic_fold_bias(&p, b, eb);
        p.bias = eb;
        systolic_gemm_dense(&p, rows, k, out_h * g.out_w, want, out_c);
        memset(got, 0x55, sizeof got);
        systolic_x86_conv_first_avx2(&g, out_h, out_c, &p, b, img, filt, got);
        if (memcmp(want, got, (size_t)(out_h * g.out_w * out_c)) != 0)
            fail_msg("case %d: %dx%dx%d k %dx%d s %dx%d -> %d differs", t, g.in_h, g.in_w, g.in_c, g.k_h, g.k_w,
                     g.stride_h, g.stride_w, out_c);
        checked++;
    }
    assert_true(checked > 1000);
}

int main(void) { return 0; }
#endif
