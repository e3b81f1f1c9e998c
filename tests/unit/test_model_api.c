/*
 * test_model_api.c — the engine's contract with its caller: misuse gets
 * error codes, the arena size it reports is exact, and the planner never
 * lets two live buffers overlap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "model.h"
#include "shared_models.h"

static const char *const real_models[] = {
    "tflite-micro/models/hello_world_int8.tflite",
    "tflite-micro/models/person_detect.tflite",
    "tflite-micro/models/micro_speech_quantized.tflite",
    "mlcommons-tiny/models/visual_wake_words/vww_96_int8.tflite",
    "mlcommons-tiny/models/image_classification/pretrainedResnet_quant.tflite",
    "mlcommons-tiny/models/keyword_spotting/kws_ref_model.tflite",
    "mlcommons-tiny/models/anomaly_detection/ad01_int8.tflite",
    "mlcommons-tiny/models/streaming_wakeword/str_ww_ref_model.tflite",
};

static uint8_t *need_model(const char *rel, size_t *len) {
    uint8_t *d = read_shared(rel, len);
    if (!d) {
        print_message("shared model %s/%s not found\n", shared_models_dir(), rel);
        fail();
    }
    return d;
}

static void test_null_and_misaligned_arguments(void **state) {
    (void)state;
    size_t len;
    uint8_t *data = need_model(real_models[0], &len);
    edge_model m;
    _Alignas(16) static uint8_t arena[1 << 16];
    assert_int_equal(edge_model_init(NULL, data, len, arena, sizeof arena), EDGE_ERR_ARG);
    assert_int_equal(edge_model_init(&m, NULL, len, arena, sizeof arena), EDGE_ERR_ARG);
    assert_non_null(strstr(edge_model_error(&m), "NULL"));
    assert_int_equal(edge_model_init(&m, data, len, arena + 1, sizeof arena - 1), EDGE_ERR_ARG);
    assert_non_null(strstr(edge_model_error(&m), "aligned"));
    assert_int_equal(edge_model_init(&m, data, len, NULL, 100), EDGE_ERR_ARG);
    assert_int_equal(edge_model_init(&m, data, 3, arena, sizeof arena), EDGE_ERR_MODEL);
    free(data);
}

static void test_invoke_before_init_is_an_error(void **state) {
    (void)state;
    edge_model m;
    memset(&m, 0, sizeof m);
    assert_int_equal(edge_invoke(&m), EDGE_ERR_STATE);
    assert_int_equal(edge_invoke(NULL), EDGE_ERR_ARG);
    /* A failed init leaves the context unusable too. */
    static const uint8_t junk[64] = "this is not a flatbuffer at all, just some ascii text....";
    _Alignas(16) static uint8_t arena[4096];
    assert_int_not_equal(edge_model_init(&m, junk, sizeof junk, arena, sizeof arena), EDGE_OK);
    assert_int_equal(edge_invoke(&m), EDGE_ERR_STATE);
    assert_int_equal(edge_num_inputs(&m), 0);
    edge_tensor t = edge_input(&m, 0);
    assert_null(t.data);
}

/* The size init reports is exactly what it needs: one byte less fails. */
static void test_arena_needed_is_exact(void **state) {
    (void)state;
    for (size_t k = 0; k < sizeof real_models / sizeof real_models[0]; k++) {
        size_t len, need = 0;
        uint8_t *data = need_model(real_models[k], &len);
        size_t work_len = 8u << 20;
        uint8_t *work = aligned_alloc(16, work_len);
        assert_int_equal(edge_model_arena_needed(data, len, work, work_len, &need), EDGE_OK);
        assert_true(need > 0);
        edge_model m;
        uint8_t *arena = aligned_alloc(16, (need + 15) & ~(size_t)15);
        assert_int_equal(edge_model_init(&m, data, len, arena, need), EDGE_OK);
        assert_int_equal(m.arena_needed, need);
        assert_int_equal(edge_model_init(&m, data, len, arena, need - 1), EDGE_ERR_ARENA);
        assert_int_equal(m.arena_needed, need);
        assert_non_null(strstr(edge_model_error(&m), "too small"));
        /* Tiny arena: a lower bound, then the exact figure from a retry. */
        assert_int_equal(edge_model_init(&m, data, len, arena, 16), EDGE_ERR_ARENA);
        assert_true(m.arena_needed > 16 && m.arena_needed <= need);
        free(arena);
        free(work);
        free(data);
    }
}

/* No two arena buffers alive at the same op may share bytes. */
static void check_plan(const edge_model *m) {
    uint32_t nt = m->n_tensors, n = nt + m->n_ops;
    int64_t *first = calloc(n, sizeof *first), *last = calloc(n, sizeof *last);
    int64_t *lo = calloc(n, sizeof *lo), *hi = calloc(n, sizeof *hi);
    for (uint32_t i = 0; i < n; i++) {
        first[i] = INT64_MAX;
        last[i] = -1;
    }
    for (uint32_t i = 0; i < m->n_ops; i++) {
        const edge_op_rt *op = &m->ops[i];
        for (uint32_t k = 0; k < op->n_in + op->n_out; k++) {
            int32_t t = op->io[k];
            if (t < 0) continue;
            while (m->tensors[t].alias_of >= 0) t = m->tensors[t].alias_of; /* a view uses its root */
            if (first[t] > i) first[t] = i;
            if (last[t] < i) last[t] = i;
        }
        if (op->scratch_offset >= 0) {
            first[nt + i] = last[nt + i] = i;
            lo[nt + i] = op->scratch_offset;
            hi[nt + i] = op->scratch_offset + op->scratch_bytes;
        }
    }
    for (uint32_t k = 0; k < m->n_inputs; k++) first[fb_i32_at(m->inputs, k)] = 0;
    for (uint32_t k = 0; k < m->n_outputs; k++) last[fb_i32_at(m->outputs, k)] = m->n_ops;
    for (uint32_t t = 0; t < nt; t++) {
        if (m->tensors[t].offset < 0) {
            first[t] = INT64_MAX;
            continue;
        }
        lo[t] = m->tensors[t].offset;
        hi[t] = lo[t] + (int64_t)m->tensors[t].bytes;
        assert_true((size_t)hi[t] <= m->arena_activations);
    }
    for (uint32_t a = 0; a < n; a++) {
        if (first[a] == INT64_MAX) continue;
        for (uint32_t b = a + 1; b < n; b++) {
            if (first[b] == INT64_MAX) continue;
            int live_together = !(last[a] < first[b] || last[b] < first[a]);
            int share_bytes = lo[a] < hi[b] && lo[b] < hi[a];
            if (live_together && share_bytes) {
                print_message("buffers %u and %u overlap while both alive\n", a, b);
                fail();
            }
        }
    }
    free(first);
    free(last);
    free(lo);
    free(hi);
}

static void test_plan_never_overlaps_live_buffers(void **state) {
    (void)state;
    for (size_t k = 0; k < sizeof real_models / sizeof real_models[0]; k++) {
        size_t len;
        uint8_t *data = need_model(real_models[k], &len);
        size_t arena_len = 8u << 20;
        uint8_t *arena = aligned_alloc(16, arena_len);
        edge_model m;
        edge_status st = edge_model_init(&m, data, len, arena, arena_len);
        if (st != EDGE_OK) print_message("%s: %s\n", real_models[k], edge_model_error(&m));
        assert_int_equal(st, EDGE_OK);
        check_plan(&m);
        free(arena);
        free(data);
    }
}

/* Every prefix of a real model is refused or loads; none may crash or read
 * past the end (run under ASan in `make test`). */
static void test_truncated_models_are_refused(void **state) {
    (void)state;
    size_t len;
    uint8_t *data = need_model(real_models[0], &len);
    size_t arena_len = 1 << 20;
    uint8_t *arena = aligned_alloc(16, arena_len);
    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *copy = aligned_alloc(16, (cut + 16) & ~(size_t)15);
        memcpy(copy, data, cut);
        edge_model m;
        edge_status st = edge_model_init(&m, copy, cut, arena, arena_len);
        if (st == EDGE_OK) {
            /* Trailing bytes no table reaches may be cut; it must still run. */
            assert_int_equal(edge_invoke(&m), EDGE_OK);
        } else {
            assert_true(strlen(edge_model_error(&m)) > 0);
        }
        free(copy);
    }
    free(arena);
    free(data);
}

/* Random byte corruption: refused or run, never a crash. */
static void test_corrupted_models_do_not_crash(void **state) {
    (void)state;
    for (size_t k = 0; k < 3; k++) {
        size_t len;
        uint8_t *data = need_model(real_models[k == 0 ? 0 : (k == 1 ? 2 : 6)], &len);
        size_t arena_len = 4u << 20;
        uint8_t *arena = aligned_alloc(16, arena_len);
        uint8_t *copy = aligned_alloc(16, (len + 15) & ~(size_t)15);
        uint32_t seed = 12345u + (uint32_t)k;
        for (int iter = 0; iter < 400; iter++) {
            memcpy(copy, data, len);
            for (int flips = 0; flips < 1 + iter % 8; flips++) {
                seed = seed * 1664525u + 1013904223u;
                size_t at = (seed >> 8) % (len < 4096 ? len : 4096); /* the tables sit up front */
                copy[at] = (uint8_t)(seed >> 24);
            }
            edge_model m;
            if (edge_model_init(&m, copy, len, arena, arena_len) == EDGE_OK) {
                for (uint32_t i = 0; i < edge_num_inputs(&m); i++) { /* inputs are filled first */
                    edge_tensor in = edge_input(&m, i);
                    memset(in.data, 0, in.bytes);
                }
                (void)edge_invoke(&m);
            }
        }
        free(copy);
        free(arena);
        free(data);
    }
}

int main(void) {
    size_t len;
    uint8_t *probe = read_shared(real_models[0], &len);
    if (!probe) {
        printf("SKIP: ../shared/models not found at %s (set EDGE_SHARED_MODELS)\n", shared_models_dir());
        return 1;
    }
    free(probe);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_and_misaligned_arguments),
        cmocka_unit_test(test_invoke_before_init_is_an_error),
        cmocka_unit_test(test_arena_needed_is_exact),
        cmocka_unit_test(test_plan_never_overlaps_live_buffers),
        cmocka_unit_test(test_truncated_models_are_refused),
        cmocka_unit_test(test_corrupted_models_do_not_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
