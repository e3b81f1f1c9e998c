/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_bf16.c — the engine's float32 <-> bfloat16 conversions (kernels/
 * bf16.h) against a table ml_dtypes made (bf16_table.h, from
 * gen_bf16_table.py): round to nearest even, ties both ways, subnormals,
 * the largest floats overflowing to infinity, infinities kept, NaNs kept
 * NaN (with their sign; the payload is not compared) — and widening, which
 * must be exact.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <string.h>

#include "bf16_table.h"
#include "kernels/bf16.h"

static float from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static int bf16_is_nan(uint16_t b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0; }

static void test_narrow_matches_ml_dtypes(void **state) {
    (void)state;
    const size_t n = sizeof bf16_table / sizeof bf16_table[0];
    assert_true(n > 2000);
    for (size_t i = 0; i < n; i++) {
        const uint32_t in = bf16_table[i][0];
        const uint16_t want = (uint16_t)bf16_table[i][1];
        const uint16_t got = edge_f32_to_bf16(from_bits(in));
        if (bf16_is_nan(want)) {
            if (!bf16_is_nan(got) || (got & 0x8000u) != (want & 0x8000u))
                fail_msg("0x%08x: expected a NaN with sign of 0x%04x, got 0x%04x", in, want, got);
        } else if (got != want) {
            fail_msg("0x%08x: expected 0x%04x, got 0x%04x", in, want, got);
        }
    }
}

static void test_specials(void **state) {
    (void)state;
    assert_int_equal(edge_f32_to_bf16(from_bits(0x7f7fffffu)), 0x7f80); /* max float -> +Inf */
    assert_int_equal(edge_f32_to_bf16(from_bits(0xff800000u)), 0xff80); /* -Inf stays */
    assert_true(bf16_is_nan(edge_f32_to_bf16(from_bits(0x7f800001u)))); /* sNaN stays NaN */
    assert_true(bf16_is_nan(edge_f32_to_bf16(from_bits(0x7fffffffu))));
    assert_int_equal(edge_f32_to_bf16(from_bits(0x80000000u)), 0x8000); /* -0 */
}

static void test_widen_is_exact(void **state) {
    (void)state;
    for (uint32_t b = 0; b < 0x10000u; b++) {
        const float f = edge_bf16_to_f32((uint16_t)b);
        uint32_t u;
        memcpy(&u, &f, 4);
        if (u != b << 16) fail_msg("0x%04x widened to 0x%08x", b, u);
        /* and every bf16 value survives the round trip (NaN stays NaN) */
        const uint16_t back = edge_f32_to_bf16(f);
        if (bf16_is_nan((uint16_t)b) ? !bf16_is_nan(back) : back != b)
            fail_msg("0x%04x came back as 0x%04x", b, back);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_narrow_matches_ml_dtypes),
        cmocka_unit_test(test_specials),
        cmocka_unit_test(test_widen_is_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
