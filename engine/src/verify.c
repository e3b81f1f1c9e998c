/* SPDX-License-Identifier: Apache-2.0 */
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

/* Positions are 32-bit: the buffer is under 2^31 bytes, so a position
 * plus a uoffset (< 2^31) or a vector's bytes (< 2^31) cannot wrap; the one
 * sum that could (a vector element's uoffset, any u32) is clamped to len,
 * which fails the same way every larger position does. */

/* flatbuffers::Verifier::Verify: len < size and the range inside. */
static int w_in(const wctx *w, uint32_t at, uint32_t n) { return n < w->len && at <= w->len - n; }
static int w_aligned(uint32_t at, uint32_t a) { return (at & (a - 1u)) == 0; }

static int w_fail(wctx *w, uint32_t at, uint16_t table, uint32_t field) {
    if (!w->bad_table) {
        w->bad_at = at < w->len ? at : w->len;
        w->bad_table = vs_tables[table].name;
        w->bad_field = field;
    }
    return 0;
}

/* A vector or string at `at`: length field aligned and inside, the data
 * inside; *end gets the offset just past the data. */
static int w_vector(const wctx *w, uint32_t at, uint32_t elem, uint32_t *end, uint32_t *count) {
    if (!w_aligned(at, 4) || !w_in(w, at, 4)) return 0;
    uint32_t n = fb_rd_u32(w->b + at);
    if (n >= VS_MAX_BUFFER / elem) return 0;
    uint32_t bytes = 4u + elem * n;
    *end = at + bytes;
    *count = n;
    return w_in(w, at, bytes);
}

static int w_string(const wctx *w, uint32_t at) {
    uint32_t end, n;
    return w_vector(w, at, 1, &end, &n) && w_in(w, end, 1) && w->b[end] == 0;
}

/* The uoffset stored at `at` (a table field): its target, or 0. */
static uint32_t w_offset(const wctx *w, uint32_t at) {
    if (!w_aligned(at, 4) || !w_in(w, at, 4)) return 0;
    uint32_t o = fb_rd_u32(w->b + at);
    if (o == 0 || o > 0x7fffffffu || !w_in(w, at + o, 1)) return 0;
    return at + o;
}

static int w_table(wctx *w, uint32_t at, uint16_t tid, uint32_t depth);

static int w_field(wctx *w, uint32_t tpos, uint32_t vt, uint16_t vsize, uint16_t tid, uint32_t f,
                   uint32_t depth) {
    const vs_field *d = &vs_fields[vs_tables[tid].first + f];
    uint32_t slot = 4u + 2u * f;
    if (d->kind == VS_NONE || slot >= vsize) return 1;
    uint16_t off = fb_rd_u16(w->b + vt + slot);
    if (off == 0) return 1;
    uint32_t at = tpos + off;
    if (d->kind == VS_SCALAR) {
        if (!w_aligned(at, d->size) || !w_in(w, at, d->size)) return w_fail(w, at, tid, f);
        return 1;
    }
    uint32_t p = w_offset(w, at);
    if (!p) return w_fail(w, at, tid, f);
    uint32_t end, n;
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
            uint32_t e = p + 4u + 4u * i, rel = fb_rd_u32(w->b + e);
            uint32_t q = rel <= w->len - e ? e + rel : w->len;
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

static int w_table(wctx *w, uint32_t at, uint16_t tid, uint32_t depth) {
    if (++w->tables > VS_MAX_TABLES || depth > VS_MAX_DEPTH) return w_fail(w, at, tid, 0xffffu);
    if (!w_aligned(at, 4) || !w_in(w, at, 4)) return w_fail(w, at, tid, 0xffffu);
    /* at - soffset modulo 2^32: a vtable "below 0" wraps past 2^31. */
    uint32_t vt = at - fb_rd_u32(w->b + at);
    if (!w_aligned(vt, 2) || !w_in(w, vt, 2)) return w_fail(w, at, tid, 0xffffu);
    uint16_t vsize = fb_rd_u16(w->b + vt);
    if ((vsize & 1u) || !w_in(w, vt, vsize)) return w_fail(w, at, tid, 0xffffu);
    /* The union type field is read before its value is verified. */
    for (uint32_t f = 0; f < vs_tables[tid].count; f++) {
        if (!w_field(w, at, vt, vsize, tid, f, depth)) return 0;
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
    uint32_t root = w_offset(&w, 0);
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

/* ---- the reader's view: every field the loader reads, through fb.c ----
 * Each table's fields are checked in a fixed order by a small list; the
 * first that fails names itself: "<what>[<i>].<field> is out of bounds or
 * invalid". An absent field passes (but an absent opcode_index is 0). A
 * list also walks on into the tables below (V_EACH, V_SUB), so the whole
 * pass is the model's list. */
enum {
    V_VEC,     /* a vector of `elem`-byte scalars */
    V_STRING,
    V_TABLE,
    V_TABLES,  /* a vector of sound tables */
    V_BUFFER,  /* a buffer index */
    V_OPCODE,  /* an opcode index (0 when absent) */
    V_INPUTS,  /* tensor indices, -1 (none) allowed */
    V_TENSORS, /* tensor indices */
    V_SUB,     /* the table there (if any) against `list` */
    V_EACH,    /* every table of the vector there, `name`[i], against `list` */
    V_SOME,    /* the vector there has an element */
    V_COUNT    /* the vector there: how many tensors the indices may name */
};

typedef struct vcheck {
    uint8_t field, kind, elem; /* V_SUB, V_EACH: elem = entries in list */
    const char *name;
    const struct vcheck *list;
} vcheck;

typedef struct vctx {
    edge_model *m;
    uint32_t n_buffers, n_opcodes, n_tensors;
} vctx;

static int field_ok(const vctx *v, fb_table t, const vcheck *c) {
    if (c->kind == V_OPCODE) return fb_u32(t, c->field, 0) < v->n_opcodes;
    if (!fb_has(t, c->field)) return 1;
    switch (c->kind) {
    case V_STRING: return fb_string(t, c->field) != 0;
    case V_TABLE: return fb_table_ok(fb_table_field(t, c->field));
    case V_BUFFER: return fb_u32(t, c->field, 0) < v->n_buffers;
    default: break;
    }
    fb_vec x = fb_vec_field(t, c->field, c->elem);
    if (!x.buf) return 0;
    for (uint32_t i = 0; i < x.count; i++) {
        if (c->kind == V_TABLES && !fb_table_ok(fb_vec_table(x, i))) return 0;
        if (c->kind >= V_INPUTS) {
            int32_t e = fb_i32_at(x.buf + x.pos, i);
            if (e < (c->kind == V_INPUTS ? -1 : 0) || (e >= 0 && (uint32_t)e >= v->n_tensors)) return 0;
        }
    }
    return 1;
}

/* Table `what`[i] against its list: EDGE_OK or the first failure. */
static edge_status check(vctx *v, fb_table t, const vcheck *c, uint32_t n, const char *what, uint32_t i) {
    for (; n; n--, c++) {
        edge_status st = EDGE_OK;
        if (c->kind == V_SUB) {
            fb_table q = fb_table_field(t, c->field);
            if (!fb_is_null(q)) st = check(v, q, c->list, c->elem, what, i);
        } else if (c->kind >= V_EACH) {
            fb_vec x = fb_vec_field(t, c->field, 4);
            if (c->kind == V_COUNT) v->n_tensors = x.count;
            if (c->kind == V_SOME && !x.count)
                return edge_fail(v->m, EDGE_ERR_MODEL, "%s has no %s", what, c->name);
            for (uint32_t k = 0; !st && c->kind == V_EACH && k < x.count; k++)
                st = check(v, fb_vec_table(x, k), c->list, c->elem, c->name, k);
        } else if (!field_ok(v, t, c)) {
            st = edge_fail(v->m, EDGE_ERR_MODEL, "%s[%u].%s is out of bounds or invalid", what, i, c->name);
        }
        if (st) return st;
    }
    return EDGE_OK;
}

#define N_CHECKS(a) (uint8_t)(sizeof(a) / sizeof(a[0]))

static const vcheck quant_checks[] = {
    {QUANT_MIN, V_VEC, 4, "quantization.min/max", 0},
    {QUANT_MAX, V_VEC, 4, "quantization.min/max", 0},
    {QUANT_SCALE, V_VEC, 4, "quantization.scale", 0},
    {QUANT_ZERO_POINT, V_VEC, 8, "quantization.zero_point", 0},
    {QUANT_DETAILS, V_TABLE, 0, "quantization.details", 0},
};
static const vcheck tensor_checks[] = {
    {TENSOR_SHAPE, V_VEC, 4, "shape", 0},
    {TENSOR_NAME, V_STRING, 0, "name", 0},
    {TENSOR_BUFFER, V_BUFFER, 0, "buffer", 0},
    {TENSOR_QUANTIZATION, V_TABLE, 0, "quantization", 0},
    {TENSOR_QUANTIZATION, V_SUB, N_CHECKS(quant_checks), 0, quant_checks},
    {TENSOR_SPARSITY, V_TABLE, 0, "sparsity", 0},
};
static const vcheck operator_checks[] = {
    {OP_OPCODE_INDEX, V_OPCODE, 0, "opcode_index", 0},
    {OP_INPUTS, V_INPUTS, 4, "inputs", 0},
    {OP_OUTPUTS, V_TENSORS, 4, "outputs", 0},
    {OP_INTERMEDIATES, V_TENSORS, 4, "intermediates", 0},
    {OP_OPTIONS, V_TABLE, 0, "builtin_options", 0},
    {OP_CUSTOM_OPTIONS, V_VEC, 1, "custom_options", 0},
};
static const vcheck subgraph_checks[] = {
    {SUBGRAPH_TENSORS, V_COUNT, 0, 0, 0},
    {SUBGRAPH_TENSORS, V_TABLES, 4, "tensors", 0},
    {SUBGRAPH_OPERATORS, V_TABLES, 4, "operators", 0},
    {SUBGRAPH_NAME, V_STRING, 0, "name", 0},
    {SUBGRAPH_INPUTS, V_TENSORS, 4, "inputs", 0},
    {SUBGRAPH_OUTPUTS, V_TENSORS, 4, "outputs", 0},
    {SUBGRAPH_TENSORS, V_EACH, N_CHECKS(tensor_checks), "tensors", tensor_checks},
    {SUBGRAPH_OPERATORS, V_EACH, N_CHECKS(operator_checks), "operators", operator_checks},
};
static const vcheck buffer_checks[] = {{BUFFER_DATA, V_VEC, 1, "data", 0}};
static const vcheck opcode_checks[] = {{OPCODE_CUSTOM, V_STRING, 0, "custom_code", 0}};
static const vcheck metadata_checks[] = {
    {METADATA_NAME, V_STRING, 0, "name", 0},
    {METADATA_BUFFER, V_BUFFER, 0, "buffer", 0},
};
static const vcheck model_checks[] = {
    {MODEL_BUFFERS, V_TABLES, 4, "buffers", 0},
    {MODEL_BUFFERS, V_EACH, N_CHECKS(buffer_checks), "buffers", buffer_checks},
    {MODEL_OPCODES, V_TABLES, 4, "operator_codes", 0},
    {MODEL_OPCODES, V_EACH, N_CHECKS(opcode_checks), "operator_codes", opcode_checks},
    {MODEL_METADATA, V_TABLES, 4, "metadata", 0},
    {MODEL_METADATA, V_EACH, N_CHECKS(metadata_checks), "metadata", metadata_checks},
    {MODEL_DESCRIPTION, V_STRING, 0, "description", 0},
    {MODEL_METADATA_BUFFER, V_VEC, 4, "metadata_buffer", 0},
    {MODEL_SUBGRAPHS, V_TABLES, 4, "subgraphs", 0},
    {MODEL_SUBGRAPHS, V_SOME, 0, "subgraphs", 0},
    {MODEL_SUBGRAPHS, V_EACH, N_CHECKS(subgraph_checks), "subgraphs", subgraph_checks},
};

edge_status edge_verify_model(edge_model *m, fb_table root) {
    edge_status st = schema_walk(m);
    if (st) return st;
    if (fb_is_null(root) || !fb_table_ok(root))
        return edge_fail(m, EDGE_ERR_MODEL,
                         "not a TFLite flatbuffer: the root table lies outside the %zu-byte buffer",
                         m->len);
    uint32_t version = fb_u32(root, MODEL_VERSION, 0);
    if (version != EDGE_SCHEMA_VERSION)
        return edge_fail(m, EDGE_ERR_MODEL, "model schema version is %u; only version %u is supported",
                         version, (unsigned)EDGE_SCHEMA_VERSION);
    vctx v = {m, fb_vec_field(root, MODEL_BUFFERS, 4).count, fb_vec_field(root, MODEL_OPCODES, 4).count, 0};
    return check(&v, root, model_checks, N_CHECKS(model_checks), "model", 0);
}
