/* SPDX-License-Identifier: Apache-2.0 */
/*
 * emit.c — adding tensors and operators to the model being lowered (see
 * lower_ctx.h).
 */
#include "lower_ctx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf16.h"
#include "edge/edge.h"
#include "err.h"

int lq_failf(lower_ctx *c, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    edgeq_vfail(c->err, c->err_len, fmt, ap);
    va_end(ap);
    return code;
}

int lq_oom(lower_ctx *c) { return lq_failf(c, EDGEQ_LOWER_FAIL, "out of memory"); }

size_t lq_type_size(int type) {
    if (type == EDGE_BFLOAT16) return 2;
    return type == EDGE_INT8 || type == EDGE_UINT8 ? 1 : 4;
}

/* The operator version to write: the int8 one, or 1 in a float file (what
 * op_version.cc gives float32 operands; the exceptions are set where they
 * arise). */
int lq_ver(const lower_ctx *c, int int8_version) { return c->flt ? 1 : int8_version; }

/* Float files: the type of node i's output tensors. */
int lq_node_type(const lower_ctx *c, int i) {
    return c->want_f32[i] ? EDGE_FLOAT32 : c->act_type;
}

size_t lq_numel_of(int rank, const int32_t *shape) {
    size_t e = 1;
    for (int i = 0; i < rank; i++) e *= (size_t)shape[i];
    return e;
}

/* A new tensor "name""suffix"; returns its index or -1 (out of memory). */
int lq_new_tensor(lower_ctx *c, const char *name, const char *suffix, int type, int rank,
                      const int32_t *shape) {
    edgeq_qmodel *m = c->m;
    if (m->n_t == m->cap_t) {
        int cap = m->cap_t ? m->cap_t * 2 : 64;
        edgeq_qtensor *t = realloc(m->t, (size_t)cap * sizeof *t);
        if (!t) return -1;
        m->t = t;
        m->cap_t = cap;
    }
    edgeq_qtensor *t = &m->t[m->n_t];
    memset(t, 0, sizeof *t);
    size_t n1 = strlen(name), n2 = suffix ? strlen(suffix) : 0;
    t->name = malloc(n1 + n2 + 1);
    if (!t->name) return -1;
    memcpy(t->name, name, n1);
    if (n2) memcpy(t->name + n1, suffix, n2);
    t->name[n1 + n2] = 0;
    t->type = type;
    t->rank = rank;
    for (int i = 0; i < rank; i++) t->shape[i] = shape[i];
    t->bytes = lq_numel_of(rank, shape) * lq_type_size(type);
    t->node = -1;
    return m->n_t++;
}

int lq_set_q(edgeq_qtensor *t, int n, const float *scale, const int64_t *zp, int qdim) {
    free(t->scale);
    free(t->zero_point);
    t->scale = malloc((size_t)n * sizeof *t->scale);
    t->zero_point = calloc((size_t)n, sizeof *t->zero_point);
    if (!t->scale || !t->zero_point) return -1;
    memcpy(t->scale, scale, (size_t)n * sizeof *scale);
    if (zp) memcpy(t->zero_point, zp, (size_t)n * sizeof *zp);
    t->n_q = n;
    t->qdim = qdim;
    return 0;
}

int lq_set_q1(edgeq_qtensor *t, float scale, int64_t zp) { return lq_set_q(t, 1, &scale, &zp, 0); }

int lq_copy_q(edgeq_qtensor *dst, const edgeq_qtensor *src) {
    return lq_set_q(dst, src->n_q, src->scale, src->zero_point, src->qdim);
}

int lq_same_q(const edgeq_qtensor *a, const edgeq_qtensor *b) {
    return a->n_q == 1 && b->n_q == 1 && a->scale[0] == b->scale[0] &&
           a->zero_point[0] == b->zero_point[0];
}

/* A constant tensor that takes ownership of `data` (freed on failure). */
int lq_const_tensor(lower_ctx *c, const char *name, const char *suffix, int type, int rank,
                        const int32_t *shape, void *data) {
    int t = lq_new_tensor(c, name, suffix, type, rank, shape);
    if (t < 0) {
        free(data);
        return -1;
    }
    c->m->t[t].data = data;
    return t;
}

int lq_i32_const(lower_ctx *c, const char *name, const char *suffix, int rank,
                     const int32_t *shape, const int32_t *values) {
    size_t n = lq_numel_of(rank, shape);
    int32_t *d = malloc((n ? n : 1) * sizeof *d);
    if (!d) return -1;
    memcpy(d, values, n * sizeof *d);
    return lq_const_tensor(c, name, suffix, EDGE_INT32, rank, shape, d);
}

edgeq_qop *lq_new_op(lower_ctx *c, int code, int version, int node) {
    edgeq_qmodel *m = c->m;
    if (m->n_ops == m->cap_ops) {
        int cap = m->cap_ops ? m->cap_ops * 2 : 64;
        edgeq_qop *o = realloc(m->ops, (size_t)cap * sizeof *o);
        if (!o) return NULL;
        m->ops = o;
        m->cap_ops = cap;
    }
    edgeq_qop *op = &m->ops[m->n_ops++];
    memset(op, 0, sizeof *op);
    op->code = code;
    op->version = version;
    op->node = node;
    op->o.stride_w = op->o.stride_h = op->o.dil_w = op->o.dil_h = 1;
    return op;
}

edgeq_qop *lq_op1(lower_ctx *c, int code, int version, int node, int in, int out) {
    edgeq_qop *op = lq_new_op(c, code, version, node);
    if (!op) return NULL;
    op->n_in = 1;
    op->in[0] = in;
    op->n_out = 1;
    op->out[0] = out;
    return op;
}

void lq_shape_of(const edgeq_node *n, int32_t *shape) {
    for (int i = 0; i < n->rank; i++) shape[i] = n->shape[i];
}

/* The int8 output tensor of node i with the converter's parameters for the
 * range [lo, hi]. */
int lq_act_tensor_range(lower_ctx *c, int i, const char *suffix, int rank,
                            const int32_t *shape, float lo, float hi) {
    const edgeq_node *n = &c->g->nodes[i];
    if (c->flt) {
        int ft = lq_new_tensor(c, n->name, suffix, lq_node_type(c, i), rank, shape);
        if (ft < 0) return lq_oom(c);
        c->m->t[ft].node = i;
        return ft;
    }
    float s;
    int32_t zp;
    if (edgeq_act_qparams(lo, hi, &s, &zp) != 0)
        return lq_failf(c, EDGEQ_LOWER_FAIL,
                     "layer '%s' (%s): its calibrated output range [%g, %g] is not usable "
                     "(NaN or infinite values: check the calibration data and the weights)",
                     n->name, n->keras_class, (double)lo, (double)hi);
    int t = lq_new_tensor(c, n->name, suffix, EDGE_INT8, rank, shape);
    if (t < 0 || lq_set_q1(&c->m->t[t], s, zp)) return lq_oom(c);
    c->m->t[t].node = i;
    return t;
}

int lq_act_tensor(lower_ctx *c, int i) {
    const edgeq_node *n = &c->g->nodes[i];
    if (!n->calibrated && !c->flt)
        return lq_failf(c, EDGEQ_LOWER_FAIL, "layer '%s' (%s) has no calibration range", n->name,
                     n->keras_class);
    int32_t shape[EDGEQ_MAX_RANK];
    lq_shape_of(n, shape);
    return lq_act_tensor_range(c, i, NULL, n->rank, shape, n->range_min, n->range_max);
}

/* An int8 tensor with the given parameters. */
int lq_fixed_tensor(lower_ctx *c, int i, const char *suffix, float scale, int32_t zp) {
    const edgeq_node *n = &c->g->nodes[i];
    int32_t shape[EDGEQ_MAX_RANK];
    lq_shape_of(n, shape);
    if (c->flt) return lq_act_tensor_range(c, i, suffix, n->rank, shape, 0.0f, 0.0f);
    int t = lq_new_tensor(c, n->name, suffix, EDGE_INT8, n->rank, shape);
    if (t < 0 || lq_set_q1(&c->m->t[t], scale, zp)) return lq_oom(c);
    c->m->t[t].node = i;
    return t;
}

/* A tensor of node i's shape with the parameters of tensor `like`. */
int lq_same_tensor(lower_ctx *c, int i, const char *suffix, int rank, const int32_t *shape,
                       int like) {
    const edgeq_node *n = &c->g->nodes[i];
    if (c->flt) {
        /* Data movement keeps its input's type, except for the node's own
         * output towards a model output (edgeq_lower made its input
         * FLOAT32 too); intermediate steps (suffix) keep it always. */
        int type = c->want_f32[i] && !suffix ? EDGE_FLOAT32 : c->m->t[like].type;
        int ft = lq_new_tensor(c, n->name, suffix, type, rank, shape);
        if (ft < 0) return lq_oom(c);
        c->m->t[ft].node = i;
        return ft;
    }
    int t = lq_new_tensor(c, n->name, suffix, EDGE_INT8, rank, shape);
    if (t < 0 || lq_copy_q(&c->m->t[t], &c->m->t[like])) return lq_oom(c);
    c->m->t[t].node = i;
    return t;
}

int lq_in_t(lower_ctx *c, const edgeq_node *n, int k) { return c->node_t[n->in[k]]; }

float lq_tscale(lower_ctx *c, int t) { return c->flt ? 0.0f : c->m->t[t].scale[0]; }

int lq_fused_act(lower_ctx *c, const edgeq_node *n, int *act) {
    switch (n->act) {
    case EDGEQ_ACT_LINEAR: *act = EDGE_ACTIVATION_FUNCTION_TYPE_NONE; return 0;
    case EDGEQ_ACT_RELU: *act = EDGE_ACTIVATION_FUNCTION_TYPE_RELU; return 0;
    case EDGEQ_ACT_RELU6: *act = EDGE_ACTIVATION_FUNCTION_TYPE_RELU6; return 0;
    case EDGEQ_ACT_RELU_N1_TO_1: *act = EDGE_ACTIVATION_FUNCTION_TYPE_RELU_N1_TO_1; return 0;
    default:
        return lq_failf(c, EDGEQ_LOWER_UNSUPPORTED,
                     "layer '%s' (%s): activation '%s' cannot be fused into %s in int8 TFLite",
                     n->name, n->keras_class, edgeq_act_name(n->act), edgeq_op_name(n->op));
    }
}

int lq_float_const(lower_ctx *c, const char *name, const char *suffix, int type, int rank,
                       const int32_t *shape, float *v, size_t n) {
    if (type == EDGE_BFLOAT16) {
        uint8_t *d = malloc(n ? 2 * n : 1);
        if (!d) {
            free(v);
            return -1;
        }
        edgeq_bf16_pack(v, n, d);
        free(v);
        return lq_const_tensor(c, name, suffix, type, rank, shape, d);
    }
    return lq_const_tensor(c, name, suffix, type, rank, shape, v);
}

/* Float files: the filter in the weight type, the bias (zeros when the
 * layer has none) in float32. Takes ownership of wt and b. */
