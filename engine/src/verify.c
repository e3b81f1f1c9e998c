/*
 * verify.c — structural verification of a TFLite flatbuffer before any of
 * it is used: every table header, vector and string the engine reads lies
 * inside the buffer, and every index (opcode, tensor, buffer) is in range.
 * The accessors in fb.c are bounds-checked as well; this pass exists so that
 * a malformed model is refused at load, with the table and field named,
 * rather than read as defaults.
 */
#include "model.h"

typedef struct vctx {
    edge_model *m;
    uint32_t n_buffers;
} vctx;

static edge_status bad(vctx *v, const char *what, uint32_t i, const char *field) {
    return edge_fail(v->m, EDGE_ERR_MODEL, "malformed model: %s[%u].%s is out of bounds or invalid",
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
