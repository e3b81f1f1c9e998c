/* SPDX-License-Identifier: Apache-2.0 */
/*
 * edge_config.h — the engine's build options (set with -D when building
 * libedge; every engine file that depends on one includes this header).
 */
#ifndef EDGE_CONFIG_H
#define EDGE_CONFIG_H

/* EDGE_WITH_UINT8=0 builds the engine without its uint8 (legacy asymmetric
 * quantization) kernels, as TFLM's int8-only kernels are: an int8 model
 * needs none of them, and on a Cortex-M4 they are 1.1 KB of code. The
 * ops that would run them then refuse uint8 operands as unsupported, naming
 * the option. */
#ifndef EDGE_WITH_UINT8
#define EDGE_WITH_UINT8 1
#endif
#if EDGE_WITH_UINT8
#define EDGE_UINT8_HINT ""
#define EDGE_UINT8_NAME ", uint8" /* ends a list of the types an op takes */
#else
#define EDGE_UINT8_HINT "; uint8 not built in (EDGE_WITH_UINT8=0)"
#define EDGE_UINT8_NAME EDGE_UINT8_HINT
#endif

/* EDGE_DEPTHWISE_COMPACT=1: DEPTHWISE_CONV_2D's portable kernel is the
 * direct form, one output at a time, small rather than fast. The default
 * where a kernel of the target's own takes the common shapes (the
 * Cortex-M DSP one: int8, filters of up to 3 rows and 9 taps, multiplier
 * 1), so that the portable one only runs the rest; elsewhere the blocked,
 * vectorisable kernel. Both are bit-exact with the reference. */
#ifndef EDGE_DEPTHWISE_COMPACT
#if defined(EDGE_SYSTOLIC_DSP)
#define EDGE_DEPTHWISE_COMPACT 1
#else
#define EDGE_DEPTHWISE_COMPACT 0
#endif
#endif

#endif
