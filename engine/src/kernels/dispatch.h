/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dispatch.h — how a kernel family learns which variants the build has.
 *
 * Build-time variants (arm/, cortex_m/) are chosen by the target's -D flag
 * (systolic.h). Run-time variants (x86/) are chosen by each family's
 * select call at prepare, from the CPU's level, and recorded in the op's
 * params (the `simd` field): the engine keeps no global state. Ops only
 * see EDGE_KERNELS_RUNTIME, to reserve room for that state.
 */
#ifndef EDGE_KERNELS_DISPATCH_H
#define EDGE_KERNELS_DISPATCH_H

#include "x86/systolic_x86.h"

#ifdef EDGE_SYSTOLIC_X86
#define EDGE_KERNELS_RUNTIME 1
/* The level the family selects use (0: portable only). */
static inline uint8_t edge_kernel_level(void) { return systolic_x86_level(); }
#else
#define EDGE_KERNELS_RUNTIME 0
static inline uint8_t edge_kernel_level(void) { return 0; }
#endif

/* Whether some variant of this build lays weights out once
 * (edge_model_pack): ops leave their pack hook NULL otherwise. */
#define EDGE_KERNELS_PACK EDGE_KERNELS_RUNTIME

#endif
