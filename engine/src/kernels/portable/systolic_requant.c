/* SPDX-License-Identifier: Apache-2.0 */
/*
 * systolic_requant.c — the portable requantization of one channel's
 * accumulators, which a variant's GEMM (cortex_m/systolic_dsp.c) falls
 * back to for the channels its fast form does not take. Apart from
 * systolic.c, which calls the variants: no call loop.
 */
#include "../systolic.h"

#include "../requant.h"
#include "requant_double.h"

#ifdef EDGE_SYSTOLIC_VARIANT_WIDE

void systolic_requant_channel(const systolic_params *p, int32_t ch, const int32_t *acc,
                              int32_t count, uint8_t *dst, int32_t stride) {
    const int32_t i = p->per_channel ? ch : 0;
    const int32_t oo = p->output_offset, lo = p->act_min, hi = p->act_max;
    const int dbl = p->requant == SYSTOLIC_REQUANT_DOUBLE;
    const edge_rq r = edge_rq_make(dbl ? 0 : p->multiplier[i], dbl ? 0 : p->shift[i]);
    for (int32_t j = 0; j < count; j++) {
        int32_t v = dbl ? requant_double((uint32_t)acc[j], p->scale[i])
                        : edge_rq_apply((uint32_t)acc[j], r.mult, r.left, r.right, r.round, r.neg);
        v = (int32_t)((uint32_t)v + (uint32_t)oo);
        dst[(int64_t)j * stride] = (uint8_t)((uint32_t)edge_clamp_i32(v, lo, hi) & 0xffu);
    }
}
#else
typedef int systolic_requant_unused;
#endif
