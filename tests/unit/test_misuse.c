/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_misuse.c — API misuse gets error codes, not undefined behaviour
 * (issue 8): every entry point of edge.h with NULL pointers, indices out of
 * range, calls out of order, an arena too small (the message gives the
 * bytes needed), input sizes (the caller's only source of truth is
 * edge_tensor.bytes), and models whose tensors alias one constant buffer.
 *
 * Small models are built here with edgeq's own FlatBuffers builder
 * (quantize/lower/fbb.c, compiled into this test).
 */
/* Before cmocka.h, whose fail() macro would clash with fbb.c's fail(). */
#include "../../quantize/lower/fbb.c"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "model.h"
#include "shared_models.h"

#define HELLO "tflite-micro/models/hello_world_int8.tflite"

/* ---- a tiny model builder: ADD ops over int8 [4] tensors ---- */

typedef struct mtensor {
    uint32_t buffer; /* 0 = no data */
    int32_t dims;    /* shape [dims] */
    int input;       /* listed as a graph input */
    int output;      /* listed as a graph output */
} mtensor;

typedef struct mop {
    int32_t in0, in1, out;
} mop;

/* buffers[1..n_buf-1] hold `bufdata` (4 int8 bytes each, value 1..4 * k). */
static uint8_t *build(const mtensor *ts, int nt, const mop *ops, int nops, int n_buf, size_t *len) {
    fbb b;
    assert_int_equal(fbb_init(&b, 1024), 0);
    fbb_ref bufs[8];
    fbb_table_start(&b);
    bufs[0] = fbb_table_end(&b);
    for (int k = 1; k < n_buf; k++) {
        int8_t d[4] = {(int8_t)k, (int8_t)(2 * k), (int8_t)(3 * k), (int8_t)(4 * k)};
        fbb_ref v = fbb_vector(&b, d, 4, 1, 16);
        fbb_table_start(&b);
        fbb_add_ref(&b, 0, v);
        bufs[k] = fbb_table_end(&b);
    }
    fbb_ref tensors[16];
    int32_t gin[16], gout[16];
    size_t n_in = 0, n_out = 0;
    for (int i = 0; i < nt; i++) {
        float scale = 1.0f;
        int64_t zp = 0;
        fbb_ref sc = fbb_vector_f32(&b, &scale, 1), z = fbb_vector_i64(&b, &zp, 1);
        fbb_table_start(&b);
        fbb_add_ref(&b, 2, sc);
        fbb_add_ref(&b, 3, z);
        fbb_ref q = fbb_table_end(&b);
        fbb_ref shape = fbb_vector_i32(&b, &ts[i].dims, 1);
        char nm[8] = {'t', (char)('0' + i), 0};
        fbb_ref name = fbb_string(&b, nm);
        fbb_table_start(&b);
        fbb_add_ref(&b, 0, shape);
        fbb_add_i8(&b, 1, EDGE_INT8, 0);
        fbb_add_u32(&b, 2, ts[i].buffer, 0);
        fbb_add_ref(&b, 3, name);
        fbb_add_ref(&b, 4, q);
        tensors[i] = fbb_table_end(&b);
        if (ts[i].input) gin[n_in++] = i;
        if (ts[i].output) gout[n_out++] = i;
    }
    fbb_ref opr[8];
    for (int i = 0; i < nops; i++) {
        int32_t in[2] = {ops[i].in0, ops[i].in1};
        fbb_ref vi = fbb_vector_i32(&b, in, 2), vo = fbb_vector_i32(&b, &ops[i].out, 1);
        fbb_table_start(&b);
        fbb_add_ref(&b, 1, vi);
        fbb_add_ref(&b, 2, vo);
        opr[i] = fbb_table_end(&b);
    }
    fbb_ref vt = fbb_vector_refs(&b, tensors, (size_t)nt), vops = fbb_vector_refs(&b, opr, (size_t)nops);
    fbb_ref vin = fbb_vector_i32(&b, gin, n_in), vout = fbb_vector_i32(&b, gout, n_out);
    fbb_table_start(&b);
    fbb_add_ref(&b, 0, vt);
    fbb_add_ref(&b, 1, vin);
    fbb_add_ref(&b, 2, vout);
    fbb_add_ref(&b, 3, vops);
    fbb_ref sg = fbb_table_end(&b);
    fbb_table_start(&b);
    fbb_add_i8(&b, 0, 0, 1); /* deprecated_builtin_code ADD = 0 */
    fbb_add_i32(&b, 3, 0, 1);
    fbb_add_i32(&b, 2, 1, 0);
    fbb_ref code = fbb_table_end(&b);
    fbb_ref vcodes = fbb_vector_refs(&b, &code, 1), vsg = fbb_vector_refs(&b, &sg, 1);
    fbb_ref vbufs = fbb_vector_refs(&b, bufs, (size_t)n_buf);
    fbb_table_start(&b);
    fbb_add_u32(&b, 0, EDGE_SCHEMA_VERSION, 0);
    fbb_add_ref(&b, 1, vcodes);
    fbb_add_ref(&b, 2, vsg);
    fbb_add_ref(&b, 4, vbufs);
    fbb_ref root = fbb_table_end(&b);
    const uint8_t *out;
    const char *err = NULL;
    assert_int_equal(fbb_finish(&b, root, "TFL3", &out, len, &err), 0);
    uint8_t *copy = aligned_alloc(16, (*len + 15) & ~(size_t)15);
    memcpy(copy, out, *len);
    fbb_free(&b);
    return copy;
}

static _Alignas(16) uint8_t arena[1 << 16];

/* Two constant tensors sharing buffer 1 (legal in TFLite): x + c + c. */
static void test_tensors_sharing_a_constant_buffer(void **state) {
    (void)state;
    const mtensor ts[] = {{0, 4, 1, 0}, {1, 4, 0, 0}, {0, 4, 0, 0}, {1, 4, 0, 0}, {0, 4, 0, 1}};
    const mop ops[] = {{0, 1, 2}, {2, 3, 4}};
    size_t len;
    uint8_t *data = build(ts, 5, ops, 2, 2, &len);
    edge_model m;
    edge_status st = edge_model_init(&m, data, len, arena, sizeof arena);
    if (st) print_message("%s\n", edge_model_error(&m));
    assert_int_equal(st, EDGE_OK);
    edge_tensor a = edge_tensor_at(&m, 1), c = edge_tensor_at(&m, 3);
    assert_ptr_equal(a.data, c.data); /* both point at the one buffer, in the model */
    assert_true((const uint8_t *)a.data >= data && (const uint8_t *)a.data < data + len);
    edge_tensor in = edge_input(&m, 0);
    int8_t x[4] = {10, -20, 30, 100};
    assert_int_equal(in.bytes, 4);
    memcpy(in.data, x, 4);
    assert_int_equal(edge_invoke(&m), EDGE_OK);
    edge_tensor out = edge_output(&m, 0);
    const int8_t *y = out.data;
    assert_int_equal(y[0], 12);
    assert_int_equal(y[1], -16);
    assert_int_equal(y[2], 36);
    assert_int_equal(y[3], 108);
    /* The constant bytes are untouched. */
    assert_int_equal(((const int8_t *)a.data)[3], 4);
    free(data);
}

/* An op output backed by a constant buffer would write into the model. */
static void test_op_writing_a_constant_is_refused(void **state) {
    (void)state;
    const mtensor ts[] = {{0, 4, 1, 0}, {1, 4, 0, 0}, {1, 4, 0, 1}};
    const mop ops[] = {{0, 1, 2}};
    size_t len;
    uint8_t *data = build(ts, 3, ops, 1, 2, &len);
    edge_model m;
    assert_int_equal(edge_model_init(&m, data, len, arena, sizeof arena), EDGE_ERR_MODEL);
    assert_non_null(strstr(edge_model_error(&m), "writes constant tensor"));
    assert_int_equal(edge_invoke(&m), EDGE_ERR_STATE);
    free(data);
}

/* A graph input backed by a constant buffer: the caller would write it. */
static void test_constant_graph_input_is_refused(void **state) {
    (void)state;
    const mtensor ts[] = {{1, 4, 1, 0}, {1, 4, 0, 0}, {0, 4, 0, 1}};
    const mop ops[] = {{0, 1, 2}};
    size_t len;
    uint8_t *data = build(ts, 3, ops, 1, 2, &len);
    edge_model m;
    assert_int_equal(edge_model_init(&m, data, len, arena, sizeof arena), EDGE_ERR_MODEL);
    assert_non_null(strstr(edge_model_error(&m), "constant"));
    free(data);
}

/* An op reading a tensor nothing wrote (not an input, not a constant, not
 * an earlier op's output) would read uninitialised arena bytes. */
static void test_unwritten_activation_is_refused(void **state) {
    (void)state;
    const mtensor ts[] = {{0, 4, 0, 0}, {1, 4, 0, 0}, {0, 4, 0, 1}};
    const mop ops[] = {{0, 1, 2}};
    size_t len;
    uint8_t *data = build(ts, 3, ops, 1, 2, &len);
    edge_model m;
    assert_int_equal(edge_model_init(&m, data, len, arena, sizeof arena), EDGE_ERR_MODEL);
    assert_non_null(strstr(edge_model_error(&m), "neither a graph input"));
    /* ... nor may an op read what a later op writes. */
    const mtensor ts2[] = {{0, 4, 1, 0}, {1, 4, 0, 0}, {0, 4, 0, 0}, {0, 4, 0, 1}};
    const mop ops2[] = {{0, 2, 3}, {0, 1, 2}};
    free(data);
    data = build(ts2, 4, ops2, 2, 2, &len);
    assert_int_equal(edge_model_init(&m, data, len, arena, sizeof arena), EDGE_ERR_MODEL);
    assert_non_null(strstr(edge_model_error(&m), "earlier op"));
    free(data);
}

/* Two tensors sharing a buffer must both fit it exactly. */
static void test_shared_buffer_of_the_wrong_size_is_refused(void **state) {
    (void)state;
    const mtensor ts[] = {{0, 4, 1, 0}, {1, 4, 0, 0}, {0, 4, 0, 0}, {1, 2, 0, 0}, {0, 4, 0, 1}};
    const mop ops[] = {{0, 1, 2}, {2, 3, 4}};
    size_t len;
    uint8_t *data = build(ts, 5, ops, 2, 2, &len);
    edge_model m;
    assert_int_equal(edge_model_init(&m, data, len, arena, sizeof arena), EDGE_ERR_MODEL);
    assert_non_null(strstr(edge_model_error(&m), "holds 4 bytes"));
    free(data);
}

/* ---- the public API with NULLs, bad indices and calls out of order ---- */

static void test_every_entry_point_takes_null(void **state) {
    (void)state;
    size_t need = 123;
    assert_int_equal(edge_model_init(NULL, NULL, 0, NULL, 0), EDGE_ERR_ARG);
    assert_int_equal(edge_model_arena_needed(NULL, 0, arena, sizeof arena, &need), EDGE_ERR_ARG);
    assert_int_equal(need, 0);
    assert_int_equal(edge_model_arena_needed(NULL, 0, NULL, 0, NULL), EDGE_ERR_ARG);
    assert_int_equal(edge_invoke(NULL), EDGE_ERR_ARG);
    assert_int_equal(edge_num_inputs(NULL), 0);
    assert_int_equal(edge_num_outputs(NULL), 0);
    assert_int_equal(edge_num_tensors(NULL), 0);
    assert_int_equal(edge_num_ops(NULL), 0);
    edge_tensor t = edge_input(NULL, 0);
    assert_null(t.data);
    assert_int_equal(t.rank, 0);
    assert_string_equal(t.name, "");
    t = edge_output(NULL, 0);
    assert_null(t.data);
    t = edge_tensor_at(NULL, 0);
    assert_null(t.data);
    edge_op_info info;
    assert_int_equal(edge_op_info_at(NULL, 0, &info), EDGE_ERR_ARG);
    assert_int_equal(edge_tensor_arena_offset(NULL, 0), -1);
    edge_set_profiler(NULL, NULL, NULL);
    assert_non_null(edge_model_error(NULL));
    assert_non_null(edge_status_str((edge_status)1234));
    assert_non_null(edge_type_name((edge_type)77));
    assert_int_equal(edge_type_size((edge_type)77), 0);
}

static void test_out_of_range_and_out_of_order(void **state) {
    (void)state;
    size_t len;
    uint8_t *data = read_shared(HELLO, &len);
    assert_non_null(data);
    edge_model m;
    /* Before any init (a zeroed context) nothing is ready. */
    memset(&m, 0, sizeof m);
    edge_op_info info;
    assert_int_equal(edge_op_info_at(&m, 0, &info), EDGE_ERR_STATE);
    assert_int_equal(edge_invoke(&m), EDGE_ERR_STATE);
    assert_int_equal(edge_model_init(&m, data, len, arena, sizeof arena), EDGE_OK);
    uint32_t n = edge_num_ops(&m);
    assert_true(n > 0);
    assert_int_equal(edge_op_info_at(&m, 0, &info), EDGE_OK);
    assert_non_null(info.name);
    assert_int_equal(edge_op_info_at(&m, n, &info), EDGE_ERR_ARG);
    assert_int_equal(edge_op_info_at(&m, UINT32_MAX, &info), EDGE_ERR_ARG);
    assert_int_equal(edge_op_info_at(&m, 0, NULL), EDGE_ERR_ARG);
    assert_null(edge_input(&m, edge_num_inputs(&m)).data);
    assert_null(edge_output(&m, UINT32_MAX).data);
    assert_null(edge_tensor_at(&m, edge_num_tensors(&m)).data);
    assert_int_equal(edge_tensor_arena_offset(&m, edge_num_tensors(&m)), -1);
    /* A failed re-init on the same context leaves it unusable. */
    assert_int_equal(edge_model_init(&m, data, 7, arena, sizeof arena), EDGE_ERR_MODEL);
    assert_int_equal(edge_invoke(&m), EDGE_ERR_STATE);
    assert_int_equal(edge_num_ops(&m), 0);
    assert_int_equal(edge_op_info_at(&m, 0, &info), EDGE_ERR_STATE);
    free(data);
}

/* Arena too small: EDGE_ERR_ARENA, arena_needed set, and the message says
 * how many bytes, so a caller reading only the text can fix it. */
static void test_arena_too_small_says_bytes_needed(void **state) {
    (void)state;
    size_t len, need = 0;
    uint8_t *data = read_shared(HELLO, &len);
    assert_non_null(data);
    assert_int_equal(edge_model_arena_needed(data, len, arena, sizeof arena, &need), EDGE_OK);
    char num[32];
    snprintf(num, sizeof num, "%zu", need);
    edge_model m;
    for (size_t have = 0; have < need; have += have < 64 ? 16 : (need - have + 1) / 2) {
        assert_int_equal(edge_model_init(&m, data, len, have ? arena : NULL, have), EDGE_ERR_ARENA);
        assert_true(m.arena_needed > have && m.arena_needed <= need);
        char lower[32];
        snprintf(lower, sizeof lower, "%zu", m.arena_needed);
        assert_non_null(strstr(edge_model_error(&m), lower));
        if (m.arena_needed_exact) assert_non_null(strstr(edge_model_error(&m), num));
        assert_int_equal(edge_invoke(&m), EDGE_ERR_STATE);
    }
    assert_int_equal(edge_model_init(&m, data, len, arena, need - 1), EDGE_ERR_ARENA);
    assert_non_null(strstr(edge_model_error(&m), num));
    /* arena_needed with a work buffer too small for the records: a lower
     * bound and EDGE_ERR_ARENA. */
    size_t lb = 0;
    assert_int_equal(edge_model_arena_needed(data, len, arena, 16, &lb), EDGE_ERR_ARENA);
    assert_true(lb > 16 && lb <= need);
    free(data);
}

/* Input sizes: edge_tensor.bytes is the caller's contract. It equals the
 * product of dims times the element size, and [data, data + bytes) lies
 * inside the arena. A caller gets a size wrong only by assuming a shape or
 * type instead of reading the view (edgeq run checks .npy/raw sizes against
 * edge_tensor.bytes before copying). */
static void test_input_views_are_consistent(void **state) {
    (void)state;
    static const char *const models[] = {HELLO, "tflite-micro/models/person_detect.tflite",
                                         "mlcommons-tiny/models/keyword_spotting/kws_ref_model.tflite"};
    for (size_t k = 0; k < sizeof models / sizeof models[0]; k++) {
        size_t len, need = 0;
        uint8_t *data = read_shared(models[k], &len);
        assert_non_null(data);
        size_t wl = 4u << 20;
        uint8_t *work = aligned_alloc(16, wl);
        assert_int_equal(edge_model_arena_needed(data, len, work, wl, &need), EDGE_OK);
        edge_model m;
        assert_int_equal(edge_model_init(&m, data, len, work, need), EDGE_OK);
        for (int out = 0; out < 2; out++) {
            uint32_t n = out ? edge_num_outputs(&m) : edge_num_inputs(&m);
            assert_true(n > 0);
            for (uint32_t i = 0; i < n; i++) {
                edge_tensor t = out ? edge_output(&m, i) : edge_input(&m, i);
                size_t e = edge_type_size(t.type);
                assert_true(e > 0);
                for (int32_t d = 0; d < t.rank; d++) e *= (size_t)t.dims[d];
                assert_int_equal(t.bytes, e);
                assert_true((uint8_t *)t.data >= work && (uint8_t *)t.data + t.bytes <= work + need);
                if (!out) memset(t.data, 0, t.bytes);
            }
        }
        assert_int_equal(edge_invoke(&m), EDGE_OK);
        free(work);
        free(data);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tensors_sharing_a_constant_buffer),
        cmocka_unit_test(test_op_writing_a_constant_is_refused),
        cmocka_unit_test(test_constant_graph_input_is_refused),
        cmocka_unit_test(test_shared_buffer_of_the_wrong_size_is_refused),
        cmocka_unit_test(test_unwritten_activation_is_refused),
        cmocka_unit_test(test_every_entry_point_takes_null),
        cmocka_unit_test(test_out_of_range_and_out_of_order),
        cmocka_unit_test(test_arena_too_small_says_bytes_needed),
        cmocka_unit_test(test_input_views_are_consistent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
