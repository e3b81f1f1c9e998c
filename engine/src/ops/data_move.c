/* SPDX-License-Identifier: Apache-2.0 */
/*
 * data_move.c — the index-tensor checks and the strided copy loop of the
 * shape and data-movement ops (see data_move.h).
 */
#include "data_move.h"

void edge_strides(const edge_tensor *t, int32_t *stride) {
    int32_t s = 1;
    for (int32_t d = t->rank - 1; d >= 0; d--) {
        stride[d] = s;
        s *= t->dims[d];
    }
}

void edge_walk_simplify(edge_walk *w) {
    int32_t n = 0;
    for (int32_t d = 0; d < w->rank; d++) {
        if (w->count[d] == 1) continue;
        /* Merge into the previous kept dimension when that one steps over
         * exactly this one's span. */
        if (n > 0 && w->stride[n - 1] == w->stride[d] * w->count[d]) {
            w->count[n - 1] *= w->count[d];
            w->stride[n - 1] = w->stride[d];
            continue;
        }
        w->count[n] = w->count[d];
        w->stride[n] = w->stride[d];
        n++;
    }
    w->rank = n;
}

/* One output row: n elements from src stepping by `step` elements. */
static void copy_row(uint8_t *dst, const uint8_t *src, int32_t n, int32_t step, uint32_t elem) {
    if (step == 1) {
        edge_memcpy(dst, src, (size_t)n * elem);
        return;
    }
    const ptrdiff_t s = (ptrdiff_t)step * (ptrdiff_t)elem;
    switch (elem) {
    case 1:
        for (int32_t i = 0; i < n; i++, src += s) dst[i] = *src;
        return;
    case 2:
        for (int32_t i = 0; i < n; i++, src += s, dst += 2) edge_memcpy(dst, src, 2);
        return;
    case 4:
        for (int32_t i = 0; i < n; i++, src += s, dst += 4) edge_memcpy(dst, src, 4);
        return;
    default:
        for (int32_t i = 0; i < n; i++, src += s, dst += elem) edge_memcpy(dst, src, elem);
        return;
    }
}

void edge_walk_copy(const edge_walk *w, const uint8_t *src, uint8_t *dst) {
    const uint32_t es = w->elem;
    for (int32_t d = 0; d < w->rank; d++)
        if (w->count[d] == 0) return;
    src += (ptrdiff_t)w->base * (ptrdiff_t)es;
    if (w->rank == 0) {
        edge_memcpy(dst, src, es);
        return;
    }
    const int32_t last = w->rank - 1, n = w->count[last], step = w->stride[last];
    int32_t k[EDGE_MAX_DIMS] = {0};
    for (;;) {
        ptrdiff_t at = 0;
        for (int32_t d = 0; d < last; d++) at += (ptrdiff_t)k[d] * w->stride[d];
        copy_row(dst, src + at * (ptrdiff_t)es, n, step, es);
        dst += (size_t)n * es;
        int32_t d = last - 1;
        while (d >= 0 && ++k[d] == w->count[d]) k[d--] = 0;
        if (d < 0) return;
    }
}

int64_t edge_index_at(const void *data, edge_type type, uint32_t i) {
    const uint8_t *p = (const uint8_t *)data;
    return type == EDGE_INT64 ? fb_i64_at(p, i) : (int64_t)fb_i32_at(p, i);
}

edge_status edge_index_check(const edge_op_ctx *c, const edge_tensor_rt *t, const char *what, int allow64,
                             int32_t n, int need_const) {
    if (!t) return edge_op_fail(c, EDGE_ERR_MODEL, "%s missing", what);
    if (t->t.type != EDGE_INT32 && !(allow64 && t->t.type == EDGE_INT64))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "%s is %s (int32%s supported)", what,
                            edge_type_name(t->t.type), allow64 ? " or int64" : "");
    if (t->t.rank > 1)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "%s must be a vector, is %d-D", what, t->t.rank);
    const int64_t count = edge_numel(&t->t);
    if (n >= 0 && count != n)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "%s has %ld elements, expected %d", what, (long)count, n);
    if (need_const && !t->is_const)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "%s is not a constant tensor (the engine plans static shapes)", what);
    return EDGE_OK;
}

edge_status edge_same_quant(const edge_op_ctx *c, const edge_tensor_rt *in, const edge_tensor_rt *out,
                            const char *what) {
    if (edge_q_scale(in, 0) != edge_q_scale(out, 0) || edge_q_zero(in, 0) != edge_q_zero(out, 0))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "%s and the output are quantized differently (TFLite does not rescale here)",
                            what);
    return EDGE_OK;
}
