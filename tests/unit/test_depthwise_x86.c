/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_depthwise_x86.c — the AVX2 depthwise kernel against the portable one
 * (depthwise.c, which the conformance suite checks against TFLite's
 * reference kernel) on random shapes: image sizes from 1 pixel up, channel
 * counts and depth multipliers on and off the kernel's multiple-of-8
 * condition, filters 1x1 to 6x6 (odd and even widths: the zero tap
 * partner), strides and dilations 1 to 3, SAME and VALID, batches, 1-D
 * columns up to 16 taps, the full
 * int8 range with -128 weights, every zero point, per-channel and
 * per-tensor multipliers with shifts either way, clamps, and a NULL bias.
 * Also that the kernel declines what it does not take and leaves the
 * output untouched then. Skipped without AVX2; on non-x86 builds the whole
 * file is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/conv_common.h"
#include "kernels/depthwise.h"
#include "quant.h"

#if defined(__x86_64__) && defined(__GNUC__)

static uint32_t rng_state = 0x2545f491u;
static uint32_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}
static int32_t rnd_range(int32_t lo, int32_t hi) { return lo + (int32_t)(rnd() % (uint32_t)(hi - lo + 1)); }

enum { MAX_IN = 4 * 24 * 24 * 48, MAX_OUT = 4 * 24 * 24 * 96, MAX_C = 96, MAX_F = 36 * MAX_C };
/* (1-D cases: 40 x 1 x 96 fits the same buffers.) */

/* A random valid geometry; returns 0 when the filter does not fit. */
static int random_params(depthwise_params *p, int t) {
    memset(p, 0, sizeof *p);
    p->batches = t % 11 == 0 ? rnd_range(2, 4) : 1;
    p->in_h = rnd_range(1, 24);
    p->in_w = rnd_range(1, 24);
    p->depth_mult = t % 5 == 0 ? rnd_range(2, 4) : t % 7 == 0 ? 8 * rnd_range(1, 2) : 1;
    p->in_c = t % 3 == 0 ? rnd_range(1, 24) : 8 * rnd_range(1, 6);
    if (t % 17 == 0) { /* one input channel, multiplier of 8 (a grey image's first layer) */
        p->in_c = 1;
        p->depth_mult = 8 * rnd_range(1, 3);
    }
    if (p->in_c * p->depth_mult > MAX_C) p->in_c = MAX_C / p->depth_mult;
    p->out_c = p->in_c * p->depth_mult;
    p->k_h = rnd_range(1, 6);
    p->k_w = rnd_range(1, 6);
    p->stride_h = rnd_range(1, 3);
    p->stride_w = rnd_range(1, 3);
    p->dil_h = t % 4 == 0 ? rnd_range(1, 3) : 1;
    p->dil_w = t % 4 == 1 ? rnd_range(1, 3) : 1;
    if (t % 13 == 0) { /* a column filtered along H (str_ww's 1-D layers) */
        p->in_w = 1;
        p->k_w = 1;
        p->k_h = rnd_range(1, 16);
        p->in_h = rnd_range(1, 40);
    }
    const int padding = (int)(rnd() % 2);
    const int64_t oh = edge_conv_out_size(padding, p->in_h, p->k_h, p->stride_h, p->dil_h);
    const int64_t ow = edge_conv_out_size(padding, p->in_w, p->k_w, p->stride_w, p->dil_w);
    if (oh <= 0 || ow <= 0) return 0;
    p->out_h = (int32_t)oh;
    p->out_w = (int32_t)ow;
    p->pad_h = (int32_t)edge_conv_padding(p->in_h, p->k_h, p->stride_h, p->dil_h, oh);
    p->pad_w = (int32_t)edge_conv_padding(p->in_w, p->k_w, p->stride_w, p->dil_w, ow);
    p->input_offset = (int16_t)rnd_range(-127, 128);
    p->output_offset = (int16_t)rnd_range(-128, 127);
    p->act_min = -128;
    p->act_max = 127;
    if (t % 3 == 0) p->act_min = (int16_t)rnd_range(-128, 0), p->act_max = (int16_t)rnd_range(1, 127);
    p->per_channel = (uint8_t)(t % 2);
    return 1;
}

static void test_avx2_matches_portable(void **state) {
    (void)state;
    if (!depthwise_avx2_usable()) skip();
    static int8_t in[MAX_IN], filt[MAX_F], want[MAX_OUT], got[MAX_OUT];
    static int32_t bias[MAX_C], mult[MAX_C];
    static int8_t shift[MAX_C];
    int ran = 0;
    for (int t = 0; t < 3000; t++) {
        depthwise_params p;
        if (!random_params(&p, t)) continue;
        const int64_t n_in = (int64_t)p.batches * p.in_h * p.in_w * p.in_c;
        const int64_t n_out = (int64_t)p.batches * p.out_h * p.out_w * p.out_c;
        for (int64_t i = 0; i < n_in; i++) in[i] = (int8_t)rnd();
        for (int64_t i = 0; i < (int64_t)p.k_h * p.k_w * p.out_c; i++) filt[i] = (int8_t)rnd();
        if (t % 7 == 0) /* extremes: every product at its largest */
            for (int64_t i = 0; i < n_in; i++) in[i] = (int8_t)(rnd() % 2 ? -128 : 127);
        for (int32_t c = 0; c < p.out_c; c++) {
            bias[c] = (int32_t)rnd() >> rnd_range(0, 31);
            int s;
            edge_quantize_multiplier((double)rnd_range(1, 1000000) * 1e-6 * (t % 6 == 0 ? 500.0 : 0.01),
                                     &mult[c], &s);
            shift[c] = (int8_t)s;
        }
        p.bias = t % 9 == 0 ? NULL : bias;
        p.multiplier = mult;
        p.shift = shift;
        p.simd = 0;
        depthwise_conv(&p, in, filt, want);
        memset(got, 0x55, (size_t)n_out);
        p.simd = 1;
        const int took = depthwise_s8_avx2(&p, in, filt, got);
        if (p.out_c % 8 == 0) assert_true(took);
        if (!took) {
            for (int64_t i = 0; i < n_out; i++) assert_int_equal(got[i], 0x55);
            continue;
        }
        ran++;
        if (memcmp(want, got, (size_t)n_out) != 0)
            fail_msg("case %d: %dx%dx%dx%d dm %d k %dx%d s %dx%d d %dx%d differs", t, p.batches, p.in_h,
                     p.in_w, p.in_c, p.depth_mult, p.k_h, p.k_w, p.stride_h, p.stride_w, p.dil_h, p.dil_w);
    }
    assert_true(ran > 1000);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_avx2_matches_portable)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else
int main(void) { return 0; }
#endif
