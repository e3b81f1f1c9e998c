/*
 * verify.c — structural verification of a TFLite flatbuffer before any of
 * it is used: every table header, vector and string the engine reads lies
 * inside the buffer, and every index (opcode, tensor, buffer) is in range.
 * The accessors in fb.c are bounds-checked as well; this pass exists so that
 * a malformed model is refused at load, with the table and field named,
 * rather than read as defaults.
 */
#include "model.h"
#include "verify_schema.h"

typedef struct vctx {
    edge_model *m;
    uint32_t n_buffers;
} vctx;

/* ---- schema walk: the checks of flatc's generated Verify() functions ----
 * Every table reachable from the root is checked field by field against the
 * schema (verify_schema.h): scalars aligned to their size and in bounds,
 * offsets 4-aligned, non-zero, non-negative and landing in the buffer,
 * vectors and strings whole in the buffer (strings NUL-terminated; scalar
 * vector data aligned to the element size, which the official verifier of
 * flatbuffers 2.0 does not ask but every writer does), union
 * members verified as their type's table, at most 64 tables deep and at
 * most 1,000,000 table visits (a DAG of shared tables cannot make the walk
 * explode). Whatever the official FlatBuffers verifier rejects is rejected
 * here too (tests/fuzz checks it). The walk does not trust fb.c's helpers:
 * those return defaults on bad input, this reports where it is. */
#define VS_MAX_DEPTH 64u
#define VS_MAX_TABLES 1000000u
#define VS_MAX_BUFFER 0x7fffffffu

typedef struct wctx {
    const uint8_t *b;
    uint32_t len;
    uint32_t tables;
    uint32_t bad_at;        /* byte offset of the first failure */
    const char *bad_table;  /* and the table and field being checked */
    uint32_t bad_field;
} wctx;

/* flatbuffers::Verifier::Verify: len < size and the range inside. */
static int w_in(const wctx *w, uint64_t at, uint64_t n) { return n < w->len && at <= w->len - n; }
static int w_aligned(uint64_t at, uint32_t a) { return (at & (a - 1u)) == 0; }

static int w_fail(wctx *w, uint64_t at, uint16_t table, uint32_t field) {
    if (!w->bad_table) {
        w->bad_at = (uint32_t)(at < w->len ? at : w->len);
        w->bad_table = vs_tables[table].name;
        w->bad_field = field;
    }
    return 0;
}

/* A vector or string at `at`: length field aligned and inside, the data
 * inside; *end gets the offset just past the data. */
static int w_vector(const wctx *w, uint64_t at, uint32_t elem, uint64_t *end, uint32_t *count) {
    if (!w_aligned(at, 4) || !w_in(w, at, 4)) return 0;
    uint32_t n = fb_rd_u32(w->b + at);
    if (n >= VS_MAX_BUFFER / elem) return 0;
    uint64_t bytes = 4u + (uint64_t)elem * n;
    *end = at + bytes;
    *count = n;
    return w_in(w, at, bytes);
}

static int w_string(const wctx *w, uint64_t at) {
    uint64_t end;
    uint32_t n;
    return w_vector(w, at, 1, &end, &n) && w_in(w, end, 1) && w->b[end] == 0;
}

/* The uoffset stored at `at` (a table field): its target, or 0. */
static uint64_t w_offset(const wctx *w, uint64_t at) {
    if (!w_aligned(at, 4) || !w_in(w, at, 4)) return 0;
    uint32_t o = fb_rd_u32(w->b + at);
    if (o == 0 || o > 0x7fffffffu || !w_in(w, at + o, 1)) return 0;
    return at + o;
}

static int w_table(wctx *w, uint64_t at, uint16_t tid, uint32_t depth);

static int w_field(wctx *w, uint64_t tpos, uint64_t vt, uint16_t vsize, uint16_t tid, uint32_t f,
                   uint32_t depth) {
    const vs_field *d = &vs_fields[vs_tables[tid].first + f];
    uint32_t slot = 4u + 2u * f;
    if (d->kind == VS_NONE || slot >= vsize) return 1;
    uint16_t off = fb_rd_u16(w->b + vt + slot);
    if (off == 0) return 1;
    uint64_t at = tpos + off;
    if (d->kind == VS_SCALAR) {
        if (!w_aligned(at, d->size) || !w_in(w, at, d->size)) return w_fail(w, at, tid, f);
        return 1;
    }
    uint64_t p = w_offset(w, at);
    if (!p) return w_fail(w, at, tid, f);
    uint64_t end;
    uint32_t n;
    switch (d->kind) {
    case VS_STRING:
        return w_string(w, p) ? 1 : w_fail(w, p, tid, f);
    case VS_TABLE:
        return w_table(w, p, d->ref, depth + 1) ? 1 : w_fail(w, p, tid, f);
    case VS_VEC:
        /* Stricter than flatbuffers 2.0: element data aligned to its size
         * too (every writer does it; newer verifiers check it). */
        if (!w_aligned(p + 4u, d->size)) return w_fail(w, p, tid, f);
        return w_vector(w, p, d->size, &end, &n) ? 1 : w_fail(w, p, tid, f);
    case VS_VEC_STRING:
    case VS_VEC_TABLE:
        if (!w_vector(w, p, 4, &end, &n)) return w_fail(w, p, tid, f);
        for (uint32_t i = 0; i < n; i++) {
            uint64_t e = p + 4u + 4u * (uint64_t)i;
            uint64_t q = e + fb_rd_u32(w->b + e);
            int ok = d->kind == VS_VEC_STRING ? w_string(w, q) : w_table(w, q, d->ref, depth + 1);
            if (!ok) return w_fail(w, q, tid, f);
        }
        return 1;
    case VS_UNION: {
        /* The type is the field before; NONE and unknown types pass. */
        uint8_t type = 0;
        uint16_t toff = fb_rd_u16(w->b + vt + slot - 2u);
        if (toff) type = w->b[tpos + toff];
        const vs_range *u = &vs_unions[d->ref];
        if (type == 0 || type > u->count) return 1;
        return w_table(w, p, vs_union_members[u->first + type - 1u], depth + 1) ? 1
                                                                                : w_fail(w, p, tid, f);
    }
    default:
        return 1;
    }
}

static int w_table(wctx *w, uint64_t at, uint16_t tid, uint32_t depth) {
    if (++w->tables > VS_MAX_TABLES || depth > VS_MAX_DEPTH) return w_fail(w, at, tid, 0xffffu);
    if (!w_aligned(at, 4) || !w_in(w, at, 4)) return w_fail(w, at, tid, 0xffffu);
    int64_t vt = (int64_t)at - (int64_t)fb_rd_i32(w->b + at);
    if (vt < 0 || !w_aligned((uint64_t)vt, 2) || !w_in(w, (uint64_t)vt, 2))
        return w_fail(w, at, tid, 0xffffu);
    uint16_t vsize = fb_rd_u16(w->b + vt);
    if ((vsize & 1u) || !w_in(w, (uint64_t)vt, vsize)) return w_fail(w, at, tid, 0xffffu);
    /* The union type field is read before its value is verified. */
    for (uint32_t f = 0; f < vs_tables[tid].count; f++) {
        if (!w_field(w, at, (uint64_t)vt, vsize, tid, f, depth)) return 0;
    }
    return 1;
}

static edge_status schema_walk(edge_model *m) {
    wctx w = {m->data, (uint32_t)m->len, 0, 0, 0, 0};
    if (m->len < 12 || m->len >= VS_MAX_BUFFER)
        return edge_fail(m, EDGE_ERR_MODEL, "not a TFLite flatbuffer: %zu bytes", m->len);
    const char *id = VS_IDENTIFIER;
    for (uint32_t i = 0; i < 4; i++)
        if (m->data[4 + i] != (uint8_t)id[i])
            return edge_fail(m, EDGE_ERR_MODEL,
                             "not a TFLite flatbuffer: the file identifier is not \"%s\"", id);
    uint64_t root = w_offset(&w, 0);
    if (!root)
        return edge_fail(m, EDGE_ERR_MODEL,
                         "not a TFLite flatbuffer: the root table lies outside the %zu-byte buffer",
                         m->len);
    if (!w_table(&w, root, VS_ROOT_TABLE, 1)) {
        if (w.tables > VS_MAX_TABLES)
            return edge_fail(m, EDGE_ERR_MODEL,
                             "more than %u table visits (shared tables nest too deep)",
                             VS_MAX_TABLES);
        if (w.bad_field == 0xffffu)
            return edge_fail(m, EDGE_ERR_MODEL, "a %s table at byte %u is invalid",
                             w.bad_table, w.bad_at);
        return edge_fail(m, EDGE_ERR_MODEL,
                         "%s field %u (at byte %u) is misaligned or out of bounds",
                         w.bad_table, w.bad_field, w.bad_at);
    }
    return EDGE_OK;
}

static edge_status bad(vctx *v, const char *what, uint32_t i, const char *field) {
    return edge_fail(v->m, EDGE_ERR_MODEL, "%s[%u].%s is out of bounds or invalid",
                     what, i, field);
}

/* Present-but-broken vectors fail; absent ones pass. */
static int vec_ok(fb_table t, uint32_t field, uint32_t elem) {
    if (!fb_has(t, field)) return 1;
    return fb_vec_field(t, field, elem).buf != 0;
}

static int table_field_ok(fb_table t, uint32_t field) {
    if (!fb_has(t, field)) return 1;
    return fb_table_ok(fb_table_field(t, field));
}

static int string_ok(fb_table t, uint32_t field) {
    if (!fb_has(t, field)) return 1;
    return fb_string(t, field) != 0;
}

/* A vector of tables whose every element is a sound table. */
static int table_vec_ok(fb_table t, uint32_t field, fb_vec *out) {
    fb_vec v = fb_vec_field(t, field, 4);
    *out = v;
    if (fb_has(t, field) && !v.buf) return 0;
    for (uint32_t i = 0; i < v.count; i++) {
        if (!fb_table_ok(fb_vec_table(v, i))) return 0;
    }
    return 1;
}

static int indices_ok(fb_table t, uint32_t field, int32_t lo, uint32_t n) {
    fb_vec v = fb_vec_field(t, field, 4);
    if (fb_has(t, field) && !v.buf) return 0;
    for (uint32_t i = 0; i < v.count; i++) {
        int32_t x = fb_i32_at(v.buf + v.pos, i);
        if (x < lo || (x >= 0 && (uint32_t)x >= n)) return 0;
    }
    return 1;
}

static edge_status verify_tensor(vctx *v, fb_table t, uint32_t i) {
    if (!vec_ok(t, TENSOR_SHAPE, 4)) return bad(v, "tensors", i, "shape");
    if (!string_ok(t, TENSOR_NAME)) return bad(v, "tensors", i, "name");
    if (fb_u32(t, TENSOR_BUFFER, 0) >= v->n_buffers && fb_has(t, TENSOR_BUFFER))
        return bad(v, "tensors", i, "buffer");
    if (!table_field_ok(t, TENSOR_QUANTIZATION)) return bad(v, "tensors", i, "quantization");
    fb_table q = fb_table_field(t, TENSOR_QUANTIZATION);
    if (!fb_is_null(q)) {
        if (!vec_ok(q, QUANT_MIN, 4) || !vec_ok(q, QUANT_MAX, 4))
            return bad(v, "tensors", i, "quantization.min/max");
        if (!vec_ok(q, QUANT_SCALE, 4)) return bad(v, "tensors", i, "quantization.scale");
        if (!vec_ok(q, QUANT_ZERO_POINT, 8)) return bad(v, "tensors", i, "quantization.zero_point");
        if (!table_field_ok(q, QUANT_DETAILS)) return bad(v, "tensors", i, "quantization.details");
    }
    if (!table_field_ok(t, TENSOR_SPARSITY)) return bad(v, "tensors", i, "sparsity");
    return EDGE_OK;
}

static edge_status verify_operator(vctx *v, fb_table op, uint32_t i, uint32_t n_opcodes,
                                   uint32_t n_tensors) {
    if (!fb_has(op, OP_OPCODE_INDEX) && n_opcodes == 0) return bad(v, "operators", i, "opcode_index");
    if (fb_u32(op, OP_OPCODE_INDEX, 0) >= n_opcodes) return bad(v, "operators", i, "opcode_index");
    if (!indices_ok(op, OP_INPUTS, -1, n_tensors)) return bad(v, "operators", i, "inputs");
    if (!indices_ok(op, OP_OUTPUTS, 0, n_tensors)) return bad(v, "operators", i, "outputs");
    if (!indices_ok(op, OP_INTERMEDIATES, 0, n_tensors)) return bad(v, "operators", i, "intermediates");
    if (!table_field_ok(op, OP_OPTIONS)) return bad(v, "operators", i, "builtin_options");
    if (!vec_ok(op, OP_CUSTOM_OPTIONS, 1)) return bad(v, "operators", i, "custom_options");
    return EDGE_OK;
}

static edge_status verify_subgraph(vctx *v, fb_table sg, uint32_t s, uint32_t n_opcodes) {
    fb_vec tensors, ops;
    if (!table_vec_ok(sg, SUBGRAPH_TENSORS, &tensors)) return bad(v, "subgraphs", s, "tensors");
    if (!table_vec_ok(sg, SUBGRAPH_OPERATORS, &ops)) return bad(v, "subgraphs", s, "operators");
    if (!string_ok(sg, SUBGRAPH_NAME)) return bad(v, "subgraphs", s, "name");
    if (!indices_ok(sg, SUBGRAPH_INPUTS, 0, tensors.count)) return bad(v, "subgraphs", s, "inputs");
    if (!indices_ok(sg, SUBGRAPH_OUTPUTS, 0, tensors.count)) return bad(v, "subgraphs", s, "outputs");
    for (uint32_t i = 0; i < tensors.count; i++) {
        edge_status st = verify_tensor(v, fb_vec_table(tensors, i), i);
        if (st) return st;
    }
    for (uint32_t i = 0; i < ops.count; i++) {
        edge_status st = verify_operator(v, fb_vec_table(ops, i), i, n_opcodes, tensors.count);
        if (st) return st;
    }
    return EDGE_OK;
}

edge_status edge_verify_model(edge_model *m, fb_table root) {
    vctx v = {m, 0};
    edge_status sw = schema_walk(m);
    if (sw) return sw;
    if (fb_is_null(root) || !fb_table_ok(root))
        return edge_fail(m, EDGE_ERR_MODEL,
                         "not a TFLite flatbuffer: the root table lies outside the %zu-byte buffer",
                         m->len);
    uint32_t version = fb_u32(root, MODEL_VERSION, 0);
    if (version != EDGE_SCHEMA_VERSION)
        return edge_fail(m, EDGE_ERR_MODEL, "model schema version is %u; only version %u is supported",
                         version, (unsigned)EDGE_SCHEMA_VERSION);
    fb_vec buffers, opcodes, subgraphs, metadata;
    if (!table_vec_ok(root, MODEL_BUFFERS, &buffers)) return bad(&v, "model", 0, "buffers");
    v.n_buffers = buffers.count;
    for (uint32_t i = 0; i < buffers.count; i++) {
        fb_table b = fb_vec_table(buffers, i);
        if (!vec_ok(b, BUFFER_DATA, 1)) return bad(&v, "buffers", i, "data");
    }
    if (!table_vec_ok(root, MODEL_OPCODES, &opcodes)) return bad(&v, "model", 0, "operator_codes");
    for (uint32_t i = 0; i < opcodes.count; i++) {
        if (!string_ok(fb_vec_table(opcodes, i), OPCODE_CUSTOM))
            return bad(&v, "operator_codes", i, "custom_code");
    }
    if (!table_vec_ok(root, MODEL_METADATA, &metadata)) return bad(&v, "model", 0, "metadata");
    for (uint32_t i = 0; i < metadata.count; i++) {
        fb_table md = fb_vec_table(metadata, i);
        if (!string_ok(md, METADATA_NAME)) return bad(&v, "metadata", i, "name");
        if (fb_u32(md, METADATA_BUFFER, 0) >= buffers.count && fb_has(md, METADATA_BUFFER))
            return bad(&v, "metadata", i, "buffer");
    }
    if (!string_ok(root, MODEL_DESCRIPTION)) return bad(&v, "model", 0, "description");
    if (!vec_ok(root, MODEL_METADATA_BUFFER, 4)) return bad(&v, "model", 0, "metadata_buffer");
    if (!table_vec_ok(root, MODEL_SUBGRAPHS, &subgraphs)) return bad(&v, "model", 0, "subgraphs");
    if (subgraphs.count == 0) return edge_fail(m, EDGE_ERR_MODEL, "model has no subgraphs");
    for (uint32_t s = 0; s < subgraphs.count; s++) {
        edge_status st = verify_subgraph(&v, fb_vec_table(subgraphs, s), s, opcodes.count);
        if (st) return st;
    }
    return EDGE_OK;
}
