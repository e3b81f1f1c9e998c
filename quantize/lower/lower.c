/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lower.c — calibrated float graph -> int8 TFLite operators (see lower.h).
 */
#include "lower.h"
#include "lower_ctx.h"
#include "graph/op_kind.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edge/edge.h" /* schema.h: TFLite's op and type numbers */
#include "edge/quant.h"
#include "bf16.h"
#include "err.h"

const char *edgeq_builtin_name(int code) {
    switch (code) {
    case EDGE_BUILTIN_ADD: return "ADD";
    case EDGE_BUILTIN_AVERAGE_POOL_2D: return "AVERAGE_POOL_2D";
    case EDGE_BUILTIN_CONCATENATION: return "CONCATENATION";
    case EDGE_BUILTIN_CONV_2D: return "CONV_2D";
    case EDGE_BUILTIN_DEPTHWISE_CONV_2D: return "DEPTHWISE_CONV_2D";
    case EDGE_BUILTIN_DEQUANTIZE: return "DEQUANTIZE";
    case EDGE_BUILTIN_FULLY_CONNECTED: return "FULLY_CONNECTED";
    case EDGE_BUILTIN_LOGISTIC: return "LOGISTIC";
    case EDGE_BUILTIN_MAX_POOL_2D: return "MAX_POOL_2D";
    case EDGE_BUILTIN_MUL: return "MUL";
    case EDGE_BUILTIN_RELU: return "RELU";
    case EDGE_BUILTIN_RELU_N1_TO_1: return "RELU_N1_TO_1";
    case EDGE_BUILTIN_RELU6: return "RELU6";
    case EDGE_BUILTIN_RESHAPE: return "RESHAPE";
    case EDGE_BUILTIN_SOFTMAX: return "SOFTMAX";
    case EDGE_BUILTIN_TANH: return "TANH";
    case EDGE_BUILTIN_PAD: return "PAD";
    case EDGE_BUILTIN_MEAN: return "MEAN";
    case EDGE_BUILTIN_SUB: return "SUB";
    case EDGE_BUILTIN_LEAKY_RELU: return "LEAKY_RELU";
    case EDGE_BUILTIN_QUANTIZE: return "QUANTIZE";
    case EDGE_BUILTIN_HARD_SWISH: return "HARD_SWISH";
    case EDGE_BUILTIN_STRIDED_SLICE: return "STRIDED_SLICE";
    default: return "?";
    }
}

/* ---- the converter's parameter choices ---- */


/* ---- model building: lower_ctx.h, emit.c ---- */

/* The op kind of a node whose family lowers it (op_kind.h), else NULL. */
static const edgeq_op_kind *kind_of(const edgeq_node *n) { return edgeq_op_kind_of(n->op); }

/* Right-aligned broadcast of two shapes. */
static void broadcast_shape(const edgeq_qtensor *a, const edgeq_qtensor *b, int *rank,
                            int32_t *shape) {
    int r = a->rank > b->rank ? a->rank : b->rank;
    for (int k = 0; k < r; k++) {
        int ia = k - (r - a->rank), ib = k - (r - b->rank);
        int32_t da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
        shape[k] = da > db ? da : db;
    }
    *rank = r;
}

static int lower_elementwise(lower_ctx *c, int i) {
    const edgeq_node *n = &c->g->nodes[i];
    int code = n->op == EDGEQ_OP_ADD ? EDGE_BUILTIN_ADD : n->op == EDGEQ_OP_SUBTRACT ? EDGE_BUILTIN_SUB : EDGE_BUILTIN_MUL;
    if (n->n_in < 1 || (n->op == EDGEQ_OP_SUBTRACT && n->n_in != 2))
        return lq_failf(c, EDGEQ_LOWER_FAIL, "layer '%s' (%s): wrong number of inputs (%d)", n->name,
                     n->keras_class, n->n_in);
    int act;
    int rc = lq_fused_act(c, n, &act);
    if (rc) return rc;
    if (n->n_in == 1 && act == EDGE_ACTIVATION_FUNCTION_TYPE_NONE) {
        c->node_t[i] = lq_in_t(c, n, 0);
        return 0;
    }
    int a = lq_in_t(c, n, 0);
    const edgeq_node *n0 = &c->g->nodes[n->in[0]];
    double lo = n0->range_min, hi = n0->range_max;
    for (int k = 1; k < n->n_in; k++) {
        int b = lq_in_t(c, n, k);
        const edgeq_node *nk = &c->g->nodes[n->in[k]];
        int last = k == n->n_in - 1;
        int out;
        if (last) {
            out = lq_act_tensor(c, i);
        } else {
            /* A partial sum or product of a chain: bound it by interval
             * arithmetic on the inputs' ranges. */
            if (code == EDGE_BUILTIN_ADD) {
                lo += nk->range_min;
                hi += nk->range_max;
            } else {
                double p[4] = {lo * nk->range_min, lo * nk->range_max, hi * nk->range_min,
                               hi * nk->range_max};
                lo = hi = p[0];
                for (int q = 1; q < 4; q++) {
                    if (p[q] < lo) lo = p[q];
                    if (p[q] > hi) hi = p[q];
                }
            }
            char suf[32];
            snprintf(suf, sizeof suf, "/partial%d", k);
            int r;
            int32_t shape[EDGEQ_QT_MAX_RANK];
            broadcast_shape(&c->m->t[a], &c->m->t[b], &r, shape);
            out = lq_act_tensor_range(c, i, suf, r, shape, (float)lo, (float)hi);
        }
        if (out < 0) return out;
        edgeq_qop *op = lq_new_op(c, code, lq_ver(c, 2), i);
        if (!op) return lq_oom(c);
        op->n_in = 2;
        op->in[0] = a;
        op->in[1] = b;
        op->n_out = 1;
        op->out[0] = out;
        op->o.act = last ? act : EDGE_ACTIVATION_FUNCTION_TYPE_NONE;
        a = out;
    }
    c->node_t[i] = a;
    return 0;
}

/* Ops whose output parameters are their own choice (so a CONCATENATION may
 * impose its own on them). */
static int own_range_op(const edgeq_node *n) {
    switch (n->op) {
    case EDGEQ_OP_CONV2D:
    case EDGEQ_OP_DEPTHWISE_CONV2D:
    case EDGEQ_OP_DENSE:
    case EDGEQ_OP_ADD:
    case EDGEQ_OP_SUBTRACT:
    case EDGEQ_OP_MULTIPLY:
    case EDGEQ_OP_CONCAT:
    case EDGEQ_OP_GLOBAL_AVGPOOL:
    case EDGEQ_OP_RESCALE: return 1;
    case EDGEQ_OP_ACTIVATION:
        return n->act == EDGEQ_ACT_RELU || n->act == EDGEQ_ACT_RELU6 ||
               n->act == EDGEQ_ACT_RELU_N1_TO_1 || n->act == EDGEQ_ACT_LEAKY_RELU ||
               n->act == EDGEQ_ACT_HARD_SWISH;
    default: return 0;
    }
}

/* Ops that keep their input's parameters (lowered with same_tensor). */
static int same_params_op(const edgeq_node *n) {
    return n->op == EDGEQ_OP_MAXPOOL || n->op == EDGEQ_OP_AVGPOOL || n->op == EDGEQ_OP_RESHAPE ||
           n->op == EDGEQ_OP_PAD || n->op == EDGEQ_OP_GLOBAL_MAXPOOL ||
           (kind_of(n) && kind_of(n)->same_params);
}

/* Give node j's output the parameters of tensor `like`, as the converter
 * propagates a CONCATENATION's scale backwards: through ops that keep their
 * input's parameters, up to an op that chooses its own, when every node on
 * the way feeds only the next. Returns 1 when done, 0 when not possible
 * (the caller requantizes instead), <0 on error. */
static int retarget_chain(lower_ctx *c, int j, int like) {
    int chain[64], n = 0;
    for (;;) {
        const edgeq_node *nj = &c->g->nodes[j];
        if (c->n_users[j] != 1 || n == 64) return 0;
        chain[n++] = j;
        if (own_range_op(nj)) break;
        if (!same_params_op(nj) || nj->n_in != 1) return 0;
        j = nj->in[0];
    }
    /* The own-range op's output tensor must be its own (not an alias). */
    int top = chain[n - 1];
    if (c->m->t[c->node_t[top]].node != top) return 0;
    if (lq_copy_q(&c->m->t[c->node_t[top]], &c->m->t[like])) return lq_oom(c);
    for (int k = 0; k < n - 1; k++)
        for (int t = 0; t < c->m->n_t; t++)
            if (c->m->t[t].node == chain[k] && !c->m->t[t].data && c->m->t[t].type == EDGE_INT8)
                if (lq_copy_q(&c->m->t[t], &c->m->t[like])) return lq_oom(c);
    return 1;
}

static int lower_concat(lower_ctx *c, int i) {
    const edgeq_node *n = &c->g->nodes[i];
    if (n->n_in > EDGEQ_QOP_MAX_IN)
        return lq_failf(c, EDGEQ_LOWER_UNSUPPORTED,
                     "layer '%s' (%s): concatenating %d tensors (at most %d are supported)",
                     n->name, n->keras_class, n->n_in, EDGEQ_QOP_MAX_IN);
    if (n->axis < 0 || n->axis >= n->rank)
        return lq_failf(c, EDGEQ_LOWER_FAIL, "layer '%s' (%s): axis %d out of range", n->name,
                     n->keras_class, n->axis);
    int out = lq_act_tensor(c, i);
    if (out < 0) return out;
    int ins[EDGEQ_QOP_MAX_IN];
    /* TFLite's int8 CONCATENATION wants every input on the output's scale
     * and zero point, as the converter arranges. */
    for (int k = 0; k < n->n_in; k++) {
        int j = n->in[k];
        int t = c->node_t[j];
        if (!c->flt && !lq_same_q(&c->m->t[t], &c->m->t[out])) {
            int rc = retarget_chain(c, j, out);
            if (rc < 0) return rc;
            if (rc == 0) {
                int r = lq_new_tensor(c, c->m->t[t].name, "/requantized", EDGE_INT8,
                                   c->m->t[t].rank, c->m->t[t].shape);
                if (r < 0 || lq_copy_q(&c->m->t[r], &c->m->t[out])) return lq_oom(c);
                c->m->t[r].node = j;
                if (!lq_op1(c, EDGE_BUILTIN_QUANTIZE, 2, i, t, r)) return lq_oom(c);
                t = r;
            }
        }
        ins[k] = t;
    }
    edgeq_qop *op = lq_new_op(c, EDGE_BUILTIN_CONCATENATION, lq_ver(c, 2), i);
    if (!op) return lq_oom(c);
    op->n_in = n->n_in;
    for (int k = 0; k < n->n_in; k++) op->in[k] = ins[k];
    op->n_out = 1;
    op->out[0] = out;
    op->o.axis = n->axis;
    c->node_t[i] = out;
    return 0;
}

static int lower_pool(lower_ctx *c, int i) {
    const edgeq_node *n = &c->g->nodes[i];
    if (n->rank != 4)
        return lq_failf(c, EDGEQ_LOWER_UNSUPPORTED, "layer '%s' (%s): pooling needs an NHWC tensor",
                     n->name, n->keras_class);
    int in = lq_in_t(c, n, 0);
    int32_t shape[EDGEQ_MAX_RANK];
    lq_shape_of(n, shape);
    /* float: pooling computes, so it writes the activation type */
    int out = c->flt ? lq_act_tensor(c, i) : lq_same_tensor(c, i, NULL, n->rank, shape, in);
    if (out < 0) return out;
    edgeq_qop *op = lq_op1(c, n->op == EDGEQ_OP_MAXPOOL ? EDGE_BUILTIN_MAX_POOL_2D : EDGE_BUILTIN_AVERAGE_POOL_2D,
                        lq_ver(c, 2), i, in, out);
    if (!op) return lq_oom(c);
    op->o.padding = n->pad_same ? 0 : 1;
    op->o.stride_w = n->stride_w;
    op->o.stride_h = n->stride_h;
    op->o.filter_w = n->kw;
    op->o.filter_h = n->kh;
    c->node_t[i] = out;
    return 0;
}

/* RESHAPE `in` to `shape` with in's parameters. */
static int reshape_to(lower_ctx *c, int i, int in, const char *suffix, int rank,
                      const int32_t *shape, int *out_t) {
    const edgeq_node *n = &c->g->nodes[i];
    int32_t vs[1] = {rank};
    char suf[64];
    snprintf(suf, sizeof suf, "%s/shape", suffix ? suffix : "");
    int st = lq_i32_const(c, n->name, suf, 1, vs, shape);
    if (st < 0) return lq_oom(c);
    int out = lq_same_tensor(c, i, suffix, rank, shape, in);
    if (out < 0) return out;
    edgeq_qop *op = lq_new_op(c, EDGE_BUILTIN_RESHAPE, 1, i);
    if (!op) return lq_oom(c);
    op->n_in = 2;
    op->in[0] = in;
    op->in[1] = st;
    op->n_out = 1;
    op->out[0] = out;
    *out_t = out;
    return 0;
}

static int lower_reshape(lower_ctx *c, int i) {
    const edgeq_node *n = &c->g->nodes[i];
    int32_t shape[EDGEQ_MAX_RANK];
    lq_shape_of(n, shape);
    return reshape_to(c, i, lq_in_t(c, n, 0), NULL, n->rank, shape, &c->node_t[i]);
}

static int lower_global_avg(lower_ctx *c, int i) {
    const edgeq_node *n = &c->g->nodes[i];
    const edgeq_node *ni = &c->g->nodes[n->in[0]];
    if (ni->rank < 3)
        return lq_failf(c, EDGEQ_LOWER_UNSUPPORTED, "layer '%s' (%s): needs an input of rank 3 or 4",
                     n->name, n->keras_class);
    int32_t axes[EDGEQ_MAX_RANK], na = 0;
    for (int k = 1; k < ni->rank - 1; k++) axes[na++] = k;
    int32_t ashape[1] = {na};
    int at = lq_i32_const(c, n->name, "/axes", 1, ashape, axes);
    if (at < 0) return lq_oom(c);
    int out = lq_act_tensor(c, i);
    if (out < 0) return out;
    edgeq_qop *op = lq_new_op(c, EDGE_BUILTIN_MEAN, lq_ver(c, 2), i);
    if (!op) return lq_oom(c);
    op->n_in = 2;
    op->in[0] = lq_in_t(c, n, 0);
    op->in[1] = at;
    op->n_out = 1;
    op->out[0] = out;
    op->o.keep_dims = n->rank == ni->rank;
    c->node_t[i] = out;
    return 0;
}

static int lower_global_max(lower_ctx *c, int i) {
    const edgeq_node *n = &c->g->nodes[i];
    const edgeq_node *ni = &c->g->nodes[n->in[0]];
    int in = lq_in_t(c, n, 0);
    int32_t s4[4];
    if (ni->rank == 4) {
        s4[0] = 1, s4[1] = ni->shape[1], s4[2] = ni->shape[2], s4[3] = ni->shape[3];
    } else if (ni->rank == 3) {
        /* [1,T,C] -> [1,T,1,C] so that MAX_POOL_2D can take it */
        s4[0] = 1, s4[1] = ni->shape[1], s4[2] = 1, s4[3] = ni->shape[2];
        int rc = reshape_to(c, i, in, "/as_nhwc", 4, s4, &in);
        if (rc) return rc;
    } else {
        return lq_failf(c, EDGEQ_LOWER_UNSUPPORTED, "layer '%s' (%s): needs an input of rank 3 or 4",
                     n->name, n->keras_class);
    }
    int32_t p[4] = {1, 1, 1, s4[3]};
    int keep4 = n->rank == 4;
    int out = c->flt ? lq_act_tensor_range(c, i, keep4 ? NULL : "/pooled", 4, p, 0.0f, 0.0f)
                     : lq_same_tensor(c, i, keep4 ? NULL : "/pooled", 4, p, in);
    if (out < 0) return out;
    edgeq_qop *op = lq_op1(c, EDGE_BUILTIN_MAX_POOL_2D, lq_ver(c, 2), i, in, out);
    if (!op) return lq_oom(c);
    op->o.padding = 1;
    op->o.filter_h = s4[1];
    op->o.filter_w = s4[2];
    if (keep4) {
        c->node_t[i] = out;
        return 0;
    }
    int32_t shape[EDGEQ_MAX_RANK];
    lq_shape_of(n, shape);
    return reshape_to(c, i, out, NULL, n->rank, shape, &c->node_t[i]);
}

static int lower_pad(lower_ctx *c, int i) {
    const edgeq_node *n = &c->g->nodes[i];
    int32_t p[EDGEQ_MAX_RANK * 2];
    for (int k = 0; k < n->rank; k++) {
        p[2 * k] = n->pad[k][0];
        p[2 * k + 1] = n->pad[k][1];
    }
    int32_t pshape[2] = {n->rank, 2};
    int pt = lq_i32_const(c, n->name, "/paddings", 2, pshape, p);
    if (pt < 0) return lq_oom(c);
    int in = lq_in_t(c, n, 0);
    int32_t shape[EDGEQ_MAX_RANK];
    lq_shape_of(n, shape);
    int out = lq_same_tensor(c, i, NULL, n->rank, shape, in);
    if (out < 0) return out;
    edgeq_qop *op = lq_new_op(c, EDGE_BUILTIN_PAD, lq_ver(c, 2), i);
    if (!op) return lq_oom(c);
    op->n_in = 2;
    op->in[0] = in;
    op->in[1] = pt;
    op->n_out = 1;
    op->out[0] = out;
    c->node_t[i] = out;
    return 0;
}

/* A constant int8 scalar (shape [1]) holding exactly v: q = ±127 with
 * scale |v| / 127. */
static int scalar_const(lower_ctx *c, int i, const char *suffix, float v) {
    if (c->flt) {
        float *f = malloc(sizeof *f);
        if (!f) return -1;
        *f = v;
        int32_t fshape[1] = {1};
        return lq_float_const(c, c->g->nodes[i].name, suffix, c->wtype, 1, fshape, f, 1);
    }
    int8_t *d = malloc(1);
    if (!d) return -1;
    d[0] = v < 0 ? -127 : 127;
    int32_t shape[1] = {1};
    int t = lq_const_tensor(c, c->g->nodes[i].name, suffix, EDGE_INT8, 1, shape, d);
    if (t < 0 || lq_set_q1(&c->m->t[t], fabsf(v) / 127.0f, 0)) return -1;
    return t;
}

/* y = x * s + o on tensor `in` (float range [lo, hi] of x) into a tensor
 * with node i's calibrated parameters: MUL and/or ADD with constants. */
static int rescale_ops(lower_ctx *c, int i, int in, float lo, float hi, float s, float o,
                       int *out_t) {
    const edgeq_node *n = &c->g->nodes[i];
    if (!isfinite(s) || !isfinite(o) || s == 0.0f)
        return lq_failf(c, EDGEQ_LOWER_UNSUPPORTED, "layer '%s' (%s): rescaling by %g",
                     n->name, n->keras_class, (double)s);
    if (s == 1.0f && o == 0.0f) {
        *out_t = in;
        return 0;
    }
    int x = in;
    if (s != 1.0f) {
        int st = scalar_const(c, i, "/scale", s);
        if (st < 0) return lq_oom(c);
        int out;
        if (o == 0.0f) {
            out = lq_act_tensor(c, i);
        } else {
            float a = lo * s, b = hi * s;
            int32_t shape[EDGEQ_MAX_RANK];
            lq_shape_of(n, shape);
            out = lq_act_tensor_range(c, i, "/scaled", n->rank, shape, a < b ? a : b, a < b ? b : a);
        }
        if (out < 0) return out;
        edgeq_qop *op = lq_new_op(c, EDGE_BUILTIN_MUL, lq_ver(c, 2), i);
        if (!op) return lq_oom(c);
        op->n_in = 2;
        op->in[0] = x;
        op->in[1] = st;
        op->n_out = 1;
        op->out[0] = out;
        x = out;
    }
    if (o != 0.0f) {
        int ot = scalar_const(c, i, "/offset", o);
        if (ot < 0) return lq_oom(c);
        int out = lq_act_tensor(c, i);
        if (out < 0) return out;
        edgeq_qop *op = lq_new_op(c, EDGE_BUILTIN_ADD, lq_ver(c, 2), i);
        if (!op) return lq_oom(c);
        op->n_in = 2;
        op->in[0] = x;
        op->in[1] = ot;
        op->n_out = 1;
        op->out[0] = out;
        x = out;
    }
    *out_t = x;
    return 0;
}

static int lower_rescale(lower_ctx *c, int i) {
    const edgeq_node *n = &c->g->nodes[i];
    const edgeq_node *ni = &c->g->nodes[n->in[0]];
    if (!n->calibrated && !c->flt)
        return lq_failf(c, EDGEQ_LOWER_FAIL, "layer '%s' (%s) has no calibration range", n->name,
                     n->keras_class);
    return rescale_ops(c, i, lq_in_t(c, n, 0), ni->range_min, ni->range_max, n->scale, n->offset,
                       &c->node_t[i]);
}

static int lower_softmax(lower_ctx *c, int i) {
    const edgeq_node *n = &c->g->nodes[i];
    if (n->axis != n->rank - 1 && n->axis != 0)
        return lq_failf(c, EDGEQ_LOWER_UNSUPPORTED,
                     "layer '%s' (%s): softmax over axis %d (TFLite's is over the last axis)",
                     n->name, n->keras_class, n->axis);
    int out = lq_fixed_tensor(c, i, NULL, 1.0f / 256.0f, -128);
    if (out < 0) return out;
    edgeq_qop *op = lq_op1(c, EDGE_BUILTIN_SOFTMAX, lq_ver(c, 2), i, lq_in_t(c, n, 0), out);
    if (!op) return lq_oom(c);
    op->o.beta = 1.0f;
    c->node_t[i] = out;
    return 0;
}

static int lower_activation(lower_ctx *c, int i) {
    const edgeq_node *n = &c->g->nodes[i];
    int in = lq_in_t(c, n, 0);
    int code, version = 2, out;
    switch (n->act) {
    case EDGEQ_ACT_LINEAR: c->node_t[i] = in; return 0;
    case EDGEQ_ACT_RELU: code = EDGE_BUILTIN_RELU; break;
    case EDGEQ_ACT_RELU6: code = EDGE_BUILTIN_RELU6; break;
    case EDGEQ_ACT_RELU_N1_TO_1: code = EDGE_BUILTIN_RELU_N1_TO_1; version = 1; break;
    case EDGEQ_ACT_LEAKY_RELU: code = EDGE_BUILTIN_LEAKY_RELU; break;
    case EDGEQ_ACT_HARD_SWISH: code = EDGE_BUILTIN_HARD_SWISH; version = 1; break;
    case EDGEQ_ACT_SIGMOID: code = EDGE_BUILTIN_LOGISTIC; break;
    case EDGEQ_ACT_TANH: code = EDGE_BUILTIN_TANH; break;
    case EDGEQ_ACT_SOFTMAX: return lower_softmax(c, i);
    default:
        return lq_failf(c, EDGEQ_LOWER_UNSUPPORTED, "layer '%s' (%s): activation '%s'", n->name,
                     n->keras_class, edgeq_act_name(n->act));
    }
    if (code == EDGE_BUILTIN_LOGISTIC)
        out = lq_fixed_tensor(c, i, NULL, 1.0f / 256.0f, -128);
    else if (code == EDGE_BUILTIN_TANH)
        out = lq_fixed_tensor(c, i, NULL, 1.0f / 128.0f, 0);
    else
        out = lq_act_tensor(c, i);
    if (out < 0) return out;
    edgeq_qop *op = lq_op1(c, code, lq_ver(c, version), i, in, out);
    if (!op) return lq_oom(c);
    op->o.alpha = n->alpha;
    c->node_t[i] = out;
    return 0;
}

/* Which graph input is node i (-1 if none). */
static int input_slot(const edgeq_graph *g, int i) {
    for (int k = 0; k < g->n_inputs; k++)
        if (g->inputs[k] == i) return k;
    return -1;
}

static int is_graph_output(const edgeq_graph *g, int i) {
    for (int k = 0; k < g->n_outputs; k++)
        if (g->outputs[k] == i) return 1;
    return 0;
}

/* Can input i's folded Rescaling (x * s + o) go into its consumers'
 * weights? Every consumer must be a conv / depthwise / dense reading it as
 * its only input, and with an offset no consumer may pad (a padded tap is
 * x = 0, which is y = o, not the 0 Keras pads y with). */
static int fold_into_consumers(const edgeq_graph *g, int i, float o) {
    if (is_graph_output(g, i)) return 0;
    int any = 0;
    for (int j = i + 1; j < g->n; j++) {
        const edgeq_node *n = &g->nodes[j];
        for (int k = 0; k < n->n_in; k++) {
            if (n->in[k] != i) continue;
            any = 1;
            if (k != 0) return 0;
            if (n->op == EDGEQ_OP_DENSE) continue;
            if (n->op != EDGEQ_OP_CONV2D && n->op != EDGEQ_OP_DEPTHWISE_CONV2D) return 0;
            if (n->op == EDGEQ_OP_CONV2D && n->groups != 1) return 0;
            if (o != 0.0f && n->pad_same && (n->kh > 1 || n->kw > 1)) return 0;
        }
    }
    return any;
}

int edgeq_lower_folded_input(const edgeq_graph *g, int i, float *s, float *o) {
    const edgeq_node *n = &g->nodes[i];
    if (n->n_in < 1) return 0;
    int slot = input_slot(g, n->in[0]);
    if (slot < 0 || !g->input_folded[slot]) return 0;
    float fs = g->input_scale_fold[slot], fo = g->input_offset_fold[slot];
    if ((fs == 1.0f && fo == 0.0f) || !isfinite(fs) || !isfinite(fo) || fs == 0.0f) return 0;
    if (!fold_into_consumers(g, n->in[0], fo)) return 0;
    *s = fs;
    *o = fo;
    return 1;
}

static int lower_input(lower_ctx *c, int i) {
    const edgeq_graph *g = c->g;
    const edgeq_node *n = &g->nodes[i];
    int slot = input_slot(g, i);
    if (slot < 0)
        return lq_failf(c, EDGEQ_LOWER_FAIL, "input layer '%s' is not among the model's inputs",
                     n->name);
    if (!n->calibrated && !c->flt)
        return lq_failf(c, EDGEQ_LOWER_FAIL, "input '%s' has no calibration range", n->name);
    float s = 1.0f, o = 0.0f;
    if (g->input_folded[slot]) {
        s = g->input_scale_fold[slot];
        o = g->input_offset_fold[slot];
        if (!isfinite(s) || !isfinite(o) || s == 0.0f)
            return lq_failf(c, EDGEQ_LOWER_UNSUPPORTED, "input '%s': rescaling by %g", n->name,
                         (double)s);
    }
    /* The model input holds the raw values: y = x * s + o, so x = (y - o) / s. */
    float lo = (n->range_min - o) / s, hi = (n->range_max - o) / s;
    if (lo > hi) {
        float t = lo;
        lo = hi;
        hi = t;
    }
    int32_t shape[EDGEQ_MAX_RANK];
    lq_shape_of(n, shape);
    int raw;
    if (c->flt) { /* users feed float32 */
        raw = lq_new_tensor(c, n->name, NULL, EDGE_FLOAT32, n->rank, shape);
        if (raw < 0) return lq_oom(c);
        c->m->t[raw].node = i;
    } else {
        raw = lq_act_tensor_range(c, i, NULL, n->rank, shape, lo, hi);
    }
    if (raw < 0) return raw;
    int rt = raw;
    /* I/O conversion first, so that it is the model's first op. */
    int model_in = raw;
    if (c->o->io != EDGEQ_IO_INT8 && !c->flt) {
        edgeq_qtensor *q = &c->m->t[raw];
        int type = c->o->io == EDGEQ_IO_UINT8 ? EDGE_UINT8 : EDGE_FLOAT32;
        model_in = lq_new_tensor(c, n->name, NULL, type, n->rank, shape);
        if (model_in < 0) return lq_oom(c);
        q = &c->m->t[raw];
        if (type == EDGE_UINT8 && lq_set_q1(&c->m->t[model_in], q->scale[0], q->zero_point[0] + 128))
            return lq_oom(c);
        c->m->t[model_in].node = i;
        char *nm = malloc(strlen(q->name) + 6);
        if (!nm) return lq_oom(c);
        sprintf(nm, "%s_int8", q->name);
        free(q->name);
        q->name = nm;
        if (!lq_op1(c, EDGE_BUILTIN_QUANTIZE, type == EDGE_UINT8 ? 2 : 1, -1, model_in, raw)) return lq_oom(c);
    }
    c->m->inputs[slot] = model_in;
    if (g->input_folded[slot] && !(s == 1.0f && o == 0.0f)) {
        if (fold_into_consumers(g, i, o)) {
            for (int j = i + 1; j < g->n; j++)
                for (int k = 0; k < g->nodes[j].n_in; k++)
                    if (g->nodes[j].in[k] == i) {
                        c->fold_s[j] = s;
                        c->fold_o[j] = o;
                    }
        } else {
            int rc = rescale_ops(c, i, raw, lo, hi, s, o, &rt);
            if (rc) return rc;
        }
    }
    c->node_t[i] = rt;
    return 0;
}

static int lower_outputs(lower_ctx *c) {
    const edgeq_graph *g = c->g;
    for (int k = 0; k < g->n_outputs; k++) {
        int i = g->outputs[k];
        int t = c->node_t[i];
        snprintf(c->m->io_names_out[k], EDGEQ_NAME_LEN, "%s", g->nodes[i].name);
        if (c->flt && c->m->t[t].type != EDGE_FLOAT32)
            return lq_failf(c, EDGEQ_LOWER_FAIL, "output '%s' would not be float32", g->nodes[i].name);
        if (c->o->io == EDGEQ_IO_INT8 || c->flt) {
            c->m->outputs[k] = t;
            continue;
        }
        edgeq_qtensor *q = &c->m->t[t];
        int type = c->o->io == EDGEQ_IO_UINT8 ? EDGE_UINT8 : EDGE_FLOAT32;
        int32_t shape[EDGEQ_QT_MAX_RANK];
        memcpy(shape, q->shape, sizeof shape);
        int ot = lq_new_tensor(c, g->nodes[i].name, NULL, type, q->rank, shape);
        if (ot < 0) return lq_oom(c);
        q = &c->m->t[t];
        if (type == EDGE_UINT8 && lq_set_q1(&c->m->t[ot], q->scale[0], q->zero_point[0] + 128))
            return lq_oom(c);
        c->m->t[ot].node = i;
        if (strcmp(q->name, g->nodes[i].name) == 0) {
            char *nm = malloc(strlen(q->name) + 6);
            if (!nm) return lq_oom(c);
            sprintf(nm, "%s_int8", q->name);
            free(q->name);
            q->name = nm;
        }
        if (!lq_op1(c, type == EDGE_UINT8 ? EDGE_BUILTIN_QUANTIZE : EDGE_BUILTIN_DEQUANTIZE, 2, -1, t, ot))
            return lq_oom(c);
        c->m->outputs[k] = ot;
    }
    c->m->n_outputs = g->n_outputs;
    return 0;
}

int edgeq_lower(const edgeq_graph *g, const edgeq_lower_opts *opts, edgeq_qmodel *m, char *err,
                size_t err_len) {
    lower_ctx c = {g, opts, m, err, err_len, NULL, NULL, NULL, NULL, 0, 0, 0, NULL};
    memset(m, 0, sizeof *m);
    if (err && err_len) err[0] = 0;
    c.flt = opts->dtype != EDGEQ_DTYPE_INT8;
    c.wtype = opts->dtype == EDGEQ_DTYPE_BF16 ? EDGE_BFLOAT16 : EDGE_FLOAT32;
    c.act_type = opts->dtype == EDGEQ_DTYPE_BF16 && opts->act_bf16 ? EDGE_BFLOAT16
                                                                    : EDGE_FLOAT32;
    if (g->n <= 0 || g->n_inputs <= 0 || g->n_outputs <= 0 || g->n_inputs > 8 || g->n_outputs > 8)
        return lq_failf(&c, EDGEQ_LOWER_FAIL, "the model has no layers, inputs or outputs");
    int rc = 0;
    size_t nn = (size_t)g->n;
    c.node_t = malloc(nn * sizeof *c.node_t);
    c.n_users = calloc(nn, sizeof *c.n_users);
    c.fold_s = malloc(nn * sizeof *c.fold_s);
    c.fold_o = calloc(nn, sizeof *c.fold_o);
    c.want_f32 = calloc(nn, 1);
    if (!c.node_t || !c.n_users || !c.fold_s || !c.fold_o || !c.want_f32) {
        rc = lq_oom(&c);
        goto done;
    }
    for (int i = 0; i < g->n; i++) {
        c.node_t[i] = -1;
        c.fold_s[i] = 1.0f;
        const edgeq_node *n = &g->nodes[i];
        for (int k = 0; k < n->n_in; k++) {
            int p = n->in[k], dup = 0;
            if (p < 0 || p >= i) {
                rc = lq_failf(&c, EDGEQ_LOWER_FAIL, "layer '%s': input %d is not an earlier layer",
                           n->name, k);
                goto done;
            }
            for (int q = 0; q < k; q++) dup |= n->in[q] == p;
            if (!dup) c.n_users[p]++;
        }
    }
    for (int k = 0; k < g->n_outputs; k++) {
        if (g->outputs[k] < 0 || g->outputs[k] >= g->n) {
            rc = lq_failf(&c, EDGEQ_LOWER_FAIL, "output %d is not a layer", k);
            goto done;
        }
        c.n_users[g->outputs[k]]++;
        c.want_f32[g->outputs[k]] = 1;
    }
    /* A model output reached through ops that keep their input's type (or
     * alias it) needs FLOAT32 from the op before them. */
    for (int i = g->n - 1; i >= 0; i--) {
        const edgeq_node *n = &g->nodes[i];
        int keeps = n->op == EDGEQ_OP_RESHAPE || n->op == EDGEQ_OP_PAD ||
                    (kind_of(n) && kind_of(n)->same_params) ||
                    n->op == EDGEQ_OP_IDENTITY ||
                    (n->op == EDGEQ_OP_ACTIVATION && n->act == EDGEQ_ACT_LINEAR) ||
                    ((n->op == EDGEQ_OP_ADD || n->op == EDGEQ_OP_SUBTRACT ||
                      n->op == EDGEQ_OP_MULTIPLY) && n->n_in == 1 && n->act == EDGEQ_ACT_LINEAR);
        if (c.want_f32[i] && keeps && n->n_in >= 1) c.want_f32[n->in[0]] = 1;
    }
    m->n_inputs = g->n_inputs;
    for (int k = 0; k < g->n_inputs; k++) {
        m->inputs[k] = -1;
        if (g->inputs[k] >= 0 && g->inputs[k] < g->n)
            snprintf(m->io_names_in[k], EDGEQ_NAME_LEN, "%s", g->nodes[g->inputs[k]].name);
    }

    for (int i = 0; i < g->n && rc == 0; i++) {
        const edgeq_node *n = &g->nodes[i];
        for (int k = 0; k < n->n_in; k++)
            if (c.node_t[n->in[k]] < 0) {
                rc = lq_failf(&c, EDGEQ_LOWER_FAIL, "layer '%s': input '%s' was not lowered", n->name,
                           g->nodes[n->in[k]].name);
                goto done;
            }
        if (n->op != EDGEQ_OP_INPUT && n->n_in < 1) {
            rc = lq_failf(&c, EDGEQ_LOWER_FAIL, "layer '%s' (%s) has no input", n->name,
                       n->keras_class);
            goto done;
        }
        switch (n->op) {
        case EDGEQ_OP_INPUT: rc = lower_input(&c, i); break;
        case EDGEQ_OP_CONV2D: rc = lq_lower_conv(&c, i); break;
        case EDGEQ_OP_DEPTHWISE_CONV2D: rc = lq_lower_depthwise(&c, i); break;
        case EDGEQ_OP_DENSE: rc = lq_lower_dense(&c, i); break;
        case EDGEQ_OP_ADD:
        case EDGEQ_OP_SUBTRACT:
        case EDGEQ_OP_MULTIPLY: rc = lower_elementwise(&c, i); break;
        case EDGEQ_OP_CONCAT: rc = lower_concat(&c, i); break;
        case EDGEQ_OP_MAXPOOL:
        case EDGEQ_OP_AVGPOOL: rc = lower_pool(&c, i); break;
        case EDGEQ_OP_GLOBAL_AVGPOOL: rc = lower_global_avg(&c, i); break;
        case EDGEQ_OP_GLOBAL_MAXPOOL: rc = lower_global_max(&c, i); break;
        case EDGEQ_OP_RESHAPE: rc = lower_reshape(&c, i); break;
        case EDGEQ_OP_PAD: rc = lower_pad(&c, i); break;
        case EDGEQ_OP_RESCALE: rc = lower_rescale(&c, i); break;
        case EDGEQ_OP_SOFTMAX: rc = lower_softmax(&c, i); break;
        case EDGEQ_OP_ACTIVATION: rc = lower_activation(&c, i); break;
        case EDGEQ_OP_IDENTITY: c.node_t[i] = c.node_t[n->in[0]]; break;
        default:
            if (kind_of(n) && kind_of(n)->lower) {
                rc = kind_of(n)->lower(&c, i);
                break;
            }
            rc = lq_failf(&c, EDGEQ_LOWER_UNSUPPORTED,
                       "layer '%s' (%s): %s has no int8 lowering (the passes should have removed it)",
                       n->name, n->keras_class, edgeq_op_name(n->op));
        }
        if (rc > 0) rc = EDGEQ_LOWER_FAIL; /* a tensor index leaked through */
    }
    if (rc == 0) rc = lower_outputs(&c);
    if (rc == 0)
        for (int k = 0; k < g->n_inputs; k++)
            if (m->inputs[k] < 0) rc = lq_failf(&c, EDGEQ_LOWER_FAIL, "input %d was not lowered", k);
done:
    free(c.node_t);
    free(c.n_users);
    free(c.fold_s);
    free(c.fold_o);
    free(c.want_f32);
    return rc;
}

void edgeq_qmodel_free(edgeq_qmodel *m) {
    for (int i = 0; i < m->n_t; i++) {
        free(m->t[i].name);
        free(m->t[i].scale);
        free(m->t[i].zero_point);
        free(m->t[i].data);
    }
    free(m->t);
    free(m->ops);
    memset(m, 0, sizeof *m);
}

/* Per channel in an int8 file: a float scale and an int64 zero point. */
#define QPARAM_BYTES (sizeof(float) + sizeof(int64_t))

void edgeq_qop_param_bytes_as(const edgeq_qmodel *m, int i, size_t *f32, size_t *int8) {
    const edgeq_qop *op = &m->ops[i];
    int weighted = op->code == EDGE_BUILTIN_CONV_2D || op->code == EDGE_BUILTIN_DEPTHWISE_CONV_2D ||
                   op->code == EDGE_BUILTIN_FULLY_CONNECTED;
    *f32 = *int8 = 0;
    for (int k = 0; k < op->n_in; k++) {
        if (op->in[k] < 0 || !m->t[op->in[k]].data) continue;
        const edgeq_qtensor *t = &m->t[op->in[k]];
        size_t n = lq_numel_of(t->rank, t->shape);
        if (weighted && k == 1) { /* filter: channels are dimension 0 (depthwise: 3) */
            size_t ch = (size_t)(op->code == EDGE_BUILTIN_DEPTHWISE_CONV_2D && t->rank == 4 ? t->shape[3]
                                                                                 : t->shape[0]);
            *f32 += 4 * n;
            *int8 += n + ch * QPARAM_BYTES;
        } else if (weighted && k == 2) { /* bias: int32 and its scales */
            *f32 += 4 * n;
            *int8 += 4 * n + n * QPARAM_BYTES;
        } else if (t->type == EDGE_INT32) {
            *f32 += t->bytes;
            *int8 += t->bytes;
        } else {
            *f32 += 4 * n;
            *int8 += n + QPARAM_BYTES;
        }
    }
}

size_t edgeq_qop_param_bytes(const edgeq_qmodel *m, int i) {
    size_t b = 0;
    const edgeq_qop *op = &m->ops[i];
    for (int k = 0; k < op->n_in; k++)
        if (op->in[k] >= 0 && m->t[op->in[k]].data) b += m->t[op->in[k]].bytes;
    return b;
}
