/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_addsub_x86.c — the x86 vector 8-bit ADD / SUB (AVX-512 and AVX2,
 * picked at run time) against TFLite's scalar arithmetic written out here
 * with quant.h's gemmlowp helpers (the form add_sub.c computes): random
 * offsets, multipliers and shifts over their whole ranges, int8 and uint8,
 * clamps, both operands streamed or one broadcast, any length and
 * alignment. A variant the CPU lacks is skipped; on a non-x86 build the
 * whole file is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <string.h>

#include "kernels/x86/addsub_x86.h"
#include "quant.h"

#ifdef EDGE_SYSTOLIC_X86

static uint32_t rng_state = 0x2545f491u;
static uint32_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}
static int32_t rnd_range(int32_t lo, int32_t hi) { return lo + (int32_t)(rnd() % (uint32_t)(hi - lo + 1)); }

/* reference_integer_ops::Add / reference_ops::Sub for one element. */
static int32_t ref(const addsub_x86_q *q, int32_t x1, int32_t x2) {
    const int32_t a = (x1 + q->off1) * (1 << q->left_shift);
    const int32_t b = (x2 + q->off2) * (1 << q->left_shift);
    const int32_t sa = edge_mbqm_smaller_than_one(a, q->m1, -q->r1);
    const int32_t sb = edge_mbqm_smaller_than_one(b, q->m2, -q->r2);
    const int32_t s = q->sub ? sa - sb : sa + sb;
    int32_t raw = edge_mbqm_smaller_than_one(s, q->mo, -q->ro) + q->out_off;
    raw = raw < q->act_min ? q->act_min : raw;
    return raw > q->act_max ? q->act_max : raw;
}

/* A multiplier as QuantizeMultiplierSmallerThanOneExp makes them (or an
 * arbitrary non-negative int32 now and then). */
static void rnd_mult(int32_t *m, int32_t *r) {
    if (rnd() % 8 == 0) {
        *m = (int32_t)(rnd() >> 1);
        *r = rnd_range(0, 31);
        return;
    }
    int s;
    edge_quantize_multiplier_smaller_than_one((double)rnd_range(1, 1000000) * 1e-6 *
                                                  (rnd() % 3 == 0 ? 1e-6 : 1.0),
                                              m, &s);
    *r = -s > 31 ? 31 : -s;
}

enum { MAX_N = 300 };

static void check(uint8_t level) {
    static uint8_t a[MAX_N + 64], b[MAX_N + 64], want[MAX_N + 64], got[MAX_N + 64];
    int64_t vector_elems = 0;
    for (int t = 0; t < 20000; t++) {
        addsub_x86_q q;
        q.is_unsigned = (int32_t)(rnd() % 2);
        q.sub = (int32_t)(rnd() % 2);
        const int32_t lo = q.is_unsigned ? 0 : -128, hi = q.is_unsigned ? 255 : 127;
        q.off1 = -rnd_range(lo, hi);
        q.off2 = -rnd_range(lo, hi);
        q.out_off = rnd_range(lo, hi);
        q.left_shift = t % 10 == 0 ? rnd_range(0, 20) : 20;
        rnd_mult(&q.m1, &q.r1);
        rnd_mult(&q.m2, &q.r2);
        rnd_mult(&q.mo, &q.ro);
        if (t % 4 == 0) q.ro = rnd_range(0, 10); /* outputs not all at the clamp */
        q.act_min = lo;
        q.act_max = hi;
        if (t % 3 == 0) {
            q.act_min = rnd_range(lo, hi);
            q.act_max = rnd_range(q.act_min, hi);
        }
        assert_true(addsub_x86_ok(&q));
        const int64_t n = rnd_range(0, MAX_N);
        const int32_t mode = rnd_range(0, 3); /* both streamed; a or b broadcast; both */
        const int64_t sa = mode == 1 || mode == 3 ? 0 : 1, sb = mode == 2 || mode == 3 ? 0 : 1;
        const int32_t ao = rnd_range(0, 31), bo = rnd_range(0, 31), oo = rnd_range(0, 31);
        for (int i = 0; i < MAX_N + 64; i++) a[i] = (uint8_t)rnd(), b[i] = (uint8_t)rnd();
        memset(want, 0x5a, sizeof want);
        memset(got, 0x5a, sizeof got);
        for (int64_t i = 0; i < n; i++) {
            const uint8_t xa = a[ao + i * sa], xb = b[bo + i * sb];
            const int32_t v1 = q.is_unsigned ? xa : (int8_t)xa, v2 = q.is_unsigned ? xb : (int8_t)xb;
            want[oo + i] = (uint8_t)(ref(&q, v1, v2) & 0xff);
        }
        const int64_t done = addsub_x86_run(level, &q, a + ao, sa, b + bo, sb, got + oo, n);
        assert_true(done >= 0 && done <= n);
        if (mode != 3) assert_true(n - done < 16);
        vector_elems += done;
        /* Only the first `done` outputs are the kernel's; nothing past them
         * may be written. */
        for (int64_t i = done; i < n; i++) got[oo + i] = want[oo + i];
        if (memcmp(want, got, sizeof want) != 0) {
            int64_t i = 0;
            while (want[i] == got[i]) i++;
            fail_msg("level %d case %d (mode %d, n %ld): byte %ld is %d, want %d", level, t, mode, (long)n,
                     (long)(i - oo), got[i], want[i]);
        }
    }
    assert_true(vector_elems > 1000000); /* the vector path did the work */
}

static void test_avx512_matches_scalar(void **state) {
    (void)state;
    if (systolic_x86_level() < SYSTOLIC_X86_VNNI) skip();
    check(SYSTOLIC_X86_VNNI);
}

static void test_avx2_matches_scalar(void **state) {
    (void)state;
    if (systolic_x86_level() < SYSTOLIC_X86_AVX2) skip();
    check(SYSTOLIC_X86_AVX2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_avx512_matches_scalar),
        cmocka_unit_test(test_avx2_matches_scalar),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else
int main(void) { return 0; }
#endif
