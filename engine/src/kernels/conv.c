/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conv.c — the convolution family's dispatcher (conv.h): a run-time
 * variant when select chose one, else a build-time variant that takes the
 * conv, else the portable GEMM lowering (portable/conv_gemm.c).
 */
#include "conv.h"

#include "x86/conv_x86.h"

void edge_conv_s8_select(edge_conv_params *p, const int32_t *mult, const int8_t *shift, const void *filt,
                         int filt_const) {
#ifdef EDGE_SYSTOLIC_X86
    conv_x86_select(p, mult, shift, filt, filt_const);
#else
    (void)mult, (void)shift, (void)filt, (void)filt_const;
    p->sp.simd = 0;
#endif
}

void edge_conv_s8_fold(const edge_conv_params *p, const uint8_t *filt, const int32_t *raw_bias,
                       int32_t *eff_bias) {
    int32_t tile_offset = 0;
    int fast = 0;
#ifdef EDGE_SYSTOLIC_X86
    if (p->sp.simd && !conv_x86_folds(p)) return;
    if (p->sp.simd == SYSTOLIC_X86_VNNI) tile_offset = 128; /* its tile's +128 on activations */
    fast = p->sum_fast;
#endif
#ifdef EDGE_SYSTOLIC_VARIANT_WIDE
    if (systolic_conv_variant_takes(&p->sp)) return; /* it adds the input offset itself */
#endif
    systolic_params whole = p->sp;
    whole.n = p->out_c;
    whole.weights = filt;
    systolic_fold_bias_tile(&whole, raw_bias, tile_offset, fast, eff_bias);
}

void edge_conv_s8_run(const edge_conv_params *p, const edge_conv_data *d) {
#ifdef EDGE_SYSTOLIC_X86
    if (p->sp.simd) {
        conv_x86_run(p, d);
        return;
    }
#endif
#ifdef EDGE_SYSTOLIC_VARIANT_WIDE
    {
        const systolic_conv_geom g = {p->batches, p->in_h,     p->in_w,     p->in_c,  p->out_h,
                                      p->out_w,   p->k_h,      p->k_w,      p->group_in_c,
                                      p->groups,  p->stride_h, p->stride_w, p->dil_h,
                                      p->dil_w,   p->pad_h,    p->pad_w,    (int8_t)p->pad_byte};
        systolic_params sp = p->sp;
        sp.weights = d->filt;
        sp.bias = d->raw_bias; /* it adds the input offset itself */
        sp.multiplier = d->mult;
        sp.shift = d->shift;
        if (systolic_conv_variant(&sp, &g, (const int8_t *)d->in, (int8_t *)d->out)) return;
    }
#endif
    edge_conv_s8_portable(p, d);
}

edge_status edge_conv_s8_chunked(const edge_conv_params *p, const edge_conv_data *d, edge_conv_chunks_fn fn,
                                 void *ctx) {
#ifdef EDGE_SYSTOLIC_X86
    if (p->sp.simd) return conv_x86_chunked(p, d, fn, ctx);
#else
    (void)p, (void)d;
#endif
    return fn(ctx, 0, 0, 0, 0);
}

uint32_t edge_conv_s8_pack(edge_conv_params *p, const void *filt, const int32_t *bias, uint8_t *dst) {
#ifdef EDGE_SYSTOLIC_X86
    if (p->sp.simd) return conv_x86_pack(p, filt, bias, dst);
#else
    (void)p, (void)filt, (void)bias, (void)dst;
#endif
    return 0;
}
