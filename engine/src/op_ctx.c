/* SPDX-License-Identifier: Apache-2.0 */
/*
 * op_ctx.c — what operators use to read their operands and options.
 */
#include "model.h"

/* The record is rebuilt into the slot of its operand position, then shown
 * as the context's view of it, if any. */
static edge_tensor_rt *operand(const edge_op_ctx *c, uint32_t slot) {
    int32_t t = c->op->io[slot];
    if (t < 0) return 0;
    edge_tensor_rt *r = edge_tensor_record(c->m, (uint32_t)t, &c->m->rt->slots[slot]);
    if (c->view && c->view[slot].set) {
        r->t.type = (edge_type)c->view[slot].type;
        r->t.bytes = c->view[slot].bytes;
        if (c->view[slot].data) r->t.data = c->view[slot].data;
    }
    return r;
}

static void *operand_data(const edge_op_ctx *c, uint32_t slot) {
    int32_t t = c->op->io[slot];
    if (t < 0) return 0;
    if (c->view && c->view[slot].set && c->view[slot].data) return c->view[slot].data;
    return edge_tensor_data_at(c->m, (uint32_t)t);
}

void *edge_in_data(const edge_op_ctx *c, uint32_t i) {
    return i < c->op->n_in ? operand_data(c, i) : 0;
}

void *edge_out_data(const edge_op_ctx *c, uint32_t i) {
    return i < c->op->n_out ? operand_data(c, c->op->n_in + i) : 0;
}

edge_tensor_rt *edge_in(const edge_op_ctx *c, uint32_t i) {
    return i < c->op->n_in ? operand(c, i) : 0;
}

edge_tensor_rt *edge_out(const edge_op_ctx *c, uint32_t i) {
    return i < c->op->n_out ? operand(c, c->op->n_in + i) : 0;
}

int32_t edge_opt_i32(const edge_op_ctx *c, uint32_t field, int32_t def) {
    return fb_i32(c->op->options, field, def);
}

int32_t edge_opt_u8(const edge_op_ctx *c, uint32_t field, int32_t def) {
    return fb_u8(c->op->options, field, (uint8_t)def);
}

float edge_opt_f32(const edge_op_ctx *c, uint32_t field, float def) {
    return fb_f32(c->op->options, field, def);
}

const uint8_t *edge_opt_vec_i32(const edge_op_ctx *c, uint32_t field, uint32_t *count) {
    fb_vec v = fb_vec_field(c->op->options, field, 4);
    *count = v.count;
    return fb_vec_data(v);
}

float edge_q_scale(const edge_tensor_rt *t, uint32_t i) {
    if (!t->q_count) return 0.0f;
    return fb_f32_at(t->q_scale, i < t->q_count ? i : 0);
}

int32_t edge_q_zero(const edge_tensor_rt *t, uint32_t i) {
    if (!t->q_count || !t->q_zero) return 0;
    return (int32_t)fb_i64_at(t->q_zero, i < t->q_count ? i : 0);
}

int64_t edge_numel(const edge_tensor *t) {
    int64_t n = 1;
    for (int32_t i = 0; i < t->rank; i++) n *= t->dims[i];
    return n;
}

int32_t edge_dim(const edge_tensor *t, int32_t i) {
    if (i < 0) i += t->rank;
    return i >= 0 && i < t->rank ? t->dims[i] : 1;
}

int edge_same_shape(const edge_tensor *a, const edge_tensor *b) {
    if (a->rank != b->rank) return 0;
    for (int32_t i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i]) return 0;
    return 1;
}
