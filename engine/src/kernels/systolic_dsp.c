/*
 * systolic_dsp.c — the systolic array's int8 inner tile with the Cortex-M
 * DSP extension (M4, M7, M33, M55): SXTB16 + SMLAD.
 *
 * Built when EDGE_SYSTOLIC_DSP is defined (see systolic.h); otherwise this
 * file is empty and the portable tile in systolic.c is used.
 *
 * A 32-bit word holds four int8 values b0..b3. SXTB16 sign-extends b0 and
 * b2 into two int16 halves; SXTB16 of the word rotated by 8 gives b1 and
 * b3. Doing the same to the activation and the weight words pairs the
 * right elements, and SMLAD adds both 16x16 products to an int32 in one
 * instruction. SMLAD's accumulate wraps modulo 2^32 (it only sets the Q
 * flag), as the portable tile's uint32 sums do, so the results are
 * bit-exact. Each activation word is split once and used for four output
 * channels.
 */
#include "systolic.h"

#if defined(EDGE_SYSTOLIC_DSP)

#if !defined(__ARM_FEATURE_DSP)
#error "EDGE_SYSTOLIC_DSP needs a core with the DSP extension (-mcpu=cortex-m4/m7/m33/m55)"
#endif

#include <arm_acle.h>

/* Four bytes from any address: Cortex-M LDR allows unaligned access (im2col
 * rows and weight rows start at any byte). */
static inline uint32_t load4(const int8_t *p) {
    uint32_t v;
    __builtin_memcpy(&v, p, 4);
    return v;
}

static inline int16x2_t even_s16(uint32_t v) { return __sxtb16((int8x4_t)v); }
/* SXTB16 with its built-in rotate (GCC does not fold a separate ROR). */
static inline int16x2_t odd_s16(uint32_t v) {
    int16x2_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v));
    return r;
}

/* acc += a[0..3] . w[0..3], with the activation word already split. */
static inline int32_t mac4(int32_t acc, int16x2_t a02, int16x2_t a13, uint32_t wv) {
    acc = __smlad(a02, even_s16(wv), acc);
    return __smlad(a13, odd_s16(wv), acc);
}

static inline uint32_t dot_tail(const int8_t *a, const int8_t *w, int32_t from, int32_t k) {
    uint32_t s = 0;
    for (int32_t i = from; i < k; i++) s += (uint32_t)((int32_t)a[i] * (int32_t)w[i]);
    return s;
}

void systolic_tile_dot_s8_variant(const int8_t *a, const int8_t *w, int32_t ws, int32_t k,
                                  int32_t nc, uint32_t *acc) {
    const int32_t k4 = k & ~3;
    int32_t c = 0;
    for (; c + 4 <= nc; c += 4) {
        const int8_t *w0 = w + c * ws, *w1 = w0 + ws, *w2 = w1 + ws, *w3 = w2 + ws;
        int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
        if (k4 > 0) {
            /* Written out because GCC spills when it allocates the C loop
             * below: 26 instructions per 16 MACs in 12 registers (4 sums,
             * the split activation word, 2 temporaries, and the pointers a,
             * w0, w1 = w0 + ws and ws: w2 = w0 + 2ws and w3 = w1 + 2ws are
             * register-offset loads; the end address is reloaded from the
             * stack), few enough for GCC at any -O level with a frame
             * pointer. Clang cannot allocate it, nor GCC at -O0: they get the
             * C loop. */
            const int8_t *pa = a, *p0 = w0, *p1 = w1;
            const int8_t *const end = a + k4;
            uint32_t a02, a13, t, e;
            __asm__ volatile(
                "1:\n\t"
                "ldr    %[a13], [%[pa]], #4\n\t"
                "sxtb16 %[a02], %[a13]\n\t"
                "sxtb16 %[a13], %[a13], ror #8\n\t"
                "ldr    %[t], [%[p0], %[ws], lsl #1]\n\t" /* w2 */
                "sxtb16 %[e], %[t]\n\t"
                "sxtb16 %[t], %[t], ror #8\n\t"
                "smlad  %[s2], %[a02], %[e], %[s2]\n\t"
                "smlad  %[s2], %[a13], %[t], %[s2]\n\t"
                "ldr    %[t], [%[p1], %[ws], lsl #1]\n\t" /* w3 */
                "sxtb16 %[e], %[t]\n\t"
                "sxtb16 %[t], %[t], ror #8\n\t"
                "smlad  %[s3], %[a02], %[e], %[s3]\n\t"
                "smlad  %[s3], %[a13], %[t], %[s3]\n\t"
                "ldr    %[t], [%[p0]], #4\n\t" /* w0 */
                "sxtb16 %[e], %[t]\n\t"
                "sxtb16 %[t], %[t], ror #8\n\t"
                "smlad  %[s0], %[a02], %[e], %[s0]\n\t"
                "smlad  %[s0], %[a13], %[t], %[s0]\n\t"
                "ldr    %[t], [%[p1]], #4\n\t" /* w1 */
                "sxtb16 %[e], %[t]\n\t"
                "sxtb16 %[t], %[t], ror #8\n\t"
                "smlad  %[s1], %[a02], %[e], %[s1]\n\t"
                "smlad  %[s1], %[a13], %[t], %[s1]\n\t"
                "ldr    %[e], %[end]\n\t"
                "cmp    %[pa], %[e]\n\t"
                "bne    1b\n\t"
                : [pa] "+&r"(pa), [p0] "+&r"(p0), [p1] "+&r"(p1), [s0] "+&r"(s0), [s1] "+&r"(s1),
                  [s2] "+&r"(s2), [s3] "+&r"(s3), [a02] "=&r"(a02), [a13] "=&r"(a13), [t] "=&r"(t),
                  [e] "=&r"(e)
                : [end] "m"(end), [ws] "r"(ws)
                : "cc", "memory");
        }
#else
        for (int32_t i = 0; i < k4; i += 4) {
            const uint32_t av = load4(a + i);
            const int16x2_t a02 = even_s16(av), a13 = odd_s16(av);
            s0 = mac4(s0, a02, a13, load4(w0 + i));
            s1 = mac4(s1, a02, a13, load4(w1 + i));
            s2 = mac4(s2, a02, a13, load4(w2 + i));
            s3 = mac4(s3, a02, a13, load4(w3 + i));
        }
#endif
        acc[c] = (uint32_t)s0 + dot_tail(a, w0, k4, k);
        acc[c + 1] = (uint32_t)s1 + dot_tail(a, w1, k4, k);
        acc[c + 2] = (uint32_t)s2 + dot_tail(a, w2, k4, k);
        acc[c + 3] = (uint32_t)s3 + dot_tail(a, w3, k4, k);
    }
    for (; c < nc; c++) {
        const int8_t *w0 = w + c * ws;
        int32_t s0 = 0;
        for (int32_t i = 0; i < k4; i += 4) {
            const uint32_t av = load4(a + i);
            s0 = mac4(s0, even_s16(av), odd_s16(av), load4(w0 + i));
        }
        acc[c] = (uint32_t)s0 + dot_tail(a, w0, k4, k);
    }
}

/* Two activation rows against two weight rows per pass (register
 * blocking): each weight word is split by SXTB16 once for both rows, and
 * the rows, widened to int16 once for all channels (systolic_gemm does it
 * in the op's scratch), come in by LDRD: 16 instructions per 16 MACs, where
 * the one-row tile above takes 23-26. */
void systolic_widen_row_variant(const int8_t *a, int32_t k, uint32_t *dst) {
    const int32_t k4 = k & ~3;
    for (int32_t i = 0; i < k4; i += 4) {
        const uint32_t v = load4(a + i);
        dst[i / 2] = (uint32_t)even_s16(v);
        dst[i / 2 + 1] = (uint32_t)odd_s16(v);
    }
}

/* One group of four k for widened rows x0, x1 and channels w0, w1: 16
 * instructions (LDRD brings a row's four widened activations). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#define DOT2W_ASM_STEP                                                                             \
    "ldr    %[o0], [%[p0]], #4\n\t"                                                                \
    "sxtb16 %[e0], %[o0]\n\t"                                                                     \
    "sxtb16 %[o0], %[o0], ror #8\n\t"                                                             \
    "ldr    %[o1], [%[p1]], #4\n\t"                                                                \
    "sxtb16 %[e1], %[o1]\n\t"                                                                     \
    "sxtb16 %[o1], %[o1], ror #8\n\t"                                                             \
    "ldrd   %[xe], %[xo], [%[px0]], #8\n\t"                                                        \
    "smlad  %[s00], %[xe], %[e0], %[s00]\n\t"                                                     \
    "smlad  %[s00], %[xo], %[o0], %[s00]\n\t"                                                     \
    "smlad  %[s01], %[xe], %[e1], %[s01]\n\t"                                                     \
    "smlad  %[s01], %[xo], %[o1], %[s01]\n\t"                                                     \
    "ldrd   %[xe], %[xo], [%[px1]], #8\n\t"                                                        \
    "smlad  %[s10], %[xe], %[e0], %[s10]\n\t"                                                     \
    "smlad  %[s10], %[xo], %[o0], %[s10]\n\t"                                                     \
    "smlad  %[s11], %[xe], %[e1], %[s11]\n\t"                                                     \
    "smlad  %[s11], %[xo], %[o1], %[s11]\n\t"
#endif

static inline void dot2w(const uint32_t *x0, const uint32_t *x1, const int8_t *w0,
                         const int8_t *w1, int32_t k4, int32_t *s) {
    int32_t s00 = 0, s01 = 0, s10 = 0, s11 = 0, done = 0;
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
    const int32_t k8 = k4 & ~7;
    if (k8 > 0) {
        const uint32_t *px0 = x0, *px1 = x1;
        const int8_t *p0 = w0, *p1 = w1;
        const uint32_t *const end = x0 + k8 / 2;
        uint32_t e0, o0, e1, o1, xe, xo;
        __asm__ volatile("1:\n\t" DOT2W_ASM_STEP DOT2W_ASM_STEP
                         "ldr    %[xe], %[end]\n\t"
                         "cmp    %[px0], %[xe]\n\t"
                         "bne    1b\n\t"
                         : [px0] "+&r"(px0), [px1] "+&r"(px1), [p0] "+&r"(p0), [p1] "+&r"(p1),
                           [s00] "+&r"(s00), [s01] "+&r"(s01), [s10] "+&r"(s10), [s11] "+&r"(s11),
                           [e0] "=&r"(e0), [o0] "=&r"(o0), [e1] "=&r"(e1), [o1] "=&r"(o1),
                           [xe] "=&r"(xe), [xo] "=&r"(xo)
                         : [end] "m"(end)
                         : "cc", "memory");
        done = k8;
    }
#endif
    for (int32_t i = done; i < k4; i += 4) {
        const uint32_t v0 = load4(w0 + i), v1 = load4(w1 + i);
        const int16x2_t e0 = even_s16(v0), o0 = odd_s16(v0), e1 = even_s16(v1), o1 = odd_s16(v1);
        const int16x2_t a02 = (int16x2_t)x0[i / 2], a13 = (int16x2_t)x0[i / 2 + 1];
        const int16x2_t b02 = (int16x2_t)x1[i / 2], b13 = (int16x2_t)x1[i / 2 + 1];
        s00 = __smlad(a13, o0, __smlad(a02, e0, s00));
        s01 = __smlad(a13, o1, __smlad(a02, e1, s01));
        s10 = __smlad(b13, o0, __smlad(b02, e0, s10));
        s11 = __smlad(b13, o1, __smlad(b02, e1, s11));
    }
    s[0] = s00;
    s[1] = s01;
    s[2] = s10;
    s[3] = s11;
}

/* Any k: the asm loop over multiples of 8, then C for the rest. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void tile2w_any(const uint32_t *x0, const uint32_t *x1, const int8_t *a0, const int8_t *a1,
                       const int8_t *w0, const int8_t *w1, int32_t k, uint32_t *acc0,
                       uint32_t *acc1) {
    const int32_t k4 = k & ~3;
    int32_t s[4];
    dot2w(x0, x1, w0, w1, k4, s);
    acc0[0] = (uint32_t)s[0] + dot_tail(a0, w0, k4, k);
    acc0[1] = (uint32_t)s[1] + dot_tail(a0, w1, k4, k);
    acc1[0] = (uint32_t)s[2] + dot_tail(a1, w0, k4, k);
    acc1[1] = (uint32_t)s[3] + dot_tail(a1, w1, k4, k);
}

void systolic_tile_dot2_wide_variant(const uint32_t *x0, const uint32_t *x1, const int8_t *a0,
                                     const int8_t *a1, const int8_t *w, int32_t ws, int32_t k,
                                     int32_t nc, uint32_t *acc0, uint32_t *acc1) {
    int32_t c = 0;
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
    /* k a multiple of 8 (most layers): only the asm loop, little around it. */
    if ((k & 7) == 0) {
        for (; c + 2 <= nc; c += 2) {
            const uint32_t *px0 = x0, *px1 = x1;
            const int8_t *p0 = w + c * ws, *p1 = p0 + ws;
            const uint32_t *const end = x0 + k / 2;
            int32_t s00 = 0, s01 = 0, s10 = 0, s11 = 0;
            uint32_t e0, o0, e1, o1, xe, xo;
            __asm__ volatile("1:\n\t" DOT2W_ASM_STEP DOT2W_ASM_STEP
                             "ldr    %[xe], %[end]\n\t"
                             "cmp    %[px0], %[xe]\n\t"
                             "bne    1b\n\t"
                             : [px0] "+&r"(px0), [px1] "+&r"(px1), [p0] "+&r"(p0), [p1] "+&r"(p1),
                               [s00] "+&r"(s00), [s01] "+&r"(s01), [s10] "+&r"(s10),
                               [s11] "+&r"(s11), [e0] "=&r"(e0), [o0] "=&r"(o0), [e1] "=&r"(e1),
                               [o1] "=&r"(o1), [xe] "=&r"(xe), [xo] "=&r"(xo)
                             : [end] "m"(end)
                             : "cc", "memory");
            acc0[c] = (uint32_t)s00;
            acc0[c + 1] = (uint32_t)s01;
            acc1[c] = (uint32_t)s10;
            acc1[c + 1] = (uint32_t)s11;
        }
    }
#endif
    for (; c + 2 <= nc; c += 2)
        tile2w_any(x0, x1, a0, a1, w + c * ws, w + c * ws + ws, k, acc0 + c, acc1 + c);
    if (c < nc) {
        systolic_tile_dot_s8_variant(a0, w + c * ws, ws, k, nc - c, acc0 + c);
        systolic_tile_dot_s8_variant(a1, w + c * ws, ws, k, nc - c, acc1 + c);
    }
}

#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int systolic_dsp_unused;
#endif
