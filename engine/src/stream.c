/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stream.c — the streaming-output declarations of edge_internal.h: how far
 * an op's output may overlap an input that dies at it, and the limit D for
 * windowed ops (CONV_2D, DEPTHWISE_CONV_2D, pools).
 */
#include "edge_internal.h"

void edge_op_set_stream(edge_op_ctx *c, uint32_t in_mask, int64_t d) {
    if (c->params) return; /* the sizing pass declares; the fill pass repeats it */
    edge_op_rt *op = c->op;
    in_mask &= (1u << (op->n_in < 8 ? op->n_in : 8)) - 1u;
    op->stream_in = 0;
    op->stream_d16 = 0;
    op->stream_e16 = EDGE_STREAM_NO_E;
    if (!in_mask || op->n_out < 1) return;
    /* Offsets are multiples of 16: rounding D down loses nothing. An
     * arithmetic shift is that floor, with no 64-bit division. */
    int64_t d16 = d >> 4;
    if (d16 < -32767) return; /* cannot be stored: declare nothing (safe) */
    if (d16 > 32767) d16 = 32767; /* a smaller limit is always safe */
    op->stream_in = (uint8_t)in_mask;
    op->stream_d16 = (int16_t)d16;
}

void edge_op_set_stream_reverse(edge_op_ctx *c, int64_t e) {
    if (c->params) return;
    edge_op_rt *op = c->op;
    op->stream_e16 = EDGE_STREAM_NO_E;
    /* One input only: the planner picks one order per op. */
    if (!op->stream_in || (op->stream_in & (op->stream_in - 1u))) return;
    /* Rounding E up loses nothing (offsets are multiples of 16). */
    const int64_t e16 = (e >> 4) + ((e & 15) != 0);
    if (e16 >= EDGE_STREAM_NO_E || e16 < -32767) return;
    op->stream_e16 = (int16_t)e16;
}

/* First input row (column) an output row (column) reads: its window's start
 * clipped to the image. Without dilation taken into account this is a lower
 * bound, which only makes D smaller (safer). */
static int64_t first_in(int64_t o, int32_t stride, int32_t pad) {
    const int64_t i = o * stride - pad;
    return i > 0 ? i : 0;
}

int64_t edge_window_stream_d(const edge_window_geom *g, int64_t tile) {
    const int64_t pixels = (int64_t)g->out_h * g->out_w;
    const int64_t row = (int64_t)g->in_w * g->in_px;
    int64_t d = INT64_MAX;
    if (tile < 1 || pixels < 1) return INT64_MIN;
    for (int64_t p0 = 0; p0 < pixels; p0 += tile) {
        const int64_t oy = p0 / g->out_w, ox = p0 % g->out_w;
        const int64_t y = first_in(oy, g->stride_h, g->pad_h);
        /* The rest of row oy reads from (y, first column of ox) on; the
         * rows after it from their first row's column 0, which is lower
         * only when they start on the same input row. */
        int64_t r = y * row + first_in(ox, g->stride_w, g->pad_w) * g->in_px;
        if (oy + 1 < g->out_h) {
            const int64_t next = first_in(oy + 1, g->stride_h, g->pad_h) * row;
            if (next < r) r = next;
        }
        const int64_t end = p0 + tile < pixels ? p0 + tile : pixels;
        const int64_t w = end * g->out_px;
        if (r - w < d) d = r - w;
    }
    return d;
}

void edge_stream_elementwise(edge_op_ctx *c, const edge_tensor_rt *a, const edge_tensor_rt *b,
                             const edge_tensor_rt *out) {
    uint32_t mask = 0;
    if (a && a->t.type == out->t.type && edge_same_shape(&a->t, &out->t)) mask |= 1u;
    if (b && b->t.type == out->t.type && edge_same_shape(&b->t, &out->t)) mask |= 2u;
    edge_op_set_stream(c, mask, 0);
}

/* The op record stays at 80 bytes on 64-bit targets (less on 32-bit). */
typedef char edge_op_rt_size_check[sizeof(edge_op_rt) <= 80 ? 1 : -1];
