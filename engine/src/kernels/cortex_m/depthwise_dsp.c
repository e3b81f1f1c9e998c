/* SPDX-License-Identifier: Apache-2.0 */
/*
 * depthwise_dsp.c — the int8 depthwise kernel with the Cortex-M DSP
 * extension (M4, M7, M33, M55 built with EDGE_SYSTOLIC_DSP), bit-exact with
 * depthwise.c.
 *
 * Taken: int8, filter offset 0, depth multiplier 1, channels a multiple of
 * 4, filters of at most 9 taps, and input rows small enough for the ring
 * below (DWD_RING_WORDS). Others return 0 (the portable kernel runs).
 *
 * Input rows are widened once each into a ring of k_h-ish rows on the
 * stack: int16 x + io (input offset added by SXTAB16, for free), laid out
 * [group of 4 channels][column] with each pixel's group as two words
 * (c0, c2), (c1, c3) (SXTB16 order), padded left and right (and rows
 * outside the image) with 0. The sums start from the model's bias, so the
 * total is the reference's sum of (x + io) * w over the taps inside
 * (modulo 2^32), |x + io| <= 255. Every pixel, border or
 * not, is then the same straight sequence: per tap one LDRD of the input,
 * one LDRD of the split weights (a table made once per block), and four
 * SMLABB / SMLATT on the four channels' int32 sums (wrapping as the
 * portable kernel's uint32 sums do). A row of outputs is summed for all
 * groups into a small buffer, then requantized per pixel across channels
 * (requant_dsp.h where the multiplier and the bound allow, else
 * edge_rq_apply).
 *
 * Output order: channels in blocks of DWD_BLOCK (all of them when out_c
 * <= 64), and within a block row by row, each row complete (all its
 * channels) before the next.
 *
 * Stack: the ring (DWD_RING_WORDS words, 6 KiB) plus the weight and
 * constant tables and a chunk of sums, about 10 KiB in all.
 */
#include "../depthwise.h"

#if defined(EDGE_SYSTOLIC_DSP)

#if !defined(__ARM_FEATURE_DSP)
#error "EDGE_SYSTOLIC_DSP needs a core with the DSP extension (-mcpu=cortex-m4/m7/m33/m55)"
#endif

#include <arm_acle.h>

#include "../requant.h"
#include "requant_dsp.h"
#include "../word.h"

#define DWD_BLOCK 64        /* output channels at once */
#define DWD_TAPS 9          /* filter taps at most */
#define DWD_RING_WORDS 1536 /* widened rows: 6 KiB */
#define DWD_ACC 256         /* sums of a row chunk (or the fused pass's constants): 1 KiB */

/* The pass-1 routines' arguments (offsets fixed for the asm). Sums go to
 * acc[pixel * astride + 4 * group + j] (astride in bytes). */
typedef struct dwd_job {
    const uint32_t *s[3];   /*  0: widened rows ky = 0, 1, 2 at group 0, the first pixel's tap 0 */
    int32_t gstep[3];       /* 12: bytes from a group's row to the next (0: the padding row) */
    const uint32_t *w;      /* 24: split weights of group 0, [group][DWD_TAPS][2] */
    const int32_t *bias;    /* 28: the starts, four per group */
    int32_t *acc;           /* 32 */
    int32_t astride;        /* 36 */
    int32_t n;              /* 40: pixels (>= 1) */
    int32_t ng;             /* 44: groups (>= 1) */
} dwd_job;

/* The fused routines' arguments: sums and requantization per pixel, each
 * group's constants in a 16-word block {start[4], {mult2, round, right}[4]}
 * (the output offset folded into round; the whole int8 output range). */
typedef struct dwd_fjob {
    const uint32_t *s[3];   /*  0: as dwd_job */
    int32_t gstep[3];       /* 12 */
    const uint32_t *w;      /* 24 */
    const int32_t *gq;      /* 28: group 0's block */
    int8_t *dst;            /* 32: group 0's first output */
    int32_t dskip;          /* 36: out_c - 4 */
    int32_t n;              /* 40: pixels (>= 1) */
    int32_t ng;             /* 44: groups (>= 1) */
    int32_t out_c;          /* 48 */
} dwd_fjob;

/* The requantization pass's arguments: n pixels of nc sums (acc, in
 * order) to dst, nc bytes a pixel, pixels out_c apart. */
typedef struct dwd_rq {
    const int32_t *acc;  /*  0 */
    const int32_t *tab;  /*  4: {mult2, round, right} per channel */
    int8_t *dst;         /*  8 */
    int32_t nc;          /* 12: a multiple of 4 */
    int32_t n;           /* 16: >= 1 */
    int32_t skip;        /* 20: out_c - nc */
    int32_t oo;          /* 24 */
} dwd_rq;


static inline int16x2_t even_s16(uint32_t v) { return __sxtb16((int8x4_t)v); }
/* SXTB16 with its built-in rotate (GCC does not fold a separate ROR). */
static inline int16x2_t odd_s16(uint32_t v) {
    int16x2_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v));
    return r;
}

/* d[0] = a, d[1] = b in one STRD (GCC stores a pair as two STRs). */
typedef struct word_pair {
    uint32_t a, b;
} word_pair;
static inline void store_pair(uint32_t *d, uint32_t a, uint32_t b) {
    __asm__("strd %1, %2, [%3]" : "=m"(*(word_pair *)d) : "r"(a), "r"(b), "r"(d));
}

/* One tap: input pair at [S, OFF] (ADDR: the address operand), weights at
 * word W of the group's table. */
#define DWD_TAP(ADDR, W)                                                                           \
    "ldrd   r8, r9, " ADDR "\n\t"                                                                  \
    "ldrd   r10, r11, [r3, #" W "]\n\t"                                                            \
    "smlabb r4, r8, r10, r4\n\t"                                                                   \
    "smlatt r6, r8, r10, r6\n\t"                                                                   \
    "smlabb r5, r9, r11, r5\n\t"                                                                   \
    "smlatt r7, r9, r11, r7\n\t"
/* A 3-tap row from pointer S, the pixel step STEP bytes: taps 1 and 2 by
 * offset, then tap 0 advancing S to the next pixel. */
#define DWD_ROW3(S, W0, W1, W2, STEP)                                                              \
    DWD_TAP("[" S ", #8]", W1) DWD_TAP("[" S ", #16]", W2) DWD_TAP("[" S "], #" STEP, W0)

/* 3x3, dilation 1: the four sums of n pixels, for ng groups. Frame:
 * S0-S2 (the group's row pointers), GS0-GS2, W, BIAS, ACC, ASTRIDE,
 * ENDOFF (n * astride), GLEFT, END. */
/* One output of the sum in A, constants {mult2, round, right} from r11
 * on, byte to [r12], pointers advancing. */
#define DWD_FRQ(A)                                                                                 \
    "ldm    r11!, {r8-r10}\n\t"                                                                    \
    "add    r9, r9, " A "\n\t"                                                                     \
    "add    r9, r9, " A ", asr #31\n\t"                                                            \
    "smmlar " A ", " A ", r8, r9\n\t"                                                              \
    "asr    " A ", " A ", r10\n\t"                                                                 \
    "ssat   " A ", #8, " A "\n\t"                                                                  \
    "strb   " A ", [r12], #1\n\t"
#define DWD_FPIXEL(STEP)                                                                           \
    "ldm    lr, {r4-r7}\n\t" DWD_ROW3("r0", "0", "8", "16", STEP) DWD_ROW3("r1", "24", "32", "40", STEP) \
        DWD_ROW3("r2", "48", "56", "64", STEP) "add    r11, lr, #16\n\t" DWD_FRQ("r4") DWD_FRQ("r5")  \
            DWD_FRQ("r6") DWD_FRQ("r7") "ldr    r8, [sp, #36]\n\t"                                 \
                                        "add    r12, r8\n\t"
/* 3x3, dilation 1, outputs straight from the sums: frame S0-S2, GS0-GS2,
 * W, GQ, DST, DSKIP (as dwd_fjob), then NOC (n * out_c), GLEFT, END,
 * ENTRY. */
#define DWD_FUSED3(STEP)                                                                           \
    __asm__("push   {r4-r11, lr}\n\t"                                                              \
            "sub    sp, #56\n\t"                                                                   \
            "ldr    r4, [r0, #48]\n\t"                                                             \
            "ldr    r5, [r0, #40]\n\t"                                                             \
            "mul    r4, r4, r5\n\t"                                                                \
            "str    r4, [sp, #40]\n\t"                                                             \
            "ldr    r4, [r0, #44]\n\t"                                                             \
            "str    r4, [sp, #44]\n\t"                                                             \
            "adr.w  r4, 1f\n\t"                                                                    \
            "tst    r5, #1\n\t"                                                                    \
            "it     ne\n\t"                                                                        \
            "adrne.w r4, 2f\n\t"                                                                   \
            "orr    r4, r4, #1\n\t"                                                                \
            "str    r4, [sp, #52]\n\t"                                                             \
            "ldm    r0, {r1-r10}\n\t"                                                              \
            "stm    sp, {r1-r10}\n"                                                                \
            "3:\n\t"                                                                               \
            "ldm    sp, {r0-r2}\n\t"                                                               \
            "ldr    r3, [sp, #24]\n\t"                                                             \
            "ldr    lr, [sp, #28]\n\t"                                                             \
            "ldr    r12, [sp, #32]\n\t"                                                            \
            "ldr    r4, [sp, #40]\n\t"                                                             \
            "add    r4, r12\n\t"                                                                   \
            "str    r4, [sp, #48]\n\t"                                                             \
            "ldr    pc, [sp, #52]\n\t"                                                             \
            ".p2align 2\n"                                                                         \
            "1:\n\t" DWD_FPIXEL(STEP) "2:\n\t" DWD_FPIXEL(STEP) "ldr    r8, [sp, #48]\n\t"         \
            "cmp    r12, r8\n\t"                                                                   \
            "bne    1b\n\t"                                                                        \
            "ldm    sp, {r0-r6}\n\t"                                                               \
            "add    r0, r3\n\t"                                                                    \
            "add    r1, r4\n\t"                                                                    \
            "add    r2, r5\n\t"                                                                    \
            "add    r6, #72\n\t"                                                                   \
            "stm    sp, {r0-r2}\n\t"                                                               \
            "str    r6, [sp, #24]\n\t"                                                             \
            "ldrd   r4, r5, [sp, #28]\n\t"                                                         \
            "add    r4, #64\n\t"                                                                   \
            "add    r5, #4\n\t"                                                                    \
            "strd   r4, r5, [sp, #28]\n\t"                                                         \
            "ldr    r4, [sp, #44]\n\t"                                                             \
            "subs   r4, #1\n\t"                                                                    \
            "str    r4, [sp, #44]\n\t"                                                             \
            "bne    3b\n\t"                                                                        \
            "add    sp, #56\n\t"                                                                   \
            "pop    {r4-r11, pc}\n\t")

__attribute__((naked, noinline)) static void dwd_fused3_s1(const dwd_fjob *j __attribute__((unused))) {
    DWD_FUSED3("8");
}
__attribute__((naked, noinline)) static void dwd_fused3_s2(const dwd_fjob *j __attribute__((unused))) {
    DWD_FUSED3("16");
}

/* One output: sum at [r0], constants {mult2, round, right} at [r1]
 * (requant_dsp.h), offset r3 added (ADD) or folded into round by the
 * table, byte to [r2]. */
#define DWD_RQ1(ADD)                                                                               \
    "ldr    r7, [r0], #4\n\t"                                                                      \
    "ldm    r1!, {r4-r6}\n\t"                                                                      \
    "add    r8, r7, r5\n\t"                                                                        \
    "add    r8, r8, r7, asr #31\n\t"                                                               \
    "smmlar r7, r7, r4, r8\n\t"                                                                    \
    "asr    r7, r7, r6\n\t" ADD "ssat   r7, #8, r7\n\t"                                            \
    "strb   r7, [r2], #1\n\t"

/* The requantization pass, for tables without exact-path channels and the
 * whole int8 output range. */
#define DWD_REQUANT(ADD)                                                                           \
    __asm__("push   {r4-r11, lr}\n\t"                                                              \
            "ldr    r10, [r0, #20]\n\t"                                                            \
            "ldr    r3, [r0, #24]\n\t"                                                             \
            "ldr    r11, [r0, #16]\n\t"                                                            \
            "ldr    r9, [r0, #12]\n\t"                                                             \
            "ldm    r0, {r0-r2}\n\t"                                                               \
            "mov    r12, r1\n\t"                                                                   \
            "add    r9, r9, r9, lsl #1\n\t"                                                        \
            "add    r9, r1, r9, lsl #2\n"                                                          \
            "1:\n\t"                                                                               \
            "mov    r1, r12\n"                                                                     \
            "2:\n\t" DWD_RQ1(ADD) DWD_RQ1(ADD) DWD_RQ1(ADD) DWD_RQ1(ADD) "cmp    r1, r9\n\t"           \
            "bne    2b\n\t"                                                                        \
            "add    r2, r10\n\t"                                                                   \
            "subs   r11, #1\n\t"                                                                   \
            "bne    1b\n\t"                                                                        \
            "pop    {r4-r11, pc}\n\t")

__attribute__((naked, noinline)) static void dwd_requant_add(const dwd_rq *q __attribute__((unused))) {
    DWD_REQUANT("add    r7, r3\n\t");
}
__attribute__((naked, noinline)) static void dwd_requant_fold(const dwd_rq *q __attribute__((unused))) {
    DWD_REQUANT("");
}

/* n pixels of ng groups (four channels each), pixels `step` bytes apart,
 * into a ring row (group g at d + g * gstep words): int16 pairs,
 * SXTB16 order, io2 (the input offset in both halves) added. */
static void dwd_widen(const int8_t *src, int32_t n, int32_t step, int32_t ng, int32_t gstep, uint32_t *d,
                      uint32_t io2) {
    for (int32_t g = 0; g < ng; g++, src += 4, d += gstep) {
        const int8_t *s = src;
        uint32_t *o = d;
        if (n & 1) {
            const uint32_t v = edge_load_word(s);
            uint32_t od;
            __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(od) : "r"(io2), "r"(v));
            store_pair(o, (uint32_t)__sxtab16((int16x2_t)io2, (int8x4_t)v), od);
            o += 2, s += step;
        }
        if (n < 2) continue;
        /* Two pixels a turn: 11 instructions (GCC takes 16). */
        uint32_t v, u, e;
        __asm__ volatile("1:\n\t"
                         "ldr     %[v], [%[s]]\n\t"
                         "ldr     %[u], [%[s], %[step]]\n\t"
                         "add     %[s], %[s], %[step], lsl #1\n\t"
                         "sxtab16 %[e], %[io], %[v]\n\t"
                         "sxtab16 %[v], %[io], %[v], ror #8\n\t"
                         "strd    %[e], %[v], [%[o]], #8\n\t"
                         "sxtab16 %[e], %[io], %[u]\n\t"
                         "sxtab16 %[u], %[io], %[u], ror #8\n\t"
                         "strd    %[e], %[u], [%[o]], #8\n\t"
                         "cmp     %[o], %[end]\n\t"
                         "bne     1b\n\t"
                         : [s] "+&r"(s), [o] "+&r"(o), [v] "=&r"(v), [u] "=&r"(u), [e] "=&r"(e)
                         : [step] "r"(step), [end] "r"(d + 2 * n), [io] "r"(io2)
                         : "cc", "memory");
    }
}

/* Any other window: the same sums in C; step and dstep (pixel and tap)
 * in words. */
static void dwd_pass_any(const dwd_job *j, int32_t k_h, int32_t k_w, int32_t step, int32_t dstep) {
    for (int32_t g = 0; g < j->ng; g++) {
        const int32_t *b = j->bias + 4 * g;
        int32_t *acc = j->acc + 4 * g;
        for (int32_t ox = 0; ox < j->n; ox++, acc += j->astride / 4) {
            int32_t a0 = b[0], a1 = b[1], a2 = b[2], a3 = b[3];
            const uint32_t *w = j->w + g * DWD_TAPS * 2;
            for (int32_t ky = 0; ky < k_h; ky++) {
                const uint32_t *s = j->s[ky] + g * (j->gstep[ky] / 4) + ox * step;
                for (int32_t kx = 0; kx < k_w; kx++, s += dstep, w += 2) {
                    const int16x2_t x02 = (int16x2_t)s[0], x13 = (int16x2_t)s[1];
                    a0 = __smlabb(x02, (int16x2_t)w[0], a0);
                    a2 = __smlatt(x02, (int16x2_t)w[0], a2);
                    a1 = __smlabb(x13, (int16x2_t)w[1], a1);
                    a3 = __smlatt(x13, (int16x2_t)w[1], a3);
                }
            }
            acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
        }
    }
}

int depthwise_s8_dsp(const depthwise_params *p, const int8_t *in, const int8_t *filt, int8_t *out) {
    const int32_t k_h = p->k_h, k_w = p->k_w, taps = k_h * k_w, out_c = p->out_c;
    const int32_t in_h = p->in_h, in_w = p->in_w, out_w = p->out_w, sw = p->stride_w;
    const int32_t dil_h = p->dil_h, dil_w = p->dil_w;
    if (p->is_unsigned || p->filter_offset != 0 || p->depth_mult != 1 || (out_c & 3) ||
        taps > DWD_TAPS || k_h > 3)
        return 0;
    /* Widened row: pad_w padding, the image row, padding to the last tap read. */
    const int32_t pad_l = p->pad_w;
    const int32_t last = (out_w - 1) * sw + (k_w - 1) * dil_w + 1;
    const int32_t wp = (last > pad_l + in_w ? last : pad_l + in_w);
    const int32_t cb = out_c < DWD_BLOCK ? out_c : DWD_BLOCK, nslot = (k_h - 1) * dil_h + 1;
    const int32_t slot_words = (cb / 4) * wp * 2;
    if (nslot > 3 || (int64_t)nslot * slot_words + 2 * wp > DWD_RING_WORDS) return 0;

    uint32_t ring[DWD_RING_WORDS];
    uint32_t wt[DWD_BLOCK / 4 * DWD_TAPS * 2]; /* [group][tap]: (w0, w2), (w1, w3) */
    int32_t bias[DWD_BLOCK], rqt[DWD_BLOCK * 3]; /* starts; {mult2, round, right} */
    int32_t acc[DWD_ACC];
    uint32_t *const zero = ring + nslot * slot_words; /* one group's row of padding, once needed */
    int zero_set = 0;
    const int32_t io = p->input_offset, oo = p->output_offset, lo = p->act_min, hi = p->act_max;
    const uint32_t io2 = ((uint32_t)io & 0xffffu) | ((uint32_t)io << 16);
    /* |(x + io) * w| <= max|x + io| * 128, x in [-128, 127]; padded taps are 0. */
    const uint32_t xlo = (uint32_t)(io < 128 ? 128 - io : io - 128), xhi = (uint32_t)(io < -127 ? -127 - io : io + 127);
    const uint32_t span = (uint32_t)taps * (xlo > xhi ? xlo : xhi) * 128u;
    const int fast3 = k_h == 3 && k_w == 3 && dil_w == 1 && (sw == 1 || sw == 2);
    const int full = lo == -128 && hi == 127;

    for (int32_t b = 0; b < p->batches; b++) {
        const int8_t *img = in + b * in_h * in_w * out_c;
        int8_t *out_img = out + b * p->out_h * out_w * out_c;
        for (int32_t c0 = 0; c0 < out_c; c0 += DWD_BLOCK) {
            const int32_t nc = out_c - c0 < DWD_BLOCK ? out_c - c0 : DWD_BLOCK, ng = nc / 4;
            const int32_t chunk = DWD_ACC / nc;
            int32_t held[3] = {-1, -1, -1}; /* the image row each slot holds */
            int exact = 0, fold = 1;
            const uint32_t oo_mag = (uint32_t)(oo < 0 ? -oo : oo);
            /* The split weights. */
            for (int32_t g = 0; g < ng; g++)
                for (int32_t t = 0; t < taps; t++) {
                    const uint32_t v = edge_load_word(filt + t * out_c + c0 + 4 * g);
                    store_pair(wt + (g * DWD_TAPS + t) * 2, (uint32_t)even_s16(v), (uint32_t)odd_s16(v));
                }
            for (int32_t j = 0; j < nc; j++) {
                const int32_t c = c0 + j, i = p->per_channel ? c : 0;
                edge_rq_dsp r;
                uint32_t need;
                bias[j] = p->bias ? p->bias[c] : 0;
                if (edge_rq_dsp_make(p->multiplier[i], p->shift[i], &r) &&
                    (need = edge_rq_dsp_need(bias[j], span, &r)) <= 0x7fffffffu) {
                    rqt[3 * j] = r.mult2, rqt[3 * j + 1] = r.round, rqt[3 * j + 2] = r.right;
                    /* The offset can go into the rounding term (see systolic_dsp.c). */
                    fold &= r.right < 23 && need + (oo_mag << r.right) <= 0x7fffffffu;
                } else {
                    rqt[3 * j] = 0, rqt[3 * j + 1] = 1, rqt[3 * j + 2] = 1;
                    exact = 1;
                }
            }
            if (fold && !exact)
                for (int32_t j = 0; j < nc; j++)
                    rqt[3 * j + 1] = (int32_t)((uint32_t)rqt[3 * j + 1] + ((uint32_t)oo << rqt[3 * j + 2]));
            /* 3x3 with folded offsets: one pass, the constants by group
             * (in acc, which that pass does not use). Restricted output
             * ranges are clamped after (edge_clamp_s8). */
            const int fused = fast3 && fold && !exact;
            int32_t *const gq = acc;
            for (int32_t g = 0; fused && g < ng; g++)
                for (int32_t j = 0; j < 4; j++) {
                    gq[16 * g + j] = bias[4 * g + j];
                    gq[16 * g + 4 + 3 * j] = rqt[3 * (4 * g + j)];
                    gq[16 * g + 5 + 3 * j] = rqt[3 * (4 * g + j) + 1];
                    gq[16 * g + 6 + 3 * j] = rqt[3 * (4 * g + j) + 2];
                }
            /* The padding columns of the slots, once. */
            for (int32_t sl = 0; sl < nslot; sl++)
                for (int32_t g = 0; g < ng; g++) {
                    uint32_t *d = ring + sl * slot_words + g * wp * 2;
                    for (int32_t x = 0; x < pad_l; x++) d[2 * x] = d[2 * x + 1] = 0;
                    for (int32_t x = pad_l + in_w; x < wp; x++) d[2 * x] = d[2 * x + 1] = 0;
                }
            for (int32_t oy = 0; oy < p->out_h; oy++) {
                const int32_t iy0 = oy * p->stride_h - p->pad_h;
                dwd_job jb;
                for (int32_t ky = 0; ky < k_h; ky++) {
                    const int32_t iy = iy0 + ky * dil_h;
                    if (iy < 0 || iy >= in_h) {
                        for (int32_t i = 0; !zero_set && i < wp * 2; i++) zero[i] = 0;
                        zero_set = 1;
                        jb.s[ky] = zero;
                        jb.gstep[ky] = 0;
                        continue;
                    }
                    const int32_t sl = iy % nslot;
                    uint32_t *slot = ring + sl * slot_words;
                    if (held[sl] != iy) {
                        /* Widen image row iy: int16, SXTB16 order. */
                        const int8_t *src = img + iy * in_w * out_c + c0;
                        dwd_widen(src, in_w, out_c, ng, wp * 2, slot + pad_l * 2, io2);
                        held[sl] = iy;
                    }
                    jb.s[ky] = slot;
                    jb.gstep[ky] = wp * 8;
                }
                int8_t *drow = out_img + oy * out_w * out_c + c0;
                if (fused) {
                    dwd_fjob fj;
                    for (int32_t ky = 0; ky < 3; ky++) fj.s[ky] = jb.s[ky], fj.gstep[ky] = jb.gstep[ky];
                    fj.w = wt;
                    fj.gq = gq;
                    fj.dst = drow;
                    fj.dskip = out_c - 4;
                    fj.n = out_w;
                    fj.ng = ng;
                    fj.out_c = out_c;
                    (sw == 1 ? dwd_fused3_s1 : dwd_fused3_s2)(&fj);
                    for (int32_t x = 0; !full && x < out_w; x++) edge_clamp_s8(drow + x * out_c, nc, lo, hi);
                    continue;
                }
                const uint32_t *row0[3] = {jb.s[0], jb.s[1], jb.s[2]};
                jb.w = wt;
                jb.bias = bias;
                jb.acc = acc;
                jb.astride = nc * 4;
                jb.ng = ng;
                for (int32_t ox0 = 0; ox0 < out_w; ox0 += chunk) {
                    const int32_t n = out_w - ox0 < chunk ? out_w - ox0 : chunk;
                    for (int32_t ky = 0; ky < k_h; ky++) jb.s[ky] = row0[ky] + ox0 * sw * 2;
                    jb.n = n;
                    dwd_pass_any(&jb, k_h, k_w, sw * 2, dil_w * 2);
                    int8_t *d0 = drow + ox0 * out_c;
                    if (!exact) {
                        const dwd_rq q = {acc, rqt, d0, nc, n, out_c - nc, oo};
                        (fold ? dwd_requant_fold : dwd_requant_add)(&q);
                        for (int32_t x = 0; !full && x < n; x++) edge_clamp_s8(d0 + x * out_c, nc, lo, hi);
                        continue;
                    }
                    for (int32_t x = 0; x < n; x++)
                        for (int32_t j = 0; j < nc; j++) {
                            const int32_t a = acc[x * nc + j], i = p->per_channel ? c0 + j : 0;
                            int32_t v;
                            if (rqt[3 * j + 1] != 1 || rqt[3 * j] != 0) {
                                const edge_rq_dsp r = {rqt[3 * j], rqt[3 * j + 1], rqt[3 * j + 2]};
                                v = edge_rq_dsp_apply(a, &r);
                            } else {
                                const edge_rq r = edge_rq_make(p->multiplier[i], p->shift[i]);
                                v = edge_rq_apply((uint32_t)a, r.mult, r.left, r.right, r.round, r.neg);
                            }
                            v = (int32_t)((uint32_t)v + (uint32_t)oo);
                            v = v < lo ? lo : v;
                            d0[x * out_c + j] = (int8_t)(v > hi ? hi : v);
                        }
                }
            }
        }
    }
    return 1;
}

#endif
