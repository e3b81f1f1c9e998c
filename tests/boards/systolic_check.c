/* SPDX-License-Identifier: Apache-2.0 */
/*
 * systolic_check.c — the systolic kernel of one build (portable, NEON, DSP
 * or MVE) against straightforward reference loops, on the board itself:
 * under qemu-user for the Raspberry Pi builds, bare-metal under
 * qemu-system-arm for the Cortex-M ones. Uses only board.h for output and
 * static buffers (no allocation), so the same file runs everywhere.
 *
 *  1. the variant's inner tile alone (variant builds): random shapes, every
 *     k remainder, unaligned rows, the full int8 range, and int32
 *     wrap-around (k = 140000 of (-128)*(-128), rows overlapping in one
 *     buffer so it fits any board's RAM);
 *  2. systolic_gemm / systolic_gemm_dense end to end: int8 (through the
 *     variant) and uint8, per-tensor and per-channel, fixed-point and
 *     double requantization, with bias folding, offsets and clamps;
 *  3. the DSP builds' own kernels: requant_dsp.h against edge_rq_apply
 *     (random and boundary accumulators, every shift), and
 *     systolic_conv_variant against convolution loops (groups, strides,
 *     dilations, padding, k % 4, k up to the 4-row limit, every shift,
 *     zero, negative and huge multipliers, huge biases, clamps);
 *  4. depthwise_conv (the DSP kernel where it applies, which must take the
 *     shapes it is meant for) against the reference loops.
 *
 * Prints one line per part and exits 0 when everything matched, 1 at the
 * first mismatch (after printing it).
 */
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "kernels/depthwise.h"
#include "kernels/requant.h"
#include "kernels/systolic.h"
#include "quant.h"
#if defined(EDGE_SYSTOLIC_DSP)
#include "kernels/cortex_m/requant_dsp.h"
#endif

#define MAX_M (3 * EDGE_SYSTOLIC_ROWS + 1)
#define MAX_N (3 * EDGE_SYSTOLIC_COLS + 5)
#define MAX_K 600 /* past 384: the DSP GEMM's 4-row blocks */
#define WRAP_K 140000

static uint32_t rng = 0x2545F491u;
static uint32_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}
static int32_t rnd_range(int32_t lo, int32_t hi) {
    return lo + (int32_t)(rnd() % (uint32_t)(hi - lo + 1));
}

static int32_t elem(const uint8_t *buf, int is_unsigned, size_t i) {
    return is_unsigned ? (int32_t)buf[i] : (int32_t)(int8_t)buf[i];
}

#if defined(EDGE_SYSTOLIC_VARIANT)
#if defined(EDGE_SYSTOLIC_NEON)
#if defined(__ARM_FEATURE_DOTPROD)
#define VARIANT_NAME "neon+sdot"
#else
#define VARIANT_NAME "neon"
#endif
#elif defined(EDGE_SYSTOLIC_DSP)
#define VARIANT_NAME "dsp"
#else
#define VARIANT_NAME "mve"
#endif

static int8_t tile_a[MAX_K + 16], tile_w[(MAX_N + 1) * (MAX_K + 16)];
static int8_t wrap_buf[WRAP_K + 4 * 16];

static uint32_t ref_dot(const int8_t *a, const int8_t *w, int32_t k) {
    uint32_t s = 0;
    for (int32_t i = 0; i < k; i++) s += (uint32_t)((int32_t)a[i] * (int32_t)w[i]);
    return s;
}

static int check_tile(int32_t *cases) {
    uint32_t acc[MAX_N];
    for (int t = 0; t < 3000; t++) {
        const int32_t k = t < 300 ? t % 80 + 1 : rnd_range(1, MAX_K);
        const int32_t nc = rnd_range(1, EDGE_SYSTOLIC_COLS);
        const int32_t ws = k + rnd_range(0, 9);
        const int32_t ao = rnd_range(0, 15), wo = rnd_range(0, 15); /* misalignment */
        const int extreme = t % 7 == 0;
        for (int32_t i = 0; i < k; i++) tile_a[ao + i] = extreme ? (int8_t)-128 : (int8_t)rnd();
        for (int32_t i = 0; i < nc * ws; i++)
            tile_w[wo + i] = extreme ? (int8_t)(i % 2 ? -128 : 127) : (int8_t)rnd();
        systolic_tile_dot_s8_variant(tile_a + ao, tile_w + wo, ws, k, nc, acc);
        for (int32_t c = 0; c < nc; c++) {
            const uint32_t want = ref_dot(tile_a + ao, tile_w + wo + c * ws, k);
            if (acc[c] != want) {
                board_printf("tile mismatch: k=%ld nc=%ld ws=%ld col %ld: got %ld want %ld\n", (long)k,
                             (long)nc, (long)ws, (long)c, (long)(int32_t)acc[c], (long)(int32_t)want);
                return 1;
            }
        }
        (*cases)++;
    }
    /* int32 wrap-around: 140000 * 16384 > 2^31. The weight rows overlap
     * (ws = 16) so one buffer serves all of them. */
    for (size_t i = 0; i < sizeof wrap_buf; i++) wrap_buf[i] = -128;
    for (int32_t nc = 1; nc <= EDGE_SYSTOLIC_COLS; nc++) {
        systolic_tile_dot_s8_variant(wrap_buf, wrap_buf, 16, WRAP_K, nc, acc);
        const uint32_t want = (uint32_t)WRAP_K * 16384u;
        for (int32_t c = 0; c < nc; c++)
            if (acc[c] != want) {
                board_printf("tile wrap-around mismatch: nc=%ld col %ld: got %lu want %lu\n",
                             (long)nc, (long)c, (unsigned long)acc[c], (unsigned long)want);
                return 1;
            }
        (*cases)++;
    }
    return 0;
}
#else
#define VARIANT_NAME "portable"
#endif

/* A multiplier and shift as a model's prepare makes them, or (odd) any pair
 * the kernels must still get right: zero, negative, INT32_MIN, unnormalized,
 * and every shift from -31 to 31. */
static void rnd_quant(int32_t *mult, int8_t *shift, int usual) {
    const uint32_t kind = usual ? 0 : rnd() % 16;
    int s;
    if (kind < 9) {
        edge_quantize_multiplier((double)(rnd() % 4000 + 1) * 2e-6, mult, &s);
    } else if (kind < 11) {
        /* tiny scales: large right shifts, or zero past 2^-31 */
        edge_quantize_multiplier((double)(rnd() % 1000 + 1) * 1e-12, mult, &s);
    } else if (kind < 12) {
        edge_quantize_multiplier((double)(rnd() % 3000 + 1) * 1e-3, mult, &s); /* up to 3: left */
    } else {
        const int32_t odd[] = {0, -1, INT32_MIN, INT32_MAX, 0x40000000, 12345, -0x40000000};
        *mult = kind < 14 ? (int32_t)(rnd() | 0x40000000u) & 0x7fffffff : odd[rnd() % 7];
        s = (int)rnd_range(-31, 31);
    }
    *shift = (int8_t)s;
}

static int32_t rnd_bias(int usual) {
    const uint32_t kind = usual ? 2 : rnd() % 8;
    if (kind == 0) return (int32_t)rnd(); /* anything: the exact path's */
    if (kind == 1) return (int32_t)(rnd() % 2 ? 0x40000000u : 0xc0000000u) + rnd_range(-3000, 3000);
    return rnd_range(-40000, 40000);
}

static int32_t ref_out(int32_t acc, int32_t mult, int shift, int32_t oo, int32_t lo, int32_t hi) {
    int32_t v = (int32_t)((uint32_t)edge_mbqm(acc, mult, shift) + (uint32_t)oo);
    return v < lo ? lo : (v > hi ? hi : v);
}

/* ---- GEMM end to end ---- */

static uint8_t g_a[MAX_M * MAX_K], g_w[MAX_N * MAX_K], g_out[MAX_M * MAX_N];
static int32_t g_bias[MAX_N], g_eff[MAX_N], g_mult[MAX_N];
static int8_t g_shift[MAX_N];
static double g_scale[MAX_N];

static int32_t ref_requant(const systolic_params *p, int32_t acc, int32_t ch) {
    const int32_t i = p->per_channel ? ch : 0;
    int32_t v;
    if (p->requant == SYSTOLIC_REQUANT_DOUBLE) {
        const double r = edge_round((double)acc * p->scale[i]);
        v = (r >= -2147483648.0 && r < 2147483648.0) ? (int32_t)r : INT32_MIN;
    } else {
        v = edge_mbqm(acc, p->multiplier[i], p->shift[i]);
    }
    v = (int32_t)((uint32_t)v + (uint32_t)p->output_offset);
    return v < p->act_min ? p->act_min : (v > p->act_max ? p->act_max : v);
}

static int check_gemm(int32_t *cases) {
    for (int t = 0; t < 3000; t++) {
        const int u = t % 4 == 3; /* mostly int8: that is the variant's path */
        const int32_t m = rnd_range(1, MAX_M), n = rnd_range(1, MAX_N);
        const int32_t k = t % 5 == 0 ? rnd_range(100, MAX_K) : rnd_range(1, 90);
        systolic_params p;
        for (size_t i = 0; i < sizeof p; i++) ((uint8_t *)&p)[i] = 0;
        p.k = k, p.n = n;
        p.is_unsigned = (uint8_t)u;
        p.per_channel = (uint8_t)((t >> 1) & 1);
        p.requant = (uint8_t)((t >> 2) & 1);
        p.input_offset = u ? -rnd_range(0, 255) : -rnd_range(-128, 127);
        p.filter_offset = u ? -rnd_range(0, 255) : 0;
        p.output_offset = u ? rnd_range(0, 255) : rnd_range(-128, 127);
        p.act_min = u ? 0 : -128;
        p.act_max = u ? 255 : 127;
        if (rnd() % 3 == 0) p.act_min += 7, p.act_max -= 30;
        for (int32_t i = 0; i < m * k; i++) g_a[i] = (uint8_t)rnd();
        for (int32_t i = 0; i < n * k; i++) g_w[i] = (uint8_t)rnd();
        for (int32_t i = 0; i < n; i++) {
            const double real = (double)(rnd() % 4000 + 1) * 2e-6;
            int s;
            g_bias[i] = rnd_range(-20000, 20000);
            edge_quantize_multiplier(real, &g_mult[i], &s);
            g_shift[i] = (int8_t)s;
            if (!u && t % 3 == 1) {
                /* Odd channels: every shift, zero / negative / unnormalized
                 * multipliers, biases near 2^30 and beyond. */
                g_bias[i] = rnd_bias(0);
                rnd_quant(&g_mult[i], &g_shift[i], 0);
            }
            g_scale[i] = real;
        }
        const int has_bias = rnd() % 4 != 0;
        p.weights = g_w, p.multiplier = g_mult, p.shift = g_shift, p.scale = g_scale;
        systolic_fold_bias(&p, has_bias ? g_bias : NULL, g_eff);
        p.bias = g_eff;
        systolic_gemm_dense(&p, g_a, k, m, g_out, n);
        for (int32_t r = 0; r < m; r++)
            for (int32_t c = 0; c < n; c++) {
                uint32_t acc = 0;
                for (int32_t i = 0; i < k; i++) {
                    const int32_t x = elem(g_a, u, (size_t)(r * k + i)) + p.input_offset;
                    const int32_t f = elem(g_w, u, (size_t)(c * k + i)) + p.filter_offset;
                    acc += (uint32_t)(x * f);
                }
                if (has_bias) acc += (uint32_t)g_bias[c];
                const int32_t want = ref_requant(&p, (int32_t)acc, c);
                const int32_t got = elem(g_out, u, (size_t)(r * n + c));
                if (got != want) {
                    board_printf("gemm mismatch: m=%ld n=%ld k=%ld u8=%d pc=%d rq=%d at [%ld][%ld]: "
                                 "got %ld want %ld\n",
                                 (long)m, (long)n, (long)k, u, p.per_channel, p.requant, (long)r,
                                 (long)c, (long)got, (long)want);
                    return 1;
                }
            }
        (*cases)++;
    }
    return 0;
}

#if defined(EDGE_SYSTOLIC_DSP)
/* requant_dsp.h equals edge_rq_apply wherever it says it applies. */
static int check_requant_dsp(int32_t *cases) {
    for (int32_t t = 0; t < 400000; t++) {
        int32_t mult;
        int8_t shift;
        if (t % 3)
            mult = (int32_t)(rnd() | 0x40000000u) & 0x7fffffff, shift = (int8_t)-rnd_range(1, 31);
        else
            rnd_quant(&mult, &shift, 0);
        edge_rq_dsp q;
        if (!edge_rq_dsp_make(mult, shift, &q)) continue;
        const int32_t room = 0x7fffffff - q.round;
        int32_t acc = (int32_t)rnd();
        switch (t % 8) {
        case 0: acc = room; break;
        case 1: acc = -room; break;
        case 2: acc = room - (int32_t)(rnd() % 1000); break;
        case 3: acc >>= rnd() % 31; break;
        case 4: acc = rnd_range(-2000, 2000) << (rnd() % 20); break;
        default: break;
        }
        if (!edge_rq_dsp_fits(acc, 0, &q)) continue;
        const edge_rq r = edge_rq_make(mult, shift);
        const int32_t want = edge_rq_apply((uint32_t)acc, r.mult, r.left, r.right, r.round, r.neg);
        const int32_t got = edge_rq_dsp_apply(acc, &q);
        if (got != want || want != edge_mbqm(acc, mult, shift)) {
            board_printf("requant_dsp mismatch: acc=%ld mult=%ld shift=%d: got %ld want %ld\n",
                         (long)acc, (long)mult, shift, (long)got, (long)want);
            return 1;
        }
        (*cases)++;
    }
    /* The bound itself: one past it is refused. */
    edge_rq_dsp q;
    if (!edge_rq_dsp_make(0x40000000, -31, &q) || !edge_rq_dsp_fits(0x3fffffff, 0, &q) ||
        edge_rq_dsp_fits(0x40000000, 0, &q) || edge_rq_dsp_fits(-0x40000000, 0, &q) ||
        !edge_rq_dsp_fits(-100, 0x3fffffff - 100, &q) || edge_rq_dsp_fits(-100, 0x3fffffff - 99, &q) ||
        edge_rq_dsp_make(0x3fffffff, -5, &q) || edge_rq_dsp_make(0x40000000, 0, &q)) {
        board_printf("requant_dsp bound mismatch\n");
        return 1;
    }
    return 0;
}

/* ---- systolic_conv_variant against convolution loops ---- */
#define CV_IN 6144
#define CV_W 16384
#define CV_OUT 8192
#define CV_CH 256
static int8_t cv_in[CV_IN], cv_w[CV_W], cv_out[CV_OUT];
static int32_t cv_bias[CV_CH], cv_mult[CV_CH];
static int8_t cv_shift[CV_CH];

static int check_conv(int32_t *cases) {
    for (int t = 0; t < 1500; t++) {
        systolic_conv_geom g;
        const int big = t % 10 == 0;
        g.batches = rnd_range(1, 2);
        g.groups = big ? 1 : (rnd() % 4 ? 1 : rnd_range(2, 3));
        g.group_in_c = big ? 16 * rnd_range(1, 4) : (rnd() % 3 ? rnd_range(1, 12) : 4 * rnd_range(1, 5));
        g.in_c = g.groups * g.group_in_c;
        g.k_h = big ? 3 : rnd_range(1, 4);
        g.k_w = big ? 3 : rnd_range(1, 5);
        g.stride_h = rnd_range(1, 3);
        g.stride_w = rnd_range(1, 3);
        g.dil_h = rnd() % 4 ? 1 : 2;
        g.dil_w = rnd() % 4 ? 1 : 2;
        g.in_h = rnd_range(1, big ? 5 : 10);
        g.in_w = rnd_range(1, big ? 5 : 10);
        g.pad_h = rnd_range(0, 2);
        g.pad_w = rnd_range(0, 2);
        g.out_h = rnd_range(1, 8);
        g.out_w = rnd_range(1, 8);
        int32_t gn = big ? rnd_range(1, 6) : rnd_range(1, CV_CH / g.groups < 24 ? CV_CH / g.groups : 24);
        if (t % 11 == 4) {
            /* 1x1 stride 1 over whole lines: contiguous rows (widen_rows),
             * or lines one pixel longer than the output's. */
            g.groups = 1, g.group_in_c = g.in_c = 8 * rnd_range(1, 6);
            g.k_h = g.k_w = 1, g.stride_h = g.stride_w = 1, g.dil_h = g.dil_w = 1, g.pad_h = g.pad_w = 0;
            g.in_w = g.out_w + (rnd() % 3 == 0), g.in_h = g.out_h + rnd_range(0, 1);
            gn = rnd_range(1, 24);
        }
        if (t % 13 == 5) {
            /* More channels than the DSP tile table holds at once. */
            g.groups = 1, g.group_in_c = g.in_c = rnd_range(1, 8);
            gn = rnd_range(120, CV_CH);
        }
        const int32_t n_all = gn * g.groups, k = g.k_h * g.k_w * g.group_in_c;
        const int32_t n_in = g.batches * g.in_h * g.in_w * g.in_c;
        const int32_t n_out = g.batches * g.out_h * g.out_w * n_all;
        if (n_in > CV_IN || n_all * k > CV_W || n_out > CV_OUT) continue;
        const int32_t zp = rnd_range(-128, 127);
        g.pad_value = zp;
        systolic_params p;
        for (size_t i = 0; i < sizeof p; i++) ((uint8_t *)&p)[i] = 0;
        p.k = k;
        p.n = gn;
        p.input_offset = -zp;
        p.output_offset = rnd_range(-128, 127);
        p.act_min = -128, p.act_max = 127;
        if (rnd() % 3 == 0) p.act_min = rnd_range(-128, 0), p.act_max = rnd_range(p.act_min, 127);
        p.per_channel = (uint8_t)(rnd() % 3 != 0);
        p.requant = SYSTOLIC_REQUANT_FIXED;
        const int extreme = t % 7 == 0;
        for (int32_t i = 0; i < n_in; i++)
            cv_in[i] = extreme ? (int8_t)(rnd() % 2 ? -128 : 127) : (int8_t)rnd();
        for (int32_t i = 0; i < n_all * k; i++)
            cv_w[i] = extreme ? (int8_t)(rnd() % 2 ? -128 : 127) : (int8_t)rnd();
        /* Half the cases as models have them (every channel on the fast
         * paths), half with odd channels among them. */
        const int usual = t % 2;
        for (int32_t c = 0; c < n_all; c++) {
            cv_bias[c] = rnd_bias(usual);
            rnd_quant(&cv_mult[c], &cv_shift[c], usual);
        }
        p.weights = cv_w;
        p.multiplier = cv_mult;
        p.shift = cv_shift;
        /* The model's bias: the variant adds the input offset itself. */
        const int has_bias = rnd() % 5 != 0;
        p.bias = has_bias ? cv_bias : NULL;
        for (int32_t i = 0; i < n_out; i++) cv_out[i] = 0x55;
        if (!systolic_conv_variant(&p, &g, cv_in, cv_out)) {
            board_printf("conv: the variant refused k=%ld\n", (long)k);
            return 1;
        }
        for (int32_t b = 0; b < g.batches; b++)
            for (int32_t oy = 0; oy < g.out_h; oy++)
                for (int32_t ox = 0; ox < g.out_w; ox++)
                    for (int32_t c = 0; c < n_all; c++) {
                        const int32_t grp = c / gn;
                        uint32_t acc = has_bias ? (uint32_t)cv_bias[c] : 0u;
                        for (int32_t ky = 0; ky < g.k_h; ky++)
                            for (int32_t kx = 0; kx < g.k_w; kx++) {
                                const int32_t iy = oy * g.stride_h - g.pad_h + ky * g.dil_h;
                                const int32_t ix = ox * g.stride_w - g.pad_w + kx * g.dil_w;
                                if (iy < 0 || iy >= g.in_h || ix < 0 || ix >= g.in_w) continue;
                                for (int32_t ci = 0; ci < g.group_in_c; ci++) {
                                    const int32_t x = cv_in[((b * g.in_h + iy) * g.in_w + ix) * g.in_c +
                                                            grp * g.group_in_c + ci];
                                    const int32_t w = cv_w[c * k + (ky * g.k_w + kx) * g.group_in_c + ci];
                                    acc += (uint32_t)((x - zp) * w);
                                }
                            }
                        const int32_t q = p.per_channel ? c : 0;
                        const int32_t want = ref_out((int32_t)acc, cv_mult[q], cv_shift[q], p.output_offset,
                                                     p.act_min, p.act_max);
                        const int32_t got = cv_out[((b * g.out_h + oy) * g.out_w + ox) * n_all + c];
                        if (got != want) {
                            board_printf("conv mismatch: case %d k=%ldx%ldx%ld groups %ld n %ld stride %ldx%ld "
                                         "dil %ldx%ld pad %ldx%ld at b%ld y%ld x%ld c%ld: got %ld want %ld "
                                         "(acc %ld mult %ld shift %d)\n",
                                         t, (long)g.k_h, (long)g.k_w, (long)g.group_in_c, (long)g.groups,
                                         (long)gn, (long)g.stride_h, (long)g.stride_w, (long)g.dil_h,
                                         (long)g.dil_w, (long)g.pad_h, (long)g.pad_w, (long)b, (long)oy,
                                         (long)ox, (long)c, (long)got, (long)want, (long)(int32_t)acc,
                                         (long)cv_mult[q], cv_shift[q]);
                            return 1;
                        }
                    }
        (*cases)++;
    }
    return 0;
}

/* The requantization bound of the conv variant, which sums (x + io) * w
 * from the model's bias: |x + io| <= 255, so its fast path may take a
 * channel only when |bias| + k * max|x + io| * 128 + 2^(right-1) < 2^31
 * (and with the output offset folded into the rounding term, when that
 * much more fits too). Uniform inputs at the extremes make every pixel's
 * sum S the same, k * (x + io) * w, and each channel's bias puts the
 * accumulator T = bias + S right at an edge: at the bound (fast path, must
 * be exact), just past it, or past it by less than the bound of sums
 * x * w (k * 2^14) would have allowed, where the four-instruction form
 * overflows. */
static int64_t llabs_(int64_t v) { return v < 0 ? -v : v; }

static int check_conv_bound(int32_t *cases) {
    for (int t = 0; t < 3000; t++) {
        systolic_conv_geom g;
        const int32_t ks[] = {4, 8, 3, 12, 27, 64, 200, 384, 576};
        const int32_t kk = ks[t % 9];
        g.batches = 1;
        g.groups = 1;
        /* 1x1, or windows of 3x3 x 3 channels and 1x3 x 4 (no padding). */
        g.k_h = g.k_w = 1;
        g.group_in_c = g.in_c = kk;
        if (kk == 27) g.group_in_c = g.in_c = 3, g.k_h = g.k_w = 3;
        if (kk == 12 && t % 2) g.group_in_c = g.in_c = 4, g.k_w = 3;
        g.stride_h = g.stride_w = 1, g.dil_h = g.dil_w = 1, g.pad_h = g.pad_w = 0;
        g.out_h = rnd_range(1, 3), g.out_w = rnd_range(1, 4);
        g.in_h = g.out_h + g.k_h - 1, g.in_w = g.out_w + g.k_w - 1;
        const int32_t k = g.k_h * g.k_w * g.group_in_c, gn = rnd_range(1, 20);
        const int32_t n_in = g.in_h * g.in_w * g.in_c, n_out = g.out_h * g.out_w * gn;
        if (n_in > CV_IN || gn * k > CV_W || n_out > CV_OUT) continue;
        const int32_t zps[] = {-128, 127, -1, 0};
        const int32_t zp = t % 5 < 4 ? zps[t % 5 % 4] : rnd_range(-128, 127);
        const int32_t io = -zp;
        /* The activation farthest from -io: |x + io| is then the bound's. */
        const int32_t x = io >= 0 ? 127 : -128, a = x + io;
        const uint32_t amax = (uint32_t)(a < 0 ? -a : a);
        g.pad_value = zp;
        systolic_params p;
        for (size_t i = 0; i < sizeof p; i++) ((uint8_t *)&p)[i] = 0;
        p.k = k, p.n = gn;
        p.input_offset = io;
        p.output_offset = rnd_range(-128, 127);
        p.act_min = -128, p.act_max = 127;
        if (t % 7 == 3) p.act_min = -100, p.act_max = 100;
        p.per_channel = (uint8_t)(t % 6 != 0);
        p.requant = SYSTOLIC_REQUANT_FIXED;
        for (int32_t i = 0; i < n_in; i++) cv_in[i] = (int8_t)x;
        const uint32_t oo_mag = (uint32_t)(p.output_offset < 0 ? -p.output_offset : p.output_offset);
        for (int32_t c = 0; c < gn; c++) {
            const int8_t w = rnd() % 2 ? 127 : -128;
            for (int32_t i = 0; i < k; i++) cv_w[c * k + i] = w;
            const int32_t q = p.per_channel ? c : 0;
            if (c == q) {
                cv_mult[q] = rnd() % 3 ? (int32_t)(rnd() | 0x40000000u) & 0x7fffffff : 0x7fffffff;
                cv_shift[q] = (int8_t)-(rnd() % 2 ? rnd_range(20, 31) : rnd_range(1, 31));
            }
            edge_rq_dsp rq;
            if (!edge_rq_dsp_make(cv_mult[q], cv_shift[q], &rq)) return 1;
            const int64_t S = (int64_t)k * a * w;
            const int64_t room = 0x7fffffff - (int64_t)rq.round;
            const int64_t span = (int64_t)k * amax * 128, old_span = (int64_t)k << 14;
            int64_t T; /* |T|, then signed like S */
            switch (rnd() % 6) {
            case 0: T = room - span + llabs_(S); break;               /* the bias at the bound */
            case 1: T = room - span + llabs_(S) + 1; break;           /* one past it */
            case 2: T = room - old_span + llabs_(S) - (int64_t)(rnd() % 4); break; /* the old bound's */
            case 3: T = room + 1 + (int64_t)(rnd() % 64); break;      /* T itself past the bound */
            case 4: T = room - span + llabs_(S) - ((int64_t)oo_mag << rq.right) + rnd_range(-1, 1); break;
            default: T = room - old_span + llabs_(S) - ((int64_t)oo_mag << rq.right) - (int64_t)(rnd() % 4); break;
            }
            if (T > 0x7fffffff) T = 0x7fffffff;
            if (T < llabs_(S)) T = llabs_(S);
            if (S < 0) T = -T;
            cv_bias[c] = (int32_t)(T - S);
        }
        p.weights = cv_w, p.multiplier = cv_mult, p.shift = cv_shift, p.bias = cv_bias;
        for (int32_t i = 0; i < n_out; i++) cv_out[i] = 0x55;
        if (!systolic_conv_variant(&p, &g, cv_in, cv_out)) {
            board_printf("conv bound: the variant refused k=%ld\n", (long)k);
            return 1;
        }
        for (int32_t px = 0; px < g.out_h * g.out_w; px++)
            for (int32_t c = 0; c < gn; c++) {
                const int32_t q = p.per_channel ? c : 0;
                const uint32_t acc = (uint32_t)cv_bias[c] + (uint32_t)(k * a * cv_w[c * k]);
                const int32_t want =
                    ref_out((int32_t)acc, cv_mult[q], cv_shift[q], p.output_offset, p.act_min, p.act_max);
                const int32_t got = cv_out[px * gn + c];
                if (got != want) {
                    board_printf("conv bound mismatch: case %d k=%ld zp %ld n %ld pixel %ld c%ld: got %ld "
                                 "want %ld (acc %ld bias %ld mult %ld shift %d oo %ld)\n",
                                 t, (long)k, (long)zp, (long)gn, (long)px, (long)c, (long)got, (long)want,
                                 (long)(int32_t)acc, (long)cv_bias[c], (long)cv_mult[q], cv_shift[q],
                                 (long)p.output_offset);
                    return 1;
                }
            }
        (*cases)++;
    }
    return 0;
}
#endif

/* ---- depthwise_conv against the reference loops ---- */
#define DW_IN 8192
#define DW_F 2048
#define DW_OUT 8192
#define DW_CH 192
static int8_t dw_in[DW_IN], dw_f[DW_F], dw_out[DW_OUT];
static int32_t dw_bias[DW_CH], dw_mult[DW_CH];
static int8_t dw_shift[DW_CH];

static int check_depthwise(int32_t *cases, int32_t *dsp_cases) {
    (void)dsp_cases; /* counted on the DSP builds */
    for (int t = 0; t < 1500; t++) {
        depthwise_params p;
        for (size_t i = 0; i < sizeof p; i++) ((uint8_t *)&p)[i] = 0;
        /* Mostly what the DSP kernel takes: dm 1, channels % 4, up to 3x3. */
        const int usual = t % 4 != 0;
        p.batches = rnd_range(1, 2);
        p.in_c = usual ? 4 * rnd_range(1, t % 20 == 0 ? 40 : 17) : rnd_range(1, 9);
        p.depth_mult = usual ? 1 : rnd_range(1, 2);
        p.out_c = p.in_c * p.depth_mult;
        p.k_h = usual ? rnd_range(1, 3) : rnd_range(1, 5);
        p.k_w = usual ? rnd_range(1, 3) : rnd_range(1, 5);
        if (t % 3 == 0) p.k_h = p.k_w = 3;
        p.stride_h = rnd_range(1, 2);
        p.stride_w = rnd_range(1, 2);
        if (rnd() % 8 == 0) p.stride_w = 3;
        p.dil_h = rnd() % 6 ? 1 : 2;
        p.dil_w = rnd() % 6 ? 1 : 2;
        p.in_h = rnd_range(1, 12);
        p.in_w = rnd_range(1, t % 10 == 0 ? 40 : 12);
        p.pad_h = rnd_range(0, 2);
        p.pad_w = rnd_range(0, 2);
        p.out_h = rnd_range(1, 10);
        p.out_w = rnd_range(1, t % 10 == 0 ? 40 : 10);
        p.input_offset = (int16_t)-rnd_range(-128, 127);
        p.output_offset = (int16_t)rnd_range(-128, 127);
        p.act_min = -128, p.act_max = 127;
        if (rnd() % 3 == 0) {
            p.act_min = (int16_t)rnd_range(-128, 0);
            p.act_max = (int16_t)rnd_range(p.act_min, 127);
        }
        p.per_channel = (uint8_t)(rnd() % 3 != 0);
        const int32_t n_in = p.batches * p.in_h * p.in_w * p.in_c;
        const int32_t n_f = p.k_h * p.k_w * p.out_c;
        const int32_t n_out = p.batches * p.out_h * p.out_w * p.out_c;
        if (n_in > DW_IN || n_f > DW_F || n_out > DW_OUT || p.out_c > DW_CH) continue;
        const int extreme = t % 7 == 0;
        for (int32_t i = 0; i < n_in; i++)
            dw_in[i] = extreme ? (int8_t)(rnd() % 2 ? -128 : 127) : (int8_t)rnd();
        for (int32_t i = 0; i < n_f; i++)
            dw_f[i] = extreme ? (int8_t)(rnd() % 2 ? -128 : 127) : (int8_t)rnd();
        const int usual_q = t % 2;
        for (int32_t c = 0; c < p.out_c; c++) {
            dw_bias[c] = rnd_bias(usual_q);
            rnd_quant(&dw_mult[c], &dw_shift[c], usual_q);
        }
        p.bias = rnd() % 5 ? dw_bias : NULL;
        p.multiplier = dw_mult;
        p.shift = dw_shift;
        for (int32_t i = 0; i < n_out; i++) dw_out[i] = 0x55;
#if defined(EDGE_SYSTOLIC_DSP)
        /* The shapes the DSP kernel is for must run on it. */
        const int taken = depthwise_s8_dsp(&p, dw_in, dw_f, dw_out);
        if (!taken && p.depth_mult == 1 && p.out_c % 4 == 0 && p.k_h <= 3 && p.k_w <= 3 &&
            p.dil_h == 1 && p.dil_w == 1 && p.stride_w <= 2 && p.out_c <= 32 && p.in_w <= 12 &&
            p.out_w <= 10) {
            board_printf("depthwise: the DSP kernel refused c=%ld k=%ldx%ld\n", (long)p.out_c,
                         (long)p.k_h, (long)p.k_w);
            return 1;
        }
        if (taken)
            (*dsp_cases)++;
        else
#endif
            depthwise_conv(&p, dw_in, dw_f, dw_out);
        for (int32_t b = 0; b < p.batches; b++)
            for (int32_t oy = 0; oy < p.out_h; oy++)
                for (int32_t ox = 0; ox < p.out_w; ox++)
                    for (int32_t oc = 0; oc < p.out_c; oc++) {
                        const int32_t ic = oc / p.depth_mult;
                        uint32_t acc = p.bias ? (uint32_t)p.bias[oc] : 0u;
                        for (int32_t ky = 0; ky < p.k_h; ky++)
                            for (int32_t kx = 0; kx < p.k_w; kx++) {
                                const int32_t iy = oy * p.stride_h - p.pad_h + ky * p.dil_h;
                                const int32_t ix = ox * p.stride_w - p.pad_w + kx * p.dil_w;
                                if (iy < 0 || iy >= p.in_h || ix < 0 || ix >= p.in_w) continue;
                                const int32_t x = dw_in[((b * p.in_h + iy) * p.in_w + ix) * p.in_c + ic];
                                const int32_t w = dw_f[(ky * p.k_w + kx) * p.out_c + oc];
                                acc += (uint32_t)(w * (x + p.input_offset));
                            }
                        const int32_t q = p.per_channel ? oc : 0;
                        const int32_t want =
                            ref_out((int32_t)acc, dw_mult[q], dw_shift[q], p.output_offset, p.act_min, p.act_max);
                        const int32_t got = dw_out[((b * p.out_h + oy) * p.out_w + ox) * p.out_c + oc];
                        if (got != want) {
                            board_printf("depthwise mismatch: case %d c=%ld dm %ld k=%ldx%ld stride %ldx%ld dil "
                                         "%ldx%ld pad %ldx%ld in %ldx%ld at b%ld y%ld x%ld c%ld: got %ld want "
                                         "%ld\n",
                                         t, (long)p.in_c, (long)p.depth_mult, (long)p.k_h, (long)p.k_w,
                                         (long)p.stride_h, (long)p.stride_w, (long)p.dil_h, (long)p.dil_w,
                                         (long)p.pad_h, (long)p.pad_w, (long)p.in_h, (long)p.in_w, (long)b,
                                         (long)oy, (long)ox, (long)oc, (long)got, (long)want);
                            return 1;
                        }
                    }
        (*cases)++;
    }
    return 0;
}

#if defined(EDGE_SYSTOLIC_DSP)
/* The DSP depthwise kernel's requantization bound, as check_conv_bound
 * does for the conv: it too sums (x + io) * w from the model's bias, so
 * its fast path needs |bias| + taps * max|x + io| * 128 + 2^(right-1) <
 * 2^31 (and the output offset's share when folded). Windows inside the
 * image, uniform extreme inputs, each channel's weights one extreme
 * value, accumulators at, just past, and within the old bound (taps *
 * 2^14) of it. */
static int check_depthwise_bound(int32_t *cases) {
    for (int t = 0; t < 2000; t++) {
        depthwise_params p;
        for (size_t i = 0; i < sizeof p; i++) ((uint8_t *)&p)[i] = 0;
        p.batches = 1;
        p.in_c = p.out_c = 4 * rnd_range(1, 16);
        p.depth_mult = 1;
        p.k_h = t % 4 ? 3 : rnd_range(1, 3);
        p.k_w = t % 4 ? 3 : rnd_range(1, 3);
        p.stride_h = p.stride_w = rnd_range(1, 2);
        p.dil_h = p.dil_w = 1;
        p.out_h = rnd_range(1, 3), p.out_w = rnd_range(1, 6);
        p.in_h = (p.out_h - 1) * p.stride_h + p.k_h, p.in_w = (p.out_w - 1) * p.stride_w + p.k_w;
        const int32_t zps[] = {-128, 127, -1, 0};
        const int32_t zp = t % 5 < 4 ? zps[t % 5 % 4] : rnd_range(-128, 127);
        const int32_t io = -zp, x = io >= 0 ? 127 : -128, a = x + io, taps = p.k_h * p.k_w;
        const uint32_t amax = (uint32_t)(a < 0 ? -a : a);
        p.input_offset = (int16_t)io;
        /* Half the cases alike in every channel: one kind of edge, weights
         * of one sign, and an output offset of the sums' sign (where
         * folding it into the rounding term can overflow). */
        const int alike = t % 2 == 0;
        const int8_t w_alike = rnd() % 2 ? 127 : -128;
        p.output_offset = (int16_t)rnd_range(-128, 127);
        if (alike) p.output_offset = (int16_t)((a < 0) == (w_alike < 0) ? rnd_range(1, 127) : rnd_range(-128, -1));
        p.act_min = -128, p.act_max = 127;
        if (t % 7 == 3) p.act_min = -100, p.act_max = 100;
        p.per_channel = (uint8_t)(t % 6 != 0);
        const int32_t n_in = p.in_h * p.in_w * p.in_c, n_out = p.out_h * p.out_w * p.out_c;
        if (n_in > DW_IN || taps * p.out_c > DW_F || n_out > DW_OUT) continue;
        for (int32_t i = 0; i < n_in; i++) dw_in[i] = (int8_t)x;
        const uint32_t oo_mag = (uint32_t)(p.output_offset < 0 ? -p.output_offset : p.output_offset);
        /* The block's fast paths need every channel to fit. */
        const uint32_t kind = rnd() % 6;
        for (int32_t c = 0; c < p.out_c; c++) {
            const int8_t w = alike ? w_alike : (rnd() % 2 ? 127 : -128);
            for (int32_t i = 0; i < taps; i++) dw_f[i * p.out_c + c] = w;
            const int32_t q = p.per_channel ? c : 0;
            if (c == q) {
                dw_mult[q] = rnd() % 3 ? (int32_t)(rnd() | 0x40000000u) & 0x7fffffff : 0x7fffffff;
                dw_shift[q] = (int8_t)-(rnd() % 2 ? rnd_range(20, 31) : rnd_range(1, 31));
            }
            edge_rq_dsp rq;
            if (!edge_rq_dsp_make(dw_mult[q], dw_shift[q], &rq)) return 1;
            const int64_t S = (int64_t)taps * a * w, aS = llabs_(S);
            const int64_t room = 0x7fffffff - (int64_t)rq.round;
            const int64_t span = (int64_t)taps * amax * 128, old_span = (int64_t)taps << 14;
            const int64_t ofold = (int64_t)oo_mag << rq.right;
            int64_t T;
            switch (alike ? kind : rnd() % 6) {
            case 0: T = room - span + aS; break;
            case 1: T = room - span + aS + 1; break;
            case 2: T = room - old_span + aS - (int64_t)(rnd() % 4); break;
            case 3: T = room + 1 + (int64_t)(rnd() % 64); break;
            case 4: T = room - span + aS - ofold + rnd_range(-1, 1); break;
            default: T = room - old_span + aS - ofold - (int64_t)(rnd() % 4); break;
            }
            if (T > 0x7fffffff) T = 0x7fffffff;
            if (T < aS) T = aS;
            if (S < 0) T = -T;
            dw_bias[c] = (int32_t)(T - S);
        }
        p.bias = dw_bias, p.multiplier = dw_mult, p.shift = dw_shift;
        for (int32_t i = 0; i < n_out; i++) dw_out[i] = 0x55;
        if (!depthwise_s8_dsp(&p, dw_in, dw_f, dw_out)) {
            board_printf("depthwise bound: the DSP kernel refused c=%ld\n", (long)p.out_c);
            return 1;
        }
        for (int32_t px = 0; px < p.out_h * p.out_w; px++)
            for (int32_t c = 0; c < p.out_c; c++) {
                const int32_t q = p.per_channel ? c : 0;
                const uint32_t acc = (uint32_t)dw_bias[c] + (uint32_t)(taps * a * dw_f[c]);
                const int32_t want =
                    ref_out((int32_t)acc, dw_mult[q], dw_shift[q], p.output_offset, p.act_min, p.act_max);
                const int32_t got = dw_out[px * p.out_c + c];
                if (got != want) {
                    board_printf("depthwise bound mismatch: case %d %ldx%ld stride %ld zp %ld c=%ld pixel %ld "
                                 "c%ld: got %ld want %ld (acc %ld bias %ld mult %ld shift %d oo %ld)\n",
                                 t, (long)p.k_h, (long)p.k_w, (long)p.stride_h, (long)zp, (long)p.out_c,
                                 (long)px, (long)c, (long)got, (long)want, (long)(int32_t)acc,
                                 (long)dw_bias[c], (long)dw_mult[q], dw_shift[q], (long)p.output_offset);
                    return 1;
                }
            }
        (*cases)++;
    }
    return 0;
}
#endif

int main(void) {
    int32_t gemms = 0;
    board_printf("systolic_check: kernel %s, array %dx%d\n", VARIANT_NAME, EDGE_SYSTOLIC_ROWS,
                 EDGE_SYSTOLIC_COLS);
#if defined(EDGE_SYSTOLIC_VARIANT)
    int32_t tiles = 0;
    if (check_tile(&tiles)) return 1;
    board_printf("systolic_check: %ld tile cases match the reference dot product\n", (long)tiles);
#endif
    if (check_gemm(&gemms)) return 1;
    board_printf("systolic_check: %ld gemm cases match the reference loops\n", (long)gemms);
#if defined(EDGE_SYSTOLIC_DSP)
    int32_t rqs = 0, convs = 0;
    if (check_requant_dsp(&rqs)) return 1;
    board_printf("systolic_check: %ld requant_dsp cases match edge_rq_apply\n", (long)rqs);
    if (check_conv(&convs)) return 1;
    board_printf("systolic_check: %ld conv cases match the reference loops\n", (long)convs);
    int32_t bounds = 0;
    if (check_conv_bound(&bounds)) return 1;
    board_printf("systolic_check: %ld conv cases at the requantization bound match\n", (long)bounds);
#endif
    int32_t dws = 0, dw_dsp = 0;
    if (check_depthwise(&dws, &dw_dsp)) return 1;
    board_printf("systolic_check: %ld depthwise cases (%ld on the DSP kernel) match the reference loops\n",
                 (long)dws, (long)dw_dsp);
#if defined(EDGE_SYSTOLIC_DSP)
    int32_t dw_bounds = 0;
    if (check_depthwise_bound(&dw_bounds)) return 1;
    board_printf("systolic_check: %ld depthwise cases at the requantization bound match\n", (long)dw_bounds);
#endif
    board_printf("systolic_check: OK\n");
    return 0;
}
