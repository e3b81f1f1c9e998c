/* SPDX-License-Identifier: Apache-2.0 */
/*
 * elementwise.h — the 8-bit requantizing ADD / SUB family (TFLite's
 * reference_integer_ops::Add / reference_ops::Sub arithmetic).
 *
 * The op fills edge_addsub_params and calls edge_addsub_s8_select once
 * (its answer goes in the op's params); edge_addsub_s8 then computes the
 * first elements of a broadcast run with the chosen variant and returns
 * how many it wrote: the op's reference loop does the rest (all of it on
 * builds without a variant). No scratch (edge_addsub_s8_buffer_size: 0).
 */
#ifndef EDGE_KERNELS_ELEMENTWISE_H
#define EDGE_KERNELS_ELEMENTWISE_H

#include <stdint.h>

typedef struct edge_addsub_params {
    int32_t off1, off2, out_off; /* added to in1, in2; to the output */
    int32_t left_shift;          /* both inputs, before their rescale */
    int32_t m1, m2, mo;          /* multipliers, >= 0 */
    int32_t r1, r2, ro;          /* right shifts, 0..31 */
    int32_t act_min, act_max;
    int32_t sub;         /* 1: in1 - in2 (SUB), 0: in1 + in2 */
    int32_t is_unsigned; /* uint8 operands, else int8 */
} edge_addsub_params;

static inline uint32_t edge_addsub_s8_buffer_size(void) { return 0; }

/* The variant for q (0: the op's loop only). */
uint8_t edge_addsub_s8_select(const edge_addsub_params *q);

/* Elements [0, returned) of one run (strides 0 or 1, as edge_bcast_run
 * passes them), with the variant select chose. */
int64_t edge_addsub_s8(uint8_t variant, const edge_addsub_params *q, const uint8_t *a, int64_t sa,
                       const uint8_t *b, int64_t sb, uint8_t *out, int64_t n);

#endif
