/* SPDX-License-Identifier: Apache-2.0 */
/*
 * strided_slice.c — STRIDED_SLICE (BuiltinOperator 45).
 *
 * begin/end/strides are constant int32 vectors; the options' begin_mask,
 * end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask and offset are
 * resolved at load exactly as TFLite's kernel does (its
 * BuildStridedSliceParams, then StridedSliceStartForAxis/EndForAxis on the
 * effective shape padded to 5-D), so eval only walks five counted loops.
 * Up to 5 effective dimensions (TFLite's limit); any element type is moved
 * as bytes. The model's static output shape must be what the slice yields.
 */
#include "op_common.h"

enum { SS_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_STRIDED_SLICE_OPTIONS };
enum {
    OPT_BEGIN_MASK = EDGE_F_STRIDED_SLICE_OPTIONS_BEGIN_MASK,
    OPT_END_MASK = EDGE_F_STRIDED_SLICE_OPTIONS_END_MASK,
    OPT_ELLIPSIS_MASK = EDGE_F_STRIDED_SLICE_OPTIONS_ELLIPSIS_MASK,
    OPT_NEW_AXIS_MASK = EDGE_F_STRIDED_SLICE_OPTIONS_NEW_AXIS_MASK,
    OPT_SHRINK_AXIS_MASK = EDGE_F_STRIDED_SLICE_OPTIONS_SHRINK_AXIS_MASK,
    OPT_OFFSET = EDGE_F_STRIDED_SLICE_OPTIONS_OFFSET
};
enum { SS_DIMS = 5, SS_MAX_INDICES = 16 };

typedef struct ss_params {
    int32_t shape[SS_DIMS]; /* effective input shape, padded to 5-D */
    int32_t start[SS_DIMS];
    int32_t stride[SS_DIMS];
    int32_t count[SS_DIMS]; /* iterations per axis */
    uint32_t elem_size;
} ss_params;

/* TFLite's Clamp: the upper bound wins when the range is empty. */
static int32_t clamp32(int32_t v, int32_t lo, int32_t hi) {
    if (hi < v) return hi;
    if (v < lo) return lo;
    return v;
}

static edge_status check_index_tensor(const edge_op_ctx *c, const edge_tensor_rt *t, const char *what) {
    if (t->t.type != EDGE_INT32)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "%s is %s (int32 supported)", what,
                            edge_type_name(t->t.type));
    if (t->t.rank != 1) return edge_op_fail(c, EDGE_ERR_SHAPE, "%s must be 1-D, is %d-D", what, t->t.rank);
    if (!t->is_const)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "%s is not a constant tensor", what);
    return EDGE_OK;
}

static const edge_op_form form = {4, 4, 0xe, 0, SS_OPTIONS_TYPE, 0, "StridedSliceOptions"};

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    static const char *const names[3] = {"begin", "end", "strides"};
    for (uint32_t k = 0; k < 3; k++) {
        st = check_index_tensor(c, edge_in(c, k + 1), names[k]);
        if (st) return st;
    }
    const edge_tensor_rt *tb = edge_in(c, 1), *te = edge_in(c, 2), *ts = edge_in(c, 3);
    const int32_t n_idx = tb->t.dims[0];
    if (te->t.dims[0] != n_idx || ts->t.dims[0] != n_idx)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "begin, end and strides have %d, %d and %d entries", n_idx,
                            te->t.dims[0], ts->t.dims[0]);
    if (n_idx > SS_MAX_INDICES)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "%d slice indices (at most %d)", n_idx,
                            SS_MAX_INDICES);
    st = edge_op_check_type(c, in, out, EDGE_FORM_SAME_TYPE | EDGE_FORM_SIZED);
    if (st) return st;
    const uint32_t elem = (uint32_t)edge_type_size(in->t.type);
    const int32_t in_rank = in->t.rank;
    if (in_rank > SS_DIMS)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "input is %d-D (TFLite slices up to 5-D)", in_rank);

    const uint32_t begin_mask = (uint32_t)edge_opt_i32(c, OPT_BEGIN_MASK, 0);
    const uint32_t end_mask = (uint32_t)edge_opt_i32(c, OPT_END_MASK, 0);
    const uint32_t ellipsis_mask = (uint32_t)edge_opt_i32(c, OPT_ELLIPSIS_MASK, 0);
    const uint32_t new_axis_mask = (uint32_t)edge_opt_i32(c, OPT_NEW_AXIS_MASK, 0);
    const uint32_t shrink_mask = (uint32_t)edge_opt_i32(c, OPT_SHRINK_AXIS_MASK, 0);
    const int offset = edge_opt_u8(c, OPT_OFFSET, 0) != 0;
    const uint8_t *bd = (const uint8_t *)tb->t.data, *ed = (const uint8_t *)te->t.data,
                  *sd = (const uint8_t *)ts->t.data;

    /* New axes not swallowed by an ellipsis add dimensions of size 1. */
    int32_t n_new = 0;
    for (int32_t i = 0; i < n_idx; i++)
        if (!(ellipsis_mask & (1u << i)) && (new_axis_mask & (1u << i))) n_new++;
    const int32_t eff = in_rank + n_new;
    if (eff > SS_DIMS)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "slice has %d dimensions with its new axes (TFLite supports up to 5)", eff);

    /* Where the ellipsis expands to, in effective dimensions. */
    uint32_t eff_ellipsis = 0, eff_new_axis = 0;
    int32_t ellipsis_start = eff, expanded = 0;
    for (int32_t i = 0; i < eff;) {
        if (ellipsis_mask & (1u << i)) {
            ellipsis_start = i;
            int32_t stop = i + 1 + n_new + in_rank - n_idx;
            if (stop > eff) stop = eff;
            if (stop < i + 1) stop = i + 1;
            expanded = stop - ellipsis_start - 1;
            for (; i < stop; i++) eff_ellipsis |= 1u << i;
            continue;
        }
        if (i - expanded >= 0 && (new_axis_mask & (1u << (i - expanded)))) eff_new_axis |= 1u << i;
        i++;
    }

    /* Per dimension of the 5-D padded form (leading dimensions of 1, the
     * effective ones last): shape, begin, end, stride and masks, then the
     * start and count TFLite's StridedSliceStartForAxis/EndForAxis give.
     * Sizes are in [0, 2^31) (the loader refuses others), so every value
     * below fits 32 bits. */
    ss_params p;
    const int32_t pad = SS_DIMS - eff;
    int32_t want[SS_DIMS], n_want = 0, empty_shrink = -1;
    int64_t total = 1;
    int32_t added_ellipsis = 0, added_axes = 0;
    for (int32_t d = 0; d < SS_DIMS; d++) {
        const int32_t i = d - pad;
        p.shape[d] = 1;
        p.start[d] = 0;
        p.stride[d] = 1;
        p.count[d] = 1;
        if (i < 0) continue;
        const uint32_t bit = 1u << i;
        int32_t size = 1, b = 0, e = 1, s = 1;
        int bm = 0, em = 0, shrink = 0;
        if (eff_new_axis & bit && !(eff_ellipsis & bit)) {
            added_axes++; /* a new axis of size 1, taken whole */
        } else {
            const int32_t src = i - added_axes;
            if (src < 0 || src >= in_rank)
                return edge_op_fail(c, EDGE_ERR_MODEL, "slice masks do not fit the %d-D input", in_rank);
            size = in->t.dims[src];
            if (eff_ellipsis & bit) {
                added_ellipsis = i - ellipsis_start > 0 ? i - ellipsis_start : 0;
                bm = em = 1;
            } else if (i >= n_idx + expanded) {
                bm = em = 1;
            } else {
                const int32_t k = i - added_ellipsis;
                if (k < 0 || k >= n_idx)
                    return edge_op_fail(c, EDGE_ERR_MODEL, "slice masks do not fit %d indices", n_idx);
                b = fb_i32_at(bd, (uint32_t)k);
                e = fb_i32_at(ed, (uint32_t)k);
                s = fb_i32_at(sd, (uint32_t)k);
                bm = (begin_mask >> k) & 1u;
                em = (end_mask >> k) & 1u;
                shrink = (shrink_mask >> k) & 1u;
            }
            if (s == 0) return edge_op_fail(c, EDGE_ERR_MODEL, "stride of dimension %d is 0", i);
        }
        /* The start: negative counts from the end, clamped, or masked. */
        if (b < 0) b += size;
        b = s > 0 ? clamp32(b, 0, size) : clamp32(b, -1, size - 1);
        if (bm) b = s > 0 ? 0 : size - 1;
        /* The end, likewise (offset: relative to the start, saturated;
         * past 32 bits the clamp gives the same end). */
        if (shrink) {
            e = b >= size ? b : b + 1;
        } else {
            if (offset) e = b > 0 && e > INT32_MAX - b ? INT32_MAX : (b < 0 && e == INT32_MIN ? e : e + b);
            if (e < 0) e += size;
            e = s > 0 ? clamp32(e, 0, size) : clamp32(e, -1, size - 1);
            if (em) e = s > 0 ? size : -1;
        }
        /* Steps from b towards e: ceil(|e - b| / |s|), in unsigned 32 bits. */
        const int32_t len = s > 0 ? e - b : b - e;
        const uint32_t as = s > 0 ? (uint32_t)s : 0u - (uint32_t)s;
        const int32_t n = len > 0 ? (int32_t)(((uint32_t)len + as - 1u) / as) : 0;
        p.shape[d] = size;
        p.start[d] = b;
        p.stride[d] = s;
        p.count[d] = n;
        if (shrink && n != 1 && empty_shrink < 0) empty_shrink = i;
        total *= n;
        if (!shrink) want[n_want++] = n;
    }
    const int64_t out_n = edge_numel(&out->t);
    int same = n_want == out->t.rank && total == out_n;
    for (int32_t d = 0; same && d < n_want; d++) same = want[d] == out->t.dims[d];
    if (total == 0 && out_n == 0) same = 1; /* nothing to write either way */
    if (!same && empty_shrink >= 0)
        return edge_op_fail(c, EDGE_ERR_SHAPE,
                            "dimension %d is shrunk but its index selects no element (out of range, "
                            "or a negative stride: TFLite leaves the output unwritten)",
                            empty_shrink);
    if (!same)
        return edge_op_fail(c, EDGE_ERR_SHAPE,
                            "the slice yields %ld elements in %d dimensions, the output has %ld in %d",
                            (long)total, n_want, (long)out_n, out->t.rank);

    p.elem_size = elem;
    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

/* Indices stay in int32: a slice element's index lies in [0, size). */
static edge_status eval(edge_op_ctx *c) {
    const ss_params *p = (const ss_params *)c->params;
    const uint8_t *src = (const uint8_t *)edge_in_data(c, 0);
    uint8_t *dst = (uint8_t *)edge_out_data(c, 0);
    const size_t es = p->elem_size;
    size_t step[SS_DIMS]; /* byte strides of the input's axes */
    step[4] = es;
    for (int32_t d = 3; d >= 0; d--) step[d] = step[d + 1] * (size_t)p->shape[d + 1];
    for (int32_t d = 0; d < SS_DIMS; d++)
        if (p->count[d] == 0) return EDGE_OK;
    /* A contiguous last axis is one run; else its elements one by one. */
    const int unit = p->stride[4] == 1;
    const size_t run = unit ? (size_t)p->count[4] * es : es;
    const int32_t reps = unit ? 1 : p->count[4];
    int32_t k[SS_DIMS] = {0}; /* odometer over the outer four axes */
    for (;;) {
        const uint8_t *at = src;
        for (int32_t d = 0; d < 4; d++) at += (size_t)(p->start[d] + k[d] * p->stride[d]) * step[d];
        for (int32_t n = 0; n < reps; n++, dst += run)
            edge_memcpy(dst, at + (size_t)(p->start[4] + n * p->stride[4]) * es, run);
        int32_t d = 3;
        while (d >= 0 && ++k[d] == p->count[d]) k[d--] = 0;
        if (d < 0) return EDGE_OK;
    }
}

const edge_op_impl edge_op_strided_slice = {EDGE_BUILTIN_STRIDED_SLICE, "STRIDED_SLICE", prepare, eval, 0, 0, 0};
