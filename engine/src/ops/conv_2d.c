/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conv_2d.c — CONV_2D (BuiltinOperator 3), lowered to the systolic kernel.
 *
 * Matches reference_integer_ops::ConvPerChannel (int8 activations, int8
 * symmetric filters, per-channel or per-tensor) and reference_ops::Conv
 * (TF1 uint8, asymmetric per-tensor filters), with grouped convolution
 * (input channels a multiple of the filter's), any stride, dilation,
 * SAME/VALID padding and a fused RELU/RELU_N1_TO_1/RELU6.
 *
 * Lowering: output pixels are the GEMM rows, output channels its columns,
 * K = filter_h * filter_w * filter_in_channels. A 1x1 filter reads its rows
 * straight from the input tensor; any other filter gathers
 * EDGE_SYSTOLIC_ROWS rows at a time into scratch (implicit im2col: the
 * whole im2col matrix is never built). Padded taps are filled with the input
 * zero point, which contributes exactly zero, as the reference's skipped taps.
 */
#include "../kernels/conv_common.h"
#include "../kernels/systolic.h"
#include "../kernels/x86/systolic_x86.h"
#include "../quant.h"
#include "conv_shape.h"
#include "weighted_op.h"

enum { CONV_OPTIONS_TYPE = 1 };

/* Output pixels per streaming tile (see "Streaming outputs" in
 * edge_internal.h): the x86 panel kernels take 16 pixels at a time, the
 * portable GEMM EDGE_SYSTOLIC_ROWS; tiles aligned to the smaller nest in the
 * larger's, so the larger bounds both. */
#if 16 % EDGE_SYSTOLIC_ROWS != 0 && EDGE_SYSTOLIC_ROWS % 16 != 0
#error "EDGE_SYSTOLIC_ROWS must divide 16 or be a multiple of it (CONV_2D streaming tiles)"
#endif
#define CONV_STREAM_TILE (EDGE_SYSTOLIC_ROWS > 16 ? EDGE_SYSTOLIC_ROWS : 16)

typedef struct conv_params {
    systolic_params sp; /* pointer fields are set per group at eval */
    int32_t batches, in_h, in_w, in_c, out_h, out_w, out_c;
    int32_t k_h, k_w, group_in_c, groups, group_out_c, k;
    int32_t stride_h, stride_w, dil_h, dil_w, pad_h, pad_w;
    uint32_t mult_off, shift_off; /* byte offsets inside the params block */
    uint32_t scratch_bias_off;    /* where eval folds the effective bias in scratch */
    uint32_t ring_off, ring_rows; /* fused pair head: the tail's input rows in scratch */
    uint8_t fused;        /* the head of a fused pair (fused.c) */
    uint8_t direct;       /* 1x1 filter: rows come straight from the input */
    uint8_t pad_byte;     /* input zero point, as stored */
#ifdef EDGE_SYSTOLIC_X86
    uint8_t x86; /* SYSTOLIC_X86_* chosen at prepare; the bias is shifted for it */
    uint8_t x86_gather;       /* panels gathered straight from the input */
    uint8_t x86_first;        /* AVX2 first-layer kernel (few input channels) */
    uint8_t x86_lanes;        /* AVX2 channels-across-lanes kernel */
    uint8_t sum_avx2;         /* the bias fold's weight sums may use AVX2 */
    const void *packed;       /* the lanes kernel's state laid out once (pack), or NULL */
#endif
} conv_params;

#ifdef EDGE_SYSTOLIC_X86
/* The window geometry for systolic_x86_panel_conv, from the params. */
static systolic_x86_conv x86_geom(const conv_params *p) {
    systolic_x86_conv g;
    g.in_h = p->in_h;
    g.in_w = p->in_w;
    g.in_c = p->in_c;
    g.k_h = p->k_h;
    g.k_w = p->k_w;
    g.group_in_c = p->group_in_c;
    g.stride_h = p->stride_h;
    g.stride_w = p->stride_w;
    g.dil_h = p->dil_h;
    g.dil_w = p->dil_w;
    g.pad_h = p->pad_h;
    g.pad_w = p->pad_w;
    g.out_w = p->out_w;
    g.pad_word = (uint32_t)p->pad_byte * 0x01010101u;
    return g;
}
#endif

static edge_status prepare(edge_op_ctx *c) {
    edge_op_rt *op = c->op;
    weighted_operands o;
    edge_status st = edge_weighted_operands(c, CONV_OPTIONS_TYPE, "Conv2DOptions", "filter", &o);
    if (st) return st;
    edge_tensor_rt *in = o.in, *filt = o.w, *bias = o.bias, *out = o.out;
    const int is_u8 = EDGE_WITH_UINT8 && o.is_u8;
    conv_shape sh;
    st = edge_conv_shape(c, in, filt, bias, out, &sh);
    if (st) return st;
    const int32_t batches = sh.batches, in_h = sh.in_h, in_w = sh.in_w, in_c = sh.in_c;
    const int32_t out_c = sh.out_c, k_h = sh.k_h, k_w = sh.k_w, f_in_c = sh.f_in_c, groups = sh.groups;
    const int32_t stride_h = sh.stride_h, stride_w = sh.stride_w, dil_h = sh.dil_h, dil_w = sh.dil_w;
    const int32_t out_h = sh.out_h, out_w = sh.out_w;
    const int act = sh.act;
    const int64_t k64 = (int64_t)k_h * k_w * f_in_c;
    if (k64 * EDGE_SYSTOLIC_ROWS + 16 * (int64_t)out_c > 0x3fffffff ||
        (int64_t)batches * out_h * out_w * out_c > 0x7fffffff)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "convolution too large");
    const int32_t k = (int32_t)k64;

    /* Quantization (zero points were checked against their 8-bit types at load). */
    int per_channel;
    int32_t act_min, act_max;
    st = edge_weighted_quant(c, &o, out_c, 0, act, &per_channel, &act_min, &act_max);
    if (st) return st;
    const int32_t in_zp = edge_q_zero(in, 0), out_zp = edge_q_zero(out, 0);
    int32_t filt_zp = 0;
    if (is_u8) {
        filt_zp = edge_q_zero(filt, 0);
    } else {
        for (uint32_t i = 0; i < filt->q_count; i++)
            if (edge_q_zero(filt, i) != 0)
                return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                                    "int8 filter zero point %d (must be 0)", edge_q_zero(filt, i));
    }

    /* Layout of the params block: header, multipliers, shifts. The
     * effective bias (bias + input_offset * sum W, systolic_fold_bias) is
     * not kept: eval folds it into its scratch, after the im2col rows, so
     * the arena pays 4 bytes per output channel of the largest conv only,
     * for one pass over the weights per invoke. */
    const uint32_t n_mult = per_channel ? (uint32_t)out_c : 1u;
    const uint32_t mult_off = align16((uint32_t)sizeof(conv_params));
    const uint32_t shift_off = mult_off + 4u * n_mult;
    const int direct = k_h == 1 && k_w == 1;
    const uint32_t im2col = direct ? 0u : systolic_im2col_bytes((uint32_t)k);
    const uint32_t scratch_bias_off = (im2col + 3u) & ~3u;
#ifdef EDGE_SYSTOLIC_X86
    /* The x86 panel kernel keeps its panel on the stack (host builds only),
     * so the memory plan, which edgeq writes into the models it makes, is
     * the same on every machine whatever its CPU. The fill pass may still
     * fall back to the portable kernel. */
    uint8_t x86 = is_u8 || k > SYSTOLIC_X86_MAX_K ? (uint8_t)SYSTOLIC_X86_NONE : systolic_x86_level();
#endif

    /* A fused pair's ring follows the op's own scratch. */
    const uint32_t ring_off = align16(scratch_bias_off + 4u * (uint32_t)out_c);
    if (!c->params) {
        op->scratch_bytes = scratch_bias_off + 4u * (uint32_t)out_c;
        /* A 1x1 stride-1 conv may run the depthwise conv after it row by row. */
        uint32_t ring_rows = 0, ring_bytes = 0;
        if (batches == 1 && direct && groups == 1 && stride_h == 1 && stride_w == 1 &&
            edge_fuse_try(c, (int64_t)in_w * in_c, &ring_rows, &ring_bytes)) {
            op->scratch_bytes = ring_off + ring_bytes;
        } else if (batches == 1) {
            const edge_window_geom g = {in_h,
                                        in_w,
                                        out_h,
                                        out_w,
                                        stride_h,
                                        stride_w,
                                        sh.pad_h,
                                        sh.pad_w,
                                        in_c,
                                        out_c};
            edge_op_set_stream(c, 1u, edge_window_stream_d(&g, CONV_STREAM_TILE));
        }
        op->params_bytes = shift_off + n_mult;
        op->macs = (uint64_t)batches * (uint64_t)out_h * (uint64_t)out_w * (uint64_t)out_c * (uint64_t)k;
        op->systolic = 1;
        op->array_cycles = (uint64_t)groups *
                           systolic_cycles((uint64_t)batches * (uint64_t)out_h * (uint64_t)out_w,
                                           (uint64_t)(out_c / groups), (uint64_t)k);
        return EDGE_OK;
    }

    uint8_t *base = (uint8_t *)c->params;
    conv_params *p = (conv_params *)c->params;
    int32_t *mult = (int32_t *)(base + mult_off);
    int8_t *shift = (int8_t *)(base + shift_off);
    st = edge_conv_multipliers(c, &o, n_mult, mult, shift);
    if (st) return st;

    systolic_params *sp = &p->sp;
    sp->k = k;
    sp->n = out_c / groups;
    sp->input_offset = -in_zp;
    sp->filter_offset = -filt_zp;
    sp->output_offset = out_zp;
    sp->act_min = act_min;
    sp->act_max = act_max;
    sp->per_channel = (uint8_t)per_channel;
    sp->requant = SYSTOLIC_REQUANT_FIXED;
    sp->is_unsigned = (uint8_t)is_u8;
    p->batches = batches;
    p->in_h = in_h;
    p->in_w = in_w;
    p->in_c = in_c;
    p->out_h = (int32_t)out_h;
    p->out_w = (int32_t)out_w;
    p->out_c = out_c;
    p->k_h = k_h;
    p->k_w = k_w;
    p->group_in_c = f_in_c;
    p->groups = groups;
    p->group_out_c = out_c / groups;
    p->k = k;
    p->stride_h = stride_h;
    p->stride_w = stride_w;
    p->dil_h = dil_h;
    p->dil_w = dil_w;
    p->pad_h = sh.pad_h;
    p->pad_w = sh.pad_w;
    p->mult_off = mult_off;
    p->shift_off = shift_off;
    p->scratch_bias_off = scratch_bias_off;
    p->fused = (uint8_t)((op->fused & EDGE_FUSED_HEAD) != 0);
    p->ring_off = ring_off;
    p->ring_rows = p->fused ? (op->scratch_bytes - ring_off) / ((uint32_t)out_w * (uint32_t)out_c) : 0u;
    p->direct = (uint8_t)direct;
    p->pad_byte = (uint8_t)((uint32_t)in_zp & 0xffu);

#ifdef EDGE_SYSTOLIC_X86
    if (x86) {
        systolic_params whole = *sp;
        whole.n = out_c;
        whole.multiplier = mult;
        whole.shift = shift;
        whole.weights = filt->t.data;
        if (!systolic_x86_panel_ok(&whole)) x86 = SYSTOLIC_X86_NONE;
        /* AVX2 needs weights known (constant) and free of -128. */
        if (x86 == SYSTOLIC_X86_AVX2 && (!filt->is_const || !systolic_x86_weights_ok(&whole)))
            x86 = SYSTOLIC_X86_NONE;
    }
    p->x86 = x86;
    p->packed = 0;
    p->sum_avx2 = (uint8_t)(systolic_x86_level() != SYSTOLIC_X86_NONE);
    if (x86) {
        const systolic_x86_conv geom = x86_geom(p);
        p->x86_gather = (uint8_t)systolic_x86_conv_ok(&geom);
        p->x86_first = (uint8_t)(x86 == SYSTOLIC_X86_AVX2 && groups == 1 &&
                                 systolic_x86_conv_first_ok(&geom, out_c));
        /* Its weights are re-laid per eval (one load and store per word),
         * which even a 3x3 image repays: the panel kernel computes 16 rows. */
        p->x86_lanes = (uint8_t)(x86 == SYSTOLIC_X86_AVX2 && groups == 1 && !p->x86_first &&
                                 systolic_x86_conv_lanes_ok(&geom, out_c));
    }
#endif
    return EDGE_OK;
}

/* im2col's copies are short runs (one tap's channels): four bytes per step,
 * unaligned loads and stores being fine on every target the engine has. */
static inline void copy_run(uint8_t *dst, const uint8_t *src, size_t n) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32_t v;
        __builtin_memcpy(&v, src + i, 4);
        __builtin_memcpy(dst + i, &v, 4);
    }
    for (; i < n; i++) dst[i] = src[i];
}

/* Gather one im2col row (output pixel oy, ox of batch image `img`, group g)
 * into dst: k_h * k_w * group_in_c bytes, in the filter's (ky, kx, c) order. */
static void im2col_row(const conv_params *p, const uint8_t *img, int32_t oy, int32_t ox, int32_t g,
                       uint8_t *dst) {
    const int32_t gc = p->group_in_c;
    const int32_t iy0 = oy * p->stride_h - p->pad_h, ix0 = ox * p->stride_w - p->pad_w;
    const int contiguous = p->dil_w == 1 && p->groups == 1 && ix0 >= 0 && ix0 + p->k_w <= p->in_w;
    for (int32_t ky = 0; ky < p->k_h; ky++) {
        const int32_t iy = iy0 + ky * p->dil_h;
        if (iy < 0 || iy >= p->in_h) {
            edge_memset(dst, p->pad_byte, (size_t)p->k_w * (size_t)gc);
            dst += (size_t)p->k_w * (size_t)gc;
            continue;
        }
        const uint8_t *row = img + ((size_t)iy * (size_t)p->in_w) * (size_t)p->in_c + (size_t)g * (size_t)gc;
        if (contiguous) {
            copy_run(dst, row + (size_t)ix0 * (size_t)p->in_c, (size_t)p->k_w * (size_t)gc);
            dst += (size_t)p->k_w * (size_t)gc;
            continue;
        }
        for (int32_t kx = 0; kx < p->k_w; kx++) {
            const int32_t ix = ix0 + kx * p->dil_w;
            if (ix < 0 || ix >= p->in_w)
                edge_memset(dst, p->pad_byte, (size_t)gc);
            else
                copy_run(dst, row + (size_t)ix * (size_t)p->in_c, (size_t)gc);
            dst += gc;
        }
    }
}

#ifdef EDGE_SYSTOLIC_X86
/* First layers (1 to 3 input channels, one group) skip im2col: each panel
 * word holds the taps of one filter row that fit in 4 bytes (1 tap of 3
 * channels, 2 of 2, up to 4 of 1 when dil_w is 1), loaded from the input as
 * one unaligned word for interior pixels; the filter is re-laid out the same
 * way on the stack, zeros in the unused bytes, so whatever those bytes of
 * the word hold adds nothing. The sums are the same integers as im2col's. */
enum { SMALL_MAX_WORDS = 64, SMALL_MAX_WEIGHTS = 8192 };
/* Channels whose AVX2 requantization table an eval builds on its stack
 * (24 KiB); wider convs build it per panel. */
enum { X86_RQ_TABLE_MAX = 1024 };

typedef struct small_geom {
    int32_t tpw; /* taps per word */
    int32_t wpr; /* words per filter row */
    int32_t nq;  /* words in all */
} small_geom;

static small_geom small_geometry(const conv_params *p) {
    small_geom g;
    g.tpw = p->dil_w == 1 ? 4 / p->in_c : 1;
    if (g.tpw > p->k_w) g.tpw = p->k_w;
    g.wpr = (p->k_w + g.tpw - 1) / g.tpw;
    g.nq = p->k_h * g.wpr;
    return g;
}

static int small_ok(const conv_params *p) {
    /* 3 channels only: with 1 (kws' first layer, many edge pixels, few
     * pixels per filter byte re-laid) the im2col path measured faster. */
    if (p->groups != 1 || p->in_c != 3 || p->direct) return 0;
    const small_geom g = small_geometry(p);
    return g.nq <= SMALL_MAX_WORDS && (int64_t)p->out_c * 4 * g.nq <= SMALL_MAX_WEIGHTS;
}

/* Panel row r of output pixel (oy, ox): words XORed with flip. */
static void small_row(const conv_params *p, const small_geom *g, const uint8_t *img, size_t img_bytes,
                      int32_t oy, int32_t ox, uint8_t *panel, int32_t r, uint32_t flip) {
    const int32_t iy0 = oy * p->stride_h - p->pad_h, ix0 = ox * p->stride_w - p->pad_w;
    const int32_t c = p->in_c;
    uint8_t *dst = panel + 4 * r;
    const size_t step = 4 * SYSTOLIC_X86_PANEL_ROWS;
    const int32_t iy_last = iy0 + (p->k_h - 1) * p->dil_h, ix_last = ix0 + (p->k_w - 1) * p->dil_w;
    /* The last word's first byte; its 4-byte load must stay in the image. */
    const int64_t last =
        ((int64_t)iy_last * p->in_w + ix0 + (int64_t)(g->wpr - 1) * g->tpw * p->dil_w) * c;
    if (iy0 >= 0 && ix0 >= 0 && iy_last < p->in_h && ix_last < p->in_w && last + 4 <= (int64_t)img_bytes) {
        for (int32_t ky = 0; ky < p->k_h; ky++) {
            const size_t y = (size_t)(iy0 + ky * p->dil_h);
            const uint8_t *row = img + (y * (size_t)p->in_w + (size_t)ix0) * (size_t)c;
            for (int32_t w = 0; w < g->wpr; w++) {
                uint32_t v;
                __builtin_memcpy(&v, row + (size_t)(w * g->tpw * p->dil_w * c), 4);
                v ^= flip;
                __builtin_memcpy(dst, &v, 4);
                dst += step;
            }
        }
        return;
    }
    /* Edge pixels, word by word: a word of taps all outside the image is
     * the pad word, one all inside a load, a mixed one byte by byte. */
    const uint32_t pad_word = (uint32_t)p->pad_byte * 0x01010101u;
    for (int32_t ky = 0; ky < p->k_h; ky++) {
        const int32_t iy = iy0 + ky * p->dil_h;
        const int row_in = iy >= 0 && iy < p->in_h;
        for (int32_t w = 0; w < g->wpr; w++) {
            const int32_t kx0 = w * g->tpw;
            const int32_t kx1 = (kx0 + g->tpw < p->k_w ? kx0 + g->tpw : p->k_w) - 1;
            const int32_t ixa = ix0 + kx0 * p->dil_w, ixb = ix0 + kx1 * p->dil_w;
            const int64_t at = ((int64_t)iy * p->in_w + ixa) * c;
            uint32_t v;
            if (!row_in || ixb < 0 || ixa >= p->in_w) {
                v = pad_word;
            } else if (ixa >= 0 && ixb < p->in_w && at + 4 <= (int64_t)img_bytes) {
                __builtin_memcpy(&v, img + at, 4);
            } else {
                uint8_t b[4] = {0, 0, 0, 0};
                for (int32_t kx = kx0; kx <= kx1; kx++) {
                    const int32_t ix = ix0 + kx * p->dil_w, t = kx - kx0;
                    const int in = ix >= 0 && ix < p->in_w;
                    for (int32_t ch = 0; ch < c; ch++)
                        b[t * c + ch] =
                            in ? img[((size_t)iy * (size_t)p->in_w + (size_t)ix) * (size_t)c + (size_t)ch]
                               : p->pad_byte;
                }
                __builtin_memcpy(&v, b, 4);
            }
            v ^= flip;
            __builtin_memcpy(dst, &v, 4);
            dst += step;
        }
    }
}

/* small_ok's convs: the panel kernel on words of whole taps. */
static __attribute__((noinline)) void eval_x86_small(const conv_params *p, const uint8_t *in,
                                                     const uint8_t *filt, uint8_t *out,
                                                     const int32_t *eff_bias, const int32_t *mult,
                                                     const int8_t *shift, const systolic_x86_rq *rq) {
    uint8_t panel[SYSTOLIC_X86_PANEL_ROWS * 4 * SMALL_MAX_WORDS] __attribute__((aligned(64)));
    int8_t wpad[SMALL_MAX_WEIGHTS];
    const small_geom g = small_geometry(p);
    const int32_t kp = 4 * g.nq, c = p->in_c;
    /* The filter in the panel's word layout. */
    for (int32_t n = 0; n < p->out_c; n++) {
        int8_t *dst = wpad + (size_t)n * (size_t)kp;
        edge_memset(dst, 0, (size_t)kp);
        const uint8_t *src = filt + (size_t)n * (size_t)p->k;
        for (int32_t ky = 0; ky < p->k_h; ky++)
            for (int32_t kx = 0; kx < p->k_w; kx++) {
                int8_t *word = dst + (ky * g.wpr + kx / g.tpw) * 4 + (kx % g.tpw) * c;
                for (int32_t ch = 0; ch < c; ch++) word[ch] = (int8_t)*src++;
            }
    }
    const uint32_t flip = systolic_x86_panel_flip(p->x86);
    const int32_t pixels = p->out_h * p->out_w;
    const size_t img_bytes = (size_t)p->in_h * (size_t)p->in_w * (size_t)c;
    systolic_params sp = p->sp;
    sp.k = kp;
    sp.weights = wpad;
    sp.bias = eff_bias;
    sp.multiplier = mult;
    sp.shift = shift;
    for (int32_t b = 0; b < p->batches; b++) {
        const uint8_t *img = in + (size_t)b * img_bytes;
        uint8_t *out_img = out + (size_t)b * (size_t)pixels * (size_t)p->out_c;
        for (int32_t px0 = 0; px0 < pixels; px0 += SYSTOLIC_X86_PANEL_ROWS) {
            const int32_t mr = pixels - px0 < SYSTOLIC_X86_PANEL_ROWS ? pixels - px0 : SYSTOLIC_X86_PANEL_ROWS;
            int32_t oy = px0 / p->out_w, ox = px0 % p->out_w;
            for (int32_t r = 0; r < mr; r++) {
                small_row(p, &g, img, img_bytes, oy, ox, panel, r, flip);
                if (++ox == p->out_w) ox = 0, oy++;
            }
            /* The last panel's unused rows: zeros (their results are dropped). */
            for (int32_t r = mr; r < SYSTOLIC_X86_PANEL_ROWS; r++)
                for (int32_t q = 0; q < g.nq; q++)
                    edge_memset(panel + 4 * (q * SYSTOLIC_X86_PANEL_ROWS + r), 0, 4);
            int8_t *dst = (int8_t *)(out_img + (size_t)px0 * (size_t)p->out_c);
            if (rq) systolic_x86_panel_gemm_rq(&sp, rq, panel, mr, dst, p->out_c);
            else systolic_x86_panel_gemm(p->x86, &sp, panel, mr, dst, p->out_c);
        }
    }
}

/* The x86 panel kernel: 16 output pixels at a time, all channels of a group. */
static void eval_x86(const conv_params *p, const uint8_t *in, const uint8_t *filt, uint8_t *out,
                     const int32_t *eff_bias, const int32_t *mult, const int8_t *shift,
                     const systolic_x86_rq *rq) {
    uint8_t panel[SYSTOLIC_X86_PANEL_ROWS * SYSTOLIC_X86_MAX_K] __attribute__((aligned(64)));
    uint8_t rowbuf[SYSTOLIC_X86_MAX_K];
    static const uint8_t zeros[SYSTOLIC_X86_MAX_K] = {0};
    const int32_t pixels = p->out_h * p->out_w, gn = p->group_out_c;
    const size_t img_bytes = (size_t)p->in_h * (size_t)p->in_w * (size_t)p->in_c;
    const systolic_x86_conv geom = x86_geom(p);
    for (int32_t b = 0; b < p->batches; b++) {
        const uint8_t *img = in + (size_t)b * img_bytes;
        uint8_t *out_img = out + (size_t)b * (size_t)pixels * (size_t)p->out_c;
        for (int32_t px0 = 0; px0 < pixels; px0 += SYSTOLIC_X86_PANEL_ROWS) {
            const int32_t mr = pixels - px0 < SYSTOLIC_X86_PANEL_ROWS ? pixels - px0 : SYSTOLIC_X86_PANEL_ROWS;
            for (int32_t g = 0; g < p->groups; g++) {
                if (p->x86_gather && p->x86 == SYSTOLIC_X86_VNNI)
                    systolic_x86_panel_conv(panel, (const int8_t *)img, &geom, px0, mr, g);
                else if (p->x86_gather)
                    systolic_x86_panel_conv_avx2(panel, (const int8_t *)img, &geom, px0, mr, g);
                for (int32_t r = 0; r < mr && !p->x86_gather; r++) {
                    const int32_t oy = (px0 + r) / p->out_w, ox = (px0 + r) % p->out_w;
                    const uint8_t *row = rowbuf;
                    if (p->direct)
                        row = img +
                              ((size_t)(oy * p->stride_h) * (size_t)p->in_w + (size_t)(ox * p->stride_w)) *
                                  (size_t)p->in_c +
                              (size_t)g * (size_t)p->group_in_c;
                    else
                        im2col_row(p, img, oy, ox, g, rowbuf);
                    systolic_x86_panel_row(panel, r, (const int8_t *)row, p->k,
                                           systolic_x86_panel_flip(p->x86));
                }
                /* The last panel's unused rows: zeros, so that no lane ever
                 * computes on undefined bytes (their results are dropped). */
                for (int32_t r = mr; r < SYSTOLIC_X86_PANEL_ROWS && !p->x86_gather; r++)
                    systolic_x86_panel_row(panel, r, (const int8_t *)zeros, p->k, 0);
                systolic_params sp = p->sp;
                sp.weights = filt + (size_t)g * (size_t)gn * (size_t)p->k;
                sp.bias = eff_bias + (size_t)g * (size_t)gn;
                sp.multiplier = p->sp.per_channel ? mult + (size_t)g * (size_t)gn : mult;
                sp.shift = p->sp.per_channel ? shift + (size_t)g * (size_t)gn : shift;
                int8_t *dst = (int8_t *)(out_img + (size_t)px0 * (size_t)p->out_c + (size_t)g * (size_t)gn);
                if (rq) systolic_x86_panel_gemm_rq(&sp, rq + (size_t)g * (size_t)gn, panel, mr, dst, p->out_c);
                else systolic_x86_panel_gemm(p->x86, &sp, panel, mr, dst, p->out_c);
            }
        }
    }
}
#endif

#ifdef EDGE_SYSTOLIC_X86
/* The AVX2 kernels that fold the input offset themselves (first layers;
 * channels across lanes), from the model's bias, image by image; `lanes`:
 * the lanes kernel's state prepared once for a fused pair's chunks, or
 * NULL. */
static void run_x86_raw(const conv_params *p, const uint8_t *in, const uint8_t *filt, uint8_t *out,
                        const int32_t *raw_bias, const int32_t *mult, const int8_t *shift, const void *lanes) {
    const systolic_x86_conv geom = x86_geom(p);
    systolic_params sp = p->sp;
    sp.bias = raw_bias;
    sp.multiplier = mult;
    sp.shift = shift;
    const size_t img_bytes = (size_t)p->in_h * (size_t)p->in_w * (size_t)p->in_c;
    const size_t out_bytes = (size_t)p->out_h * (size_t)p->out_w * (size_t)p->out_c;
    for (int32_t b = 0; b < p->batches; b++) {
        const int8_t *img = (const int8_t *)in + (size_t)b * img_bytes;
        int8_t *dst = (int8_t *)out + (size_t)b * out_bytes;
        if (p->x86_first)
            systolic_x86_conv_first_avx2(&geom, p->out_h, p->out_c, &sp, raw_bias, img, (const int8_t *)filt, dst);
        else if (lanes || p->packed)
            systolic_x86_conv_lanes_run(&geom, p->out_h, p->out_c, lanes ? lanes : p->packed, img, dst);
        else
            systolic_x86_conv_lanes_avx2(&geom, p->out_h, p->out_c, &sp, img, (const int8_t *)filt, dst);
    }
}

/* The panel kernels (AVX2, VNNI), from the folded bias; AVX2 first builds
 * its per-channel requantization table for the call. */
static void run_x86_panels(const conv_params *p, const uint8_t *in, const uint8_t *filt, uint8_t *out,
                           const int32_t *eff_bias, const int32_t *mult, const int8_t *shift) {
    systolic_x86_rq table[X86_RQ_TABLE_MAX];
    const systolic_x86_rq *rq = 0;
    if (p->x86 == SYSTOLIC_X86_AVX2 && p->out_c <= X86_RQ_TABLE_MAX) {
        systolic_params whole = p->sp;
        whole.n = p->out_c;
        whole.bias = eff_bias;
        whole.multiplier = mult;
        whole.shift = shift;
        systolic_x86_rq_table(&whole, 0, p->out_c, table);
        rq = table;
    }
    if (small_ok(p)) eval_x86_small(p, in, filt, out, eff_bias, mult, shift, rq);
    else eval_x86(p, in, filt, out, eff_bias, mult, shift, rq);
}
#endif

/* The conv on an image (p's geometry): eff_bias folded (see eval), or for
 * the AVX2 first-layer and lanes kernels and the DSP conv the model's bias
 * (raw_bias, may be NULL), which they fold themselves. */
static void run(const conv_params *p, const uint8_t *in, const uint8_t *filt, uint8_t *out,
                const int32_t *eff_bias, const int32_t *raw_bias, const int32_t *mult, const int8_t *shift,
                uint8_t *scratch, const void *lanes) {
    (void)raw_bias; /* x86 and DSP kernels only */
    (void)lanes;
#ifdef EDGE_SYSTOLIC_X86
    if (p->x86) {
        if (p->x86_first || p->x86_lanes) run_x86_raw(p, in, filt, out, raw_bias, mult, shift, lanes);
        else run_x86_panels(p, in, filt, out, eff_bias, mult, shift);
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
        sp.weights = filt;
        sp.bias = raw_bias; /* it adds the input offset itself */
        sp.multiplier = mult;
        sp.shift = shift;
        if (systolic_conv_variant(&sp, &g, (const int8_t *)in, (int8_t *)out)) return;
    }
#endif

    const int32_t pixels = p->out_h * p->out_w, gn = p->group_out_c;
    const size_t img_bytes = (size_t)p->in_h * (size_t)p->in_w * (size_t)p->in_c;
    const void *rows[EDGE_SYSTOLIC_ROWS];
    for (int32_t b = 0; b < p->batches; b++) {
        const uint8_t *img = in + (size_t)b * img_bytes;
        uint8_t *out_img = out + (size_t)b * (size_t)pixels * (size_t)p->out_c;
        for (int32_t px0 = 0; px0 < pixels; px0 += EDGE_SYSTOLIC_ROWS) {
            const int32_t mr = pixels - px0 < EDGE_SYSTOLIC_ROWS ? pixels - px0 : EDGE_SYSTOLIC_ROWS;
            for (int32_t g = 0; g < p->groups; g++) {
                for (int32_t r = 0; r < mr; r++) {
                    const int32_t oy = (px0 + r) / p->out_w, ox = (px0 + r) % p->out_w;
                    if (p->direct) {
                        rows[r] = img +
                                  ((size_t)(oy * p->stride_h) * (size_t)p->in_w + (size_t)(ox * p->stride_w)) *
                                      (size_t)p->in_c +
                                  (size_t)g * (size_t)p->group_in_c;
                    } else {
                        uint8_t *dst = scratch + (size_t)r * (size_t)p->k;
                        im2col_row(p, img, oy, ox, g, dst);
                        rows[r] = dst;
                    }
                }
                systolic_params sp = p->sp;
                sp.weights = filt + (size_t)g * (size_t)gn * (size_t)p->k;
                sp.bias = eff_bias + (size_t)g * (size_t)gn;
                sp.multiplier = p->sp.per_channel ? mult + (size_t)g * (size_t)gn : mult;
                sp.shift = p->sp.per_channel ? shift + (size_t)g * (size_t)gn : shift;
                systolic_gemm(&sp, rows, mr, out_img + (size_t)px0 * (size_t)p->out_c + (size_t)g * (size_t)gn,
                              p->out_c);
            }
        }
    }
}

/* A fused pair's head: output rows [r0, r1) of a 1x1 stride-1 conv are
 * the conv of input rows [r0, r1) as an image of their own. */
typedef struct rows_state {
    const conv_params *p;
    const uint8_t *in, *filt;
    const int32_t *eff_bias, *raw_bias, *mult;
    const int8_t *shift;
    uint8_t *scratch;
    const void *lanes; /* x86 lanes kernel state prepared once per eval, or NULL */
} rows_state;

static void conv_rows(const void *state, int32_t r0, int32_t r1, uint8_t *dst) {
    const rows_state *s = (const rows_state *)state;
    conv_params q = *s->p;
    q.in_h = q.out_h = r1 - r0;
    run(&q, s->in + (size_t)r0 * (size_t)q.in_w * (size_t)q.in_c, s->filt, dst, s->eff_bias, s->raw_bias,
        s->mult, s->shift, s->scratch, s->lanes);
}

#ifdef EDGE_SYSTOLIC_X86
/* A fused pair whose head runs the lanes kernel: its weights re-laid and
 * constants built once for all the chunks (host stack). */
/* On the host the pair runs larger chunks (about FUSED_X86_PIXELS tail
 * pixels) from a ring on the stack: the kernels' per-call setup and the
 * rows two chunks share are paid that much less often. The planned ring in
 * scratch goes unused; the plan is the same on every target. */
#define FUSED_X86_PIXELS 512
#define FUSED_X86_RING (64 * 1024)

static __attribute__((noinline)) edge_status fused_lanes_run(edge_op_ctx *c, rows_state *s) {
    const conv_params *p = s->p;
    uint8_t ring[FUSED_X86_RING] __attribute__((aligned(32)));
    uint32_t rows = 0;
    const int32_t chunk = edge_fused_chunk(c, FUSED_X86_PIXELS, FUSED_X86_RING, &rows);
    if (chunk) return edge_fused_run(c, ring, rows, chunk, conv_rows, s);
    return edge_fused_run(c, s->scratch + p->ring_off, p->ring_rows, 0, conv_rows, s);
}

/* Unpacked: the weights re-laid into a state on this frame, once for all
 * the chunks (kept out of the packed path's stack). */
static __attribute__((noinline)) edge_status fused_lanes_relaid(edge_op_ctx *c, rows_state *s) {
    uint8_t state[SYSTOLIC_X86_LANES_STATE] __attribute__((aligned(32)));
    const conv_params *p = s->p;
    const systolic_x86_conv geom = x86_geom(p);
    systolic_params sp = p->sp;
    sp.bias = s->raw_bias;
    sp.multiplier = s->mult;
    sp.shift = s->shift;
    systolic_x86_conv_lanes_prepare(&geom, p->out_c, &sp, (const int8_t *)s->filt, state);
    s->lanes = state;
    return fused_lanes_run(c, s);
}

static edge_status fused_lanes(edge_op_ctx *c, rows_state *s) {
    if (!s->p->packed) return fused_lanes_relaid(c, s);
    s->lanes = s->p->packed; /* laid out once already (pack) */
    return fused_lanes_run(c, s);
}
#endif

static edge_status eval(edge_op_ctx *c) {
    const conv_params *p = (const conv_params *)c->params;
    const uint8_t *base = (const uint8_t *)c->params;
    const uint8_t *in = (const uint8_t *)edge_in_data(c, 0);
    const uint8_t *filt = (const uint8_t *)edge_in_data(c, 1);
    uint8_t *scratch = (uint8_t *)c->scratch;
    const int32_t *mult = (const int32_t *)(base + p->mult_off);
    const int8_t *shift = (const int8_t *)(base + p->shift_off);

    const int32_t *raw_bias = (const int32_t *)edge_in_data(c, 2);
    /* The effective bias, folded per invoke (see prepare); the x86 VNNI
     * tile's +128 on activations is folded in the same pass. The AVX2
     * first-layer and lanes kernels and the DSP conv fold the input
     * offset themselves. */
    int32_t *eff_bias = (int32_t *)(void *)(scratch + p->scratch_bias_off);
    int fold = 1;
#ifdef EDGE_SYSTOLIC_X86
    fold = !p->x86_first && !p->x86_lanes;
#endif
#ifdef EDGE_SYSTOLIC_VARIANT_WIDE
    fold = !systolic_conv_variant_takes(&p->sp);
#endif
    if (fold) {
        systolic_params whole = p->sp;
        whole.n = p->out_c;
        whole.weights = filt;
        int32_t tile_offset = 0;
        int avx2 = 0;
#ifdef EDGE_SYSTOLIC_X86
        if (p->x86 == SYSTOLIC_X86_VNNI) tile_offset = 128;
        avx2 = p->sum_avx2;
#endif
        systolic_fold_bias_tile(&whole, raw_bias, tile_offset, avx2, eff_bias);
    }
    if (p->fused) {
        rows_state s = {p, in, filt, eff_bias, raw_bias, mult, shift, scratch, 0};
#ifdef EDGE_SYSTOLIC_X86
        if (p->x86_lanes) return fused_lanes(c, &s);
#endif
        return edge_fused_run(c, scratch + p->ring_off, p->ring_rows, 0, conv_rows, &s);
    }
    run(p, in, filt, (uint8_t *)edge_out_data(c, 0), eff_bias, raw_bias, mult, shift, scratch, 0);
    return EDGE_OK;
}

#ifdef EDGE_SYSTOLIC_X86
/* The lanes kernel's re-laid weights and constants, built once instead of
 * per eval (edge_model_pack), when the filter and bias are constants. */
static uint32_t pack(edge_op_ctx *c, uint8_t *dst) {
    conv_params *p = (conv_params *)c->params;
    if (!p || !p->x86_lanes) return 0;
    const edge_tensor_rt *filt, *bias;
    if (!edge_weights_const(c, &filt, &bias)) return 0;
    const systolic_x86_conv geom = x86_geom(p);
    const uint32_t bytes = systolic_x86_conv_lanes_bytes(&geom, p->out_c);
    if (dst) {
        systolic_params sp = p->sp;
        sp.bias = bias ? (const int32_t *)bias->t.data : 0;
        sp.multiplier = (const int32_t *)(const void *)((const uint8_t *)p + p->mult_off);
        sp.shift = (const int8_t *)((const uint8_t *)p + p->shift_off);
        systolic_x86_conv_lanes_prepare(&geom, p->out_c, &sp, (const int8_t *)filt->t.data, dst);
        p->packed = dst;
    }
    return bytes;
}
#define CONV_PACK pack
#else
#define CONV_PACK 0
#endif

const edge_op_impl edge_op_conv_2d = {3, "CONV_2D", prepare, eval, 0, CONV_PACK};
