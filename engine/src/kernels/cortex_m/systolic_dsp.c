/* SPDX-License-Identifier: Apache-2.0 */
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
#include "../systolic.h"

#if defined(EDGE_SYSTOLIC_DSP)

#if !defined(__ARM_FEATURE_DSP)
#error "EDGE_SYSTOLIC_DSP needs a core with the DSP extension (-mcpu=cortex-m4/m7/m33/m55)"
#endif

#include <arm_acle.h>

#include "requant_dsp.h"
#include "../word.h"


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
            const uint32_t av = edge_load_word(a + i);
            const int16x2_t a02 = even_s16(av), a13 = odd_s16(av);
            s0 = mac4(s0, a02, a13, edge_load_word(w0 + i));
            s1 = mac4(s1, a02, a13, edge_load_word(w1 + i));
            s2 = mac4(s2, a02, a13, edge_load_word(w2 + i));
            s3 = mac4(s3, a02, a13, edge_load_word(w3 + i));
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
            const uint32_t av = edge_load_word(a + i);
            s0 = mac4(s0, even_s16(av), odd_s16(av), edge_load_word(w0 + i));
        }
        acc[c] = (uint32_t)s0 + dot_tail(a, w0, k4, k);
    }
}

/* ---- The wide GEMM (systolic.h: EDGE_SYSTOLIC_VARIANT_WIDE) ----
 *
 * A block of R activation rows (R = 6, or 4 when k > 384) is widened once
 * into a stack buffer, interleaved by groups of four k: for group q, row r
 * has the words x[q * 2R + 2r] = (a0, a2) and x[q * 2R + 2r + 1] = (a1, a3)
 * (SXTB16 order), the last group zero-filled past k. Then each output
 * channel is one pass over the block: its weight word for group q is split
 * by SXTB16 once and feeds R rows (2R SMLADs), whose widened words come in
 * two rows (four words) per LDM. With R = 6, 24 MACs take 18 instructions:
 * six sums, the split word, four words of two rows and two pointers are
 * the 14 registers a core has. The R sums of one channel share its
 * requantization constants (requant_dsp.h, 7 or 8 instructions an output).
 *
 * Weights are read 4 * ceil(k / 4) bytes a channel: the bytes past k meet
 * zero activations; past the end of the weight array they are copied
 * first (the last channel, when 4 does not divide k). */

#define WIDE_MAX_K (EDGE_SYSTOLIC_WIDE_WORDS / 2)  /* R = 4 */
#define WIDE_MAX_K6 (EDGE_SYSTOLIC_WIDE_WORDS / 3) /* R = 6 */

/* One group of four k: the weight word split into r2/r3, then two rows at a
 * time (r10, r11 and r12, lr) for sums ACC0..: 18 instructions (72 bytes)
 * for six rows, 13 (52 bytes) for four. */
#define DOT_W                                                                                      \
    "ldr    r12, [r1], #4\n\t"                                                                     \
    "sxtb16 r2, r12\n\t"                                                                           \
    "sxtb16 r3, r12, ror #8\n\t"
#define DOT_ROWS2(A, B)                                                                            \
    "ldmia  r0!, {r10, r11, r12, lr}\n\t"                                                          \
    "smlad  " A ", r10, r2, " A "\n\t"                                                             \
    "smlad  " A ", r11, r3, " A "\n\t"                                                             \
    "smlad  " B ", r12, r2, " B "\n\t"                                                             \
    "smlad  " B ", lr, r3, " B "\n\t"
#define DOT_STEP6 DOT_W DOT_ROWS2("r4", "r5") DOT_ROWS2("r6", "r7") DOT_ROWS2("r8", "r9")
#define DOT_STEP4 DOT_W DOT_ROWS2("r4", "r5") DOT_ROWS2("r6", "r7")

/* acc[r] = acc[0] + row r of the block x . w over `steps` (>= 1) groups,
 * r < 6 (dot6) or 4 (dot4), for wide_block. Written out: 14 registers are
 * more than GCC can be asked for in an asm statement. */
#define DOT_ASM(STEP, END, INIT, ACCS)                                                             \
    __asm__("push   {r4-r11, lr}\n\t"                                                              \
            "ldr    r4, [r3]\n\t" INIT END "push   {r2, r3}\n"                                     \
            "1:\n\t" STEP "ldr    r12, [sp]\n\t"                                                   \
            "cmp    r0, r12\n\t"                                                                   \
            "bne    1b\n\t"                                                                        \
            "pop    {r2, r3}\n\t"                                                                  \
            "stm    r3, {" ACCS "}\n\t"                                                            \
            "pop    {r4-r11, pc}\n\t")
/* r2 = x + steps * 48 (R = 6) or * 32 (R = 4), from any of r0-r3. */
#define END6(D, S)                                                                                 \
    "add    " D ", r2, r2, lsl #1\n\t"                                                             \
    "add    " D ", " S ", " D ", lsl #4\n\t"
#define END4(D, S) "add    " D ", " S ", r2, lsl #5\n\t"
#define INIT6 "mov    r5, r4\n\tmov    r6, r4\n\tmov    r7, r4\n\tmov    r8, r4\n\tmov    r9, r4\n\t"
#define INIT4 "mov    r5, r4\n\tmov    r6, r4\n\tmov    r7, r4\n\t"

__attribute__((naked, noinline)) static void dot6(const uint32_t *x __attribute__((unused)),
                                                  const int8_t *w __attribute__((unused)),
                                                  int32_t steps __attribute__((unused)),
                                                  int32_t *acc __attribute__((unused))) {
    DOT_ASM(DOT_STEP6, END6("r2", "r0"), INIT6, "r4-r9");
}

__attribute__((naked, noinline)) static void dot4(const uint32_t *x __attribute__((unused)),
                                                  const int8_t *w __attribute__((unused)),
                                                  int32_t steps __attribute__((unused)),
                                                  int32_t *acc __attribute__((unused))) {
    DOT_ASM(DOT_STEP4, END4("r2", "r0"), INIT4, "r4-r7");
}

/* ---- Whole tiles in asm: every channel's dot product, requantization and
 * stores for a block of R full rows, with no call or spill per channel.
 * The per-channel constants come from a table built once per op (or per
 * tile for more than TAB_MAX channels): {bias x 6, mult2, round, right}
 * (requant_dsp.h; the bias once per row, so that one LDM starts all the
 * sums); right = 0 hands the channel back (its sums in acc[])
 * for the exact path, right < 0 says the offset is added rather than
 * folded into round. Outputs saturate to the int8 range (SSAT #8); callers
 * clamp narrower ones after. */
#define TAB_ENTRY 9 /* words of a table entry */
#define TAB_ENTRY_BYTES "36"
typedef struct dsp_tile {
    const uint32_t *x;  /*  0: the widened block */
    const int8_t *w;    /*  4: weights of the next channel */
    const int32_t *tab; /*  8: its table entry */
    const int32_t *tab_end;
    uint8_t *out;       /* 16: its output in row 0 */
    int32_t out_stride; /* 20 */
    int32_t oo;         /* 24: output offset */
    int32_t k;          /* 28 */
    int32_t steps;      /* 32: groups of four k */
    int32_t acc[8];     /* 36: the sums of a channel handed back */
} dsp_tile;

/* Stack frame of the tile routines. */
#define TF_T "0"
#define TF_X "4"
#define TF_W "8" /* the weights while the add-offset outputs use r1 */
#define TF_TAB "12" /* TAB, TEND adjacent */
#define TF_OUT "20"
#define TF_STRIDE "24"
#define TF_OO "28"
#define TF_KADJ "32" /* k - 4 * steps: W after the loop to the next row */
#define TF_END "36"
#define TF_ENTRY "40"

/* One output of the sum in A: r0 = mult2, r2 = 2^(right-1), r3 = right
 * (requant_dsp.h), plus the output offset: RQ_A adds r10 = offset, RQ_F
 * has it folded into r2 by the table (offset << right). Stored at r12;
 * RQ_NEXT steps r12 to the next row (r11 = stride). */
#define RQ_HEAD(A)                                                                                 \
    "add    lr, r2, " A "\n\t"                                                                     \
    "add    lr, lr, " A ", asr #31\n\t"                                                            \
    "smmlar " A ", " A ", r0, lr\n\t"                                                              \
    "asr    " A ", " A ", r3\n\t"
#define RQ_TAIL(A)                                                                                 \
    "ssat   " A ", #8, " A "\n\t"                                                                  \
    "strb   " A ", [r12]\n\t"
#define RQ_F(A) RQ_HEAD(A) RQ_TAIL(A)
#define RQ_A(A) RQ_HEAD(A) "add    " A ", r10\n\t" RQ_TAIL(A)
#define RQ_NX(RQ, A) "add    r12, r11\n\t" RQ(A)
#define RQ_ROWS4(RQ) RQ("r4") RQ_NX(RQ, "r5") RQ_NX(RQ, "r6") RQ_NX(RQ, "r7")
#define RQ_ROWS6(RQ) RQ_ROWS4(RQ) RQ_NX(RQ, "r8") RQ_NX(RQ, "r9")

/* ROWS_STEP: one group of four k, STEP_BYTES long; END: TF_END's value
 * into r10 from x (r1) and steps (r9); RQF, RQA: the outputs with the
 * offset folded or added; ACCS: the sum registers. The dot loop does eight
 * groups a turn, entered at the right one for steps % 8 (every step is the
 * same STEP_BYTES of 32-bit instructions; the assembler checks). Returns 1
 * when a channel was handed back (t->w, tab past it, out at it), 0 at
 * tab_end. */
#define DSP_TILE_ASM(ROWS_STEP, STEP_BYTES, END, RQF, RQA, ACCS, INIT)                            \
    __asm__("push   {r4-r11, lr}\n\t"                                                              \
            "sub    sp, #48\n\t"                                                                   \
            "str    r0, [sp, #" TF_T "]\n\t"                                                       \
            "ldm    r0, {r1-r9}\n\t"                                                               \
            "strd   r1, r2, [sp, #" TF_X "]\n\t"                                                   \
            "strd   r3, r4, [sp, #" TF_TAB "]\n\t"                                                 \
            "strd   r5, r6, [sp, #" TF_OUT "]\n\t"                                                 \
            "str    r7, [sp, #" TF_OO "]\n\t"                                                      \
            "sub    r8, r8, r9, lsl #2\n\t"                                                        \
            "str    r8, [sp, #" TF_KADJ "]\n\t" END "str    r10, [sp, #" TF_END "]\n\t"            \
            "rsb    r9, r9, #0\n\t"                                                                \
            "and    r9, r9, #7\n\t"                                                                \
            "mov    r10, #" STEP_BYTES "\n\t"                                                      \
            "adr.w  r12, 1f\n\t"                                                                   \
            "mla    r12, r9, r10, r12\n\t"                                                         \
            "orr    r12, r12, #1\n\t"                                                              \
            "str    r12, [sp, #" TF_ENTRY "]\n\t"                                                  \
            "mov    r1, r2\n\t"                                                                    \
            "mov    r2, r3\n"                                                                      \
            "5:\n\t"                                                                               \
            INIT "str    r2, [sp, #" TF_TAB "]\n\t"                                              \
            "ldr    r0, [sp, #" TF_X "]\n\t"                                                       \
            "ldr    pc, [sp, #" TF_ENTRY "]\n\t"                                                   \
            ".p2align 2\n"                                                                         \
            "1:\n\t" ROWS_STEP "2:\n\t" ROWS_STEP ROWS_STEP ROWS_STEP ROWS_STEP ROWS_STEP ROWS_STEP      \
                ROWS_STEP                                                                          \
            ".if 2b - 1b - " STEP_BYTES "\n\t"                                                      \
            ".error \"dot step size\"\n\t"                                                          \
            ".endif\n\t"                                                                           \
            "ldr    r12, [sp, #" TF_END "]\n\t"                                                    \
            "cmp    r0, r12\n\t"                                                                   \
            "bne    1b\n\t"                                                                        \
            "ldr    r12, [sp, #" TF_KADJ "]\n\t"                                                   \
            "add    r1, r12\n\t"                                                                   \
            "ldr    r12, [sp, #" TF_TAB "]\n\t"                                                    \
            "ldmdb  r12, {r0, r2, r3}\n\t"                                                         \
            "cmp    r3, #0\n\t"                                                                    \
            "beq    6f\n\t"                                                                        \
            "ldr    r12, [sp, #" TF_OUT "]\n\t"                                                    \
            "ldr    r11, [sp, #" TF_STRIDE "]\n\t"                                                 \
            "add    lr, r12, #1\n\t"                                                               \
            "str    lr, [sp, #" TF_OUT "]\n\t"                                                     \
            "blt    7f\n\t" RQF "8:\n\t"                                                          \
            "ldrd   r2, r3, [sp, #" TF_TAB "]\n\t"                                                 \
            "cmp    r2, r3\n\t"                                                                    \
            "bne    5b\n\t"                                                                        \
            "movs   r0, #0\n\t"                                                                    \
            "add    sp, #48\n\t"                                                                   \
            "pop    {r4-r11, pc}\n"                                                                \
            "7:\n\t"                                                                               \
            "rsb    r3, r3, #0\n\t"                                                                \
            "ldr    r10, [sp, #" TF_OO "]\n\t" RQA "b      8b\n"                                   \
            "6:\n\t"                                                                               \
            "ldr    r0, [sp, #" TF_T "]\n\t"                                                       \
            "ldr    r2, [sp, #" TF_TAB "]\n\t"                                                     \
            "ldr    r3, [sp, #" TF_OUT "]\n\t"                                                     \
            "str    r1, [r0, #4]\n\t"                                                              \
            "str    r2, [r0, #8]\n\t"                                                              \
            "str    r3, [r0, #16]\n\t"                                                             \
            "add    r0, #36\n\t"                                                                   \
            "stm    r0, {" ACCS "}\n\t"                                                            \
            "movs   r0, #1\n\t"                                                                    \
            "add    sp, #48\n\t"                                                                   \
            "pop    {r4-r11, pc}\n\t")

__attribute__((naked, noinline)) static int tile6(dsp_tile *t __attribute__((unused))) {
    DSP_TILE_ASM(DOT_STEP6, "72", "add r10, r9, r9, lsl #1\n\tadd r10, r1, r10, lsl #4\n\t",
                 RQ_ROWS6(RQ_F), RQ_ROWS6(RQ_A), "r4-r9", "ldm    r2!, {r4-r9}\n\tadd    r2, #12\n\t");
}

__attribute__((naked, noinline)) static int tile4(dsp_tile *t __attribute__((unused))) {
    DSP_TILE_ASM(DOT_STEP4, "52", "add r10, r1, r9, lsl #5\n\t", RQ_ROWS4(RQ_F), RQ_ROWS4(RQ_A),
                 "r4-r7", "ldm    r2, {r4-r7}\n\tadd    r2, #" TAB_ENTRY_BYTES "\n\t");
}

/* SXTAB16 with its rotate: (b1, b3) of v plus the halves of a. */
static inline uint32_t odd_add16(uint32_t a, uint32_t v) {
    uint32_t r;
    __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(a), "r"(v));
    return r;
}

/* From S up to END (a multiple of 8 bytes on), two words a turn into
 * pairs at O, ST bytes apart: 10 instructions. S and O advance. */
#define WIDEN_LOOP(ST, S, O, END)                                                                  \
    __asm__ volatile("1:\n\t"                                                                      \
                     "ldr     %[u], [%[s], #4]\n\t"                                               \
                     "ldr     %[v], [%[s]], #8\n\t"                                               \
                     "sxtab16 %[e], %[io], %[v]\n\t"                                              \
                     "sxtab16 %[v], %[io], %[v], ror #8\n\t"                                      \
                     "strd    %[e], %[v], [%[x]], #" ST "\n\t"                                    \
                     "sxtab16 %[e], %[io], %[u]\n\t"                                              \
                     "sxtab16 %[u], %[io], %[u], ror #8\n\t"                                      \
                     "strd    %[e], %[u], [%[x]], #" ST "\n\t"                                    \
                     "cmp     %[s], %[end]\n\t"                                                   \
                     "bne     1b\n\t"                                                             \
                     : [s] "+&r"(S), [x] "+&r"(O), [v] "=&r"(v), [u] "=&r"(u), [e] "=&r"(e)     \
                     : [io] "r"(io2), [end] "r"(END)                                            \
                     : "cc", "memory")

/* n bytes (a multiple of 4) at src into one row of a block: word pairs
 * st words apart (st = 2R: 8 or 12), io2 (the input offset in both
 * halves) added to every value by SXTAB16, for free. Returns where the
 * next would go. */
static uint32_t *widen_run(const int8_t *src, int32_t n, uint32_t *x, int32_t st, uint32_t io2) {
    if (n & 4) {
        const uint32_t v = edge_load_word(src);
        store_pair(x, (uint32_t)__sxtab16((int16x2_t)io2, (int8x4_t)v), odd_add16(io2, v));
        src += 4, x += st;
    }
    if (n < 8) return x;
    const int8_t *const end = src + (n & ~7);
    uint32_t v, u, e;
    if (st == 12)
        WIDEN_LOOP("48", src, x, end);
    else
        WIDEN_LOOP("32", src, x, end);
    return x;
}

/* mr rows of k bytes (a multiple of 8), one after the other from src,
 * into rows 0..mr-1 of a block (st = 2R: 8 or 12), io2 added: 1x1
 * stride-1 convs, whose pixels' rows are contiguous. */
static void widen_rows(const int8_t *src, int32_t k, int32_t mr, uint32_t *x, int32_t st, uint32_t io2) {
    const int8_t *const last = src + mr * k;
    uint32_t v, u, e;
    if (st == 12)
        for (; src != last; x += 2) {
            uint32_t *o = x;
            const int8_t *const end = src + k;
            WIDEN_LOOP("48", src, o, end);
        }
    else
        for (; src != last; x += 2) {
            uint32_t *o = x;
            const int8_t *const end = src + k;
            WIDEN_LOOP("32", src, o, end);
        }
}

/* n / 4 groups of the same widened word pair (padding, or zeros). */
static uint32_t *fill_run(uint32_t pw, int32_t n, uint32_t *x, int32_t st) {
    for (int32_t i = 0; i < n; i += 4, x += st) x[0] = x[1] = pw;
    return x;
}

/* acc + one widened row (word pairs st apart) . w over `steps` groups. */
static int32_t dot1(const uint32_t *x, int32_t st, const int8_t *w, int32_t steps, int32_t acc) {
    for (int32_t q = 0; q < steps; q++, x += st) {
        const uint32_t v = edge_load_word(w + 4 * q);
        acc = __smlad((int16x2_t)x[0], even_s16(v), acc);
        acc = __smlad((int16x2_t)x[1], odd_s16(v), acc);
    }
    return acc;
}

typedef struct wide_gemm {
    const systolic_params *p; /* weights, bias, multiplier, shift of all channels */
    const int8_t *w_end;      /* one past the weights */
    int8_t *spare;            /* 4 * steps bytes for the last channel's row */
    const int8_t *wlast;      /* the last channel's row zero-padded to 4 * steps, or NULL */
    int32_t steps;            /* ceil(k / 4) */
    uint32_t io2;             /* the offset the widening adds, in both halves (0: none) */
    uint32_t span;            /* the most |sum of products| can be (requant_dsp.h's bound) */
    int8_t tail;              /* activation bytes past k: widened, they are 0 */
} wide_gemm;

int systolic_conv_variant_takes(const systolic_params *p) {
    return !p->is_unsigned && p->filter_offset == 0 && p->k <= WIDE_MAX_K &&
           (p->requant == SYSTOLIC_REQUANT_FIXED || p->requant == SYSTOLIC_REQUANT_DOUBLE);
}

/* Channels [c0, c0 + nch) against the block x of R rows, the first mr
 * valid: row r, channel c0 + j to out[r * out_stride + j]. */
/* Requantize the mr sums of channel ch (bias included) to o[r * out_stride]. */
static void wide_requant(const wide_gemm *g, int32_t ch, const int32_t *acc, int32_t mr, uint8_t *o,
                         int32_t out_stride) {
    const systolic_params *p = g->p;
    const int32_t oo = p->output_offset, lo = p->act_min, hi = p->act_max;
    const int32_t q = p->per_channel ? ch : 0;
    edge_rq_dsp rq;
    if (p->requant == SYSTOLIC_REQUANT_FIXED && edge_rq_dsp_make(p->multiplier[q], p->shift[q], &rq) &&
        edge_rq_dsp_fits(p->bias ? p->bias[ch] : 0, g->span, &rq)) {
        for (int32_t r = 0; r < mr; r++) {
            int32_t v = edge_rq_dsp_apply(acc[r], &rq) + oo;
            v = v < lo ? lo : v;
            o[r * out_stride] = (uint8_t)(v > hi ? hi : v);
        }
        return;
    }
    systolic_requant_channel(p, ch, acc, mr, o, out_stride);
}

/* acc[0..3] += one widened row (word pairs st apart) . four weight rows
 * k apart, over `steps` groups: each row's pair feeds four channels. */
static void dot1x4(const uint32_t *x, int32_t st, const int8_t *w, int32_t k, int32_t steps, int32_t *acc) {
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    for (const uint32_t *const end = x + steps * st; x < end; x += st, w += 4) {
        const int16x2_t xe = (int16x2_t)x[0], xo = (int16x2_t)x[1];
        uint32_t v = edge_load_word(w);
        a0 = __smlad(xo, odd_s16(v), __smlad(xe, even_s16(v), a0));
        v = edge_load_word(w + k);
        a1 = __smlad(xo, odd_s16(v), __smlad(xe, even_s16(v), a1));
        v = edge_load_word(w + 2 * k);
        a2 = __smlad(xo, odd_s16(v), __smlad(xe, even_s16(v), a2));
        v = edge_load_word(w + 3 * k);
        a3 = __smlad(xo, odd_s16(v), __smlad(xe, even_s16(v), a3));
    }
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

/* Channels [c0, c0 + nch) against the block x of R rows, the first mr
 * valid: row r, channel c0 + j to out[r * out_stride + j]. */
static void wide_block(const wide_gemm *g, const uint32_t *x, int32_t R, int32_t mr, int32_t c0,
                       int32_t nch, uint8_t *out, int32_t out_stride) {
    const systolic_params *p = g->p;
    const int32_t k = p->k, steps = g->steps;
    const int8_t *const wts = (const int8_t *)p->weights;
    int32_t acc[8];
    int32_t j = 0;
    /* One or two rows (tails): four channels a pass, the other rows not
     * computed. */
    for (; mr <= 2 && j + 4 <= nch && wts + (c0 + j + 3) * k + 4 * steps <= g->w_end; j += 4) {
        int32_t a[2][4];
        for (int32_t r = 0; r < mr; r++) {
            for (int32_t t = 0; t < 4; t++) a[r][t] = p->bias ? p->bias[c0 + j + t] : 0;
            dot1x4(x + 2 * r, 2 * R, wts + (c0 + j) * k, k, steps, a[r]);
        }
        for (int32_t t = 0; t < 4; t++) {
            acc[0] = a[0][t], acc[1] = a[1][t];
            wide_requant(g, c0 + j + t, acc, mr, out + j + t, out_stride);
        }
    }
    for (; j < nch; j++) {
        const int32_t ch = c0 + j;
        const int8_t *w = wts + ch * k;
        if (w + 4 * steps > g->w_end) {
            int32_t i = 0;
            for (; i < k; i++) g->spare[i] = w[i];
            for (; i < 4 * steps; i++) g->spare[i] = g->tail; /* meets 0 activations */
            w = g->spare;
        }
        const int32_t b = p->bias ? p->bias[ch] : 0;
        if (mr <= 2) {
            for (int32_t r = 0; r < mr; r++) acc[r] = dot1(x + 2 * r, 2 * R, w, steps, b);
        } else {
            acc[0] = b;
            if (R == 6)
                dot6(x, w, steps, acc);
            else
                dot4(x, w, steps, acc);
        }
        wide_requant(g, ch, acc, mr, out + j, out_stride);
    }
}

/* io: the offset the widening adds to the activations (0, or the conv's
 * input offset). Then x + io is in [io - 128, io + 127] and |w| <= 128. */
static wide_gemm wide_setup(const systolic_params *p, int32_t n_all, int8_t *spare, int32_t io) {
    wide_gemm g;
    g.p = p;
    g.steps = (p->k + 3) / 4;
    g.w_end = (const int8_t *)p->weights + n_all * p->k;
    g.spare = spare;
    g.wlast = 0;
    g.io2 = ((uint32_t)io & 0xffffu) | ((uint32_t)io << 16);
    const uint32_t lo = (uint32_t)(io < 128 ? 128 - io : io - 128), hi = (uint32_t)(io < -127 ? -127 - io : io + 127);
    g.span = (uint32_t)p->k * (lo > hi ? lo : hi) * 128u; /* k <= 576: < 2^25 */
    g.tail = (int8_t)-io;
    return g;
}

int systolic_gemm_wide_variant(const systolic_params *p, const void *const *rows, int32_t m, void *out,
                               int32_t out_stride) {
    if (!systolic_conv_variant_takes(p)) return 0;
    uint32_t x[EDGE_SYSTOLIC_WIDE_WORDS];
    int8_t spare[WIDE_MAX_K + 4];
    const wide_gemm g = wide_setup(p, p->n, spare, 0);
    const int32_t R = p->k <= WIDE_MAX_K6 ? 6 : 4;
    for (int32_t r0 = 0; r0 < m; r0 += R) {
        const int32_t mr = m - r0 < R ? m - r0 : R, Rt = mr <= 4 ? 4 : R;
        for (int32_t r = 0; r < Rt; r++) {
            if (r < mr && (p->k & 3) == 0) {
                widen_run((const int8_t *)rows[r0 + r], p->k, x + 2 * r, 2 * Rt, 0);
            } else if (r < mr) {
                /* A copy with zeros past k (spare is free until wide_block). */
                int32_t i = 0;
                for (; i < p->k; i++) spare[i] = ((const int8_t *)rows[r0 + r])[i];
                for (; i < 4 * g.steps; i++) spare[i] = 0;
                widen_run(spare, 4 * g.steps, x + 2 * r, 2 * Rt, 0);
            } else {
                fill_run(0, 4 * g.steps, x + 2 * r, 2 * Rt);
            }
        }
        wide_block(&g, x, Rt, mr, 0, p->n, (uint8_t *)out + r0 * out_stride, out_stride);
    }
    return 1;
}

#define TAB_MAX 128 /* channels of the tile table: 4.5 KiB of stack */

/* The tile6/tile4 table of channels [c0, c0 + n), n <= TAB_MAX; 0 when
 * they cannot run (then wide_block does). */
static int tile_table(const wide_gemm *g, int32_t c0, int32_t n, int32_t *tab) {
    const systolic_params *p = g->p;
    if (p->requant != SYSTOLIC_REQUANT_FIXED) return 0;
    const int32_t *const mult = p->multiplier, *const bias = p->bias;
    const int8_t *const shift = p->shift;
    const int32_t qstep = p->per_channel ? 1 : 0;
    const uint32_t span = g->span, oo = (uint32_t)p->output_offset;
    const uint32_t oo_mag = (uint32_t)(p->output_offset < 0 ? -p->output_offset : p->output_offset);
    for (int32_t ch = c0, q = c0 * qstep; ch < c0 + n; ch++, q += qstep, tab += TAB_ENTRY) {
        const int32_t b = bias ? bias[ch] : 0;
        edge_rq_dsp rq;
        uint32_t need;
        tab[0] = tab[1] = tab[2] = tab[3] = tab[4] = tab[5] = b;
        if (!edge_rq_dsp_make(mult[q], shift[q], &rq) || (need = edge_rq_dsp_need(b, span, &rq)) > 0x7fffffffu) {
            tab[6] = tab[7] = tab[8] = 0;
            continue;
        }
        /* The offset folded into the rounding term when the sum stays in
         * range: (h + round + oo * 2^right) >> right = out + oo. Else
         * right < 0 says "add it". */
        tab[6] = rq.mult2;
        if (rq.right < 23 && need + (oo_mag << rq.right) <= 0x7fffffffu) {
            tab[7] = (int32_t)((uint32_t)rq.round + (oo << rq.right));
            tab[8] = rq.right;
        } else {
            tab[7] = rq.round;
            tab[8] = -rq.right;
        }
    }
    return 1;
}

/* Channels [c0, c0 + nch) of a block of R full rows through tile6/tile4,
 * tab their table (its entry 0 is channel c0's). */
static void tile_run(const wide_gemm *g, const int32_t *tab, const uint32_t *x, int32_t R, int32_t c0,
                     int32_t nch, uint8_t *out, int32_t out_stride) {
    const systolic_params *p = g->p;
    const int8_t *w = (const int8_t *)p->weights + c0 * p->k;
    /* The last channel of the weights, when its 4 * steps bytes would
     * overrun them: wide_block copies it first. */
    int32_t nf = w + (nch - 1) * p->k + 4 * g->steps > g->w_end ? nch - 1 : nch;
    dsp_tile t;
    t.x = x;
    t.w = w;
    t.tab = tab;
    t.tab_end = t.tab + TAB_ENTRY * nf;
    t.out = out;
    t.out_stride = out_stride;
    t.oo = p->output_offset;
    t.k = p->k;
    t.steps = g->steps;
    for (int pass = 0; pass < 2; pass++) {
        while (t.tab != t.tab_end && (R == 6 ? tile6(&t) : tile4(&t))) {
            systolic_requant_channel(p, c0 + (int32_t)(t.tab - tab) / TAB_ENTRY - 1, t.acc, R, t.out, out_stride);
            t.out++;
        }
        if (nf == nch) return;
        if (!g->wlast) break;
        /* The last channel from its padded copy (the asm leaves t as it
         * was unless it hands a channel back). */
        t.w = g->wlast;
        t.tab = tab + TAB_ENTRY * nf;
        t.tab_end = t.tab + TAB_ENTRY;
        t.out = out + nf;
        nf = nch;
    }
    wide_block(g, x, R, R, c0 + nf, 1, out + nf, out_stride);
}

/* Short runs (a tap's channels, a filter row): words, the last one
 * overlapping the one before when 4 does not divide n. */
static inline void copy_bytes(int8_t *d, const int8_t *s, int32_t n) {
    if (n < 4) {
        for (int32_t i = 0; i < n; i++) d[i] = s[i];
        return;
    }
    const uint32_t last = edge_load_word(s + n - 4);
    for (int32_t i = 0; i < n - 4; i += 4) {
        const uint32_t v = edge_load_word(s + i);
        __builtin_memcpy(d + i, &v, 4);
    }
    __builtin_memcpy(d + n - 4, &last, 4);
}

/* The im2col row of output pixel (oy, ox), group grp, into row r of the
 * block x (st = 2R), the input offset (io2) added. Group channels a
 * multiple of 4: each tap's run is widened straight from the image, padded
 * taps as 0; else the row is gathered into `row` first, padded taps as the
 * input zero point (whose bytes past k the caller keeps so), and widened. */
static void conv_row(const systolic_conv_geom *g, const int8_t *img, int32_t oy, int32_t ox, int32_t grp,
                     int32_t k, int8_t *row, uint32_t *x, int32_t st, uint32_t io2) {
    const int32_t gic = g->group_in_c, in_c = g->in_c, in_w = g->in_w, k_w = g->k_w;
    const int32_t iy0 = oy * g->stride_h - g->pad_h, ix0 = ox * g->stride_w - g->pad_w;
    const int wide = (gic & 3) == 0;
    const int8_t pad = (int8_t)g->pad_value;
    /* Whole filter rows are one run when the window's columns are inside. */
    const int xin = g->dil_w == 1 && g->groups == 1 && ix0 >= 0 && ix0 + k_w <= in_w;
    int8_t *d = row;
    for (int32_t ky = 0; ky < g->k_h; ky++) {
        const int32_t iy = iy0 + ky * g->dil_h;
        if (iy < 0 || iy >= g->in_h) {
            if (wide)
                x = fill_run(0, k_w * gic, x, st);
            else
                for (int32_t i = 0; i < k_w * gic; i++) *d++ = pad;
            continue;
        }
        const int8_t *line = img + iy * in_w * in_c + grp * gic;
        if (xin) {
            if (wide)
                x = widen_run(line + ix0 * in_c, k_w * gic, x, st, io2);
            else
                copy_bytes(d, line + ix0 * in_c, k_w * gic), d += k_w * gic;
            continue;
        }
        for (int32_t kx = 0; kx < k_w; kx++) {
            const int32_t ix = ix0 + kx * g->dil_w;
            const int in = ix >= 0 && ix < in_w;
            if (wide)
                x = in ? widen_run(line + ix * in_c, gic, x, st, io2) : fill_run(0, gic, x, st);
            else if (in)
                copy_bytes(d, line + ix * in_c, gic), d += gic;
            else
                for (int32_t i = 0; i < gic; i++) *d++ = pad;
        }
    }
    if (!wide) widen_run(row, (k + 3) & ~3, x, st, io2);
}

/* Channels [c0, c0 + nch) of a block x of R rows, mr of them valid, to
 * out (channel c0 of row 0): tile6/tile4 where the table applies, with a
 * table of TAB_MAX channels kept in tab (*tab_c0, *tab_n: which). */
static void conv_block(const wide_gemm *g, int asm_ok, int32_t *tab, int32_t *tab_c0, int32_t *tab_n,
                       const uint32_t *x, int32_t R, int32_t mr, int32_t c0, int32_t nch, uint8_t *out,
                       int32_t out_stride) {
    if (!asm_ok || mr <= 2) {
        wide_block(g, x, R, mr, c0, nch, out, out_stride);
        return;
    }
    /* Tail blocks go through a copy: the asm stores all R rows. */
    uint8_t tmp[6 * 64];
    const int32_t step = mr == R ? TAB_MAX : 64;
    for (int32_t c = c0; c < c0 + nch; c += step) {
        const int32_t cn = c0 + nch - c < step ? c0 + nch - c : step;
        if (c < *tab_c0 || c + cn > *tab_c0 + *tab_n) {
            tile_table(g, c, cn, tab);
            *tab_c0 = c;
            *tab_n = cn;
        }
        uint8_t *o = out + (c - c0);
        if (mr == R) {
            tile_run(g, tab + TAB_ENTRY * (c - *tab_c0), x, R, c, cn, o, out_stride);
            continue;
        }
        tile_run(g, tab + TAB_ENTRY * (c - *tab_c0), x, R, c, cn, tmp, cn);
        for (int32_t r = 0; r < mr; r++)
            for (int32_t j = 0; j < cn; j++) o[r * out_stride + j] = tmp[r * cn + j];
    }
}

/* What the row gathering of one conv needs, in locals. */
typedef struct conv_walk {
    const systolic_conv_geom *g;
    int32_t k, steps;
    int32_t run, rstep, y_last, x_last; /* windows inside: k_h runs of run bytes */
    int direct, runs, wide;
    int contig;            /* 1x1 stride 1 over whole lines, k % 8 == 0: widen_rows */
    uint32_t io2;          /* the input offset, in both halves */
} conv_walk;

/* The widened rows of mr output pixels from (y, xx) on, group grp, into a
 * block of Rt rows (the others zero). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void gather_rows(const conv_walk *cw, const int8_t *img, int32_t y, int32_t xx, int32_t grp,
                        int32_t mr, int32_t Rt, uint32_t *x, int8_t *row) {
    const systolic_conv_geom *g = cw->g;
    const int32_t st = 2 * Rt, in_h = g->in_h, in_w = g->in_w, in_c = g->in_c, sw = g->stride_w;
    const int8_t *const base = img + grp * g->group_in_c;
    const uint32_t io2 = cw->io2;
    int32_t iy = y * g->stride_h - g->pad_h, ix = xx * sw - g->pad_w;
    int32_t r = 0;
    if (cw->contig) {
        widen_rows(base + (iy * in_w + ix) * in_c, cw->k, mr, x, st, io2);
        r = mr, x += 2 * mr;
    }
    for (; r < mr; r++, x += 2) {
        const int in = iy >= 0 && ix >= 0 && iy + cw->y_last < in_h && ix + cw->x_last < in_w;
        const int8_t *src = base + (iy * in_w + ix) * in_c;
        if (in && cw->direct) {
            widen_run(src, cw->k, x, st, io2);
        } else if (in && cw->runs && cw->wide) {
            uint32_t *xr = x;
            for (int32_t ky = 0; ky < g->k_h; ky++, src += cw->rstep) xr = widen_run(src, cw->run, xr, st, io2);
        } else if (in && cw->runs) {
            const int32_t run = cw->run, rstep = cw->rstep;
            int8_t *d = row;
            for (int8_t *const e = row + g->k_h * run; d < e; d += run, src += rstep) copy_bytes(d, src, run);
            widen_run(row, 4 * cw->steps, x, st, io2);
        } else {
            conv_row(g, img, y, xx, grp, cw->k, row, x, st, io2);
        }
        if (++xx == g->out_w)
            xx = 0, y++, ix = -g->pad_w, iy += g->stride_h;
        else
            ix += sw;
    }
    for (; r < Rt; r++, x += 2) fill_run(0, 4 * cw->steps, x, st);
}

int systolic_conv_variant(const systolic_params *p, const systolic_conv_geom *g, const int8_t *in,
                          int8_t *out) {
    if (!systolic_conv_variant_takes(p)) return 0;
    uint32_t x[EDGE_SYSTOLIC_WIDE_WORDS];
    int8_t row[WIDE_MAX_K + 4]; /* gathered rows, and wide_block's spare */
    int32_t tab[TAB_ENTRY * TAB_MAX];
    const int32_t k = p->k, n_all = p->n * g->groups, pixels = g->out_h * g->out_w;
    wide_gemm wg = wide_setup(p, n_all, row, p->input_offset);
    /* For k % 4 != 0 (first layers), the last channel's row padded once,
     * so that the tiles need not stop before it (small k only). */
    int8_t wlast[64];
    if (4 * wg.steps > k && 4 * wg.steps <= (int32_t)sizeof wlast) {
        const int8_t *src = wg.w_end - k;
        for (int32_t i = 0; i < 4 * wg.steps; i++) wlast[i] = i < k ? src[i] : 0;
        wg.wlast = wlast;
    }
    /* The tiles saturate to the int8 range; a fused activation's range is
     * clamped after each tile. */
    const int asm_ok = p->requant == SYSTOLIC_REQUANT_FIXED;
    const int full = p->act_min == -128 && p->act_max == 127;
    int32_t tab_c0 = 0, tab_n = 0;
    const int whole = asm_ok && n_all <= TAB_MAX; /* one table for the op */
    if (whole) tile_table(&wg, 0, n_all, tab), tab_n = n_all;
    const int32_t R = k <= WIDE_MAX_K6 ? 6 : 4;
    conv_walk cw;
    cw.g = g;
    cw.k = k;
    cw.steps = wg.steps;
    /* 1x1 filters with k % 4 == 0 widen rows straight from the image;
     * windows inside the image are k_h runs of run bytes, rstep apart. */
    cw.direct = g->k_h == 1 && g->k_w == 1 && (k & 3) == 0;
    cw.runs = g->dil_w == 1 && g->groups == 1;
    cw.wide = (g->group_in_c & 3) == 0;
    cw.run = g->k_w * g->in_c;
    cw.rstep = g->dil_h * g->in_w * g->in_c;
    cw.y_last = (g->k_h - 1) * g->dil_h;
    cw.x_last = (g->k_w - 1) * g->dil_w;
    cw.io2 = wg.io2;
    cw.contig = cw.direct && g->groups == 1 && (k & 7) == 0 && g->pad_h == 0 && g->pad_w == 0 &&
                g->stride_h == 1 && g->stride_w == 1 && g->in_w == g->out_w && g->out_h <= g->in_h;
    /* The bytes past k of a gathered row hold the input zero point, so
     * that they widen to 0 (wide_block's spare copy keeps them so). */
    for (int32_t i = k; i < 4 * wg.steps; i++) row[i] = wg.tail;
    for (int32_t b = 0; b < g->batches; b++) {
        const int8_t *img = in + b * g->in_h * g->in_w * g->in_c;
        int8_t *oimg = out + b * pixels * n_all;
        int32_t oy = 0, ox = 0;
        for (int32_t px0 = 0; px0 < pixels; px0 += R) {
            const int32_t mr = pixels - px0 < R ? pixels - px0 : R, Rt = mr <= 4 ? 4 : R;
            for (int32_t grp = 0; grp < g->groups; grp++) {
                gather_rows(&cw, img, oy, ox, grp, mr, Rt, x, row);
                uint8_t *o = (uint8_t *)oimg + px0 * n_all + grp * p->n;
                if (whole && mr == Rt)
                    tile_run(&wg, tab + TAB_ENTRY * grp * p->n, x, Rt, grp * p->n, p->n, o, n_all);
                else
                    conv_block(&wg, asm_ok, tab, &tab_c0, &tab_n, x, Rt, mr, grp * p->n, p->n, o, n_all);
                for (int32_t r = 0; !full && r < mr; r++)
                    edge_clamp_s8((int8_t *)o + r * n_all, p->n, p->act_min, p->act_max);
            }
            ox += mr;
            while (ox >= g->out_w) ox -= g->out_w, oy++;
        }
    }
    return 1;
}

#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int systolic_dsp_unused;
#endif
