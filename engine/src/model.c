/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model.c — loading a TFLite model into a caller's arena: verify, build the
 * tensor and operator records, prepare every op, plan, and run.
 *
 * Arena layout (all 16-byte aligned):
 *   [edge_rt][tensor states][op records][op io lists][operand slots][op params]
 *   [activations+scratch]
 * A tensor keeps only its edge_tensor_state; operators get full records
 * rebuilt into the slots (edge_tensor_record).
 * The planner's temporary tables use the space after the records before the
 * params and activations are laid out, so the exact need is
 *   records + max(plan work, params + activation peak).
 */
#include "model.h"


static uint8_t *bump(uint8_t **p, size_t bytes) {
    uint8_t *r = *p;
    *p += EDGE_ALIGN_UP(bytes);
    return r;
}

/* Check tensor i's checked read (edge_tensor_read) and reject what the engine
 * cannot run (at load; the rebuild for operators is the unchecked read). */
static edge_status check_record(edge_model *m, fb_table t, fb_vec buffers, uint32_t i, edge_tensor_rt *r) {
    if (fb_has(t, TENSOR_SPARSITY))
        return edge_fail(m, EDGE_ERR_UNSUPPORTED, "tensor %u '%s': sparse tensors are not supported", i,
                         r->t.name);
    const uint32_t rank = (uint32_t)r->t.rank;
    if (rank > EDGE_MAX_DIMS)
        return edge_fail(m, EDGE_ERR_UNSUPPORTED, "tensor %u '%s': rank %u exceeds the engine's %d", i,
                         r->t.name, rank, EDGE_MAX_DIMS);
    /* Sizes in 32-bit math (a 64-bit product is a call on the M4):
     * n * v > M exactly when v != 0 and n > M / v. */
    uint32_t numel = 1;
    for (uint32_t d = 0; d < rank; d++) {
        int32_t v = r->t.dims[d];
        if (v < 0)
            return edge_fail(m, EDGE_ERR_UNSUPPORTED,
                             "tensor %u '%s': dimension %u is %d (dynamic shapes are not supported)", i,
                             r->t.name, d, v);
        if (v && numel > 0x7fffffffu / (uint32_t)v)
            return edge_fail(m, EDGE_ERR_UNSUPPORTED, "tensor %u '%s': more than 2^31 elements", i,
                             r->t.name);
        numel *= (uint32_t)v;
    }
    const uint32_t esize = (uint32_t)edge_type_size(r->t.type);
    if (esize && numel > 0x7fffffffu / esize)
        return edge_fail(m, EDGE_ERR_UNSUPPORTED, "tensor %u '%s': larger than 2 GiB", i, r->t.name);
    r->t.bytes = (size_t)numel * esize;

    fb_table q = fb_table_field(t, TENSOR_QUANTIZATION);
    if (!fb_is_null(q)) {
        if (fb_has(q, QUANT_DETAILS))
            return edge_fail(m, EDGE_ERR_UNSUPPORTED,
                             "tensor %u '%s': custom quantization details are not supported", i, r->t.name);
        const uint32_t n_scales = r->q_count, n_zeros = fb_vec_field(q, QUANT_ZERO_POINT, 8).count;
        if (n_zeros && n_zeros != n_scales)
            return edge_fail(m, EDGE_ERR_MODEL, "tensor %u '%s': %u scales but %u zero points", i,
                             r->t.name, n_scales, n_zeros);
        /* edge_tensor_read read a TOCO-era 1-D bias's dimension as 0; any other
         * mismatch is an error. */
        if (n_scales > 1 && !(r->q_dim >= 0 && r->q_dim < r->t.rank &&
                              (uint32_t)r->t.dims[r->q_dim] == n_scales))
            return edge_fail(m, EDGE_ERR_MODEL,
                             "tensor %u '%s': %u per-channel scales do not match dimension %d", i,
                             r->t.name, n_scales, r->q_dim);
        /* A zero point outside its type's range is meaningless and would
         * overflow the kernels' offset arithmetic (found by fuzzing). */
        int32_t zlo = INT32_MIN, zhi = INT32_MAX;
        if (r->t.type == EDGE_INT8) zlo = -128, zhi = 127;
        else if (r->t.type == EDGE_UINT8) zlo = 0, zhi = 255;
        else if (r->t.type == EDGE_INT16) zlo = -32768, zhi = 32767;
        for (uint32_t k = 0; k < n_zeros; k++) {
            const int64_t z = fb_i64_at(r->q_zero, k);
            const int32_t z32 = (int32_t)z;
            if (z32 != z || z32 < zlo || z32 > zhi)
                return edge_fail(m, EDGE_ERR_MODEL,
                                 "tensor %u '%s': zero point %ld is outside the %s range", i,
                                 r->t.name, (long)z, edge_type_name(r->t.type));
        }
        /* NaN, infinite or negative scales make the prepare-time double
         * math meaningless (and its float-to-int conversions undefined). */
        for (uint32_t k = 0; k < n_scales; k++) {
            float f = fb_f32_at(r->q_scale, k);
            if (!(f >= 0.0f && f <= 3.402823466e38f))
                return edge_fail(
                    m, EDGE_ERR_MODEL,
                    "tensor %u '%s': quantization scale %u is not a finite non-negative number", i,
                    r->t.name, k);
        }
    }

    if (r->buffer > 0) {
        fb_table b = fb_vec_table(buffers, r->buffer);
        const uint32_t off = fb_field(b, BUFFER_OFFSET, 8);
        if (off && fb_rd_u64(b.buf + off) > 1)
            return edge_fail(m, EDGE_ERR_UNSUPPORTED,
                             "tensor %u '%s': data stored outside the flatbuffer is not supported", i,
                             r->t.name);
        if (fb_has(b, BUFFER_DATA)) {
            fb_vec d = fb_vec_field(b, BUFFER_DATA, 1);
            if (d.count != r->t.bytes)
                return edge_fail(m, EDGE_ERR_MODEL,
                                 "tensor %u '%s': constant buffer %u holds %u bytes but its shape needs %u",
                                 i, r->t.name, r->buffer, d.count, (unsigned)r->t.bytes);
            r->is_const = 1;
            r->t.data = (void *)(uintptr_t)(d.buf + d.pos);
        }
    }
    return EDGE_OK;
}


/* Tensor t's name, for messages (its record loaded: the fast read is its
 * checked one). */
static const char *tensor_name(const edge_model *m, int32_t t) {
    if (t < 0 || (uint32_t)t >= m->n_tensors) return "?";
    edge_tensor_rt r;
    edge_tensor_read(m, (uint32_t)t, &r, 0);
    return r.t.name;
}

/* Does the fast rebuild read what the checked fill read? */
static int same_record(const edge_tensor_rt *a, const edge_tensor_rt *b) {
    if (a->t.name != b->t.name || a->t.type != b->t.type || a->is_variable != b->is_variable ||
        a->t.rank != b->t.rank || a->q_scale != b->q_scale || a->q_zero != b->q_zero ||
        a->q_count != b->q_count || a->q_dim != b->q_dim || a->buffer != b->buffer ||
        a->t.zero_point != b->t.zero_point)
        return 0;
    for (int32_t d = 0; d < a->t.rank; d++)
        if (a->t.dims[d] != b->t.dims[d]) return 0;
    return 1;
}

/* Check tensor i at load and keep its state. */
static edge_status load_tensor(edge_model *m, fb_table t, fb_vec buffers, uint32_t i, edge_tensor_rt *r) {
    edge_memset(r, 0, sizeof *r);
    edge_tensor_read(m, i, r, 1);
    edge_status st = check_record(m, t, buffers, i, r);
    if (st) return st;
    edge_tensor_rt fast;
    edge_tensor_read(m, i, &fast, 0);
    if (!same_record(r, &fast))
        return edge_fail(m, EDGE_ERR_MODEL, "tensor %u '%s': a field lies outside its table", i, r->t.name);
    edge_tensor_state *s = &m->tensors[i];
    s->offset = -1;
    s->alias_of = -1;
    s->data_off = r->is_const ? (uint32_t)((const uint8_t *)r->t.data - m->data) : 0;
    s->bytes = (uint32_t)r->t.bytes;
    s->type = (uint8_t)r->t.type;
    s->is_const = r->is_const;
    s->is_variable = r->is_variable;
    s->fused = 0;
    return EDGE_OK;
}

/* The op's implementation for the type its input 0 has: FLOAT32/BFLOAT16
 * activations run on the op's float twin, if any. Chosen at load, and again
 * before the sizing prepare, as an earlier op's prepare may settle that
 * type (an ADD's float32-declared output, binary_op.c). */
static const edge_op_impl *pick_impl(const edge_model *m, const edge_op_rt *op, int32_t opcode) {
    const edge_op_impl *f = 0;
    if (op->n_in > 0 && op->io[0] >= 0) {
        const edge_type t0 = (edge_type)m->tensors[op->io[0]].type;
        if (t0 == EDGE_FLOAT32 || t0 == EDGE_BFLOAT16) f = edge_op_find_float(opcode);
    }
    return f ? f : edge_op_find(opcode);
}

static edge_status unsupported_op(edge_model *m, uint32_t i, const edge_op_rt *op, int32_t opcode,
                                  const char *custom) {
    char types[96];
    uint32_t n = 0;
    for (uint32_t k = 0; k < op->n_in + op->n_out && n + 12 < sizeof types; k++) {
        if (k == op->n_in) {
            const char *arrow = " -> ";
            while (*arrow) types[n++] = *arrow++;
        } else if (k) {
            types[n++] = ',';
        }
        const char *tn = op->io[k] < 0 ? "none" : edge_type_name((edge_type)m->tensors[op->io[k]].type);
        while (*tn && n + 1 < sizeof types) types[n++] = *tn++;
    }
    types[n] = '\0';
    if (custom)
        return edge_fail(m, EDGE_ERR_UNSUPPORTED, "op %u: custom op '%s' is not supported (%s)", i,
                         custom, types);
    return edge_fail(m, EDGE_ERR_UNSUPPORTED, "op %u: %s (builtin %d) is not supported (%s)%s", i,
                     edge_builtin_name(opcode), (int)opcode, types,
                     edge_op_set_partial() ? "; this build keeps only the ops of EDGE_OPS_HEADER" : "");
}

static edge_status load_op(edge_model *m, fb_table o, fb_vec opcodes, uint32_t i, edge_op_rt *op,
                           int32_t **io_cursor) {
    edge_memset(op, 0, sizeof *op);
    op->scratch_offset = -1;
    fb_table code = fb_vec_table(opcodes, fb_u32(o, OP_OPCODE_INDEX, 0));
    /* The real code is the larger of the old byte field and the int32 one. */
    int32_t dep = (int8_t)fb_u8(code, OPCODE_DEPRECATED_BUILTIN, 0);
    int32_t ext = fb_i32(code, OPCODE_BUILTIN, 0);
    const int32_t opcode = dep > ext ? dep : ext;
    fb_vec in = fb_vec_field(o, OP_INPUTS, 4), out = fb_vec_field(o, OP_OUTPUTS, 4);
    op->n_in = (uint8_t)in.count; /* EDGE_MAX_OP_IO checked at init */
    op->n_out = (uint8_t)out.count;
    op->io = *io_cursor;
    *io_cursor += in.count + out.count;
    for (uint32_t k = 0; k < in.count; k++) op->io[k] = fb_i32_at(fb_vec_data(in), k);
    for (uint32_t k = 0; k < out.count; k++) op->io[in.count + k] = fb_i32_at(fb_vec_data(out), k);
    op->options = fb_table_field(o, OP_OPTIONS);
    op->options_type = fb_u8(o, OP_OPTIONS_TYPE, 0);

    for (uint32_t k = 0; k < out.count; k++) {
        if (m->tensors[op->io[in.count + k]].is_const)
            return edge_fail(m, EDGE_ERR_MODEL, "op %u writes constant tensor %d '%s'", i,
                             op->io[in.count + k], tensor_name(m, op->io[in.count + k]));
    }
    op->impl = pick_impl(m, op, opcode);
    if (!op->impl)
        return unsupported_op(m, i, op, opcode, opcode == 32 ? fb_string(code, OPCODE_CUSTOM) : 0);
    return EDGE_OK;
}

/* Each tensor has at most one producer, and no op overwrites a graph input.
 * Every activation an op reads is a graph input, a variable, or the output
 * of an earlier op: anything else would be read before anything wrote it
 * (uninitialised arena bytes; found by valgrind on fuzzed models).
 * Linear in the operands: each tensor's `offset` (unplanned, -1, until the
 * planner runs) holds its writer meanwhile: -2 for a graph input, else the
 * op index; it is reset before returning. */
static edge_status check_producers_marked(edge_model *m) {
    for (uint32_t g = 0; g < m->n_inputs; g++) m->tensors[fb_i32_at(m->inputs, g)].offset = -2;
    for (uint32_t i = 0; i < m->n_ops; i++) {
        const edge_op_rt *op = &m->ops[i];
        for (uint32_t k = 0; k < op->n_in; k++) {
            int32_t t = op->io[k];
            if (t < 0) continue;
            const edge_tensor_state *r = &m->tensors[t];
            if (!r->is_const && !r->is_variable && r->offset == -1)
                return edge_fail(m, EDGE_ERR_MODEL,
                                 "op %u reads tensor %d '%s', which is neither a graph input, a "
                                 "constant nor the output of an earlier op",
                                 i, t, tensor_name(m, t));
        }
        for (uint32_t k = op->n_in; k < op->n_in + op->n_out; k++) {
            int32_t t = op->io[k];
            edge_tensor_state *r = &m->tensors[t];
            if (r->offset == -2)
                return edge_fail(m, EDGE_ERR_MODEL, "op %u writes graph input tensor %d '%s'", i, t,
                                 tensor_name(m, t));
            if (r->offset >= 0)
                return edge_fail(m, EDGE_ERR_MODEL, "tensor %d '%s' is written by op %u and op %u", t,
                                 tensor_name(m, t), (uint32_t)r->offset, i);
            r->offset = (int32_t)i;
        }
    }
    return EDGE_OK;
}

static edge_status check_producers(edge_model *m) {
    edge_status st = check_producers_marked(m);
    for (uint32_t t = 0; t < m->n_tensors; t++) m->tensors[t].offset = -1;
    return st;
}

static edge_status prepare_all(edge_model *m, uint8_t *params_base, size_t *params_total) {
    size_t total = 0;
    edge_tensor_rt *slots = m->rt->slots;
    for (uint32_t i = 0; i < m->n_ops; i++) {
        edge_op_rt *op = &m->ops[i];
        edge_op_ctx c = {m, i, op, 0, 0, 0};
        if (params_base) {
            if (!op->params_bytes) continue;
            c.params = params_base + total;
            edge_memset(c.params, 0, op->params_bytes);
        } else {
            op->params_bytes = op->scratch_bytes = 0;
            op->macs = op->array_cycles = 0;
            op->systolic = 0;
            op->stream_in = 0;
            op->stream_d16 = 0;
            op->stream_e16 = EDGE_STREAM_NO_E;
            op->stream_rev = 0;
            for (uint32_t k = 0; k < op->n_in + op->n_out; k++) slots[k].buffer = UINT32_MAX;
            const int32_t code = op->impl->code;
            op->impl = pick_impl(m, op, code);
            if (!op->impl) return unsupported_op(m, i, op, code, 0);
        }
        edge_status st = op->impl->prepare(&c);
        if (st) {
            if (!m->error[0]) edge_op_fail(&c, st, "prepare failed: %s", edge_status_str(st));
            return st;
        }
        if (!params_base) {
            /* A prepare may settle an output's type (ADD does): keep it. */
            for (uint32_t k = op->n_in; k < op->n_in + op->n_out; k++) {
                if (op->io[k] < 0 || slots[k].buffer == UINT32_MAX) continue;
                edge_tensor_state *s = &m->tensors[op->io[k]];
                s->type = (uint8_t)slots[k].t.type;
                s->bytes = (uint32_t)slots[k].t.bytes;
            }
        }
        op->params = c.params;
        total += EDGE_ALIGN_UP(op->params_bytes);
    }
    *params_total = total;
    return EDGE_OK;
}

edge_status edge_model_init(edge_model *m, const uint8_t *data, size_t len, void *arena,
                            size_t arena_len) {
    return edge_model_init_ex(m, data, len, arena, arena_len, 0);
}

edge_status edge_model_init_ex(edge_model *m, const uint8_t *data, size_t len, void *arena,
                               size_t arena_len, uint32_t flags) {
    if (!m) return EDGE_ERR_ARG;
    edge_memset(m, 0, sizeof *m);
    if (flags & ~EDGE_PLAN_NO_OVERLAP) return edge_fail(m, EDGE_ERR_ARG, "unknown flags 0x%x", flags);
    m->flags = flags;
    if (!data) return edge_fail(m, EDGE_ERR_ARG, "model data is NULL");
    if ((uintptr_t)data & 3u) return edge_fail(m, EDGE_ERR_ARG, "model data must be 4-byte aligned");
    if (!arena && arena_len) return edge_fail(m, EDGE_ERR_ARG, "arena is NULL but arena_len is %zu", arena_len);
    if ((uintptr_t)arena & (EDGE_ARENA_ALIGN - 1))
        return edge_fail(m, EDGE_ERR_ARG, "arena must be %d-byte aligned", EDGE_ARENA_ALIGN);
    if (len < 8) return edge_fail(m, EDGE_ERR_MODEL, "not a TFLite model: only %zu bytes", len);
    m->data = data;
    m->len = len;
    m->arena = (uint8_t *)arena;
    m->arena_len = arena_len;

    fb_table root = fb_root(data, len);
    edge_status st = edge_verify_model(m, root);
    if (st) return st;

    fb_table sg = fb_vec_table(fb_vec_field(root, MODEL_SUBGRAPHS, 4), 0);
    fb_vec tensors = fb_vec_field(sg, SUBGRAPH_TENSORS, 4);
    fb_vec ops = fb_vec_field(sg, SUBGRAPH_OPERATORS, 4);
    fb_vec opcodes = fb_vec_field(root, MODEL_OPCODES, 4);
    const fb_vec buffers = fb_vec_field(root, MODEL_BUFFERS, 4);
    fb_vec gin = fb_vec_field(sg, SUBGRAPH_INPUTS, 4), gout = fb_vec_field(sg, SUBGRAPH_OUTPUTS, 4);
    m->n_tensors = tensors.count;
    m->n_ops = ops.count;
    m->inputs = fb_vec_data(gin);
    m->n_inputs = gin.count;
    m->outputs = fb_vec_data(gout);
    m->n_outputs = gout.count;

    size_t n_io = 0;
    uint32_t n_slots = 1;
    for (uint32_t i = 0; i < ops.count; i++) {
        fb_table o = fb_vec_table(ops, i);
        uint32_t k = fb_vec_field(o, OP_INPUTS, 4).count + fb_vec_field(o, OP_OUTPUTS, 4).count;
        if (k > EDGE_MAX_OP_IO)
            return edge_fail(m, EDGE_ERR_UNSUPPORTED, "op %u has %u operands; the engine takes at most %d", i,
                             k, EDGE_MAX_OP_IO);
        n_io += k;
        if (k > n_slots) n_slots = k;
    }
    size_t records = EDGE_ALIGN_UP(sizeof(edge_rt)) + EDGE_ALIGN_UP(m->n_tensors * sizeof(edge_tensor_state)) +
                     EDGE_ALIGN_UP(m->n_ops * sizeof(edge_op_rt)) + EDGE_ALIGN_UP(n_io * sizeof(int32_t)) +
                     EDGE_ALIGN_UP(n_slots * sizeof(edge_tensor_rt));
    size_t work = edge_plan_work_bytes(m);
    if (arena_len < records + work) {
        m->arena_needed = records + work;
        return edge_fail(m, EDGE_ERR_ARENA,
                         "arena of %zu bytes is too small: this model needs at least %zu (records and "
                         "planning); with that much the exact size is reported",
                         arena_len, records + work);
    }

    uint8_t *p = m->arena;
    m->rt = (edge_rt *)(void *)bump(&p, sizeof(edge_rt));
    m->tensors = (edge_tensor_state *)(void *)bump(&p, m->n_tensors * sizeof(edge_tensor_state));
    m->ops = (edge_op_rt *)(void *)bump(&p, m->n_ops * sizeof(edge_op_rt));
    int32_t *io = (int32_t *)(void *)bump(&p, n_io * sizeof(int32_t));
    m->rt->slots = (edge_tensor_rt *)(void *)bump(&p, n_slots * sizeof(edge_tensor_rt));
    m->rt->n_slots = n_slots;
    m->rt->tensors_pos = tensors.pos;
    m->rt->act = 0;
    for (uint32_t i = 0; i < m->n_tensors; i++) {
        st = load_tensor(m, fb_vec_table(tensors, i), buffers, i, &m->rt->slots[0]);
        if (st) return st;
    }
    for (uint32_t k = 0; k < m->n_inputs; k++)
        if (m->tensors[fb_i32_at(m->inputs, k)].is_const)
            return edge_fail(m, EDGE_ERR_MODEL, "graph input %u is a constant tensor", k);
    for (uint32_t i = 0; i < m->n_ops; i++) {
        st = load_op(m, fb_vec_table(ops, i), opcodes, i, &m->ops[i], &io);
        if (st) return st;
    }
    st = check_producers(m);
    if (st) return st;

    size_t params = 0, peak = 0;
    st = prepare_all(m, 0, &params);
    if (st) return st;
    st = edge_plan(m, p, &peak);
    if (st) return st;

    size_t body = params + EDGE_ALIGN_UP(peak);
    m->arena_records = records + params;
    m->arena_activations = EDGE_ALIGN_UP(peak);
    m->arena_needed = records + (body > work ? body : work);
    m->arena_needed_exact = 1;
    if (arena_len < m->arena_needed)
        return edge_fail(m, EDGE_ERR_ARENA, "arena of %zu bytes is too small: this model needs %zu",
                         arena_len, m->arena_needed);

    m->rt->act = p + params;
    st = prepare_all(m, p, &params);
    if (st) return st;
    m->ready = 1;
    return EDGE_OK;
}

edge_status edge_model_arena_needed(const uint8_t *data, size_t len, void *work, size_t work_len,
                                    size_t *needed) {
    return edge_model_arena_needed_ex(data, len, work, work_len, 0, needed);
}

edge_status edge_model_arena_needed_ex(const uint8_t *data, size_t len, void *work, size_t work_len,
                                       uint32_t flags, size_t *needed) {
    edge_model tmp;
    if (!needed) return EDGE_ERR_ARG;
    *needed = 0;
    edge_status st = edge_model_init_ex(&tmp, data, len, work, work_len, flags);
    if (st == EDGE_OK || (st == EDGE_ERR_ARENA && tmp.arena_needed_exact)) {
        *needed = tmp.arena_needed;
        return EDGE_OK;
    }
    if (st == EDGE_ERR_ARENA) *needed = tmp.arena_needed;
    return st;
}

edge_status edge_invoke(edge_model *m) {
    if (!m) return EDGE_ERR_ARG;
    if (!m->ready) return edge_fail(m, EDGE_ERR_STATE, "invoke before a successful edge_model_init");
    for (uint32_t i = 0; i < m->n_ops; i++) {
        edge_op_rt *op = &m->ops[i];
        edge_op_ctx c = {m, i, op, op->params, 0, 0};
        if (op->scratch_offset >= 0) c.scratch = m->arena + m->arena_records + op->scratch_offset;
        if (m->profile) m->profile(m->profile_user, i, op->impl->name, 0);
        /* A fused pair's tail ran inside its head. */
        edge_status st = (op->fused & EDGE_FUSED_TAIL) ? EDGE_OK : op->impl->eval(&c);
        if (m->profile) m->profile(m->profile_user, i, op->impl->name, 1);
        if (st) {
            if (!m->error[0]) edge_op_fail(&c, st, "eval failed: %s", edge_status_str(st));
            return st;
        }
    }
    return EDGE_OK;
}

uint32_t edge_num_inputs(const edge_model *m) { return m && m->ready ? m->n_inputs : 0; }
uint32_t edge_num_outputs(const edge_model *m) { return m && m->ready ? m->n_outputs : 0; }
uint32_t edge_num_tensors(const edge_model *m) { return m && m->ready ? m->n_tensors : 0; }
uint32_t edge_num_ops(const edge_model *m) { return m && m->ready ? m->n_ops : 0; }

/* Tensor i of the graph (which 0), input i (1) or output i (2); an empty
 * view when i is out of range. */
static edge_tensor tensor_view(const edge_model *m, int which, uint32_t i) {
    edge_tensor_rt r;
    if (m && m->ready) {
        const uint8_t *vec = which == 1 ? m->inputs : m->outputs;
        const uint32_t n = which == 0 ? m->n_tensors : which == 1 ? m->n_inputs : m->n_outputs;
        if (i < n) return edge_tensor_record(m, which ? (uint32_t)fb_i32_at(vec, i) : i, &r)->t;
    }
    edge_memset(&r.t, 0, sizeof r.t);
    r.t.name = "";
    return r.t;
}

edge_tensor edge_tensor_at(const edge_model *m, uint32_t i) { return tensor_view(m, 0, i); }
edge_tensor edge_input(const edge_model *m, uint32_t i) { return tensor_view(m, 1, i); }
edge_tensor edge_output(const edge_model *m, uint32_t i) { return tensor_view(m, 2, i); }

int64_t edge_tensor_arena_offset(const edge_model *m, uint32_t i) {
    if (!m || !m->ready || i >= m->n_tensors) return -1;
    const edge_tensor_state *t = &m->tensors[i];
    while (t->alias_of >= 0) t = &m->tensors[t->alias_of];
    return t->offset < 0 ? -1 : (int64_t)m->arena_records + t->offset;
}

edge_status edge_op_info_at(const edge_model *m, uint32_t i, edge_op_info *info) {
    if (!m || !info) return EDGE_ERR_ARG;
    if (!m->ready) return EDGE_ERR_STATE;
    if (i >= m->n_ops) return EDGE_ERR_ARG;
    const edge_op_rt *op = &m->ops[i];
    info->name = op->impl->name;
    info->builtin_code = op->impl->code;
    info->n_inputs = op->n_in;
    info->n_outputs = op->n_out;
    info->io = op->io;
    info->macs = op->macs;
    info->systolic = op->systolic;
    info->array_cycles = op->array_cycles;
    info->scratch_bytes = op->scratch_bytes;
    const int streams = !(m->flags & EDGE_PLAN_NO_OVERLAP) && op->stream_in;
    info->stream_inputs = streams ? op->stream_in : 0u;
    info->stream_limit = streams ? (int32_t)op->stream_d16 * 16 : 0;
    info->stream_limit_reverse =
        streams && op->stream_e16 != EDGE_STREAM_NO_E ? (int32_t)op->stream_e16 * 16 : INT32_MAX;
    info->stream_reverse = streams ? op->stream_rev : 0u;
    info->fused = (op->fused & EDGE_FUSED_HEAD) ? 1 : ((op->fused & EDGE_FUSED_TAIL) ? 2 : 0);
    return EDGE_OK;
}

void edge_set_profiler(edge_model *m, edge_profile_fn fn, void *user) {
    if (!m) return;
    m->profile = fn;
    m->profile_user = user;
}

const char *edge_model_error(const edge_model *m) { return m ? m->error : "no model"; }
