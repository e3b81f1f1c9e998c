/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tensor.c — a tensor's full record, rebuilt from the model on demand
 * (edge_tensor_record; the arena keeps only its edge_tensor_state), and
 * where its bytes are. The loader (model.c) and the ops' context
 * (op_ctx.c) both read tensors through here.
 */
#include "model.h"

/* One pointer for every unnamed tensor: same_record compares names. */
static const char no_name[] = "";

/* Where tensor t's bytes are: constants in the model, activations in the
 * arena once planned (NULL before). */
static void *tensor_data(const edge_model *m, uint32_t t) {
    const edge_tensor_state *s = &m->tensors[t];
    if (s->is_const) return (void *)(uintptr_t)(m->data + s->data_off);
    if (s->fused) return 0; /* only ever rows in a fused pair's scratch */
    const uint8_t *act = m->rt->act;
    if (!act) return 0;
    if (s->alias_of >= 0) s = &m->tensors[s->alias_of];
    return (void *)(uintptr_t)(s->offset >= 0 ? act + s->offset : act); /* unused or empty: base */
}

/* The rebuild reads the model without bounds checks: the load verified
 * every table, vector and string it touches. The load also reads each
 * tensor "checked", as fb.c would: a field that lies past its table's
 * inline size (the vtable's second length, `lim`) reads as absent; it
 * rejects a tensor whose two reads differ. */
typedef struct fast_table {
    const uint8_t *b;
    uint32_t pos, vt, vlen, lim;
} fast_table;

static inline uint32_t fast_follow(const uint8_t *b, uint32_t at) { return at + fb_rd_u32(b + at); }

static inline fast_table fast_at(const uint8_t *b, uint32_t pos, int checked) {
    fast_table t;
    t.b = b;
    t.pos = pos;
    t.vt = pos - fb_rd_u32(b + pos); /* pos - soffset, modulo 2^32 */
    t.vlen = fb_rd_u16(b + t.vt);
    t.lim = checked ? fb_rd_u16(b + t.vt + 2) : 0x20000u; /* above any offset + size */
    return t;
}

/* Where field f's `size`-byte value is, 0 when absent. */
static inline uint32_t fast_field(const fast_table *t, uint32_t f, uint32_t size) {
    const uint32_t slot = 4u + 2u * f;
    if (slot + 2u > t->vlen) return 0;
    const uint32_t off = fb_rd_u16(t->b + t->vt + slot);
    return off && off + size <= t->lim ? t->pos + off : 0;
}

/* A vector field's data and count (NULL and 0 when absent or empty). */
static inline const uint8_t *fast_vec(const fast_table *t, uint32_t f, uint32_t *count) {
    const uint32_t at = fast_field(t, f, 4);
    *count = 0;
    if (!at) return 0;
    const uint32_t v = fast_follow(t->b, at);
    *count = fb_rd_u32(t->b + v);
    return *count ? t->b + v + 4 : 0;
}

void edge_tensor_read(const edge_model *m, uint32_t i, edge_tensor_rt *r, int checked) {
    const uint8_t *b = m->data;
    const fast_table t = fast_at(b, fast_follow(b, m->rt->tensors_pos + 4u * i), checked);
    uint32_t f = fast_field(&t, TENSOR_NAME, 4);
    r->t.name = f ? (const char *)(b + fast_follow(b, f) + 4) : no_name;
    f = fast_field(&t, TENSOR_TYPE, 1);
    r->t.type = (edge_type)(f ? (int8_t)b[f] : 0);
    f = fast_field(&t, TENSOR_IS_VARIABLE, 1);
    r->is_variable = (uint8_t)(f ? b[f] != 0 : 0);
    uint32_t rank;
    const uint8_t *dims = fast_vec(&t, TENSOR_SHAPE, &rank);
    r->t.rank = (int32_t)rank;
    for (uint32_t d = 0; d < EDGE_MAX_DIMS; d++) r->t.dims[d] = d < rank ? fb_i32_at(dims, d) : 0;
    r->q_scale = r->q_zero = 0;
    r->q_count = 0;
    r->q_dim = 0;
    r->t.scale = 0.0f;
    r->t.zero_point = 0;
    f = fast_field(&t, TENSOR_QUANTIZATION, 4);
    if (f) {
        const fast_table q = fast_at(b, fast_follow(b, f), checked);
        uint32_t nz;
        r->q_scale = fast_vec(&q, QUANT_SCALE, &r->q_count);
        r->q_zero = fast_vec(&q, QUANT_ZERO_POINT, &nz);
        f = fast_field(&q, QUANT_DIMENSION, 4);
        r->q_dim = f ? fb_rd_i32(b + f) : 0;
        if (r->q_count > 1) {
            /* TOCO-era files give 1-D biases a quantized_dimension past
             * their rank; TFLM runs them, so the engine reads the only
             * dimension there is (documented in docs/engine.md). The load
             * rejects any other mismatch (a rank past EDGE_MAX_DIMS too). */
            int ok = r->q_dim >= 0 && r->q_dim < r->t.rank && r->q_dim < EDGE_MAX_DIMS &&
                     (uint32_t)r->t.dims[r->q_dim] == r->q_count;
            if (!ok && r->t.rank == 1 && (uint32_t)r->t.dims[0] == r->q_count) r->q_dim = 0;
        }
        if (r->q_count) {
            r->t.scale = fb_f32_at(r->q_scale, 0);
            r->t.zero_point = r->q_zero ? (int32_t)fb_i64_at(r->q_zero, 0) : 0;
        }
    }
    f = fast_field(&t, TENSOR_BUFFER, 4);
    r->buffer = f ? fb_rd_u32(b + f) : 0;
}

edge_tensor_rt *edge_tensor_record(const edge_model *m, uint32_t t, edge_tensor_rt *dst) {
    const edge_tensor_state *s = &m->tensors[t];
    edge_tensor_read(m, t, dst, 0);
    dst->t.type = (edge_type)s->type;
    dst->t.bytes = s->bytes;
    dst->t.data = tensor_data(m, t);
    dst->is_const = s->is_const;
    dst->offset = s->offset;
    dst->alias_of = s->alias_of;
    return dst;
}

void *edge_tensor_data_at(const edge_model *m, uint32_t t) { return tensor_data(m, t); }
