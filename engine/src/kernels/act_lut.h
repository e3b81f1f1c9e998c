/* SPDX-License-Identifier: Apache-2.0 */
/*
 * act_lut.h — 8-bit lookup tables for LOGISTIC and TANH, and the float
 * exp/tanh they are built from.
 *
 * TFLite's reference LOGISTIC/TANH kernels run int8 and uint8 through a
 * 256-entry table filled at prepare (LUTPopulate in kernels/internal/
 * common.h): for each input code q,
 *     y = f(in_scale * (q - in_zp))             in float
 *     code = clamp((int)(roundf(y * (1 / out_scale)) + out_zp))
 * with f = 1 / (1 + expf(-x)) or tanhf(x) from the host C library. A
 * different last bit of expf/tanhf can move a code across a rounding
 * boundary, so the engine carries its own expf/tanhf that reproduce glibc's
 * results bit for bit for every float (checked exhaustively against glibc
 * 2.36 on x86-64, the library the ai-edge-litert oracle runs on): expf is
 * glibc's table-driven double-precision algorithm as its FMA build
 * evaluates it (the fused argument reduction reproduced exactly with a
 * split constant; see edge_expf), tanhf is glibc's float expm1f-based
 * algorithm. Everything is plain IEEE float/double arithmetic, so results
 * are the same on every target.
 */
#ifndef EDGE_KERNELS_ACT_LUT_H
#define EDGE_KERNELS_ACT_LUT_H

#include <stddef.h>
#include <stdint.h>

/* expf(x) and tanhf(x) exactly as glibc 2.36 (x86-64) returns them. */
float edge_expf(float x);
float edge_tanhf(float x);

/* f(x) = 1 / (1 + exp(-x)) and tanh(x) in float, as TFLite writes them. */
float edge_logistic_f32(float x);

typedef enum edge_lut_fn { EDGE_LUT_LOGISTIC = 0, EDGE_LUT_TANH = 1 } edge_lut_fn;

/* Fill lut[256] (indexed by the input byte: for int8 the code's two's
 * complement bits) as TFLite's LUTPopulate<int8_t / uint8_t>. */
void edge_lut8_populate(edge_lut_fn fn, int is_signed, float in_scale, int32_t in_zp,
                        float out_scale, int32_t out_zp, uint8_t lut[256]);

/* out[i] = lut[in[i]]; in and out may be the same buffer. */
void edge_lut8_apply(const uint8_t lut[256], const uint8_t *in, uint8_t *out, size_t n);

#endif
