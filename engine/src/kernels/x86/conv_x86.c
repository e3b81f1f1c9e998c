/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conv_x86.c — CONV_2D's x86-64 variants behind kernels/conv.h: the panel
 * kernels (AVX-512 VNNI, AVX2), the AVX2 first-layer and channels-across-
 * lanes kernels, chosen at prepare (conv_x86_select) from the CPU's level
 * and the conv's shape. All their layouts (panels, re-laid weights, the
 * lanes state) are built here.
 */
#include "conv_x86.h"

#ifdef EDGE_SYSTOLIC_X86

#include "../portable/conv_im2col.h"

typedef edge_conv_params conv_params;

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
    const uint32_t flip = systolic_x86_panel_flip(p->sp.simd);
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
            else systolic_x86_panel_gemm(p->sp.simd, &sp, panel, mr, dst, p->out_c);
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
                if (p->v_gather && p->sp.simd == SYSTOLIC_X86_VNNI)
                    systolic_x86_panel_conv(panel, (const int8_t *)img, &geom, px0, mr, g);
                else if (p->v_gather)
                    systolic_x86_panel_conv_avx2(panel, (const int8_t *)img, &geom, px0, mr, g);
                for (int32_t r = 0; r < mr && !p->v_gather; r++) {
                    const int32_t oy = (px0 + r) / p->out_w, ox = (px0 + r) % p->out_w;
                    const uint8_t *row = rowbuf;
                    if (p->direct)
                        row = img +
                              ((size_t)(oy * p->stride_h) * (size_t)p->in_w + (size_t)(ox * p->stride_w)) *
                                  (size_t)p->in_c +
                              (size_t)g * (size_t)p->group_in_c;
                    else
                        edge_conv_im2col_row(p, img, oy, ox, g, rowbuf);
                    systolic_x86_panel_row(panel, r, (const int8_t *)row, p->k,
                                           systolic_x86_panel_flip(p->sp.simd));
                }
                /* The last panel's unused rows: zeros, so that no lane ever
                 * computes on undefined bytes (their results are dropped). */
                for (int32_t r = mr; r < SYSTOLIC_X86_PANEL_ROWS && !p->v_gather; r++)
                    systolic_x86_panel_row(panel, r, (const int8_t *)zeros, p->k, 0);
                systolic_params sp = p->sp;
                sp.weights = filt + (size_t)g * (size_t)gn * (size_t)p->k;
                sp.bias = eff_bias + (size_t)g * (size_t)gn;
                sp.multiplier = p->sp.per_channel ? mult + (size_t)g * (size_t)gn : mult;
                sp.shift = p->sp.per_channel ? shift + (size_t)g * (size_t)gn : shift;
                int8_t *dst = (int8_t *)(out_img + (size_t)px0 * (size_t)p->out_c + (size_t)g * (size_t)gn);
                if (rq) systolic_x86_panel_gemm_rq(&sp, rq + (size_t)g * (size_t)gn, panel, mr, dst, p->out_c);
                else systolic_x86_panel_gemm(p->sp.simd, &sp, panel, mr, dst, p->out_c);
            }
        }
    }
}

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
        if (p->v_first)
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
    if (p->sp.simd == SYSTOLIC_X86_AVX2 && p->out_c <= X86_RQ_TABLE_MAX) {
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

void conv_x86_select(edge_conv_params *p, const int32_t *mult, const int8_t *shift, const void *filt,
                     int filt_const) {
    /* The panels live on the stack (host builds only), so the memory plan,
     * which edgeq writes into the models it makes, is the same on every
     * machine whatever its CPU. */
    uint8_t x86 = p->sp.is_unsigned || p->k > SYSTOLIC_X86_MAX_K ? (uint8_t)SYSTOLIC_X86_NONE : systolic_x86_level();
    if (x86) {
        systolic_params whole = p->sp;
        whole.n = p->out_c;
        whole.multiplier = mult;
        whole.shift = shift;
        whole.weights = filt;
        if (!systolic_x86_panel_ok(&whole)) x86 = SYSTOLIC_X86_NONE;
        /* AVX2 needs weights known (constant) and free of -128. */
        if (x86 == SYSTOLIC_X86_AVX2 && (!filt_const || !systolic_x86_weights_ok(&whole)))
            x86 = SYSTOLIC_X86_NONE;
    }
    p->sp.simd = x86;
    p->packed = 0;
    p->sum_fast = (uint8_t)(systolic_x86_level() != SYSTOLIC_X86_NONE);
    p->v_gather = p->v_first = p->v_lanes = 0;
    if (x86) {
        const systolic_x86_conv geom = x86_geom(p);
        p->v_gather = (uint8_t)systolic_x86_conv_ok(&geom);
        p->v_first = (uint8_t)(x86 == SYSTOLIC_X86_AVX2 && p->groups == 1 &&
                               systolic_x86_conv_first_ok(&geom, p->out_c));
        /* Its weights are re-laid per eval (one load and store per word),
         * which even a 3x3 image repays: the panel kernel computes 16 rows. */
        p->v_lanes = (uint8_t)(x86 == SYSTOLIC_X86_AVX2 && p->groups == 1 && !p->v_first &&
                               systolic_x86_conv_lanes_ok(&geom, p->out_c));
    }
}

int conv_x86_folds(const edge_conv_params *p) { return !p->v_first && !p->v_lanes; }

void conv_x86_run(const edge_conv_params *p, const edge_conv_data *d) {
    if (p->v_first || p->v_lanes) run_x86_raw(p, d->in, d->filt, d->out, d->raw_bias, d->mult, d->shift, d->state);
    else run_x86_panels(p, d->in, d->filt, d->out, d->eff_bias, d->mult, d->shift);
}

/* A fused pair whose head runs the lanes kernel: on the host the pair runs
 * larger chunks (about FUSED_X86_PIXELS tail pixels) from a ring on the
 * stack, so the kernels' per-call setup and the rows two chunks share are
 * paid that much less often. The planned ring in scratch goes unused; the
 * plan is the same on every target. */
#define FUSED_X86_PIXELS 512
#define FUSED_X86_RING (64 * 1024)

static __attribute__((noinline)) edge_status chunks_ring(const void *state, edge_conv_chunks_fn fn, void *ctx) {
    uint8_t ring[FUSED_X86_RING] __attribute__((aligned(32)));
    return fn(ctx, state, ring, FUSED_X86_RING, FUSED_X86_PIXELS);
}

/* Unpacked: the weights re-laid into a state on this frame, once for all
 * the chunks (kept out of the packed path's stack). */
static __attribute__((noinline)) edge_status chunks_relaid(const edge_conv_params *p, const edge_conv_data *d,
                                                           edge_conv_chunks_fn fn, void *ctx) {
    uint8_t state[SYSTOLIC_X86_LANES_STATE] __attribute__((aligned(32)));
    const systolic_x86_conv geom = x86_geom(p);
    systolic_params sp = p->sp;
    sp.bias = d->raw_bias;
    sp.multiplier = d->mult;
    sp.shift = d->shift;
    systolic_x86_conv_lanes_prepare(&geom, p->out_c, &sp, (const int8_t *)d->filt, state);
    return chunks_ring(state, fn, ctx);
}

edge_status conv_x86_chunked(const edge_conv_params *p, const edge_conv_data *d, edge_conv_chunks_fn fn,
                             void *ctx) {
    if (!p->v_lanes) return fn(ctx, 0, 0, 0, 0);
    if (!p->packed) return chunks_relaid(p, d, fn, ctx);
    return chunks_ring(p->packed, fn, ctx); /* laid out once already (pack) */
}

/* The lanes kernel's re-laid weights and constants, built once instead of
 * per eval (edge_model_pack), when the filter and bias are constants. */
uint32_t conv_x86_pack(edge_conv_params *p, const void *filt, const int32_t *bias, uint8_t *dst) {
    if (!p->v_lanes) return 0;
    const systolic_x86_conv geom = x86_geom(p);
    const uint32_t bytes = systolic_x86_conv_lanes_bytes(&geom, p->out_c);
    if (dst) {
        systolic_params sp = p->sp;
        sp.bias = bias;
        sp.multiplier = (const int32_t *)(const void *)((const uint8_t *)p + p->mult_off);
        sp.shift = (const int8_t *)((const uint8_t *)p + p->shift_off);
        systolic_x86_conv_lanes_prepare(&geom, p->out_c, &sp, (const int8_t *)filt, dst);
        p->packed = dst;
    }
    return bytes;
}

#else
typedef int conv_x86_unused;
#endif
