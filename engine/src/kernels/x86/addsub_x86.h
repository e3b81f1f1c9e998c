/* SPDX-License-Identifier: Apache-2.0 */
/*
 * addsub_x86.h — the 8-bit requantizing ADD / SUB (TFLite's
 * reference_integer_ops::Add / reference_ops::Sub arithmetic) with AVX-512
 * (16 lanes) or AVX2 (8 lanes), chosen at prepare and kept in the op's
 * params like the conv's variant (systolic_x86_level).
 *
 * Per element: each input is offset, shifted left, rescaled with
 * MultiplyByQuantizedMultiplierSmallerThanOneExp, the two are summed (or
 * subtracted) and the result rescaled to the output, offset and clamped.
 * SaturatingRoundingDoublingHighMul is floor((v * m + 2^30) / 2^31) (see
 * requant.h; never saturating here, m >= 0), done on 64-bit lanes;
 * RoundingDivideByPOT is floor((h + 2^(r-1) - [h < 0]) / 2^r). Both are
 * exact for the operands this op can see: 8-bit values, offsets within
 * +-255 and a 20-bit left shift keep every intermediate below 2^30 in
 * magnitude (addsub_x86_ok checks the ranges).
 */
#ifndef EDGE_KERNELS_ADDSUB_X86_H
#define EDGE_KERNELS_ADDSUB_X86_H

#include "../elementwise.h"
#include "systolic_x86.h"

#ifdef EDGE_SYSTOLIC_X86

typedef edge_addsub_params addsub_x86_q;

/* Whether the vector form is exact for q (ranges of the 8-bit path). */
int addsub_x86_ok(const addsub_x86_q *q);

/* The first elements of one broadcast run (strides 0 or 1, as
 * edge_bcast_run passes them) at `level` (SYSTOLIC_X86_AVX2 or _VNNI);
 * returns how many it wrote, a multiple of the vector width <= n. The
 * caller finishes the rest with its scalar loop. */
int64_t addsub_x86_run(uint8_t level, const addsub_x86_q *q, const uint8_t *a, int64_t sa,
                       const uint8_t *b, int64_t sb, uint8_t *out, int64_t n);

#endif
#endif
