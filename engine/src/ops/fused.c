/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fused.c — fused pairs: a 1x1 stride-1 CONV_2D (the head) whose output X
 * only the next op, a DEPTHWISE_CONV_2D (the tail), reads. The head's eval
 * produces the tail's output directly: for each of the tail's output rows
 * it computes the rows of X that row's window needs into a ring of a few
 * rows in its scratch, then runs the tail's kernel on them. X never exists
 * whole, which takes the largest activation (MobileNet's 1x1 expansions,
 * e.g. 48x48x16) out of the arena. Every output byte is the same: the head
 * computes each pixel of X as it would, the tail each output row from the
 * same taps (edge_depthwise_rows).
 *
 * The pair is one op for the planner, at the head's index; its streaming
 * output (edge_internal.h) is the tail's, over the head's input 0. The
 * tail's output is made in chunks of rows; rows of X and of the head's
 * input correspond one to one. Forward, after writing chunk [oy0, oy1) the
 * pair only reads the head's input from row b (the end of the chunk's
 * window) on:
 *   D = min over chunks of b * input row bytes - oy1 * output row bytes.
 * It can also run backwards, chunks from the last: after writing chunk
 * [oy0, oy1) it only reads input rows below a (the window's start):
 *   E = max over chunks of a * input row bytes - oy0 * output row bytes,
 * which lets the planner put a shrinking output over its input's end.
 * Not fused: batches, EDGE_PLAN_NO_OVERLAP (TFLM's plan needs X), an X that
 * is a graph output or read by another op.
 */
#include "../kernels/conv_common.h"
#include "fused.h"

/* Tail output rows computed per kernel call: enough for about 16 output
 * pixels, so that short rows do not pay the kernel's per-call setup for
 * each row. */
static int32_t chunk_rows(const edge_dw_geom *g) {
    const int32_t r = (16 + g->out_w - 1) / g->out_w;
    return r < g->out_h ? r : g->out_h;
}

/* Rows of X the tail's output rows [oy0, oy1) read: [*a, *b). */
static void window_rows(const edge_dw_geom *g, int32_t oy0, int32_t oy1, int32_t *a, int32_t *b) {
    const int64_t first = (int64_t)oy0 * g->stride_h - g->pad_h;
    const int64_t last = (int64_t)(oy1 - 1) * g->stride_h - g->pad_h + (int64_t)(g->k_h - 1) * g->dil_h + 1;
    *a = (int32_t)(first > 0 ? first : 0);
    *b = (int32_t)(last < g->in_h ? last : g->in_h);
    if (*b < *a) *b = *a;
}

static int read_elsewhere(const edge_model *m, int32_t t, uint32_t tail);

/* Is op j an int8/uint8 CONV_2D that could head a pair: 1x1, stride 1,
 * batch 1, one group, followed by a DEPTHWISE_CONV_2D that alone reads its
 * output? (Shapes only; its prepare checks the rest.) */
static int head_shape(const edge_model *m, uint32_t j) {
    if (j + 1 >= m->n_ops) return 0;
    const edge_op_rt *h = &m->ops[j], *t = &m->ops[j + 1];
    if (!h->impl->fuse_head || t->impl != &edge_op_depthwise_conv_2d || h->n_in < 2 || h->n_out != 1)
        return 0;
    const int32_t in = h->io[0], w = h->io[1], x = h->io[h->n_in];
    if (in < 0 || w < 0 || x < 0 || t->n_in < 1 || t->io[0] != x) return 0;
    edge_tensor_rt ri, rw;
    edge_tensor_record(m, (uint32_t)in, &ri);
    edge_tensor_record(m, (uint32_t)w, &rw);
    if (ri.t.rank != 4 || rw.t.rank != 4 || ri.t.dims[0] != 1 || rw.t.dims[1] != 1 || rw.t.dims[2] != 1 ||
        rw.t.dims[3] != ri.t.dims[3])
        return 0;
    if (fb_i32(h->options, EDGE_F_CONV2D_OPTIONS_STRIDE_W, 0) != 1 ||
        fb_i32(h->options, EDGE_F_CONV2D_OPTIONS_STRIDE_H, 0) != 1)
        return 0;
    return !read_elsewhere(m, x, j + 1);
}

/* Fusing costs time (rows computed in small batches): a pair is fused only
 * when its middle tensor is larger than every activation fusion cannot
 * remove, i.e. when it may set the arena's size. */
static int worth_fusing(const edge_model *m, uint32_t head) {
    const int32_t x = m->ops[head].io[m->ops[head].n_in];
    uint32_t keep = 0; /* the largest activation no pair removes */
    for (uint32_t t = 0; t < m->n_tensors; t++) {
        const edge_tensor_state *s = &m->tensors[t];
        if (s->is_const || s->bytes <= keep) continue;
        int middle = 0;
        for (uint32_t j = 0; j + 1 < m->n_ops && !middle; j++)
            middle = m->ops[j].n_out == 1 && m->ops[j].io[m->ops[j].n_in] == (int32_t)t && head_shape(m, j);
        if (!middle) keep = s->bytes;
    }
    return m->tensors[x].bytes > keep;
}

/* Does the model read tensor t anywhere but as op `tail`'s input 0? */
static int read_elsewhere(const edge_model *m, int32_t t, uint32_t tail) {
    for (uint32_t i = 0; i < m->n_ops; i++) {
        const edge_op_rt *op = &m->ops[i];
        for (uint32_t k = 0; k < op->n_in; k++)
            if (op->io[k] == t && !(i == tail && k == 0)) return 1;
        for (uint32_t k = op->n_in; k < op->n_in + op->n_out; k++)
            if (op->io[k] == t && i + 1 != tail) return 1; /* written twice: not ours to judge */
    }
    for (uint32_t k = 0; k < m->n_inputs; k++)
        if (fb_i32_at(m->inputs, k) == t) return 1;
    for (uint32_t k = 0; k < m->n_outputs; k++)
        if (fb_i32_at(m->outputs, k) == t) return 1;
    return 0;
}

int edge_fuse_try(edge_op_ctx *c, int64_t in_row_bytes, uint32_t *ring_rows, uint32_t *ring_bytes) {
    edge_model *m = c->m;
    const uint32_t head = c->index, tail = head + 1;
    if (c->params || (m->flags & EDGE_PLAN_NO_OVERLAP) || tail >= m->n_ops) return 0;
    edge_op_rt *h = c->op, *t = &m->ops[tail];
    if (h->fused || t->fused || t->impl != &edge_op_depthwise_conv_2d || h->n_out != 1) return 0;
    const int32_t x = h->io[h->n_in];
    if (x < 0 || t->n_in < 1 || t->io[0] != x || read_elsewhere(m, x, tail)) return 0;
    const edge_tensor_state *xs = &m->tensors[x];
    if (xs->is_const || xs->is_variable || t->io[t->n_in] < 0) return 0;
    edge_dw_geom g;
    if (!edge_depthwise_geom(m, t, &g) || !worth_fusing(m, head)) return 0;

    const int64_t x_row = (int64_t)g.in_w * g.in_c, y_row = (int64_t)g.out_w * g.out_c;
    if (x_row <= 0 || x_row > 0x7fffffff || in_row_bytes <= 0) return 0;
    /* The ring: the most rows any chunk's window reads. */
    const int32_t chunk = chunk_rows(&g);
    int64_t rows = 0, d = INT64_MAX, e = INT64_MIN;
    for (int32_t oy0 = 0; oy0 < g.out_h; oy0 += chunk) {
        const int32_t oy1 = oy0 + chunk < g.out_h ? oy0 + chunk : g.out_h;
        int32_t a, b;
        window_rows(&g, oy0, oy1, &a, &b);
        if (b - a > rows) rows = b - a;
        const int64_t r = (int64_t)b * in_row_bytes - (int64_t)oy1 * y_row;
        if (r < d) d = r;
        const int64_t q = (int64_t)a * in_row_bytes - (int64_t)oy0 * y_row;
        if (q > e) e = q;
    }
    if (rows < 1 || rows * x_row > 0x3fffffff) return 0;
    *ring_rows = (uint32_t)rows;
    *ring_bytes = (uint32_t)(rows * x_row);
    h->fused = EDGE_FUSED_HEAD;
    t->fused = EDGE_FUSED_TAIL;
    m->tensors[x].fused = 1;
    edge_op_set_stream(c, 1u, d);
    edge_op_set_stream_reverse(c, e);
    return 1;
}

int32_t edge_fused_chunk(const edge_op_ctx *c, int32_t pixels, uint32_t max_bytes, uint32_t *ring_rows) {
    edge_dw_geom g;
    if (!edge_depthwise_geom(c->m, &c->m->ops[c->index + 1], &g)) return 0;
    /* Multiples of the planned chunk: their ends are planned ends. */
    const int32_t planned = chunk_rows(&g);
    int32_t chunk = (pixels + g.out_w - 1) / g.out_w;
    if (chunk > g.out_h) chunk = g.out_h;
    const int64_t x_row = (int64_t)g.in_w * g.in_c;
    for (chunk -= chunk % planned; chunk > planned; chunk = chunk / 2 - chunk / 2 % planned) {
        /* The most rows any chunk's window reads: the ring. */
        int64_t rows = 0;
        for (int32_t oy0 = 0; oy0 < g.out_h; oy0 += chunk) {
            int32_t a, b;
            window_rows(&g, oy0, oy0 + chunk < g.out_h ? oy0 + chunk : g.out_h, &a, &b);
            if (b - a > rows) rows = b - a;
        }
        if (rows * x_row <= (int64_t)max_bytes) {
            *ring_rows = (uint32_t)rows;
            return chunk;
        }
    }
    return 0;
}

edge_status edge_fused_run(const edge_op_ctx *c, uint8_t *ring, uint32_t ring_rows, int32_t chunk,
                           edge_rows_fn rows, const void *state) {
    edge_model *m = c->m;
    const uint32_t tail = c->index + 1;
    edge_op_ctx tc = {m, tail, &m->ops[tail], m->ops[tail].params, 0, 0};
    edge_dw_geom g;
    if (!edge_depthwise_geom(m, tc.op, &g)) return edge_op_fail(c, EDGE_ERR_STATE, "fused pair lost its tail");
    const size_t x_row = (size_t)g.in_w * (size_t)g.in_c, y_row = (size_t)g.out_w * (size_t)g.out_c;
    uint8_t *out = (uint8_t *)edge_out_data(&tc, 0);
    if (chunk <= 0) chunk = chunk_rows(&g);
    int32_t base = 0, count = 0; /* the ring holds X rows [base, base + count) */
    if (c->op->stream_rev) {
        /* Backwards: the chunks from the last, the ring's rows kept at its
         * end (row r at ring row ring_rows - count + r - base). */
        const int32_t cap = (int32_t)ring_rows;
        for (int32_t oy0 = (g.out_h - 1) / chunk * chunk; oy0 >= 0; oy0 -= chunk) {
            const int32_t oy1 = oy0 + chunk < g.out_h ? oy0 + chunk : g.out_h;
            int32_t a, b;
            window_rows(&g, oy0, oy1, &a, &b);
            if (b - a > cap) return edge_op_fail(c, EDGE_ERR_STATE, "fused ring too small");
            if (b <= base || count == 0) {
                base = b; /* nothing kept is needed */
                count = 0;
            } else if (base + count > b) {
                const int32_t drop = base + count - b; /* rows past the window: done */
                edge_memmove(ring + (size_t)(cap - count + drop) * x_row, ring + (size_t)(cap - count) * x_row,
                             (size_t)(count - drop) * x_row);
                count -= drop;
            }
            if (a < base) {
                rows(state, a, base, ring + (size_t)(cap - count - (base - a)) * x_row);
                count += base - a;
                base = a;
            }
            edge_depthwise_rows(&tc, ring + (size_t)(cap - count + (a - base)) * x_row, a, b - a, oy0, oy1,
                                out + (size_t)oy0 * y_row);
        }
        return EDGE_OK;
    }
    for (int32_t oy0 = 0; oy0 < g.out_h; oy0 += chunk) {
        const int32_t oy1 = oy0 + chunk < g.out_h ? oy0 + chunk : g.out_h;
        int32_t a, b;
        window_rows(&g, oy0, oy1, &a, &b);
        if ((uint32_t)(b - a) > ring_rows) return edge_op_fail(c, EDGE_ERR_STATE, "fused ring too small");
        if (a >= base + count) {
            base = a; /* nothing kept is needed */
            count = 0;
        } else if ((uint32_t)(b - base) > ring_rows) {
            const int32_t drop = a - base; /* rows below the window: done */
            edge_memmove(ring, ring + (size_t)drop * x_row, (size_t)(count - drop) * x_row);
            base = a;
            count -= drop;
        }
        if (base + count < b) {
            rows(state, base + count, b, ring + (size_t)count * x_row);
            count = b - base;
        }
        edge_depthwise_rows(&tc, ring + (size_t)(a - base) * x_row, a, b - a, oy0, oy1,
                            out + (size_t)oy0 * y_row);
    }
    return EDGE_OK;
}
