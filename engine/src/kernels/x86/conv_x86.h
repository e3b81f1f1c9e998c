/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conv_x86.h — CONV_2D's x86-64 variants (conv_x86.c), as kernels/conv.c
 * dispatches to them: the same calls as conv.h's, for p->sp.simd != 0.
 */
#ifndef EDGE_KERNELS_X86_CONV_X86_H
#define EDGE_KERNELS_X86_CONV_X86_H

#include "../conv.h"
#include "systolic_x86.h"

#ifdef EDGE_SYSTOLIC_X86
void conv_x86_select(edge_conv_params *p, const int32_t *mult, const int8_t *shift, const void *filt,
                     int filt_const);
/* Whether the chosen variant takes the folded bias (else the model's). */
int conv_x86_folds(const edge_conv_params *p);
void conv_x86_run(const edge_conv_params *p, const edge_conv_data *d);
edge_status conv_x86_chunked(const edge_conv_params *p, const edge_conv_data *d, edge_conv_chunks_fn fn,
                             void *ctx);
uint32_t conv_x86_pack(edge_conv_params *p, const void *filt, const int32_t *bias, uint8_t *dst);
#endif

#endif
