/* SPDX-License-Identifier: Apache-2.0 */
/*
 * float_exec.c — float32 reference executor of the graph IR (see
 * float_exec.h for the semantics of each op).
 *
 * The MAC loops keep the output channel innermost: every kernel layout in
 * the IR has its output channel fastest, so the inner loop is a contiguous
 * axpy the compiler vectorizes.
 */
#include "float_exec.h"
#include "op_kind.h"
#include "err.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Window sizes, strides and dilations above this are refused (and keep
 * the window arithmetic far from int overflow). */
#define MAX_WINDOW_PARAM 65536

static void shape_str(int rank, const int *shape, char *buf, size_t cap) {
    size_t at = 0;
    buf[0] = 0;
    at += (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < rank && at < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, i ? ",%d" : "%d", shape[i]);
    if (at < cap) snprintf(buf + at, cap - at, "]");
}

/* One spatial dimension of a conv / pool window (see float_exec.h). */
static int window_dim(int in, int k, int stride, int dil, int same, int *out, int *pad_before) {
    long long eff = (long long)(k - 1) * dil + 1;
    if (same) {
        long long o = ((long long)in + stride - 1) / stride;
        long long total = (o - 1) * stride + eff - in;
        if (total < 0) total = 0;
        *out = (int)o;
        *pad_before = (int)(total / 2);
    } else {
        if (in < eff) return -1;
        *out = (int)((in - eff) / stride + 1);
        *pad_before = 0;
    }
    return 0;
}

static int window_params_ok(const edgeq_node *n, int with_dilation) {
    int v[6] = {n->kh, n->kw, n->stride_h, n->stride_w, with_dilation ? n->dil_h : 1,
                with_dilation ? n->dil_w : 1};
    for (int i = 0; i < 6; i++)
        if (v[i] < 1 || v[i] > MAX_WINDOW_PARAM) return 0;
    return 1;
}

static int norm_axis(int axis, int rank) {
    if (axis < 0) axis += rank;
    return axis;
}

/* Right-aligned NumPy broadcast of a and b into out; -1 when incompatible. */
static int broadcast_shape(int ra, const int *a, int rb, const int *b, int *ro, int *o) {
    int r = ra > rb ? ra : rb;
    for (int i = 0; i < r; i++) {
        int da = i < r - ra ? 1 : a[i - (r - ra)];
        int db = i < r - rb ? 1 : b[i - (r - rb)];
        if (da != db && da != 1 && db != 1) return -1;
        o[i] = da == 1 ? db : da;
    }
    *ro = r;
    return 0;
}

int edgeq_float_infer_shape(const edgeq_graph *g, int i, int *rank, int shape[EDGEQ_MAX_RANK],
                            char *err, size_t err_len) {
    const edgeq_node *n = &g->nodes[i];
    const edgeq_node *a = n->n_in > 0 ? &g->nodes[n->in[0]] : NULL;
    const char *nm = n->name;
    const char *op = edgeq_op_name(n->op);
    char s1[64];
    int need_in = 1;
    switch (n->op) {
    case EDGEQ_OP_INPUT: need_in = 0; break;
    case EDGEQ_OP_ADD:
    case EDGEQ_OP_MULTIPLY:
    case EDGEQ_OP_CONCAT: need_in = -1; break; /* one or more */
    case EDGEQ_OP_SUBTRACT: need_in = 2; break;
    default: break;
    }
    if ((need_in >= 0 && n->n_in != need_in) || (need_in < 0 && n->n_in < 1))
        return edgeq_fail(err, err_len, "layer '%s' (%s): %d inputs, expected %s", nm, op, n->n_in,
                    need_in == 0 ? "none" : need_in == 1 ? "1" : need_in == 2 ? "2" : "1 or more");
    memset(shape, 0, sizeof(int) * EDGEQ_MAX_RANK);
    if (a) {
        *rank = a->rank;
        memcpy(shape, a->shape, sizeof(int) * EDGEQ_MAX_RANK);
    }
    switch (n->op) {
    case EDGEQ_OP_INPUT:
        *rank = n->rank;
        memcpy(shape, n->shape, sizeof(int) * EDGEQ_MAX_RANK);
        if (n->rank < 1 || shape[0] != 1)
            return edgeq_fail(err, err_len, "input '%s': batch dimension must be 1 (rank %d)", nm,
                        n->rank);
        return 0;

    case EDGEQ_OP_CONV2D:
    case EDGEQ_OP_DEPTHWISE_CONV2D: {
        if (a->rank != 4)
            return edgeq_fail(err, err_len, "layer '%s' (%s): input must be rank 4 (NHWC), got rank %d",
                        nm, op, a->rank);
        if (!window_params_ok(n, 1))
            return edgeq_fail(err, err_len,
                        "layer '%s' (%s): kernel %dx%d, strides %dx%d, dilation %dx%d out of range",
                        nm, op, n->kh, n->kw, n->stride_h, n->stride_w, n->dil_h, n->dil_w);
        int cin = a->shape[3], cout, ph, pw;
        size_t klen;
        if (n->op == EDGEQ_OP_CONV2D) {
            cout = n->rank == 4 ? n->shape[3] : 0;
            if (n->groups < 1 || cin % n->groups != 0 || cout <= 0 || cout % n->groups != 0)
                return edgeq_fail(err, err_len,
                            "layer '%s' (%s): %d input and %d output channels do not split into "
                            "%d groups",
                            nm, op, cin, cout, n->groups);
            if (n->filters && n->filters != cout)
                return edgeq_fail(err, err_len, "layer '%s' (%s): %d filters but %d output channels",
                            nm, op, n->filters, cout);
            klen = (size_t)n->kh * (size_t)n->kw * (size_t)(cin / n->groups) * (size_t)cout;
        } else {
            if (n->depth_multiplier < 1 || n->depth_multiplier > MAX_WINDOW_PARAM)
                return edgeq_fail(err, err_len, "layer '%s' (%s): depth multiplier %d", nm, op,
                            n->depth_multiplier);
            cout = cin * n->depth_multiplier;
            klen = (size_t)n->kh * (size_t)n->kw * (size_t)cout;
        }
        if (!n->kernel || n->kernel_len != klen)
            return edgeq_fail(err, err_len, "layer '%s' (%s): kernel has %zu values, expected %zu", nm,
                        op, n->kernel ? n->kernel_len : 0, klen);
        if (n->bias && n->bias_len != (size_t)cout)
            return edgeq_fail(err, err_len, "layer '%s' (%s): bias has %zu values, expected %d", nm, op,
                        n->bias_len, cout);
        if (window_dim(a->shape[1], n->kh, n->stride_h, n->dil_h, n->pad_same, &shape[1], &ph) ||
            window_dim(a->shape[2], n->kw, n->stride_w, n->dil_w, n->pad_same, &shape[2], &pw)) {
            shape_str(a->rank, a->shape, s1, sizeof s1);
            return edgeq_fail(err, err_len,
                        "layer '%s' (%s): a %dx%d window (dilation %dx%d) does not fit input %s "
                        "with 'valid' padding",
                        nm, op, n->kh, n->kw, n->dil_h, n->dil_w, s1);
        }
        shape[3] = cout;
        return 0;
    }

    case EDGEQ_OP_DENSE: {
        int in = a->shape[a->rank - 1];
        int units = n->rank == a->rank ? n->shape[n->rank - 1] : 0;
        if (a->rank < 2 || units <= 0)
            return edgeq_fail(err, err_len, "layer '%s' (%s): input rank %d, output rank %d", nm, op,
                        a->rank, n->rank);
        if (n->filters && n->filters != units)
            return edgeq_fail(err, err_len, "layer '%s' (%s): %d units but %d outputs", nm, op,
                        n->filters, units);
        size_t klen = (size_t)in * (size_t)units;
        if (!n->kernel || n->kernel_len != klen)
            return edgeq_fail(err, err_len, "layer '%s' (%s): kernel has %zu values, expected %d x %d",
                        nm, op, n->kernel ? n->kernel_len : 0, in, units);
        if (n->bias && n->bias_len != (size_t)units)
            return edgeq_fail(err, err_len, "layer '%s' (%s): bias has %zu values, expected %d", nm, op,
                        n->bias_len, units);
        shape[a->rank - 1] = units;
        return 0;
    }

    case EDGEQ_OP_BATCHNORM: {
        int c = a->shape[a->rank - 1], ax = norm_axis(n->axis, a->rank);
        if (ax != 0 && ax != a->rank - 1) /* 0: unset (a batch-axis BN is meaningless) */
            return edgeq_fail(err, err_len, "layer '%s' (%s): axis %d: only the last axis is supported",
                        nm, op, n->axis);
        if (n->bn_len != (size_t)c || !n->bn_mean || !n->bn_var)
            return edgeq_fail(err, err_len,
                        "layer '%s' (%s): needs moving mean and variance of %d values (has %zu)",
                        nm, op, c, n->bn_len);
        return 0;
    }

    case EDGEQ_OP_ACTIVATION:
    case EDGEQ_OP_RESCALE:
    case EDGEQ_OP_IDENTITY: return 0;

    case EDGEQ_OP_SOFTMAX: {
        int ax = norm_axis(n->axis, a->rank);
        if (ax < 0 || ax >= a->rank)
            return edgeq_fail(err, err_len, "layer '%s' (%s): axis %d of a rank-%d tensor", nm, op,
                        n->axis, a->rank);
        return 0;
    }

    case EDGEQ_OP_ADD:
    case EDGEQ_OP_SUBTRACT:
    case EDGEQ_OP_MULTIPLY:
        for (int k = 1; k < n->n_in; k++) {
            const edgeq_node *b = &g->nodes[n->in[k]];
            if (broadcast_shape(*rank, shape, b->rank, b->shape, rank, shape) != 0) {
                char s2[64];
                shape_str(a->rank, a->shape, s1, sizeof s1);
                shape_str(b->rank, b->shape, s2, sizeof s2);
                return edgeq_fail(err, err_len, "layer '%s' (%s): input shapes %s and %s do not match",
                            nm, op, s1, s2);
            }
        }
        return 0;

    case EDGEQ_OP_CONCAT: {
        int ax = norm_axis(n->axis, a->rank);
        if (ax < 1 || ax >= a->rank)
            return edgeq_fail(err, err_len, "layer '%s' (%s): axis %d of a rank-%d tensor", nm, op,
                        n->axis, a->rank);
        long long sum = 0;
        for (int k = 0; k < n->n_in; k++) {
            const edgeq_node *b = &g->nodes[n->in[k]];
            int ok = b->rank == a->rank;
            for (int d = 0; ok && d < a->rank; d++) ok = d == ax || b->shape[d] == a->shape[d];
            if (!ok) {
                char s2[64];
                shape_str(a->rank, a->shape, s1, sizeof s1);
                shape_str(b->rank, b->shape, s2, sizeof s2);
                return edgeq_fail(err, err_len,
                            "layer '%s' (%s): inputs %s and %s differ outside axis %d", nm, op,
                            s1, s2, ax);
            }
            sum += b->shape[ax];
        }
        if (sum > (long long)EDGEQ_FLOAT_MAX_ELEMS)
            return edgeq_fail(err, err_len, "layer '%s' (%s): output too large", nm, op);
        shape[ax] = (int)sum;
        return 0;
    }

    case EDGEQ_OP_MAXPOOL:
    case EDGEQ_OP_AVGPOOL: {
        int ph, pw;
        if (a->rank != 4)
            return edgeq_fail(err, err_len, "layer '%s' (%s): input must be rank 4 (NHWC), got rank %d",
                        nm, op, a->rank);
        if (!window_params_ok(n, 0))
            return edgeq_fail(err, err_len, "layer '%s' (%s): pool %dx%d, strides %dx%d out of range",
                        nm, op, n->kh, n->kw, n->stride_h, n->stride_w);
        if (window_dim(a->shape[1], n->kh, n->stride_h, 1, n->pad_same, &shape[1], &ph) ||
            window_dim(a->shape[2], n->kw, n->stride_w, 1, n->pad_same, &shape[2], &pw)) {
            shape_str(a->rank, a->shape, s1, sizeof s1);
            return edgeq_fail(err, err_len,
                        "layer '%s' (%s): a %dx%d pool does not fit input %s with 'valid' "
                        "padding",
                        nm, op, n->kh, n->kw, s1);
        }
        return 0;
    }

    case EDGEQ_OP_GLOBAL_AVGPOOL:
    case EDGEQ_OP_GLOBAL_MAXPOOL: {
        if (a->rank < 3)
            return edgeq_fail(err, err_len, "layer '%s' (%s): input rank %d (needs 3 or 4)", nm, op,
                        a->rank);
        int c = a->shape[a->rank - 1];
        if (n->keepdims) {
            for (int d = 1; d < a->rank - 1; d++) shape[d] = 1;
        } else {
            *rank = 2;
            memset(shape, 0, sizeof(int) * EDGEQ_MAX_RANK);
            shape[0] = 1;
            shape[1] = c;
        }
        return 0;
    }

    case EDGEQ_OP_RESHAPE: {
        /* The target shape is the node's own; only the element count must
         * agree. */
        *rank = n->rank;
        memcpy(shape, n->shape, sizeof(int) * EDGEQ_MAX_RANK);
        size_t want = edgeq_node_numel(a), got = 1;
        for (int d = 0; d < n->rank; d++) got *= n->shape[d] > 0 ? (size_t)n->shape[d] : 0;
        if (n->rank < 1 || got != want) {
            char s2[64];
            shape_str(a->rank, a->shape, s1, sizeof s1);
            shape_str(n->rank, n->shape, s2, sizeof s2);
            return edgeq_fail(err, err_len, "layer '%s' (%s): cannot reshape %s to %s", nm, op, s1, s2);
        }
        return 0;
    }

    case EDGEQ_OP_PAD:
        for (int d = 0; d < a->rank; d++) {
            long long v = (long long)a->shape[d] + n->pad[d][0] + n->pad[d][1];
            if (n->pad[d][0] < 0 || n->pad[d][1] < 0 || v > (long long)EDGEQ_FLOAT_MAX_ELEMS)
                return edgeq_fail(err, err_len, "layer '%s' (%s): padding %d/%d on dimension %d", nm,
                            op, n->pad[d][0], n->pad[d][1], d);
            shape[d] = (int)v;
        }
        return 0;
    default: break;
    }
    const edgeq_op_kind *kind = edgeq_op_kind_of(n->op);
    if (kind && kind->shape) return kind->shape(n, a, rank, shape, err, err_len);
    return edgeq_fail(err, err_len, "layer '%s': unknown op %d", nm, (int)n->op);
}

static int check_node(const edgeq_graph *g, int i, char *err, size_t err_len) {
    const edgeq_node *n = &g->nodes[i];
    if (n->n_in < 0 || n->n_in > EDGEQ_MAX_INPUTS)
        return edgeq_fail(err, err_len, "layer '%s': %d inputs", n->name, n->n_in);
    for (int k = 0; k < n->n_in; k++)
        if (n->in[k] < 0 || n->in[k] >= i)
            return edgeq_fail(err, err_len, "layer '%s': input %d is node %d, not an earlier node",
                        n->name, k, n->in[k]);
    if (n->rank < 1 || n->rank > EDGEQ_MAX_RANK)
        return edgeq_fail(err, err_len, "layer '%s' (%s): output rank %d", n->name,
                    edgeq_op_name(n->op), n->rank);
    size_t numel = 1;
    for (int d = 0; d < n->rank; d++) {
        if (n->shape[d] < 1)
            return edgeq_fail(err, err_len, "layer '%s' (%s): output dimension %d is %d", n->name,
                        edgeq_op_name(n->op), d, n->shape[d]);
        numel *= (size_t)n->shape[d];
        if (numel > EDGEQ_FLOAT_MAX_ELEMS)
            return edgeq_fail(err, err_len, "layer '%s' (%s): output larger than %zu elements",
                        n->name, edgeq_op_name(n->op), (size_t)EDGEQ_FLOAT_MAX_ELEMS);
    }
    if ((unsigned)n->act > EDGEQ_ACT_SOFTMAX)
        return edgeq_fail(err, err_len, "layer '%s': unknown activation %d", n->name, (int)n->act);
    int rank, shape[EDGEQ_MAX_RANK];
    if (edgeq_float_infer_shape(g, i, &rank, shape, err, err_len) != 0) return -1;
    int same = rank == n->rank;
    for (int d = 0; same && d < rank; d++) same = shape[d] == n->shape[d];
    if (!same) {
        char want[64], got[64];
        shape_str(rank, shape, want, sizeof want);
        shape_str(n->rank, n->shape, got, sizeof got);
        return edgeq_fail(err, err_len, "layer '%s' (%s): output shape %s, but its inputs give %s",
                    n->name, edgeq_op_name(n->op), got, want);
    }
    return 0;
}

int edgeq_float_exec_init(edgeq_float_exec *x, const edgeq_graph *g, char *err, size_t err_len) {
    memset(x, 0, sizeof *x);
    if (err && err_len) err[0] = 0;
    if (!g || g->n <= 0) return edgeq_fail(err, err_len, "empty graph");
    if (g->n_inputs < 1 || g->n_inputs > 8 || g->n_outputs < 1 || g->n_outputs > 8)
        return edgeq_fail(err, err_len, "graph has %d inputs and %d outputs (1 to 8 each)", g->n_inputs,
                    g->n_outputs);
    for (int k = 0; k < g->n_inputs; k++)
        if (g->inputs[k] < 0 || g->inputs[k] >= g->n ||
            g->nodes[g->inputs[k]].op != EDGEQ_OP_INPUT)
            return edgeq_fail(err, err_len, "graph input %d is not an input node", k);
    for (int k = 0; k < g->n_outputs; k++)
        if (g->outputs[k] < 0 || g->outputs[k] >= g->n)
            return edgeq_fail(err, err_len, "graph output %d is node %d of %d", k, g->outputs[k], g->n);
    for (int i = 0; i < g->n; i++) {
        if (check_node(g, i, err, err_len) != 0) return -1;
        if (g->nodes[i].op == EDGEQ_OP_INPUT) {
            int listed = 0;
            for (int k = 0; k < g->n_inputs; k++) listed |= g->inputs[k] == i;
            if (!listed)
                return edgeq_fail(err, err_len, "input '%s' is not one of the graph's inputs",
                            g->nodes[i].name);
        }
    }
    x->buf = calloc((size_t)g->n, sizeof *x->buf);
    if (!x->buf) return edgeq_fail(err, err_len, "out of memory");
    x->g = g;
    for (int i = 0; i < g->n; i++) {
        x->buf[i] = malloc(edgeq_node_numel(&g->nodes[i]) * sizeof(float));
        if (!x->buf[i]) {
            edgeq_float_exec_free(x);
            return edgeq_fail(err, err_len, "out of memory for layer '%s'", g->nodes[i].name);
        }
    }
    return 0;
}

void edgeq_float_exec_free(edgeq_float_exec *x) {
    if (x->buf && x->g)
        for (int i = 0; i < x->g->n; i++) free(x->buf[i]);
    free(x->buf);
    memset(x, 0, sizeof *x);
}

/* ---- the ops ---- */

static void softmax_span(float *y, const float *v, size_t len, size_t stride) {
    float mx = -INFINITY;
    for (size_t i = 0; i < len; i++)
        if (v[i * stride] > mx) mx = v[i * stride];
    double sum = 0.0;
    for (size_t i = 0; i < len; i++) {
        float e = expf(v[i * stride] - mx);
        y[i * stride] = e;
        sum += e;
    }
    float inv = (float)(1.0 / sum);
    for (size_t i = 0; i < len; i++) y[i * stride] *= inv;
}

/* Softmax over `axis` of a tensor shaped like node n, from v into y (may alias). */
static void softmax(const edgeq_node *n, int axis, float *y, const float *v) {
    size_t outer = 1, inner = 1, len = (size_t)n->shape[axis];
    for (int d = 0; d < axis; d++) outer *= (size_t)n->shape[d];
    for (int d = axis + 1; d < n->rank; d++) inner *= (size_t)n->shape[d];
    for (size_t o = 0; o < outer; o++)
        for (size_t i = 0; i < inner; i++)
            softmax_span(y + o * len * inner + i, v + o * len * inner + i, len, inner);
}

static void activate(const edgeq_node *n, edgeq_act act, float alpha, float *y, size_t len) {
    switch (act) {
    case EDGEQ_ACT_LINEAR: break;
    case EDGEQ_ACT_RELU:
        for (size_t i = 0; i < len; i++) y[i] = y[i] > 0.0f ? y[i] : 0.0f;
        break;
    case EDGEQ_ACT_RELU6:
        for (size_t i = 0; i < len; i++) y[i] = y[i] < 0.0f ? 0.0f : y[i] > 6.0f ? 6.0f : y[i];
        break;
    case EDGEQ_ACT_RELU_N1_TO_1:
        for (size_t i = 0; i < len; i++) y[i] = y[i] < -1.0f ? -1.0f : y[i] > 1.0f ? 1.0f : y[i];
        break;
    case EDGEQ_ACT_LEAKY_RELU:
        for (size_t i = 0; i < len; i++) y[i] = y[i] < 0.0f ? alpha * y[i] : y[i];
        break;
    case EDGEQ_ACT_SIGMOID:
        for (size_t i = 0; i < len; i++) y[i] = 1.0f / (1.0f + expf(-y[i]));
        break;
    case EDGEQ_ACT_TANH:
        for (size_t i = 0; i < len; i++) y[i] = tanhf(y[i]);
        break;
    case EDGEQ_ACT_HARD_SWISH:
        for (size_t i = 0; i < len; i++) {
            float r = y[i] + 3.0f;
            r = r < 0.0f ? 0.0f : r > 6.0f ? 6.0f : r;
            y[i] = y[i] * r / 6.0f;
        }
        break;
    case EDGEQ_ACT_SOFTMAX: softmax(n, n->rank - 1, y, y); break;
    }
}

/* Unrolled by hand: GCC's -O2 cost model does not vectorize plain loops,
 * but it does vectorize these straight-line blocks (SLP). */
static void axpy(float *restrict y, const float *restrict w, float a, int n) {
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        y[i] += a * w[i];
        y[i + 1] += a * w[i + 1];
        y[i + 2] += a * w[i + 2];
        y[i + 3] += a * w[i + 3];
        y[i + 4] += a * w[i + 4];
        y[i + 5] += a * w[i + 5];
        y[i + 6] += a * w[i + 6];
        y[i + 7] += a * w[i + 7];
    }
    for (; i < n; i++) y[i] += a * w[i];
}

/* y += x * w, elementwise. */
static void mac(float *restrict y, const float *restrict x, const float *restrict w, int n) {
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        y[i] += x[i] * w[i];
        y[i + 1] += x[i + 1] * w[i + 1];
        y[i + 2] += x[i + 2] * w[i + 2];
        y[i + 3] += x[i + 3] * w[i + 3];
        y[i + 4] += x[i + 4] * w[i + 4];
        y[i + 5] += x[i + 5] * w[i + 5];
        y[i + 6] += x[i + 6] * w[i + 6];
        y[i + 7] += x[i + 7] * w[i + 7];
    }
    for (; i < n; i++) y[i] += x[i] * w[i];
}

static void set_bias(float *restrict y, const float *bias, int n) {
    if (bias)
        memcpy(y, bias, (size_t)n * sizeof *y);
    else
        memset(y, 0, (size_t)n * sizeof *y);
}

static void conv2d(const edgeq_node *n, const edgeq_node *a, const float *x, float *y) {
    int H = a->shape[1], W = a->shape[2], cin = a->shape[3];
    int OH = n->shape[1], OW = n->shape[2], cout = n->shape[3];
    int G = n->groups, cig = cin / G, cog = cout / G;
    int oh = 0, ow = 0, pt = 0, pl = 0;
    window_dim(H, n->kh, n->stride_h, n->dil_h, n->pad_same, &oh, &pt);
    window_dim(W, n->kw, n->stride_w, n->dil_w, n->pad_same, &ow, &pl);
    for (int oy = 0; oy < OH; oy++)
        for (int ox = 0; ox < OW; ox++) {
            float *out = y + ((size_t)oy * OW + ox) * cout;
            set_bias(out, n->bias, cout);
            for (int ky = 0; ky < n->kh; ky++) {
                int iy = oy * n->stride_h - pt + ky * n->dil_h;
                if (iy < 0 || iy >= H) continue;
                for (int kx = 0; kx < n->kw; kx++) {
                    int ix = ox * n->stride_w - pl + kx * n->dil_w;
                    if (ix < 0 || ix >= W) continue;
                    const float *px = x + ((size_t)iy * W + ix) * cin;
                    const float *wk = n->kernel + ((size_t)ky * n->kw + kx) * cig * cout;
                    for (int gi = 0; gi < G; gi++)
                        for (int ci = 0; ci < cig; ci++)
                            axpy(out + gi * cog, wk + (size_t)ci * cout + gi * cog,
                                 px[gi * cig + ci], cog);
                }
            }
        }
}

static void depthwise(const edgeq_node *n, const edgeq_node *a, const float *x, float *y) {
    int H = a->shape[1], W = a->shape[2], cin = a->shape[3];
    int OH = n->shape[1], OW = n->shape[2], cout = n->shape[3], dm = n->depth_multiplier;
    int oh = 0, ow = 0, pt = 0, pl = 0;
    window_dim(H, n->kh, n->stride_h, n->dil_h, n->pad_same, &oh, &pt);
    window_dim(W, n->kw, n->stride_w, n->dil_w, n->pad_same, &ow, &pl);
    for (int oy = 0; oy < OH; oy++)
        for (int ox = 0; ox < OW; ox++) {
            float *restrict out = y + ((size_t)oy * OW + ox) * cout;
            set_bias(out, n->bias, cout);
            for (int ky = 0; ky < n->kh; ky++) {
                int iy = oy * n->stride_h - pt + ky * n->dil_h;
                if (iy < 0 || iy >= H) continue;
                for (int kx = 0; kx < n->kw; kx++) {
                    int ix = ox * n->stride_w - pl + kx * n->dil_w;
                    if (ix < 0 || ix >= W) continue;
                    const float *restrict px = x + ((size_t)iy * W + ix) * cin;
                    const float *restrict wk = n->kernel + ((size_t)ky * n->kw + kx) * cout;
                    if (dm == 1) {
                        mac(out, px, wk, cout);
                    } else {
                        for (int c = 0; c < cin; c++)
                            for (int m = 0; m < dm; m++)
                                out[c * dm + m] += px[c] * wk[c * dm + m];
                    }
                }
            }
        }
}

static void dense(const edgeq_node *n, const edgeq_node *a, const float *x, float *y) {
    int in = a->shape[a->rank - 1], units = n->shape[n->rank - 1];
    size_t rows = edgeq_node_numel(a) / (size_t)in;
    for (size_t r = 0; r < rows; r++) {
        float *out = y + r * (size_t)units;
        const float *px = x + r * (size_t)in;
        set_bias(out, n->bias, units);
        for (int i = 0; i < in; i++)
            if (px[i] != 0.0f) axpy(out, n->kernel + (size_t)i * units, px[i], units);
    }
}

static void pool(const edgeq_node *n, const edgeq_node *a, const float *x, float *y) {
    int H = a->shape[1], W = a->shape[2], C = a->shape[3];
    int OH = n->shape[1], OW = n->shape[2];
    int oh = 0, ow = 0, pt = 0, pl = 0, is_max = n->op == EDGEQ_OP_MAXPOOL;
    window_dim(H, n->kh, n->stride_h, 1, n->pad_same, &oh, &pt);
    window_dim(W, n->kw, n->stride_w, 1, n->pad_same, &ow, &pl);
    for (int oy = 0; oy < OH; oy++)
        for (int ox = 0; ox < OW; ox++) {
            float *out = y + ((size_t)oy * OW + ox) * C;
            int y0 = oy * n->stride_h - pt, x0 = ox * n->stride_w - pl;
            int ya = y0 < 0 ? 0 : y0, yb = y0 + n->kh > H ? H : y0 + n->kh;
            int xa = x0 < 0 ? 0 : x0, xb = x0 + n->kw > W ? W : x0 + n->kw;
            for (int c = 0; c < C; c++) out[c] = is_max ? -INFINITY : 0.0f;
            for (int iy = ya; iy < yb; iy++)
                for (int ix = xa; ix < xb; ix++) {
                    const float *px = x + ((size_t)iy * W + ix) * C;
                    if (is_max) {
                        for (int c = 0; c < C; c++) out[c] = px[c] > out[c] ? px[c] : out[c];
                    } else {
                        for (int c = 0; c < C; c++) out[c] += px[c];
                    }
                }
            if (!is_max) {
                int count = (yb - ya) * (xb - xa);
                float inv = count > 0 ? 1.0f / (float)count : 0.0f;
                for (int c = 0; c < C; c++) out[c] *= inv;
            }
        }
}

static void global_pool(const edgeq_node *n, const edgeq_node *a, const float *x, float *y) {
    int C = a->shape[a->rank - 1];
    size_t count = edgeq_node_numel(a) / (size_t)C;
    int is_max = n->op == EDGEQ_OP_GLOBAL_MAXPOOL;
    for (int c = 0; c < C; c++) y[c] = is_max ? -INFINITY : 0.0f;
    for (size_t p = 0; p < count; p++) {
        const float *px = x + p * (size_t)C;
        if (is_max) {
            for (int c = 0; c < C; c++) y[c] = px[c] > y[c] ? px[c] : y[c];
        } else {
            for (int c = 0; c < C; c++) y[c] += px[c];
        }
    }
    if (!is_max)
        for (int c = 0; c < C; c++) y[c] /= (float)count;
}

/* y (shaped like n) = y op b, b broadcast into n's shape; first: y = b. */
static void binary(const edgeq_node *n, const edgeq_node *b, const float *xb, float *y, int first) {
    int r = n->rank;
    size_t ostride[EDGEQ_MAX_RANK], bstride[EDGEQ_MAX_RANK];
    int od[EDGEQ_MAX_RANK];
    size_t s = 1, sb = 1;
    for (int d = r - 1; d >= 0; d--) {
        int bd = d - (r - b->rank);
        int bdim = bd >= 0 ? b->shape[bd] : 1;
        od[d] = n->shape[d];
        ostride[d] = s;
        bstride[d] = bdim == 1 ? 0 : sb;
        s *= (size_t)n->shape[d];
        sb *= (size_t)bdim;
    }
    for (int d = r; d < EDGEQ_MAX_RANK; d++) od[d] = 1, ostride[d] = bstride[d] = 0;
    (void)ostride;
    size_t i = 0;
    for (int i0 = 0; i0 < od[0]; i0++)
        for (int i1 = 0; i1 < od[1]; i1++)
            for (int i2 = 0; i2 < od[2]; i2++)
                for (int i3 = 0; i3 < od[3]; i3++, i++) {
                    float v = xb[i0 * bstride[0] + i1 * bstride[1] + i2 * bstride[2] +
                                 i3 * bstride[3]];
                    if (first)
                        y[i] = v;
                    else if (n->op == EDGEQ_OP_ADD)
                        y[i] += v;
                    else if (n->op == EDGEQ_OP_SUBTRACT)
                        y[i] -= v;
                    else
                        y[i] *= v;
                }
}

static void concat(const edgeq_graph *g, const edgeq_node *n, float *const *buf, float *y) {
    int ax = norm_axis(n->axis, n->rank);
    size_t outer = 1, inner = 1;
    for (int d = 0; d < ax; d++) outer *= (size_t)n->shape[d];
    for (int d = ax + 1; d < n->rank; d++) inner *= (size_t)n->shape[d];
    size_t orow = (size_t)n->shape[ax] * inner, at = 0;
    for (int k = 0; k < n->n_in; k++) {
        const edgeq_node *b = &g->nodes[n->in[k]];
        size_t brow = (size_t)b->shape[ax] * inner;
        for (size_t o = 0; o < outer; o++)
            memcpy(y + o * orow + at, buf[n->in[k]] + o * brow, brow * sizeof *y);
        at += brow;
    }
}

static void pad(const edgeq_node *n, const edgeq_node *a, const float *x, float *y) {
    int r = a->rank;
    int ad[EDGEQ_MAX_RANK] = {1, 1, 1, 1}, before[EDGEQ_MAX_RANK] = {0, 0, 0, 0};
    size_t os[EDGEQ_MAX_RANK] = {0, 0, 0, 0};
    /* Right-align into 4 dims so one loop nest serves every rank. */
    size_t s = 1;
    for (int d = EDGEQ_MAX_RANK - 1; d >= 0; d--) {
        int sd = d - (EDGEQ_MAX_RANK - r);
        os[d] = s;
        if (sd >= 0) {
            ad[d] = a->shape[sd];
            before[d] = n->pad[sd][0];
            s *= (size_t)n->shape[sd];
        }
    }
    memset(y, 0, edgeq_node_numel(n) * sizeof *y);
    size_t i = 0;
    for (int i0 = 0; i0 < ad[0]; i0++)
        for (int i1 = 0; i1 < ad[1]; i1++)
            for (int i2 = 0; i2 < ad[2]; i2++) {
                float *row = y + (size_t)(i0 + before[0]) * os[0] +
                             (size_t)(i1 + before[1]) * os[1] + (size_t)(i2 + before[2]) * os[2] +
                             (size_t)before[3];
                memcpy(row, x + i, (size_t)ad[3] * sizeof *y);
                i += (size_t)ad[3];
            }
}

static void batchnorm(const edgeq_node *n, const float *x, float *y) {
    int C = n->shape[n->rank - 1];
    size_t rows = edgeq_node_numel(n) / (size_t)C;
    for (size_t r = 0; r < rows; r++)
        for (int c = 0; c < C; c++) {
            float inv = 1.0f / sqrtf(n->bn_var[c] + n->eps);
            if (n->bn_gamma) inv *= n->bn_gamma[c];
            float v = (x[r * (size_t)C + c] - n->bn_mean[c]) * inv;
            y[r * (size_t)C + c] = v + (n->bn_beta ? n->bn_beta[c] : 0.0f);
        }
}

int edgeq_float_exec_run(edgeq_float_exec *x, const float *const *inputs, char *err,
                         size_t err_len) {
    const edgeq_graph *g = x->g;
    if (!g || !x->buf) return edgeq_fail(err, err_len, "executor not initialised");
    if (!inputs) return edgeq_fail(err, err_len, "no inputs given");
    for (int k = 0; k < g->n_inputs; k++)
        if (!inputs[k]) return edgeq_fail(err, err_len, "input %d not given", k);
    for (int i = 0; i < g->n; i++) {
        const edgeq_node *n = &g->nodes[i];
        const edgeq_node *a = n->n_in > 0 ? &g->nodes[n->in[0]] : NULL;
        const float *xa = a ? x->buf[n->in[0]] : NULL;
        float *y = x->buf[i];
        size_t len = edgeq_node_numel(n);
        switch (n->op) {
        case EDGEQ_OP_INPUT:
            for (int k = 0; k < g->n_inputs; k++) {
                if (g->inputs[k] != i) continue;
                if (g->input_folded[k]) {
                    float sc = g->input_scale_fold[k], of = g->input_offset_fold[k];
                    for (size_t e = 0; e < len; e++) y[e] = inputs[k][e] * sc + of;
                } else {
                    memcpy(y, inputs[k], len * sizeof *y);
                }
                break;
            }
            break;
        case EDGEQ_OP_CONV2D: conv2d(n, a, xa, y); break;
        case EDGEQ_OP_DEPTHWISE_CONV2D: depthwise(n, a, xa, y); break;
        case EDGEQ_OP_DENSE: dense(n, a, xa, y); break;
        case EDGEQ_OP_BATCHNORM: batchnorm(n, xa, y); break;
        case EDGEQ_OP_ACTIVATION:
        case EDGEQ_OP_RESHAPE:
        case EDGEQ_OP_IDENTITY: memcpy(y, xa, len * sizeof *y); break;
        case EDGEQ_OP_RESCALE:
            for (size_t e = 0; e < len; e++) y[e] = xa[e] * n->scale + n->offset;
            break;
        case EDGEQ_OP_ADD:
        case EDGEQ_OP_SUBTRACT:
        case EDGEQ_OP_MULTIPLY:
            for (int k = 0; k < n->n_in; k++)
                binary(n, &g->nodes[n->in[k]], x->buf[n->in[k]], y, k == 0);
            break;
        case EDGEQ_OP_CONCAT: concat(g, n, x->buf, y); break;
        case EDGEQ_OP_MAXPOOL:
        case EDGEQ_OP_AVGPOOL: pool(n, a, xa, y); break;
        case EDGEQ_OP_GLOBAL_AVGPOOL:
        case EDGEQ_OP_GLOBAL_MAXPOOL: global_pool(n, a, xa, y); break;
        case EDGEQ_OP_PAD: pad(n, a, xa, y); break;
        case EDGEQ_OP_SOFTMAX: {
            int ax = norm_axis(n->axis, n->rank);
            if (ax == 0) ax = n->rank - 1;
            softmax(n, ax, y, xa);
            break;
        }
        default: {
            const edgeq_op_kind *kind = edgeq_op_kind_of(n->op);
            if (kind && kind->eval) kind->eval(n, a, xa, y);
            break;
        }
        }
        /* A standalone activation's act is its whole job; every other op
         * applies its fused one. */
        activate(n, n->act, n->alpha, y, len);
    }
    return 0;
}
