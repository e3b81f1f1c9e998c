/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fc.c — the fully-connected family's dispatcher (fc.h). Output channels
 * go in chunks of EDGE_FC_BIAS_CHUNK: each chunk's effective bias is folded
 * into scratch, then its columns of every row are computed; each output is
 * the same sum whatever the chunking. The x86 AVX2 GEMV adds the input
 * offset itself (no fold); VNNI's tile folds its +128 with the bias.
 */
#include "fc.h"

#include <stddef.h>

void edge_fc_s8_select(edge_fc_params *p) {
#ifdef EDGE_SYSTOLIC_X86
    /* VNNI takes any int8 weights; the AVX2 GEMV (double-scale
     * requantization only) takes symmetric ones and adds the input offset
     * itself, with the model's bias: no effective bias to fold. */
    systolic_params *sp = &p->sp;
    sp->simd = SYSTOLIC_X86_NONE;
    if (!sp->is_unsigned) {
        const uint8_t level = systolic_x86_level();
        if (level == SYSTOLIC_X86_VNNI)
            sp->simd = SYSTOLIC_X86_VNNI;
        else if (level == SYSTOLIC_X86_AVX2 && sp->requant == SYSTOLIC_REQUANT_DOUBLE &&
                 sp->filter_offset == 0 && sp->k <= SYSTOLIC_X86_FC_MAX_K)
            sp->simd = SYSTOLIC_X86_AVX2;
    }
    p->sum_fast = (uint8_t)(systolic_x86_level() != SYSTOLIC_X86_NONE);
    p->packed = 0;
#else
    p->sp.simd = 0;
    p->sum_fast = 0;
#endif
}

void edge_fc_s8(const edge_fc_params *p, const void *in, const uint8_t *w, const int32_t *bias, uint8_t *out,
                int32_t *eff) {
    const uint8_t *base = (const uint8_t *)p;
    const int32_t n = p->sp.n, k = p->sp.k;
    int32_t tile_offset = 0;
    int fast = 0;
#ifdef EDGE_SYSTOLIC_X86
    if (p->sp.simd == SYSTOLIC_X86_VNNI) tile_offset = 128;
    fast = p->sum_fast;
    if (p->sp.simd == SYSTOLIC_X86_AVX2) {
        systolic_params sp = p->sp;
        sp.weights = w;
        sp.scale = (const double *)(const void *)(base + p->scale_off);
        sp.bias = bias; /* the model's: see systolic_x86_gemm_double_avx2 */
        if (p->packed) {
            systolic_x86_fc_lanes_avx2(&sp, p->packed, (const int8_t *)in, p->batch, out, n);
            return;
        }
        systolic_gemm_dense(&sp, in, k, p->batch, out, n);
        return;
    }
#endif
    for (int32_t c0 = 0; c0 < n; c0 += EDGE_FC_BIAS_CHUNK) {
        const int32_t nc = n - c0 < EDGE_FC_BIAS_CHUNK ? n - c0 : EDGE_FC_BIAS_CHUNK;
        const int32_t q0 = p->sp.per_channel ? c0 : 0;
        systolic_params sp = p->sp;
        sp.n = nc;
        sp.weights = w + (size_t)c0 * (size_t)k;
        sp.scale = (const double *)(const void *)(base + p->scale_off) + q0;
        sp.multiplier = (const int32_t *)(const void *)(base + p->mult_off) + q0;
        sp.shift = (const int8_t *)(base + p->shift_off) + q0;
        systolic_fold_bias_tile(&sp, bias ? bias + c0 : 0, tile_offset, fast, eff);
        sp.bias = eff;
        systolic_gemm_dense(&sp, in, k, p->batch, out + c0, n);
    }
}

uint32_t edge_fc_s8_pack(edge_fc_params *p, const void *w, const int32_t *bias, uint8_t *dst) {
#ifdef EDGE_SYSTOLIC_X86
    /* The AVX2 GEMV's weights re-laid with channels across lanes and its
     * bias with the input offset folded in, when no weight is -128
     * (systolic_x86_fc_lanes_avx2). */
    if (p->sp.simd != SYSTOLIC_X86_AVX2) return 0;
    systolic_params whole = p->sp;
    whole.weights = w;
    const uint32_t bytes = systolic_x86_fc_lanes_bytes(p->sp.k, p->sp.n);
    if (!bytes || !systolic_x86_weights_ok(&whole)) return 0;
    if (dst && systolic_x86_fc_lanes_pack(&whole, bias, dst)) p->packed = dst;
    return bytes;
#else
    (void)p, (void)w, (void)bias, (void)dst;
    return 0;
#endif
}
