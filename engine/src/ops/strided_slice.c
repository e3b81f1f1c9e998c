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
#include "ops.h"

enum { SS_OPTIONS_TYPE = 32 };
enum {
    OPT_BEGIN_MASK = 0,
    OPT_END_MASK = 1,
    OPT_ELLIPSIS_MASK = 2,
    OPT_NEW_AXIS_MASK = 3,
    OPT_SHRINK_AXIS_MASK = 4,
    OPT_OFFSET = 5
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
static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) {
    if (hi < v) return hi;
    if (v < lo) return lo;
    return v;
}

static int64_t start_for_axis(int64_t size, int64_t start, int32_t stride, int begin_masked) {
    if (start < 0) start += size;
    start = stride > 0 ? clamp64(start, 0, size) : clamp64(start, -1, size - 1);
    if (begin_masked) start = stride > 0 ? 0 : size - 1;
    return start;
}

static int64_t end_for_axis(int64_t size, int64_t stop, int32_t stride, int end_masked, int shrink,
                            int offset, int64_t start) {
    if (shrink) return start >= size ? start : start + 1;
    int64_t end = offset ? stop + start : stop;
    if (end < 0) end += size;
    end = stride > 0 ? clamp64(end, 0, size) : clamp64(end, -1, size - 1);
    if (end_masked) end = stride > 0 ? size : -1;
    return end;
}

static edge_status check_index_tensor(const edge_op_ctx *c, const edge_tensor_rt *t, const char *what) {
    if (!t) return edge_op_fail(c, EDGE_ERR_MODEL, "%s input missing", what);
    if (t->t.type != EDGE_INT32)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "%s is %s (int32 supported)", what,
                            edge_type_name(t->t.type));
    if (t->t.rank != 1) return edge_op_fail(c, EDGE_ERR_SHAPE, "%s must be 1-D, is %d-D", what, t->t.rank);
    if (!t->is_const)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "%s is not a constant tensor", what);
    return EDGE_OK;
}

static edge_status prepare(edge_op_ctx *c) {
    const edge_op_rt *op = c->op;
    if (op->n_in != 4 || op->n_out != 1)
        return edge_op_fail(c, EDGE_ERR_MODEL, "expects 4 inputs and 1 output, has %u and %u", op->n_in,
                            op->n_out);
    const edge_tensor_rt *in = edge_in(c, 0), *out = edge_out(c, 0);
    const edge_tensor_rt *tb = edge_in(c, 1), *te = edge_in(c, 2), *ts = edge_in(c, 3);
    if (!in || !out) return edge_op_fail(c, EDGE_ERR_MODEL, "input or output missing");
    if (op->options_type != SS_OPTIONS_TYPE && op->options_type != 0)
        return edge_op_fail(c, EDGE_ERR_MODEL, "options are not StridedSliceOptions (type %u)",
                            (unsigned)op->options_type);
    edge_status st = check_index_tensor(c, tb, "begin");
    if (!st) st = check_index_tensor(c, te, "end");
    if (!st) st = check_index_tensor(c, ts, "strides");
    if (st) return st;
    const int32_t n_idx = tb->t.dims[0];
    if (te->t.dims[0] != n_idx || ts->t.dims[0] != n_idx)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "begin, end and strides have %d, %d and %d entries", n_idx,
                            te->t.dims[0], ts->t.dims[0]);
    if (n_idx > SS_MAX_INDICES)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "%d slice indices (at most %d)", n_idx,
                            SS_MAX_INDICES);
    if (in->t.type != out->t.type)
        return edge_op_fail(c, EDGE_ERR_MODEL, "input is %s but output is %s",
                            edge_type_name(in->t.type), edge_type_name(out->t.type));
    const uint32_t elem = (uint32_t)edge_type_size(in->t.type);
    if (elem == 0)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "element type %s not supported",
                            edge_type_name(in->t.type));
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

    /* Per effective dimension: shape, begin, end, stride, masks. */
    int32_t shape[SS_DIMS], beg[SS_DIMS], end[SS_DIMS], stride[SS_DIMS];
    uint32_t bmask = 0, emask = 0, smask = 0;
    int32_t added_ellipsis = 0, added_axes = 0;
    for (int32_t i = 0; i < eff; i++) {
        const uint32_t bit = 1u << i;
        beg[i] = 0;
        end[i] = 0;
        stride[i] = 1;
        if (eff_new_axis & bit && !(eff_ellipsis & bit)) {
            end[i] = 1;
            shape[i] = 1;
            added_axes++;
            continue;
        }
        const int32_t src = i - added_axes;
        if (src < 0 || src >= in_rank)
            return edge_op_fail(c, EDGE_ERR_MODEL, "slice masks do not fit the %d-D input", in_rank);
        shape[i] = in->t.dims[src];
        if (eff_ellipsis & bit) {
            added_ellipsis = i - ellipsis_start > 0 ? i - ellipsis_start : 0;
            bmask |= bit;
            emask |= bit;
        } else if (i >= n_idx + expanded) {
            bmask |= bit;
            emask |= bit;
        } else {
            const int32_t k = i - added_ellipsis;
            if (k < 0 || k >= n_idx)
                return edge_op_fail(c, EDGE_ERR_MODEL, "slice masks do not fit %d indices", n_idx);
            beg[i] = fb_i32_at(bd, (uint32_t)k);
            end[i] = fb_i32_at(ed, (uint32_t)k);
            stride[i] = fb_i32_at(sd, (uint32_t)k);
            if (begin_mask & (1u << k)) bmask |= bit;
            if (end_mask & (1u << k)) emask |= bit;
            if (shrink_mask & (1u << k)) smask |= bit;
        }
        if (stride[i] == 0) return edge_op_fail(c, EDGE_ERR_MODEL, "stride of dimension %d is 0", i);
    }

    /* Resolve on the 5-D padded form; collect the output shape. */
    const int32_t pad = SS_DIMS - eff;
    int32_t p_shape[SS_DIMS], p_start[SS_DIMS], p_stride[SS_DIMS], p_count[SS_DIMS];
    int32_t want[SS_DIMS], n_want = 0, empty_shrink = -1;
    int64_t total = 1;
    for (int32_t d = 0; d < SS_DIMS; d++) {
        const int32_t i = d - pad;
        if (i < 0) {
            p_shape[d] = 1;
            p_start[d] = 0;
            p_stride[d] = 1;
            p_count[d] = 1;
            continue;
        }
        const uint32_t bit = 1u << i;
        const int64_t size = shape[i];
        const int32_t s = stride[i];
        const int64_t b = start_for_axis(size, beg[i], s, (bmask & bit) != 0);
        const int64_t e = end_for_axis(size, end[i], s, (emask & bit) != 0, (smask & bit) != 0, offset, b);
        int64_t n = 0;
        if (s > 0 && b < e) n = (e - b + s - 1) / s;
        if (s < 0 && b > e) n = (b - e + (-(int64_t)s) - 1) / (-(int64_t)s);
        p_shape[d] = shape[i];
        p_start[d] = (int32_t)b;
        p_stride[d] = s;
        p_count[d] = (int32_t)n;
        if ((smask & bit) && n != 1 && empty_shrink < 0) empty_shrink = i;
        total *= n;
        if (!(smask & bit)) want[n_want++] = (int32_t)n;
    }
    int same = n_want == out->t.rank && total == edge_numel(&out->t);
    for (int32_t d = 0; same && d < n_want; d++) same = want[d] == out->t.dims[d];
    if (total == 0 && edge_numel(&out->t) == 0) same = 1; /* nothing to write either way */
    if (!same && empty_shrink >= 0)
        return edge_op_fail(c, EDGE_ERR_SHAPE,
                            "dimension %d is shrunk but its index selects no element (out of range, "
                            "or a negative stride: TFLite leaves the output unwritten)",
                            empty_shrink);
    if (!same)
        return edge_op_fail(c, EDGE_ERR_SHAPE,
                            "the slice yields %ld elements in %d dimensions, the output has %ld in %d",
                            (long)total, n_want, (long)edge_numel(&out->t), out->t.rank);

    if (!c->params) {
        c->op->params_bytes = (uint32_t)sizeof(ss_params);
        return EDGE_OK;
    }
    ss_params *p = (ss_params *)c->params;
    for (int32_t d = 0; d < SS_DIMS; d++) {
        p->shape[d] = p_shape[d];
        p->start[d] = p_start[d];
        p->stride[d] = p_stride[d];
        p->count[d] = p_count[d];
    }
    p->elem_size = elem;
    return EDGE_OK;
}

static edge_status eval(edge_op_ctx *c) {
    const ss_params *p = (const ss_params *)c->params;
    const uint8_t *src = (const uint8_t *)edge_in_data(c, 0);
    uint8_t *dst = (uint8_t *)edge_out_data(c, 0);
    const size_t es = p->elem_size;
    const int32_t *sh = p->shape;
    /* Element strides of the input's axes. */
    int64_t step[SS_DIMS];
    step[4] = 1;
    for (int32_t d = 3; d >= 0; d--) step[d] = step[d + 1] * sh[d + 1];
    if (p->count[4] == 0) return EDGE_OK;
    const size_t run = (size_t)p->count[4] * es;

    int64_t i0 = p->start[0];
    for (int32_t n0 = 0; n0 < p->count[0]; n0++, i0 += p->stride[0]) {
        int64_t i1 = p->start[1];
        for (int32_t n1 = 0; n1 < p->count[1]; n1++, i1 += p->stride[1]) {
            int64_t i2 = p->start[2];
            for (int32_t n2 = 0; n2 < p->count[2]; n2++, i2 += p->stride[2]) {
                int64_t i3 = p->start[3];
                for (int32_t n3 = 0; n3 < p->count[3]; n3++, i3 += p->stride[3]) {
                    const int64_t base = i0 * step[0] + i1 * step[1] + i2 * step[2] + i3 * step[3];
                    if (p->stride[4] == 1) {
                        edge_memcpy(dst, src + (size_t)(base + p->start[4]) * es, run);
                        dst += run;
                        continue;
                    }
                    int64_t i4 = p->start[4];
                    for (int32_t n4 = 0; n4 < p->count[4]; n4++, i4 += p->stride[4]) {
                        edge_memcpy(dst, src + (size_t)(base + i4) * es, es);
                        dst += es;
                    }
                }
            }
        }
    }
    return EDGE_OK;
}

const edge_op_impl edge_op_strided_slice = {45, "STRIDED_SLICE", prepare, eval, 0, 0};
