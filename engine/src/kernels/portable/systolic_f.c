/* SPDX-License-Identifier: Apache-2.0 */
/*
 * systolic_f.c — portable float / bf16 GEMM (see systolic_f.h).
 *
 * Tiles of EDGE_SYSTOLIC_ROWS activation rows x 4 weight rows keep 16
 * accumulators live, so every loaded weight is used ROWS times and every
 * activation 4 times. Sums run over k in order (no reassociation): the
 * results are those of TFLite's reference kernels.
 */
#include "../systolic_f.h"

#include "../bf16.h"

#define TILE_C 4

static float clampf(float v, float lo, float hi) {
    v = v < lo ? lo : v;
    return hi < v ? hi : v;
}

static float load_bias(const systolic_f_params *p, int32_t j) {
    if (!p->bias) return 0.0f;
    if (p->bias_type == SYSTOLIC_F_BF16) return edge_bf16_to_f32(((const uint16_t *)p->bias)[j]);
    return ((const float *)p->bias)[j];
}

static void store(const systolic_f_params *p, void *out, int64_t idx, float v) {
    if (p->out_type == SYSTOLIC_F_BF16) ((uint16_t *)out)[idx] = edge_f32_to_bf16(v);
    else ((float *)out)[idx] = v;
}

/* acc[r][c] = sum_i a[r][i] * w[c][i] for nr rows, nc weight rows. WLOAD
 * reads weight element i of row pointer wp. */
#define DEFINE_TILE(SUFFIX, WT, WLOAD)                                                           \
    static void tile_##SUFFIX(const float *const *a, int32_t nr, const WT *w, int32_t k,         \
                              int32_t nc, float acc[EDGE_SYSTOLIC_ROWS][TILE_C]) {               \
        const WT *w0 = w, *w1 = w0 + (nc > 1 ? k : 0), *w2 = w0 + (nc > 2 ? 2 * k : 0),          \
                 *w3 = w0 + (nc > 3 ? 3 * k : 0);                                                \
        if (nr == EDGE_SYSTOLIC_ROWS) {                                                          \
            float s[EDGE_SYSTOLIC_ROWS][TILE_C] = {{0}};                                         \
            for (int32_t i = 0; i < k; i++) {                                                    \
                const float x0 = WLOAD(w0, i), x1 = WLOAD(w1, i), x2 = WLOAD(w2, i),             \
                            x3 = WLOAD(w3, i);                                                   \
                for (int32_t r = 0; r < EDGE_SYSTOLIC_ROWS; r++) {                               \
                    const float v = a[r][i];                                                     \
                    s[r][0] += v * x0;                                                           \
                    s[r][1] += v * x1;                                                           \
                    s[r][2] += v * x2;                                                           \
                    s[r][3] += v * x3;                                                           \
                }                                                                                \
            }                                                                                    \
            for (int32_t r = 0; r < EDGE_SYSTOLIC_ROWS; r++)                                     \
                for (int32_t c = 0; c < TILE_C; c++) acc[r][c] = s[r][c];                        \
            return;                                                                              \
        }                                                                                        \
        for (int32_t r = 0; r < nr; r++) {                                                       \
            float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;                                    \
            const float *ar = a[r];                                                              \
            for (int32_t i = 0; i < k; i++) {                                                    \
                const float v = ar[i];                                                           \
                s0 += v * WLOAD(w0, i);                                                          \
                s1 += v * WLOAD(w1, i);                                                          \
                s2 += v * WLOAD(w2, i);                                                          \
                s3 += v * WLOAD(w3, i);                                                          \
            }                                                                                    \
            acc[r][0] = s0;                                                                      \
            acc[r][1] = s1;                                                                      \
            acc[r][2] = s2;                                                                      \
            acc[r][3] = s3;                                                                      \
        }                                                                                        \
    }

#define LOAD_F32(wp, i) ((wp)[i])
#define LOAD_BF16(wp, i) edge_bf16_to_f32((wp)[i])
DEFINE_TILE(f32, float, LOAD_F32)
DEFINE_TILE(bf16, uint16_t, LOAD_BF16)

void systolic_f_gemm(const systolic_f_params *p, const void *const *rows, int32_t m, void *out,
                     int32_t out_stride, float *scratch) {
    const int32_t k = p->k, n = p->n;
    for (int32_t r0 = 0; r0 < m; r0 += EDGE_SYSTOLIC_ROWS) {
        const int32_t nr = m - r0 < EDGE_SYSTOLIC_ROWS ? m - r0 : EDGE_SYSTOLIC_ROWS;
        const float *a[EDGE_SYSTOLIC_ROWS];
        for (int32_t r = 0; r < nr; r++) {
            if (p->a_type == SYSTOLIC_F_BF16) {
                const uint16_t *src = (const uint16_t *)rows[r0 + r];
                float *dst = scratch + (int64_t)r * k;
                for (int32_t i = 0; i < k; i++) dst[i] = edge_bf16_to_f32(src[i]);
                a[r] = dst;
            } else {
                a[r] = (const float *)rows[r0 + r];
            }
        }
        for (int32_t c0 = 0; c0 < n; c0 += TILE_C) {
            const int32_t nc = n - c0 < TILE_C ? n - c0 : TILE_C;
            float acc[EDGE_SYSTOLIC_ROWS][TILE_C];
            if (p->w_type == SYSTOLIC_F_BF16)
                tile_bf16(a, nr, (const uint16_t *)p->weights + (int64_t)c0 * k, k, nc, acc);
            else
                tile_f32(a, nr, (const float *)p->weights + (int64_t)c0 * k, k, nc, acc);
            for (int32_t r = 0; r < nr; r++)
                for (int32_t c = 0; c < nc; c++) {
                    const float v = clampf(acc[r][c] + load_bias(p, c0 + c), p->act_min, p->act_max);
                    store(p, out, (int64_t)(r0 + r) * out_stride + c0 + c, v);
                }
        }
    }
}

void systolic_f_gemm_dense(const systolic_f_params *p, const void *a, int32_t a_stride, int32_t m,
                           void *out, int32_t out_stride, float *scratch) {
    const int64_t es = p->a_type == SYSTOLIC_F_BF16 ? 2 : 4;
    const void *rows[EDGE_SYSTOLIC_ROWS];
    for (int32_t r0 = 0; r0 < m; r0 += EDGE_SYSTOLIC_ROWS) {
        const int32_t nr = m - r0 < EDGE_SYSTOLIC_ROWS ? m - r0 : EDGE_SYSTOLIC_ROWS;
        for (int32_t r = 0; r < nr; r++)
            rows[r] = (const uint8_t *)a + (int64_t)(r0 + r) * a_stride * es;
        const int64_t oes = p->out_type == SYSTOLIC_F_BF16 ? 2 : 4;
        systolic_f_gemm(p, rows, nr, (uint8_t *)out + (int64_t)r0 * out_stride * oes, out_stride,
                        scratch);
    }
}
