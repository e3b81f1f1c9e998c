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
 *     double requantization, with bias folding, offsets and clamps.
 *
 * Prints one line per part and exits 0 when everything matched, 1 at the
 * first mismatch (after printing it).
 */
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "kernels/systolic.h"
#include "quant.h"

#define MAX_M (3 * EDGE_SYSTOLIC_ROWS + 1)
#define MAX_N (3 * EDGE_SYSTOLIC_COLS + 5)
#define MAX_K 300
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
    board_printf("systolic_check: OK\n");
    return 0;
}
