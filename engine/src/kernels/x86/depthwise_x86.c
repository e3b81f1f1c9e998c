/* SPDX-License-Identifier: Apache-2.0 */
/*
 * depthwise_x86.c — the int8 depthwise kernel with AVX2, bit-exact with
 * depthwise.c (the same int32 sums, the same requantization).
 *
 * Built on x86 only, as functions with target("avx2") inside an ordinary
 * build: the op's prepare asks the CPU once (depthwise_avx2_usable) and keeps
 * the answer in its params (depthwise_params.simd), so nothing global is
 * written and a CPU without AVX2 runs the portable kernel.
 *
 * The reference sums (x + input_offset) * w over the taps inside the image.
 * Here each input row is widened once into a row of int16 pairs,
 *   E[q][oc] = (x[q][ic] + io, x[q + dil_w][ic] + io),  ic = oc / depth_mult,
 * with 0 for columns outside the image, and the filter into pairs of
 * horizontally adjacent taps (w[ky][2j][oc], w[ky][2j+1][oc]), a zero
 * partner for an odd last tap. One vpmaddwd then adds two taps of eight
 * channels into their int32 lanes exactly, padding taps add 0 and rows
 * outside the image are skipped: the sum is the reference's integer for
 * integer, in the same wrap-around int32 arithmetic.
 *
 * Order: output rows top to bottom, each row's every channel before the
 * next row (the memory planner relies on it). Rows are cached in k_h slots
 * on the stack (host builds only: the memory plan stays the same on every
 * target); shapes whose slots would not fit run the portable kernel.
 */
#include "../depthwise.h"
#include "requant_lanes_x86.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>


#define AVX2_FN __attribute__((target("avx2")))
#define INLINE_AVX2 static inline __attribute__((always_inline, target("avx2")))

/* Stack bytes for the row slots, the paired filter and the per-channel
 * constants. */
#define DWX_STACK_MAX (160 * 1024)
#define DWX_MAX_KH 16
#define DWX_MAX_ROW1 4096 /* one-channel rows widened on the stack */
#define DWX_MAX_TAPS 64 /* tap pairs of a filter: k_h * ceil(k_w / 2) */

int depthwise_avx2_usable(void) { return __builtin_cpu_supports("avx2") ? 1 : 0; }

typedef struct dwx_geom {
    int32_t entries; /* pair entries per slot row */
    int32_t pairs;   /* tap pairs per filter row */
    int32_t slot_bytes;
} dwx_geom;

static dwx_geom geometry(const depthwise_params *p) {
    dwx_geom g;
    g.entries = (p->out_w - 1) * p->stride_w + (p->k_w - 1) * p->dil_w + 1;
    g.pairs = (p->k_w + 1) / 2;
    g.slot_bytes = g.entries * p->out_c * 4;
    return g;
}

static int64_t stack_need(const depthwise_params *p, const dwx_geom *g) {
    const int64_t c = p->out_c;
    return (int64_t)p->k_h * g->slot_bytes + (int64_t)p->k_h * g->pairs * c * 4 +
           (c / 8) * (int64_t)sizeof(lanes_rq);
}

/* Entries e and e + 1 of eight channels from the widened a = x[q] + io
 * and b = x[q + dil] + io: unpack makes (a, b) pairs per 128-bit lane. */
INLINE_AVX2 void store_pairs16(int16_t *dst, __m256i a, __m256i b) {
    const __m256i lo = _mm256_unpacklo_epi16(a, b), hi = _mm256_unpackhi_epi16(a, b);
    _mm256_storeu_si256((__m256i *)(void *)dst, _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(dst + 16), _mm256_permute2x128_si256(lo, hi, 0x31));
}

INLINE_AVX2 __m256i widen16(const int8_t *x, __m256i io) {
    return _mm256_add_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)x)), io);
}

INLINE_AVX2 __m128i widen8(const int8_t *x, int in, __m128i io) {
    return in ? _mm_add_epi16(_mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(const void *)x)), io)
              : _mm_setzero_si128();
}

/* Widen input row `src` (in_w pixels of in_c) into slot `dst`: the entries
 * every gap-th (the others are never read: see depthwise_s8_avx2). */
AVX2_FN static void build_row(const depthwise_params *p, const dwx_geom *g, int32_t gap, const int8_t *src,
                              int16_t *dst) {
    const int32_t c = p->out_c, dm = p->depth_mult, in_c = p->in_c, in_w = p->in_w, d = p->dil_w;
    const int16_t io = p->input_offset;
    const __m128i vio = _mm_set1_epi16(io);
    const __m256i vio2 = _mm256_set1_epi16(io);
    if (in_c == 1 && dm % 8 == 0) {
        /* One input channel (a grey image's first layer): the row widened
         * once, zeros around it, then each entry's pair broadcast to all
         * dm lanes. */
        int16_t xw[DWX_MAX_ROW1 + 2];
        const int32_t span = g->entries + d; /* columns -pad_w .. entries - 1 - pad_w + d */
        const int32_t lo = p->pad_w < span ? p->pad_w : span;
        int32_t hi = p->pad_w + in_w < span ? p->pad_w + in_w : span;
        if (hi < lo) hi = lo;
        int32_t i = 0;
        for (; i < lo; i++) xw[i] = 0;
        for (; i + 16 <= hi; i += 16)
            _mm256_storeu_si256((__m256i *)(void *)(xw + i), widen16(src + (i - p->pad_w), vio2));
        for (; i < hi; i++) xw[i] = (int16_t)(src[i - p->pad_w] + io);
        for (; i < span; i++) xw[i] = 0;
        for (int32_t e = 0; e < g->entries; e += gap) {
            const uint32_t pair = (uint32_t)(uint16_t)xw[e] | (uint32_t)(uint16_t)xw[e + d] << 16;
            const __m256i v = _mm256_set1_epi32((int32_t)pair);
            int16_t *row = dst + (int64_t)e * c * 2;
            for (int32_t m = 0; m < dm; m += 8) _mm256_storeu_si256((__m256i *)(void *)(row + 2 * m), v);
        }
        return;
    }
    /* Entries whose two columns are both inside the image, when every one
     * is built: one flat run of values in the source and in the slot. */
    int32_t e_lo = 0, e_hi = 0;
    if (dm == 1) {
        /* From the first entry built (a multiple of gap). */
        e_lo = p->pad_w < g->entries ? p->pad_w : g->entries;
        e_lo = (e_lo + gap - 1) / gap * gap;
        e_hi = in_w - d + p->pad_w < g->entries ? in_w - d + p->pad_w : g->entries;
        if (e_hi < e_lo) e_hi = e_lo;
    }
    if (dm == 1 && gap > 1) {
        /* Every gap-th entry (strided convs): the inside ones without the
         * per-entry checks below. */
        for (int32_t e = e_lo; e < e_hi; e += gap) {
            const int8_t *xa = src + (int64_t)(e - p->pad_w) * in_c, *xb = xa + (int64_t)d * in_c;
            int16_t *row = dst + (int64_t)e * c * 2;
            int32_t oc = 0;
            for (; oc + 16 <= c; oc += 16) store_pairs16(row + 2 * oc, widen16(xa + oc, vio2), widen16(xb + oc, vio2));
            if (oc < c) {
                const __m128i a = widen8(xa + oc, 1, vio), b = widen8(xb + oc, 1, vio);
                _mm_storeu_si128((__m128i *)(void *)(row + 2 * oc), _mm_unpacklo_epi16(a, b));
                _mm_storeu_si128((__m128i *)(void *)(row + 2 * oc + 8), _mm_unpackhi_epi16(a, b));
            }
        }
    }
    if (dm == 1 && gap == 1) {
        const int8_t *xa = src + (int64_t)(e_lo - p->pad_w) * in_c;
        int16_t *row = dst + (int64_t)e_lo * c * 2;
        const int64_t n = (int64_t)(e_hi - e_lo) * c;
        int64_t f = 0;
        for (; f + 16 <= n; f += 16)
            store_pairs16(row + 2 * f, widen16(xa + f, vio2), widen16(xa + f + (int64_t)d * c, vio2));
        if (f < n) { /* eight values left (c is a multiple of 8) */
            const __m128i a = widen8(xa + f, 1, vio), b = widen8(xa + f + (int64_t)d * c, 1, vio);
            _mm_storeu_si128((__m128i *)(void *)(row + 2 * f), _mm_unpacklo_epi16(a, b));
            _mm_storeu_si128((__m128i *)(void *)(row + 2 * f + 8), _mm_unpackhi_epi16(a, b));
        }
    }
    for (int32_t e = 0; e < g->entries; e += gap) {
        if (e == e_lo && e_hi > e_lo) {
            /* Built above: on from the first multiple of gap past e_hi. */
            e = e_lo + (e_hi - 1 - e_lo) / gap * gap;
            continue;
        }
        const int32_t qa = e - p->pad_w, qb = qa + d;
        const int ina = qa >= 0 && qa < in_w, inb = qb >= 0 && qb < in_w;
        int16_t *row = dst + (int64_t)e * c * 2;
        if (dm == 1) {
            /* Columns outside the image: zeros (x + io of the padding). */
            const int8_t *xa = src + (int64_t)qa * in_c, *xb = src + (int64_t)qb * in_c;
            int32_t oc = 0;
            if (ina && inb)
                for (; oc + 16 <= c; oc += 16) store_pairs16(row + 2 * oc, widen16(xa + oc, vio2), widen16(xb + oc, vio2));
            for (; oc < c; oc += 8) {
                const __m128i a = widen8(xa + oc, ina, vio), b = widen8(xb + oc, inb, vio);
                _mm_storeu_si128((__m128i *)(void *)(row + 2 * oc), _mm_unpacklo_epi16(a, b));
                _mm_storeu_si128((__m128i *)(void *)(row + 2 * oc + 8), _mm_unpackhi_epi16(a, b));
            }
            continue;
        }
        if (dm % 8 == 0) {
            /* Each input channel's pair fills dm lanes. */
            for (int32_t ic = 0; ic < in_c; ic++) {
                const uint16_t a = (uint16_t)(ina ? src[(int64_t)qa * in_c + ic] + io : 0);
                const uint16_t b = (uint16_t)(inb ? src[(int64_t)qb * in_c + ic] + io : 0);
                const __m256i v = _mm256_set1_epi32((int32_t)((uint32_t)a | (uint32_t)b << 16));
                for (int32_t m = 0; m < dm; m += 8)
                    _mm256_storeu_si256((__m256i *)(void *)(row + 2 * ((int64_t)ic * dm + m)), v);
            }
            continue;
        }
        for (int32_t ic = 0, oc = 0; ic < in_c; ic++) {
            const int16_t a = (int16_t)(ina ? src[(int64_t)qa * in_c + ic] + io : 0);
            const int16_t b = (int16_t)(inb ? src[(int64_t)qb * in_c + ic] + io : 0);
            for (int32_t m = 0; m < dm; m++, oc++) {
                row[2 * oc] = a;
                row[2 * oc + 1] = b;
            }
        }
    }
}

/* The filter as tap pairs, [ky][pair][oc][2]: (w[ky][2j][oc],
 * w[ky][2j + 1][oc]), 0 for the partner of an odd last tap. */
AVX2_FN static void build_filter(const depthwise_params *p, const dwx_geom *g, const int8_t *filt,
                                 int16_t *wp) {
    const int32_t c = p->out_c;
    const __m256i zero = _mm256_setzero_si256();
    for (int32_t ky = 0; ky < p->k_h; ky++)
        for (int32_t j = 0; j < g->pairs; j++) {
            const int8_t *wa = filt + ((int64_t)ky * p->k_w + 2 * j) * c;
            const int has_b = 2 * j + 1 < p->k_w;
            int16_t *dst = wp + ((int64_t)ky * g->pairs + j) * c * 2;
            int32_t oc = 0;
            for (; oc + 16 <= c; oc += 16)
                store_pairs16(dst + 2 * oc, widen16(wa + oc, zero), has_b ? widen16(wa + c + oc, zero) : zero);
            for (; oc < c; oc += 8) {
                const __m128i a = widen8(wa + oc, 1, _mm_setzero_si128());
                const __m128i b = widen8(wa + c + oc, has_b, _mm_setzero_si128());
                _mm_storeu_si128((__m128i *)(void *)(dst + 2 * oc), _mm_unpacklo_epi16(a, b));
                _mm_storeu_si128((__m128i *)(void *)(dst + 2 * oc + 8), _mm_unpackhi_epi16(a, b));
            }
        }
}

/* Channels c0 .. c0 + 7 of one output row, two pixels per step. Tap pair
 * t reads the entries at base + off[t] (+ step per pixel) with the weights
 * wt[t]; nt is a constant where the caller specialises (unrolled). */
INLINE_AVX2 void row_block(const int16_t *base, const int64_t *off, const int16_t *const *wt, int32_t nt,
                           int32_t ow, int64_t step, int32_t c, int32_t c0, const lanes_rq *q, int8_t *dst) {
    const __m256i bias = _mm256_loadu_si256((const __m256i *)(const void *)q->bias);
    __m256i wv[DWX_MAX_TAPS];
#pragma GCC unroll 16
    for (int32_t t = 0; t < nt; t++) wv[t] = _mm256_loadu_si256((const __m256i *)(const void *)(wt[t] + c0 * 2));
    const int16_t *e = base + (int64_t)c0 * 2;
    int8_t *d0 = dst + c0;
    for (int32_t ox = 0; ox < ow; ox += 2, e += 2 * step, d0 += 2 * c) {
        /* The second pixel's entries exist only when it does. */
        const int two = ox + 1 < ow;
        const int64_t s1 = two ? step : 0;
        __m256i a0 = bias, a1 = bias;
#pragma GCC unroll 16
        for (int32_t t = 0; t < nt; t++) {
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(e + off[t])), wv[t]));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(e + off[t] + s1)), wv[t]));
        }
        const __m128i v = lanes_to_bytes(lanes_requant8(a0, q), lanes_requant8(a1, q), q);
        if (two && c == 8) {
            _mm_storeu_si128((__m128i *)(void *)d0, v);
        } else {
            _mm_storel_epi64((__m128i *)(void *)d0, v);
            if (two) _mm_storel_epi64((__m128i *)(void *)(d0 + c), _mm_srli_si128(v, 8));
        }
    }
}

/* The same for channels c0 .. c0 + 15 (two blocks, qa and qb): each
 * pixel's tap loads and pointer steps serve both, and four independent
 * sums per step keep the multiply ports busy. */
INLINE_AVX2 void row_block16(const int16_t *base, const int64_t *off, const int16_t *const *wt, int32_t nt,
                             int32_t ow, int64_t step, int32_t c, int32_t c0, const lanes_rq *qa,
                             const lanes_rq *qb, int8_t *dst) {
    const __m256i ba = _mm256_loadu_si256((const __m256i *)(const void *)qa->bias);
    const __m256i bb = _mm256_loadu_si256((const __m256i *)(const void *)qb->bias);
    __m256i wa[DWX_MAX_TAPS], wb[DWX_MAX_TAPS];
#pragma GCC unroll 16
    for (int32_t t = 0; t < nt; t++) {
        wa[t] = _mm256_loadu_si256((const __m256i *)(const void *)(wt[t] + c0 * 2));
        wb[t] = _mm256_loadu_si256((const __m256i *)(const void *)(wt[t] + c0 * 2 + 16));
    }
    const int16_t *e = base + (int64_t)c0 * 2;
    int8_t *d0 = dst + c0;
    for (int32_t ox = 0; ox < ow; ox += 2, e += 2 * step, d0 += 2 * c) {
        const int two = ox + 1 < ow;
        const int64_t s1 = two ? step : 0;
        __m256i a0 = ba, a1 = ba, b0 = bb, b1 = bb;
#pragma GCC unroll 16
        for (int32_t t = 0; t < nt; t++) {
            const int16_t *p0 = e + off[t], *p1 = e + off[t] + s1;
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(const void *)p0), wa[t]));
            b0 = _mm256_add_epi32(b0, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(p0 + 16)), wb[t]));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(const void *)p1), wa[t]));
            b1 = _mm256_add_epi32(b1, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(p1 + 16)), wb[t]));
        }
        const __m128i va = lanes_to_bytes(lanes_requant8(a0, qa), lanes_requant8(a1, qa), qa);
        const __m128i vb = lanes_to_bytes(lanes_requant8(b0, qb), lanes_requant8(b1, qb), qb);
        _mm_storeu_si128((__m128i *)(void *)d0, _mm_unpacklo_epi64(va, vb));
        if (two) _mm_storeu_si128((__m128i *)(void *)(d0 + c), _mm_unpackhi_epi64(va, vb));
    }
}

AVX2_FN int depthwise_s8_avx2(const depthwise_params *pin, const int8_t *in, const int8_t *filt, int8_t *out) {
    /* A single column filtered along H (1-D convs, str_ww) is laid out in
     * memory exactly as a single row filtered along W: run it as a row, so
     * its taps pair up and its pixels share one widened slot. */
    depthwise_params swapped;
    const depthwise_params *p = pin;
    if (pin->in_w == 1 && pin->out_w == 1 && pin->k_w == 1 && pin->in_h > 1) {
        swapped = *pin;
        swapped.in_h = 1, swapped.in_w = pin->in_h;
        swapped.out_h = 1, swapped.out_w = pin->out_h;
        swapped.k_h = 1, swapped.k_w = pin->k_h;
        swapped.stride_h = 1, swapped.stride_w = pin->stride_h;
        swapped.dil_h = 1, swapped.dil_w = pin->dil_h;
        swapped.pad_h = 0, swapped.pad_w = pin->pad_h;
        p = &swapped;
    }
    const int32_t c = p->out_c;
    if (p->is_unsigned || p->filter_offset != 0 || c % 8 != 0 || p->k_h > DWX_MAX_KH ||
        p->k_h * ((p->k_w + 1) / 2) > DWX_MAX_TAPS)
        return 0;
    const dwx_geom g = geometry(p);
    if (stack_need(p, &g) > DWX_STACK_MAX) return 0;
    if (p->in_c == 1 && p->depth_mult % 8 == 0 && g.entries + p->dil_w > DWX_MAX_ROW1) return 0;
    uint8_t stack[DWX_STACK_MAX] __attribute__((aligned(32)));
    int16_t *slots = (int16_t *)(void *)stack;
    int16_t *wp = slots + (int64_t)p->k_h * g.slot_bytes / 2;
    lanes_rq *rq = (lanes_rq *)(void *)(wp + (int64_t)p->k_h * g.pairs * c * 2);
    int32_t tag[DWX_MAX_KH];

    build_filter(p, &g, filt, wp);
    lanes_rq_build(p->out_c, p->multiplier, p->shift, p->per_channel, p->bias, p->output_offset,
                   p->act_min, p->act_max, rq);
    const int64_t in_row = (int64_t)p->in_w * p->in_c, out_row = (int64_t)p->out_w * c;
    /* In int16: one output pixel on, one tap pair on. */
    const int64_t step = (int64_t)p->stride_w * c * 2, pstep = (int64_t)2 * p->dil_w * c * 2;
    const int32_t np = g.pairs, ow = p->out_w;
    /* Entries read: ox * stride_w + 2 * j * dil_w, all multiples of gap. */
    int32_t gap = p->stride_w, rest = 2 * p->dil_w;
    while (rest) {
        const int32_t t = gap % rest;
        gap = rest;
        rest = t;
    }
    for (int32_t bt = 0; bt < p->batches; bt++) {
        const int8_t *img = in + (int64_t)bt * p->in_h * in_row;
        int8_t *out_img = out + (int64_t)bt * p->out_h * out_row;
        for (int32_t s = 0; s < p->k_h; s++) tag[s] = -1;
        for (int32_t oy = 0; oy < p->out_h; oy++) {
            /* The tap pairs of the filter rows inside the image: entries
             * relative to the first slot in use, and their weights. */
            int64_t off[DWX_MAX_TAPS];
            const int16_t *wt[DWX_MAX_TAPS];
            const int16_t *base = 0;
            int32_t nt = 0;
            for (int32_t ky = 0; ky < p->k_h; ky++) {
                const int32_t iy = oy * p->stride_h - p->pad_h + ky * p->dil_h;
                if (iy < 0 || iy >= p->in_h) continue;
                /* Consecutive rows take distinct slots; dilated ones one per ky. */
                const int32_t s = p->dil_h == 1 ? iy % p->k_h : ky;
                int16_t *slot = slots + (int64_t)s * g.slot_bytes / 2;
                if (tag[s] != iy) {
                    build_row(p, &g, gap, img + (int64_t)iy * in_row, slot);
                    tag[s] = iy;
                }
                if (!base) base = slot;
                for (int32_t j = 0; j < np; j++, nt++) {
                    off[nt] = (slot - base) + (int64_t)j * pstep;
                    wt[nt] = wp + ((int64_t)ky * np + j) * c * 2;
                }
            }
            int8_t *dst = out_img + (int64_t)oy * out_row;
            if (!nt) { /* no filter row inside the image: the bias alone */
                static const int64_t zoff[1] = {0};
                static const int16_t zw[16] = {0};
                const int16_t *zwt[1] = {zw};
                for (int32_t c0 = 0; c0 < c; c0 += 8)
                    row_block(zw, zoff, zwt, 1, ow, 0, c, 0, &rq[c0 / 8], dst + c0);
                continue;
            }
            /* Sixteen channels at a time, then the eight left; the usual
             * tap counts get a constant (unrolled) loop. */
            int32_t c16 = 0;
            for (; c16 + 16 <= c; c16 += 16) {
                const lanes_rq *qa = &rq[c16 / 8], *qb = qa + 1;
                switch (nt) {
                case 8: row_block16(base, off, wt, 8, ow, step, c, c16, qa, qb, dst); break;
                case 6: row_block16(base, off, wt, 6, ow, step, c, c16, qa, qb, dst); break;
                case 4: row_block16(base, off, wt, 4, ow, step, c, c16, qa, qb, dst); break;
                case 3: row_block16(base, off, wt, 3, ow, step, c, c16, qa, qb, dst); break;
                case 2: row_block16(base, off, wt, 2, ow, step, c, c16, qa, qb, dst); break;
                default: row_block16(base, off, wt, nt, ow, step, c, c16, qa, qb, dst); break;
                }
            }
            for (int32_t c0 = c16; c0 < c; c0 += 8) {
                const lanes_rq *q = &rq[c0 / 8];
                /* The usual tap counts get a constant (unrolled) loop. */
                switch (nt) {
                case 8: row_block(base, off, wt, 8, ow, step, c, c0, q, dst); break;
                case 6: row_block(base, off, wt, 6, ow, step, c, c0, q, dst); break;
                case 4: row_block(base, off, wt, 4, ow, step, c, c0, q, dst); break;
                case 3: row_block(base, off, wt, 3, ow, step, c, c0, q, dst); break;
                case 2: row_block(base, off, wt, 2, ow, step, c, c0, q, dst); break;
                default: row_block(base, off, wt, nt, ow, step, c, c0, q, dst); break;
                }
            }
        }
    }
    return 1;
}

#else

int depthwise_avx2_usable(void) { return 0; }

#endif
