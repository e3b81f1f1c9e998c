/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_requant_lanes_x86.c — requant_lanes_x86.h's per-lane requantization
 * (both its general form and its fast form: no left shift, right 1..23,
 * one add and shift with the clamp near INT32_MAX) against requant.h's
 * edge_rq_apply, TFLite's MultiplyByQuantizedMultiplier, on accumulators
 * across the whole int32 range: 0, +-1, the extremes, values next to
 * +-2^30 and +-2^31, near every rounding tie, and random ones, for
 * multipliers from QuantizeMultiplier over scales 1e-9 .. 1e3, per lane.
 * Skipped without AVX2; on non-x86 builds the whole file is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <string.h>

#include "kernels/requant.h"
#include "kernels/x86/requant_lanes_x86.h"
#include "quant.h"

#if defined(__x86_64__) && defined(__GNUC__)

static uint32_t rng_state = 0x7f4a7c15u;
static uint32_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

__attribute__((target("avx2"))) static void apply8(const int32_t *x, const lanes_rq *q, int32_t *out) {
    _mm256_storeu_si256((__m256i *)(void *)out,
                        lanes_requant8(_mm256_loadu_si256((const __m256i *)(const void *)x), q));
}

/* An accumulator for a lane with multiplier m and final shift `right`:
 * extremes, values whose high product h lands on a tie of the final shift
 * (exactly, when m is 2^30: then h = floor((x + 1) / 2)), or random. */
static int32_t pick_x(int32_t m, int32_t right) {
    switch (rnd() % 8) {
    case 0: {
        static const int32_t edge[] = {0, 1, -1, INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1,
                                       1 << 30, -(1 << 30), (1 << 30) - 1, -(1 << 30) + 1};
        return edge[rnd() % (sizeof edge / sizeof edge[0])];
    }
    case 1: return (int32_t)(0x7fffffffu - (rnd() & 0x3fffffu)); /* just below INT32_MAX */
    case 2: return (int32_t)(0x80000000u + (rnd() & 0x3fffffu)); /* just above INT32_MIN */
    case 3:
    case 4: { /* h on or next to a tie, anywhere in range */
        const int64_t span = ((int64_t)1 << 31) >> right;
        const int64_t q = (int64_t)(rnd() % (uint32_t)(span > 1 ? span : 1)) * (rnd() & 1 ? 1 : -1);
        const int64_t h = q * ((int64_t)1 << right) + (right ? ((int64_t)1 << (right - 1)) : 0) + (int64_t)(rnd() % 3) - 1;
        const int64_t v = m == (1 << 30) ? 2 * h - 1 : h; /* exact for m = 2^30, near otherwise */
        return (int32_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v);
    }
    default: return (int32_t)rnd() >> (rnd() % 32);
    }
}

static void test_lanes_requant_matches_edge_rq_apply(void **state) {
    (void)state;
    if (!__builtin_cpu_supports("avx2")) skip();
    int fast_blocks = 0, slow_blocks = 0;
    for (int t = 0; t < 20000; t++) {
        int32_t mult[8], x[8], got[8];
        int8_t shift[8];
        const int per_channel = t % 4 != 0;
        for (int l = 0; l < 8; l++) {
            if (t % 2) {
                /* Scales from 1e-9 to 1e3, most in the fast form's range. */
                static const double decade[] = {1e-9, 1e-7, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 1e1, 1e3};
                const double real =
                    decade[t % 3 == 0 ? rnd() % 10 : 3 + rnd() % 4] * (1.0 + (double)(rnd() % 1000) / 100.0);
                int s;
                edge_quantize_multiplier(real, &mult[l], &s);
                shift[l] = (int8_t)(s < -31 ? -31 : s > 31 ? 31 : s);
            } else {
                /* The multipliers at the ends of QuantizeMultiplier's range,
                 * every shift. */
                static const int32_t ends[] = {1 << 30, 0x7fffffff, 0x7ffffff0, (1 << 30) + 1};
                mult[l] = rnd() % 3 ? ends[rnd() % 4] : (int32_t)((1u << 30) + (rnd() & 0x3fffffffu));
                shift[l] = (int8_t)(t % 5 == 0 ? (int32_t)(rnd() % 63) - 31 : -(int32_t)(1 + rnd() % 23));
            }
        }
        lanes_rq q;
        lanes_rq_build(8, mult, shift, per_channel, NULL, 0, -128, 127, &q);
        if (q.fast) fast_blocks++;
        else slow_blocks++;
        for (int l = 0; l < 8; l++) {
            const int32_t i = per_channel ? l : 0;
            x[l] = pick_x(mult[i], shift[i] < 0 ? -shift[i] : 0);
        }
        apply8(x, &q, got);
        for (int l = 0; l < 8; l++) {
            const int32_t i = per_channel ? l : 0;
            const edge_rq r = edge_rq_make(mult[i], shift[i]);
            const int32_t want = edge_rq_apply((uint32_t)x[l], r.mult, r.left, r.right, r.round, r.neg);
            /* The fast form may differ only where both give 255 or more:
             * the same byte after any output offset and clamp. */
            const int same = got[l] == want || (q.fast && got[l] >= 255 && want >= 255);
            if (!same)
                fail_msg("case %d lane %d: x %d mult %d shift %d: got %d want %d (fast %d)", t, l, x[l],
                         mult[i], shift[i], got[l], want, q.fast);
        }
    }
    assert_true(fast_blocks > 1000 && slow_blocks > 1000);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_lanes_requant_matches_edge_rq_apply)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else
int main(void) { return 0; }
#endif
