/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keras_shapes.c — the output shape of each node, as Keras computes it.
 *
 * Shapes are NHWC with the batch (1) first. Convolutions and pools follow
 * Keras's rules: 'valid' gives floor((in - effective_kernel) / stride) + 1,
 * 'same' gives ceil(in / stride), with effective_kernel = (k - 1) * dilation
 * + 1. Every shape is checked: positive dimensions, at most EDGEQ_MAX_RANK
 * of them, no more than KERAS_MAX_ELEMS elements.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "graph/op_kind.h"
#include "keras_internal.h"
#include "err.h"

static void shape_str(const edgeq_node *n, char *buf, size_t len) {
    size_t o = (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < n->rank && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%d", i ? ", " : "", n->shape[i]);
    if (o < len) snprintf(buf + o, len - o, "]");
}

static int spatial_out(int in, int k, int stride, int dil, int same, int *out) {
    long eff = (long)(k - 1) * dil + 1;
    long o = same ? ((long)in + stride - 1) / stride : (in >= eff ? (in - eff) / stride + 1 : 0);
    *out = (int)o;
    return o > 0 ? 0 : -1;
}

/* Normalize an axis against `rank`; the batch axis (0) is refused. */
static int norm_axis(int axis, int rank, int *out) {
    if (axis < 0) axis += rank;
    if (axis < 1 || axis >= rank) return -1;
    *out = axis;
    return 0;
}

int keras_infer_shape(edgeq_graph *g, int idx, char *err, size_t errlen) {
    edgeq_node *n = &g->nodes[idx];
    const edgeq_node *in = n->n_in > 0 ? &g->nodes[n->in[0]] : NULL;
    char a[80], b[80];
    for (int i = 0; i < n->n_in; i++)
        if (n->in[i] < 0 || n->in[i] >= idx)
            return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "input %d is not an earlier node", i);
    if (n->op != EDGEQ_OP_INPUT && !in) return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "has no input");
    switch (n->op) {
    case EDGEQ_OP_INPUT:
        break;
    case EDGEQ_OP_CONV2D:
    case EDGEQ_OP_DEPTHWISE_CONV2D: {
        if (in->rank != 4) {
            shape_str(in, a, sizeof a);
            return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "needs a 4-D NHWC input, is given %s", a);
        }
        int oh, ow, cin = in->shape[3], cout;
        if (n->op == EDGEQ_OP_CONV2D) {
            if (n->groups < 1 || cin % n->groups || n->filters % n->groups)
                return edgeq_fail_layer(err, errlen, n->name, n->keras_class,
                            "groups=%d must divide the input channels (%d) and filters (%d)",
                            n->groups, cin, n->filters);
            cout = n->filters;
        } else {
            if ((long)cin * n->depth_multiplier > KERAS_MAX_DIM)
                return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "too many output channels");
            cout = cin * n->depth_multiplier;
            n->filters = cout;
        }
        if (spatial_out(in->shape[1], n->kh, n->stride_h, n->dil_h, n->pad_same, &oh) ||
            spatial_out(in->shape[2], n->kw, n->stride_w, n->dil_w, n->pad_same, &ow)) {
            shape_str(in, a, sizeof a);
            return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "a %dx%d kernel (dilation %dx%d) does not fit input %s",
                        n->kh, n->kw, n->dil_h, n->dil_w, a);
        }
        n->rank = 4;
        n->shape[0] = 1, n->shape[1] = oh, n->shape[2] = ow, n->shape[3] = cout;
        break;
    }
    case EDGEQ_OP_DENSE:
        if (in->rank < 2) return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "needs an input of rank 2 or more");
        n->rank = in->rank;
        memcpy(n->shape, in->shape, sizeof n->shape);
        n->shape[n->rank - 1] = n->filters;
        break;
    case EDGEQ_OP_BATCHNORM:
    case EDGEQ_OP_SOFTMAX:
        if (in->rank < 2) return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "needs an input of rank 2 or more");
        if (norm_axis(n->axis, in->rank, &n->axis) || n->axis != in->rank - 1)
            return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "axis %d is not supported: only the last axis (-1)",
                        n->axis);
        /* fall through */
    case EDGEQ_OP_ACTIVATION:
    case EDGEQ_OP_RESCALE:
    case EDGEQ_OP_IDENTITY:
        n->rank = in->rank;
        memcpy(n->shape, in->shape, sizeof n->shape);
        break;
    case EDGEQ_OP_ADD:
    case EDGEQ_OP_SUBTRACT:
    case EDGEQ_OP_MULTIPLY:
        for (int i = 1; i < n->n_in; i++) {
            const edgeq_node *o = &g->nodes[n->in[i]];
            int same = o->rank == in->rank;
            for (int d = 0; same && d < in->rank; d++) same = o->shape[d] == in->shape[d];
            if (!same) {
                shape_str(in, a, sizeof a);
                shape_str(o, b, sizeof b);
                return edgeq_fail_layer(err, errlen, n->name, n->keras_class,
                            "inputs of different shapes (%s and %s) are not supported", a, b);
            }
        }
        n->rank = in->rank;
        memcpy(n->shape, in->shape, sizeof n->shape);
        break;
    case EDGEQ_OP_CONCAT: {
        int axis;
        if (norm_axis(n->axis, in->rank, &axis))
            return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "axis %d is not valid for rank %d", n->axis, in->rank);
        n->axis = axis;
        n->rank = in->rank;
        memcpy(n->shape, in->shape, sizeof n->shape);
        long sum = in->shape[axis];
        for (int i = 1; i < n->n_in; i++) {
            const edgeq_node *o = &g->nodes[n->in[i]];
            int same = o->rank == in->rank;
            for (int d = 0; same && d < in->rank; d++)
                same = d == axis || o->shape[d] == in->shape[d];
            if (!same) {
                shape_str(in, a, sizeof a);
                shape_str(o, b, sizeof b);
                return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "inputs %s and %s differ off axis %d", a, b, axis);
            }
            sum += o->shape[axis];
        }
        if (sum > KERAS_MAX_DIM) return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "the result is too large");
        n->shape[axis] = (int)sum;
        break;
    }
    case EDGEQ_OP_MAXPOOL:
    case EDGEQ_OP_AVGPOOL: {
        int oh, ow;
        if (in->rank != 4) return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "needs a 4-D NHWC input");
        if (spatial_out(in->shape[1], n->kh, n->stride_h, 1, n->pad_same, &oh) ||
            spatial_out(in->shape[2], n->kw, n->stride_w, 1, n->pad_same, &ow)) {
            shape_str(in, a, sizeof a);
            return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "a %dx%d pool does not fit input %s", n->kh, n->kw, a);
        }
        n->rank = 4;
        n->shape[0] = 1, n->shape[1] = oh, n->shape[2] = ow, n->shape[3] = in->shape[3];
        break;
    }
    case EDGEQ_OP_GLOBAL_AVGPOOL:
    case EDGEQ_OP_GLOBAL_MAXPOOL:
        if (in->rank != 4) return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "needs a 4-D NHWC input");
        if (n->keepdims) {
            n->rank = 4;
            n->shape[0] = n->shape[1] = n->shape[2] = 1;
            n->shape[3] = in->shape[3];
        } else {
            n->rank = 2;
            n->shape[0] = 1;
            n->shape[1] = in->shape[3];
            n->shape[2] = n->shape[3] = 0;
        }
        break;
    case EDGEQ_OP_RESHAPE: {
        size_t total = edgeq_node_numel(in), known = 1;
        int unknown = -1;
        if (n->rank < 1 || n->rank > EDGEQ_MAX_RANK)
            return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "target rank %d is not supported", n->rank);
        n->shape[0] = 1;
        for (int d = 1; d < n->rank; d++) {
            if (n->shape[d] == -1) {
                if (unknown >= 0) return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "more than one -1 in the shape");
                unknown = d;
            } else if (n->shape[d] < 1) {
                return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "dimension %d is %d", d, n->shape[d]);
            } else {
                known *= (size_t)n->shape[d];
                if (known > KERAS_MAX_ELEMS) return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "the shape is too large");
            }
        }
        if (unknown >= 0) {
            if (total % known) {
                shape_str(in, a, sizeof a);
                return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "input %s cannot be reshaped (sizes do not divide)",
                            a);
            }
            n->shape[unknown] = (int)(total / known);
        } else if (known != total) {
            shape_str(in, a, sizeof a);
            shape_str(n, b, sizeof b);
            return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "input %s (%zu elements) cannot become %s", a, total, b);
        }
        break;
    }
    case EDGEQ_OP_PAD:
        if (in->rank != 4) return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "needs a 4-D NHWC input");
        n->rank = 4;
        for (int d = 0; d < 4; d++) {
            long v = (long)in->shape[d] + n->pad[d][0] + n->pad[d][1];
            if (n->pad[d][0] < 0 || n->pad[d][1] < 0 || v > KERAS_MAX_DIM)
                return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "invalid padding on dimension %d", d);
            n->shape[d] = (int)v;
        }
        break;
    default: {
        const edgeq_op_kind *kind = edgeq_op_kind_of(n->op);
        if (!kind || !kind->shape)
            return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "no shape rule for op %s", edgeq_op_name(n->op));
        if (kind->shape(n, in, &n->rank, n->shape, err, errlen)) return -1;
        break;
    }
    }
    /* Every shape, inputs included, must be sane. */
    if (n->rank < 1 || n->rank > EDGEQ_MAX_RANK)
        return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "rank %d is not supported", n->rank);
    size_t e = 1;
    for (int d = 0; d < n->rank; d++) {
        if (n->shape[d] < 1 || n->shape[d] > KERAS_MAX_DIM)
            return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "dimension %d is %d", d, n->shape[d]);
        e *= (size_t)n->shape[d];
        if (e > KERAS_MAX_ELEMS) {
            shape_str(n, a, sizeof a);
            return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "output %s is too large (more than %zu elements)", a,
                        KERAS_MAX_ELEMS);
        }
    }
    for (int d = n->rank; d < EDGEQ_MAX_RANK; d++) n->shape[d] = 0;
    if (n->shape[0] != 1) return edgeq_fail_layer(err, errlen, n->name, n->keras_class, "batch dimension must be 1");
    return 0;
}
