/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tflite_writer.c — edgeq_qmodel -> .tflite bytes (see tflite_writer.h).
 */
#include "tflite_writer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbb.h"
#include "err.h"

#define KIB ((size_t)1024)
#define MIB (KIB * KIB)

/* ---- the engine on an in-memory model ---- */

static void *alloc_aligned(size_t n) {
    size_t r = (n + EDGE_ARENA_ALIGN - 1) & ~(size_t)(EDGE_ARENA_ALIGN - 1);
    if (r < n) return NULL;
    return aligned_alloc(EDGE_ARENA_ALIGN, r ? r : EDGE_ARENA_ALIGN);
}

int edgeq_engine_load(edgeq_engine *e, const uint8_t *data, size_t len, char *err,
                      size_t err_len) {
    return edgeq_engine_load_flags(e, data, len, 0, err, err_len);
}

int edgeq_engine_load_flags(edgeq_engine *e, const uint8_t *data, size_t len, uint32_t flags, char *err,
                            size_t err_len) {
    memset(e, 0, sizeof *e);
    /* A generous work arena first (untouched pages cost nothing), grown if
     * the engine asks for more; then exactly what it needs. */
    size_t work_len = 64 * MIB + 4 * len;
    size_t need = 0;
    for (int attempt = 0;; attempt++) {
        uint8_t *work = alloc_aligned(work_len);
        if (!work) {
            edgeq_fail(err, err_len, "out of memory (a work arena to size the model)");
            return -1;
        }
        edge_status s = edge_model_arena_needed_ex(data, len, work, work_len, flags, &need);
        if (s == EDGE_OK) {
            free(work);
            break;
        }
        if (s == EDGE_ERR_ARENA && attempt < 4 && need > work_len) {
            free(work);
            work_len = need * 2;
            continue;
        }
        edge_model probe;
        memset(&probe, 0, sizeof probe);
        edge_status s2 = edge_model_init_ex(&probe, data, len, work, work_len, flags);
        edgeq_fail(err, err_len, "the engine refused the written model: %s: %s",
                edge_status_str(s2 != EDGE_OK ? s2 : s), edge_model_error(&probe));
        free(work);
        return -1;
    }
    e->arena_len = need;
    e->arena = alloc_aligned(need);
    if (!e->arena) {
        edgeq_fail(err, err_len, "out of memory (the model's arena)");
        return -1;
    }
    edge_status s = edge_model_init_ex(&e->m, data, len, e->arena, e->arena_len, flags);
    if (s != EDGE_OK) {
        edgeq_fail(err, err_len, "the engine refused the written model: %s: %s", edge_status_str(s),
                edge_model_error(&e->m));
        return -1;
    }
    return 0;
}

void edgeq_engine_free(edgeq_engine *e) {
    free(e->arena);
    memset(e, 0, sizeof *e);
}

/* ---- serialization ---- */

/* The first TFLite release that runs each operator version we emit
 * (tensorflow/lite/tools/versioning/runtime_version.cc). */
static const char *runtime_version(const edgeq_qmodel *m) {
    int level = 0;
    for (int i = 0; i < m->n_ops; i++) {
        if (m->ops[i].code == EDGE_BUILTIN_CONV_2D && m->ops[i].version >= 6) level = 2; /* grouped CONV_2D */
        if (m->ops[i].code == EDGE_BUILTIN_FULLY_CONNECTED && m->ops[i].version >= 5 && level < 1) level = 1; /* keep_num_dims */
    }
    /* int8 CONV_2D v3, DEPTHWISE v3, FULLY_CONNECTED v4, ...: 1.14.0 */
    return level == 2 ? "2.9.0" : level == 1 ? "2.0.0" : "1.14.0";
}

/* The BuiltinOptions table of one operator; slots, defaults and union
 * member numbers from edge/schema.h (generated from the TFLite schema). */
static fbb_ref write_options(fbb *b, const edgeq_qop *op, int *type) {
    const edgeq_qop_opts *o = &op->o;
    *type = 0; /* BuiltinOptions NONE */
    switch (op->code) {
    case EDGE_BUILTIN_CONV_2D:
        fbb_table_start(b);
        fbb_add_i8(b, EDGE_F_CONV2D_OPTIONS_PADDING, (int8_t)o->padding, 0);
        fbb_add_i32(b, EDGE_F_CONV2D_OPTIONS_STRIDE_W, o->stride_w, 0);
        fbb_add_i32(b, EDGE_F_CONV2D_OPTIONS_STRIDE_H, o->stride_h, 0);
        fbb_add_i8(b, EDGE_F_CONV2D_OPTIONS_FUSED_ACTIVATION_FUNCTION, (int8_t)o->act, 0);
        fbb_add_i32(b, EDGE_F_CONV2D_OPTIONS_DILATION_W_FACTOR, o->dil_w,
                    EDGE_D_CONV2D_OPTIONS_DILATION_W_FACTOR);
        fbb_add_i32(b, EDGE_F_CONV2D_OPTIONS_DILATION_H_FACTOR, o->dil_h,
                    EDGE_D_CONV2D_OPTIONS_DILATION_H_FACTOR);
        *type = EDGE_BUILTIN_OPTIONS_CONV2D_OPTIONS;
        return fbb_table_end(b);
    case EDGE_BUILTIN_DEPTHWISE_CONV_2D:
        fbb_table_start(b);
        fbb_add_i8(b, EDGE_F_DEPTHWISE_CONV2D_OPTIONS_PADDING, (int8_t)o->padding, 0);
        fbb_add_i32(b, EDGE_F_DEPTHWISE_CONV2D_OPTIONS_STRIDE_W, o->stride_w, 0);
        fbb_add_i32(b, EDGE_F_DEPTHWISE_CONV2D_OPTIONS_STRIDE_H, o->stride_h, 0);
        fbb_add_i32(b, EDGE_F_DEPTHWISE_CONV2D_OPTIONS_DEPTH_MULTIPLIER, o->depth_multiplier, 0);
        fbb_add_i8(b, EDGE_F_DEPTHWISE_CONV2D_OPTIONS_FUSED_ACTIVATION_FUNCTION, (int8_t)o->act, 0);
        fbb_add_i32(b, EDGE_F_DEPTHWISE_CONV2D_OPTIONS_DILATION_W_FACTOR, o->dil_w,
                    EDGE_D_DEPTHWISE_CONV2D_OPTIONS_DILATION_W_FACTOR);
        fbb_add_i32(b, EDGE_F_DEPTHWISE_CONV2D_OPTIONS_DILATION_H_FACTOR, o->dil_h,
                    EDGE_D_DEPTHWISE_CONV2D_OPTIONS_DILATION_H_FACTOR);
        *type = EDGE_BUILTIN_OPTIONS_DEPTHWISE_CONV2D_OPTIONS;
        return fbb_table_end(b);
    case EDGE_BUILTIN_AVERAGE_POOL_2D:
    case EDGE_BUILTIN_MAX_POOL_2D:
        fbb_table_start(b);
        fbb_add_i8(b, EDGE_F_POOL2D_OPTIONS_PADDING, (int8_t)o->padding, 0);
        fbb_add_i32(b, EDGE_F_POOL2D_OPTIONS_STRIDE_W, o->stride_w, 0);
        fbb_add_i32(b, EDGE_F_POOL2D_OPTIONS_STRIDE_H, o->stride_h, 0);
        fbb_add_i32(b, EDGE_F_POOL2D_OPTIONS_FILTER_WIDTH, o->filter_w, 0);
        fbb_add_i32(b, EDGE_F_POOL2D_OPTIONS_FILTER_HEIGHT, o->filter_h, 0);
        fbb_add_i8(b, EDGE_F_POOL2D_OPTIONS_FUSED_ACTIVATION_FUNCTION, (int8_t)o->act, 0);
        *type = EDGE_BUILTIN_OPTIONS_POOL2D_OPTIONS;
        return fbb_table_end(b);
    case EDGE_BUILTIN_FULLY_CONNECTED:
        fbb_table_start(b);
        fbb_add_i8(b, EDGE_F_FULLY_CONNECTED_OPTIONS_FUSED_ACTIVATION_FUNCTION, (int8_t)o->act, 0);
        fbb_add_u8(b, EDGE_F_FULLY_CONNECTED_OPTIONS_KEEP_NUM_DIMS, (uint8_t)(o->keep_dims != 0), 0);
        *type = EDGE_BUILTIN_OPTIONS_FULLY_CONNECTED_OPTIONS;
        return fbb_table_end(b);
    case EDGE_BUILTIN_SOFTMAX:
        fbb_table_start(b);
        fbb_add_f32(b, EDGE_F_SOFTMAX_OPTIONS_BETA, o->beta, 0.0f);
        *type = EDGE_BUILTIN_OPTIONS_SOFTMAX_OPTIONS;
        return fbb_table_end(b);
    case EDGE_BUILTIN_CONCATENATION:
        fbb_table_start(b);
        fbb_add_i32(b, EDGE_F_CONCATENATION_OPTIONS_AXIS, o->axis, 0);
        fbb_add_i8(b, EDGE_F_CONCATENATION_OPTIONS_FUSED_ACTIVATION_FUNCTION, (int8_t)o->act, 0);
        *type = EDGE_BUILTIN_OPTIONS_CONCATENATION_OPTIONS;
        return fbb_table_end(b);
    case EDGE_BUILTIN_ADD:
        fbb_table_start(b);
        fbb_add_i8(b, EDGE_F_ADD_OPTIONS_FUSED_ACTIVATION_FUNCTION, (int8_t)o->act, 0);
        *type = EDGE_BUILTIN_OPTIONS_ADD_OPTIONS;
        return fbb_table_end(b);
    case EDGE_BUILTIN_SUB:
        fbb_table_start(b);
        fbb_add_i8(b, EDGE_F_SUB_OPTIONS_FUSED_ACTIVATION_FUNCTION, (int8_t)o->act, 0);
        *type = EDGE_BUILTIN_OPTIONS_SUB_OPTIONS;
        return fbb_table_end(b);
    case EDGE_BUILTIN_MUL:
        fbb_table_start(b);
        fbb_add_i8(b, EDGE_F_MUL_OPTIONS_FUSED_ACTIVATION_FUNCTION, (int8_t)o->act, 0);
        *type = EDGE_BUILTIN_OPTIONS_MUL_OPTIONS;
        return fbb_table_end(b);
    case EDGE_BUILTIN_PAD:
        fbb_table_start(b);
        *type = EDGE_BUILTIN_OPTIONS_PAD_OPTIONS;
        return fbb_table_end(b);
    case EDGE_BUILTIN_MEAN:
        fbb_table_start(b);
        fbb_add_u8(b, EDGE_F_REDUCER_OPTIONS_KEEP_DIMS, (uint8_t)(o->keep_dims != 0), 0);
        *type = EDGE_BUILTIN_OPTIONS_REDUCER_OPTIONS;
        return fbb_table_end(b);
    case EDGE_BUILTIN_LEAKY_RELU:
        fbb_table_start(b);
        fbb_add_f32(b, EDGE_F_LEAKY_RELU_OPTIONS_ALPHA, o->alpha, 0.0f);
        *type = EDGE_BUILTIN_OPTIONS_LEAKY_RELU_OPTIONS;
        return fbb_table_end(b);
    case EDGE_BUILTIN_STRIDED_SLICE: /* no masks: every field its default */
        fbb_table_start(b);
        *type = EDGE_BUILTIN_OPTIONS_STRIDED_SLICE_OPTIONS;
        return fbb_table_end(b);
    default: return 0; /* RESHAPE (shape input), QUANTIZE, activations: none */
    }
}

int edgeq_tflite_serialize(const edgeq_qmodel *m, const char *description, uint8_t **out,
                           size_t *len, size_t *plan_at, char *err, size_t err_len) {
    *out = NULL;
    *len = 0;
    size_t data_bytes = 0;
    for (int i = 0; i < m->n_t; i++)
        if (m->t[i].data) data_bytes += m->t[i].bytes + 16;
    fbb b;
    if (fbb_init(&b, data_bytes + 4096 + (size_t)m->n_t * 256 + (size_t)m->n_ops * 128)) {
        edgeq_fail(err, err_len, "out of memory");
        return -1;
    }
    int n_t = m->n_t;
    int *buf_of = calloc((size_t)n_t + 1, sizeof *buf_of);
    fbb_ref *refs = calloc((size_t)(n_t > m->n_ops ? n_t : m->n_ops) + 8, sizeof *refs);
    fbb_ref *bufs = calloc((size_t)n_t + 4, sizeof *bufs);
    int32_t *plan = malloc(((size_t)n_t + 3) * sizeof *plan);
    int codes[256], versions[256], n_codes = 0;
    int rc = -1;
    if (!buf_of || !refs || !bufs || !plan) {
        edgeq_fail(err, err_len, "out of memory");
        goto done;
    }

    /* Buffer contents first: they end up at the end of the file. Buffer 0
     * is the empty sentinel. */
    int n_bufs = 1;
    fbb_ref *data_refs = calloc((size_t)n_t + 4, sizeof *data_refs);
    if (!data_refs) {
        edgeq_fail(err, err_len, "out of memory");
        goto done;
    }
    for (int i = 0; i < n_t; i++) {
        if (!m->t[i].data) continue;
        data_refs[n_bufs] = fbb_vector(&b, m->t[i].data, m->t[i].bytes, 1, 16);
        buf_of[i] = n_bufs++;
    }
    /* metadata buffers */
    char rtv[16] = {0};
    snprintf(rtv, sizeof rtv, "%s", runtime_version(m));
    int rt_buf = n_bufs;
    data_refs[n_bufs++] = fbb_vector(&b, rtv, sizeof rtv, 1, 16);
    plan[0] = 0; /* format version */
    plan[1] = 1; /* subgraphs */
    plan[2] = n_t;
    for (int i = 0; i < n_t; i++) plan[3 + i] = -1;
    int plan_buf = n_bufs;
    fbb_ref plan_ref = fbb_vector(&b, plan, ((size_t)n_t + 3) * 4, 1, 16);
    data_refs[n_bufs++] = plan_ref;
    /* the int32 words are little-endian on disk; the vector was copied as
     * bytes, so rewrite them portably once the buffer is final (below). */

    for (int k = 0; k < n_bufs; k++) {
        fbb_table_start(&b);
        if (k > 0) fbb_add_ref(&b, EDGE_F_BUFFER_DATA, data_refs[k]);
        bufs[k] = fbb_table_end(&b);
    }
    fbb_ref buffers = fbb_vector_refs(&b, bufs, (size_t)n_bufs);
    free(data_refs);

    /* tensors */
    for (int i = 0; i < n_t; i++) {
        const edgeq_qtensor *t = &m->t[i];
        fbb_ref q = 0;
        if (t->n_q > 0) {
            fbb_ref sc = fbb_vector_f32(&b, t->scale, (size_t)t->n_q);
            fbb_ref zp = fbb_vector_i64(&b, t->zero_point, (size_t)t->n_q);
            fbb_table_start(&b);
            fbb_add_ref(&b, EDGE_F_QUANTIZATION_PARAMETERS_SCALE, sc);
            fbb_add_ref(&b, EDGE_F_QUANTIZATION_PARAMETERS_ZERO_POINT, zp);
            fbb_add_i32(&b, EDGE_F_QUANTIZATION_PARAMETERS_QUANTIZED_DIMENSION, t->qdim, 0);
            q = fbb_table_end(&b);
        }
        fbb_ref shape = fbb_vector_i32(&b, t->shape, (size_t)t->rank);
        fbb_ref name = fbb_string(&b, t->name);
        fbb_table_start(&b);
        fbb_add_ref(&b, EDGE_F_TENSOR_SHAPE, shape);
        fbb_add_i8(&b, EDGE_F_TENSOR_TYPE, (int8_t)t->type, 0);
        fbb_add_u32(&b, EDGE_F_TENSOR_BUFFER, (uint32_t)buf_of[i], 0);
        fbb_add_ref(&b, EDGE_F_TENSOR_NAME, name);
        fbb_add_ref(&b, EDGE_F_TENSOR_QUANTIZATION, q);
        refs[i] = fbb_table_end(&b);
    }
    fbb_ref tensors = fbb_vector_refs(&b, refs, (size_t)n_t);

    /* operator codes, in order of first use */
    int *op_code_index = calloc((size_t)m->n_ops + 1, sizeof *op_code_index);
    if (!op_code_index) {
        edgeq_fail(err, err_len, "out of memory");
        goto done;
    }
    for (int i = 0; i < m->n_ops; i++) {
        int k = 0;
        while (k < n_codes && codes[k] != m->ops[i].code) k++;
        if (k == n_codes) {
            if (n_codes == 256) {
                free(op_code_index);
                edgeq_fail(err, err_len, "too many operator kinds");
                goto done;
            }
            codes[n_codes] = m->ops[i].code;
            versions[n_codes++] = m->ops[i].version;
        } else if (m->ops[i].version > versions[k]) {
            versions[k] = m->ops[i].version;
        }
        op_code_index[i] = k;
    }

    /* operators */
    for (int i = 0; i < m->n_ops; i++) {
        const edgeq_qop *op = &m->ops[i];
        int32_t ins[EDGEQ_QOP_MAX_IN], outs[1];
        for (int k = 0; k < op->n_in; k++) ins[k] = op->in[k];
        for (int k = 0; k < op->n_out; k++) outs[k] = op->out[k];
        fbb_ref vi = fbb_vector_i32(&b, ins, (size_t)op->n_in);
        fbb_ref vo = fbb_vector_i32(&b, outs, (size_t)op->n_out);
        int otype;
        fbb_ref opts = write_options(&b, op, &otype);
        fbb_table_start(&b);
        fbb_add_u32(&b, EDGE_F_OPERATOR_OPCODE_INDEX, (uint32_t)op_code_index[i], 0);
        fbb_add_ref(&b, EDGE_F_OPERATOR_INPUTS, vi);
        fbb_add_ref(&b, EDGE_F_OPERATOR_OUTPUTS, vo);
        fbb_add_u8(&b, EDGE_F_OPERATOR_BUILTIN_OPTIONS_TYPE, (uint8_t)otype, 0);
        fbb_add_ref(&b, EDGE_F_OPERATOR_BUILTIN_OPTIONS, opts);
        refs[i] = fbb_table_end(&b);
    }
    free(op_code_index);
    fbb_ref operators = fbb_vector_refs(&b, refs, (size_t)m->n_ops);

    int32_t gin[8], gout[8];
    for (int k = 0; k < m->n_inputs; k++) gin[k] = m->inputs[k];
    for (int k = 0; k < m->n_outputs; k++) gout[k] = m->outputs[k];
    fbb_ref vin = fbb_vector_i32(&b, gin, (size_t)m->n_inputs);
    fbb_ref vout = fbb_vector_i32(&b, gout, (size_t)m->n_outputs);
    fbb_ref sgname = fbb_string(&b, "main");
    fbb_table_start(&b);
    fbb_add_ref(&b, EDGE_F_SUB_GRAPH_TENSORS, tensors);
    fbb_add_ref(&b, EDGE_F_SUB_GRAPH_INPUTS, vin);
    fbb_add_ref(&b, EDGE_F_SUB_GRAPH_OUTPUTS, vout);
    fbb_add_ref(&b, EDGE_F_SUB_GRAPH_OPERATORS, operators);
    fbb_add_ref(&b, EDGE_F_SUB_GRAPH_NAME, sgname);
    fbb_ref sg = fbb_table_end(&b);
    fbb_ref subgraphs = fbb_vector_refs(&b, &sg, 1);

    for (int k = 0; k < n_codes; k++) {
        fbb_table_start(&b);
        fbb_add_i8(&b, EDGE_F_OPERATOR_CODE_DEPRECATED_BUILTIN_CODE, (int8_t)(codes[k] < 127 ? codes[k] : 127), 0);
        fbb_add_i32(&b, EDGE_F_OPERATOR_CODE_VERSION, versions[k], EDGE_D_OPERATOR_CODE_VERSION);
        fbb_add_i32(&b, EDGE_F_OPERATOR_CODE_BUILTIN_CODE, codes[k], 0);
        refs[k] = fbb_table_end(&b);
    }
    fbb_ref opcodes = fbb_vector_refs(&b, refs, (size_t)n_codes);

    /* metadata */
    fbb_ref md[2];
    const char *md_names[2] = {"min_runtime_version", "OfflineMemoryAllocation"};
    int md_bufs[2] = {rt_buf, plan_buf};
    for (int k = 0; k < 2; k++) {
        fbb_ref nm = fbb_string(&b, md_names[k]);
        fbb_table_start(&b);
        fbb_add_ref(&b, EDGE_F_METADATA_NAME, nm);
        fbb_add_u32(&b, EDGE_F_METADATA_BUFFER, (uint32_t)md_bufs[k], 0);
        md[k] = fbb_table_end(&b);
    }
    fbb_ref metadata = fbb_vector_refs(&b, md, 2);

    /* signature */
    fbb_ref maps_in[8], maps_out[8];
    for (int k = 0; k < m->n_inputs; k++) {
        fbb_ref nm = fbb_string(&b, m->io_names_in[k]);
        fbb_table_start(&b);
        fbb_add_ref(&b, EDGE_F_TENSOR_MAP_NAME, nm);
        fbb_add_u32(&b, EDGE_F_TENSOR_MAP_TENSOR_INDEX, (uint32_t)m->inputs[k], 0);
        maps_in[k] = fbb_table_end(&b);
    }
    for (int k = 0; k < m->n_outputs; k++) {
        fbb_ref nm = fbb_string(&b, m->io_names_out[k]);
        fbb_table_start(&b);
        fbb_add_ref(&b, EDGE_F_TENSOR_MAP_NAME, nm);
        fbb_add_u32(&b, EDGE_F_TENSOR_MAP_TENSOR_INDEX, (uint32_t)m->outputs[k], 0);
        maps_out[k] = fbb_table_end(&b);
    }
    fbb_ref vsi = fbb_vector_refs(&b, maps_in, (size_t)m->n_inputs);
    fbb_ref vso = fbb_vector_refs(&b, maps_out, (size_t)m->n_outputs);
    fbb_ref key = fbb_string(&b, "serving_default");
    fbb_table_start(&b);
    fbb_add_ref(&b, EDGE_F_SIGNATURE_DEF_INPUTS, vsi);
    fbb_add_ref(&b, EDGE_F_SIGNATURE_DEF_OUTPUTS, vso);
    fbb_add_ref(&b, EDGE_F_SIGNATURE_DEF_SIGNATURE_KEY, key);
    fbb_ref sig = fbb_table_end(&b);
    fbb_ref sigs = fbb_vector_refs(&b, &sig, 1);

    fbb_ref desc = fbb_string(&b, description ? description : "edgeq");
    fbb_table_start(&b);
    fbb_add_u32(&b, EDGE_F_MODEL_VERSION, 3, 0); /* schema version 3 */
    fbb_add_ref(&b, EDGE_F_MODEL_OPERATOR_CODES, opcodes);
    fbb_add_ref(&b, EDGE_F_MODEL_SUBGRAPHS, subgraphs);
    fbb_add_ref(&b, EDGE_F_MODEL_DESCRIPTION, desc);
    fbb_add_ref(&b, EDGE_F_MODEL_BUFFERS, buffers);
    fbb_add_ref(&b, EDGE_F_MODEL_METADATA, metadata);
    fbb_add_ref(&b, EDGE_F_MODEL_SIGNATURE_DEFS, sigs);
    fbb_ref model = fbb_table_end(&b);

    const uint8_t *bytes;
    size_t n;
    const char *ferr = NULL;
    if (fbb_finish(&b, model, "TFL3", &bytes, &n, &ferr) != 0) {
        edgeq_fail(err, err_len, "writing the model: %s", ferr ? ferr : "?");
        goto done;
    }
    *out = alloc_aligned(n);
    if (!*out) {
        edgeq_fail(err, err_len, "out of memory");
        goto done;
    }
    memcpy(*out, bytes, n);
    *len = n;
    *plan_at = fbb_pos(n, plan_ref) + 4 + 12;
    /* Store the plan header and the -1s little-endian whatever the host. */
    for (int i = 0; i < n_t + 3; i++) {
        uint32_t v = (uint32_t)plan[i];
        uint8_t *p = *out + fbb_pos(n, plan_ref) + 4 + 4 * (size_t)i;
        p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
    }
    rc = 0;
done:
    free(buf_of);
    free(refs);
    free(bufs);
    free(plan);
    fbb_free(&b);
    return rc;
}

int edgeq_tflite_set_plan(uint8_t *data, size_t len, size_t plan_at, int n_tensors, char *err,
                          size_t err_len) {
    /* TFLM runs its own kernels, which promise nothing about the order they
     * read and write in: plan without the engine's streaming overlaps. */
    edgeq_engine eng;
    if (edgeq_engine_load_flags(&eng, data, len, EDGE_PLAN_NO_OVERLAP, err, err_len) != 0) {
        edgeq_engine_free(&eng);
        return -1;
    }
    const edgeq_engine *e = &eng;
    for (int i = 0; i < n_tensors; i++) {
        int64_t off = edge_tensor_arena_offset(&e->m, (uint32_t)i);
        int32_t v = -1;
        /* TFLM's offsets count from the start of the arena's non-persistent
         * area; the engine's include its records in front of it. */
        if (off >= 0 && (size_t)off >= e->m.arena_records &&
            (uint64_t)off - e->m.arena_records <= 0x7fffffffu)
            v = (int32_t)((uint64_t)off - e->m.arena_records);
        uint32_t u = (uint32_t)v;
        uint8_t *p = data + plan_at + 4 * (size_t)i;
        p[0] = (uint8_t)u, p[1] = (uint8_t)(u >> 8), p[2] = (uint8_t)(u >> 16), p[3] = (uint8_t)(u >> 24);
    }
    edgeq_engine_free(&eng);
    return 0;
}

int edgeq_tflite_build(const edgeq_qmodel *m, const char *description, uint8_t **out,
                       size_t *len, edgeq_engine *e, char *err, size_t err_len) {
    size_t plan_at;
    edgeq_engine local;
    edgeq_engine *eng = e ? e : &local;
    memset(eng, 0, sizeof *eng);
    if (edgeq_tflite_serialize(m, description, out, len, &plan_at, err, err_len) != 0) return -1;
    if (edgeq_engine_load(eng, *out, *len, err, err_len) != 0) {
        edgeq_engine_free(eng);
        free(*out);
        *out = NULL;
        return -1;
    }
    /* The engine plans at load and, until it reads offline plans, ignores
     * this metadata, so patching it leaves `eng` valid on the final bytes. */
    if (edgeq_tflite_set_plan(*out, *len, plan_at, m->n_t, err, err_len) != 0) {
        edgeq_engine_free(eng);
        free(*out);
        *out = NULL;
        return -1;
    }
    if (!e) edgeq_engine_free(eng);
    return 0;
}
