/* SPDX-License-Identifier: Apache-2.0 */
/* elementwise.c — the ADD / SUB family's dispatcher (elementwise.h). */
#include "elementwise.h"

#include "x86/addsub_x86.h"

uint8_t edge_addsub_s8_select(const edge_addsub_params *q) {
#ifdef EDGE_SYSTOLIC_X86
    return addsub_x86_ok(q) ? systolic_x86_level() : (uint8_t)SYSTOLIC_X86_NONE;
#else
    (void)q;
    return 0;
#endif
}

int64_t edge_addsub_s8(uint8_t variant, const edge_addsub_params *q, const uint8_t *a, int64_t sa,
                       const uint8_t *b, int64_t sb, uint8_t *out, int64_t n) {
#ifdef EDGE_SYSTOLIC_X86
    if (variant) return addsub_x86_run(variant, q, a, sa, b, sb, out, n);
#else
    (void)q, (void)a, (void)sa, (void)b, (void)sb, (void)out, (void)n;
#endif
    (void)variant;
    return 0;
}
