/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_model_api.c — the engine's contract with its caller: misuse gets
 * error codes, the arena size it reports is exact, and the planner never
 * lets two live buffers overlap, except an op's streaming output over an
 * input that dies at it, within the limit the op declared.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "kernels/x86/systolic_x86.h"
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

static int32_t root(const edge_model *m, int32_t t) {
    while (t >= 0 && m->tensors[t].alias_of >= 0) t = m->tensors[t].alias_of;
    return t;
}

/* May buffer `out` overlap `in` as planned: out is output 0 of op k = its
 * first op, in dies at op k, every input slot of op k holding it is
 * declared, and out's offset is at most in's + the op's limit D, or, the
 * op running backwards (one declared input, E declared), at least in's +
 * E? */
static int stream_pair_ok(const edge_model *m, uint32_t out, uint32_t in, const int64_t *first,
                          const int64_t *last, const int64_t *lo) {
    if (m->flags & EDGE_PLAN_NO_OVERLAP) return 0;
    if (out >= m->n_tensors || in >= m->n_tensors || first[out] < 0 || first[out] >= m->n_ops) return 0;
    const uint32_t k = (uint32_t)first[out];
    const edge_op_rt *op = &m->ops[k];
    /* A fused pair (one op at the head's index) streams the tail's output. */
    const edge_op_rt *producer = (op->fused & EDGE_FUSED_HEAD) ? &m->ops[k + 1] : op;
    if (!op->stream_in || last[in] != k || root(m, producer->io[producer->n_in]) != (int32_t)out) return 0;
    int found = 0;
    for (uint32_t i = 0; i < op->n_in; i++) {
        if (root(m, op->io[i]) != (int32_t)in) continue;
        if (i >= 8 || !(op->stream_in & (1u << i))) return 0;
        found = 1;
    }
    if (!found) return 0;
    const int64_t delta = lo[out] - lo[in];
    if (op->stream_rev)
        return op->stream_e16 != EDGE_STREAM_NO_E && !(op->stream_in & (op->stream_in - 1u)) &&
               delta >= (int64_t)op->stream_e16 * 16;
    return delta <= (int64_t)op->stream_d16 * 16;
}

/* No two arena buffers alive at the same op may share bytes, but for
 * declared streaming pairs within their limit. */
static void check_plan_peak(const edge_model *m, size_t peak) {
    uint32_t nt = m->n_tensors, n = nt + m->n_ops;
    int64_t *first = calloc(n, sizeof *first), *last = calloc(n, sizeof *last);
    int64_t *lo = calloc(n, sizeof *lo), *hi = calloc(n, sizeof *hi);
    for (uint32_t i = 0; i < n; i++) {
        first[i] = INT64_MAX;
        last[i] = -1;
    }
    for (uint32_t i = 0; i < m->n_ops; i++) {
        const edge_op_rt *op = &m->ops[i];
        /* A fused pair's tail runs inside its head; the tensor between them
         * must not be in the arena at all. */
        const uint32_t at = (op->fused & EDGE_FUSED_TAIL) ? i - 1 : i;
        if (op->fused & EDGE_FUSED_TAIL) {
            assert_true(i > 0 && (m->ops[i - 1].fused & EDGE_FUSED_HEAD));
            assert_int_equal(m->ops[i - 1].io[m->ops[i - 1].n_in], op->io[0]);
            assert_true(m->tensors[op->io[0]].fused && m->tensors[op->io[0]].offset < 0);
            assert_null(edge_tensor_data_at(m, (uint32_t)op->io[0]));
        }
        for (uint32_t k = 0; k < op->n_in + op->n_out; k++) {
            int32_t t = op->io[k];
            if (t < 0 || m->tensors[t].fused) continue;
            while (m->tensors[t].alias_of >= 0) t = m->tensors[t].alias_of; /* a view uses its root */
            if (first[t] > at) first[t] = at;
            if (last[t] < at) last[t] = at;
        }
        if (op->scratch_offset >= 0) {
            first[nt + i] = last[nt + i] = at;
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
        assert_true((size_t)hi[t] <= peak);
    }
    for (uint32_t a = 0; a < n; a++) {
        if (first[a] == INT64_MAX) continue;
        for (uint32_t b = a + 1; b < n; b++) {
            if (first[b] == INT64_MAX) continue;
            int live_together = !(last[a] < first[b] || last[b] < first[a]);
            int share_bytes = lo[a] < hi[b] && lo[b] < hi[a];
            if (live_together && share_bytes && !stream_pair_ok(m, a, b, first, last, lo) &&
                !stream_pair_ok(m, b, a, first, last, lo)) {
                print_message("buffers %u [%lld, %lld) and %u [%lld, %lld) overlap while both alive\n", a,
                              (long long)lo[a], (long long)hi[a], b, (long long)lo[b], (long long)hi[b]);
                fail();
            }
        }
    }
    free(first);
    free(last);
    free(lo);
    free(hi);
}

static void check_plan(const edge_model *m) { check_plan_peak(m, m->arena_activations); }

/* Every op fixture and real model, with and without streaming. */
typedef void (*model_fn)(const char *name, const uint8_t *data, size_t len);

static void each_model(model_fn fn) {
    for (size_t k = 0; k < sizeof real_models / sizeof real_models[0]; k++) {
        size_t len;
        uint8_t *data = need_model(real_models[k], &len);
        fn(real_models[k], data, len);
        free(data);
    }
    const char *dir = "tests/fixtures/ops";
    DIR *d = opendir(dir);
    if (!d) {
        print_message("no %s (run from the repository root)\n", dir);
        fail();
    }
    struct dirent *e;
    uint32_t count = 0;
    while ((e = readdir(d)) != NULL) {
        const size_t n = strlen(e->d_name);
        if (n < 8 || strcmp(e->d_name + n - 7, ".tflite") != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        fseek(f, 0, SEEK_END);
        const long len = ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *data = aligned_alloc(16, ((size_t)len + 16) & ~(size_t)15);
        assert_int_equal(fread(data, 1, (size_t)len, f), (size_t)len);
        fclose(f);
        fn(path, data, (size_t)len);
        free(data);
        count++;
    }
    closedir(d);
    assert_true(count > 100);
}

static void plan_both_ways(const char *name, const uint8_t *data, size_t len) {
    size_t arena_len = 8u << 20;
    uint8_t *arena = aligned_alloc(16, arena_len);
    for (uint32_t flags = 0; flags <= EDGE_PLAN_NO_OVERLAP; flags += EDGE_PLAN_NO_OVERLAP) {
        edge_model m;
        edge_status st = edge_model_init_ex(&m, data, len, arena, arena_len, flags);
        if (st == EDGE_ERR_UNSUPPORTED) break; /* fixtures for refused ops */
        if (st != EDGE_OK) print_message("%s: %s\n", name, edge_model_error(&m));
        assert_int_equal(st, EDGE_OK);
        check_plan(&m);
    }
    free(arena);
}

static void test_plan_never_overlaps_live_buffers(void **state) {
    (void)state;
    each_model(plan_both_ways);
}

/* The planner against arbitrary declarations: random inputs and limits
 * (negative, zero, positive) on every op of every model, replanned and
 * checked. */
static uint32_t rng = 0x9e3779b9u;
static uint32_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static uint32_t random_overlaps, random_reversed;

static void plan_random_limits(const char *name, const uint8_t *data, size_t len) {
    size_t arena_len = 8u << 20;
    uint8_t *arena = aligned_alloc(16, arena_len);
    edge_model m;
    edge_status st = edge_model_init(&m, data, len, arena, arena_len);
    if (st == EDGE_ERR_UNSUPPORTED) {
        free(arena);
        return;
    }
    if (st != EDGE_OK) print_message("%s: %s\n", name, edge_model_error(&m));
    assert_int_equal(st, EDGE_OK);
    const size_t work_len = edge_plan_work_bytes(&m);
    uint8_t *work = aligned_alloc(16, work_len + 16);
    for (int round = 0; round < 8; round++) {
        for (uint32_t i = 0; i < m.n_ops; i++) {
            edge_op_rt *op = &m.ops[i];
            const uint32_t pick = rnd() % 4u; /* none, input 0, input 1, any */
            op->stream_in = (uint8_t)(pick == 0 ? 0u : pick == 3 ? rnd() : 1u << (pick - 1u));
            const int32_t out_bytes = op->n_out ? (int32_t)m.tensors[op->io[op->n_in]].bytes : 0;
            const int32_t in_bytes = op->n_in && op->io[0] >= 0 ? (int32_t)m.tensors[op->io[0]].bytes : 0;
            op->stream_d16 = (int16_t)((int32_t)(rnd() % (uint32_t)(out_bytes / 8 + 3)) - out_bytes / 16 - 1);
            /* A reverse limit on half the single-input declarations. */
            op->stream_e16 = EDGE_STREAM_NO_E;
            if (rnd() % 2u && op->stream_in && !(op->stream_in & (op->stream_in - 1u)))
                op->stream_e16 = (int16_t)(op->stream_d16 + (int32_t)(rnd() % (uint32_t)(in_bytes / 16 + 2)));
        }
        size_t peak = 0;
        assert_int_equal(edge_plan(&m, work, &peak), EDGE_OK);
        check_plan_peak(&m, peak);
        for (uint32_t i = 0; i < m.n_ops; i++) {
            const edge_op_rt *op = &m.ops[i];
            random_reversed += op->stream_rev;
            const int32_t o = op->n_out ? op->io[op->n_in] : -1, in = op->n_in ? op->io[0] : -1;
            if (o < 0 || in < 0 || m.tensors[o].offset < 0 || m.tensors[in].offset < 0) continue;
            const int64_t a0 = m.tensors[o].offset, a1 = a0 + m.tensors[o].bytes;
            const int64_t b0 = m.tensors[in].offset, b1 = b0 + m.tensors[in].bytes;
            random_overlaps += a0 < b1 && b0 < a1;
        }
    }
    free(work);
    free(arena);
}

static void test_plan_keeps_random_stream_limits(void **state) {
    (void)state;
    each_model(plan_random_limits);
    /* The checks saw overlapping pairs, forward and backwards. */
    print_message("random limits: %u overlapping pairs, %u ops backwards\n", random_overlaps, random_reversed);
    assert_true(random_overlaps > 100);
    assert_true(random_reversed > 10);
}

/* With streaming off, the plan has no overlap at all, and its exact size
 * is what init reports in that mode. */
/* MobileNet's 1x1 convs run their depthwise conv row by row: the tensor
 * between them has no bytes, the info says so. */
static void test_fused_pairs(void **state) {
    (void)state;
    size_t len;
    uint8_t *data = need_model("tflite-micro/models/person_detect.tflite", &len);
    size_t arena_len = 8u << 20;
    uint8_t *arena = aligned_alloc(16, arena_len);
    edge_model m;
    assert_int_equal(edge_model_init(&m, data, len, arena, arena_len), EDGE_OK);
    uint32_t heads = 0;
    for (uint32_t i = 0; i < edge_num_ops(&m); i++) {
        edge_op_info info;
        assert_int_equal(edge_op_info_at(&m, i, &info), EDGE_OK);
        if (info.fused != 1) continue;
        heads++;
        edge_op_info tail;
        assert_int_equal(edge_op_info_at(&m, i + 1, &tail), EDGE_OK);
        assert_int_equal(tail.fused, 2);
        assert_string_equal(info.name, "CONV_2D");
        assert_string_equal(tail.name, "DEPTHWISE_CONV_2D");
        const uint32_t x = (uint32_t)info.io[info.n_inputs];
        assert_int_equal(tail.io[0], (int32_t)x);
        assert_null(edge_tensor_at(&m, x).data);
        assert_int_equal(edge_tensor_arena_offset(&m, x), -1);
    }
    /* Only the pair whose middle tensor (48x48x16) sets the arena's size:
     * fusing costs time. It runs backwards, its output over its input's end. */
    assert_int_equal(heads, 1);
    edge_op_info info;
    assert_int_equal(edge_op_info_at(&m, 2, &info), EDGE_OK);
    assert_int_equal(info.fused, 1);
    assert_int_equal(info.stream_reverse, 1);
    assert_true(info.stream_limit_reverse > info.stream_limit);
    free(arena);
    free(data);
}

/* Output 0 of a model for a fixed pseudo-random input, into out. */
static void run_once(edge_model *m, uint8_t *out, size_t out_len) {
    edge_tensor in = edge_input(m, 0);
    uint32_t r = 0x2545f491u;
    for (size_t i = 0; i < in.bytes; i++) {
        r = r * 1664525u + 1013904223u;
        ((uint8_t *)in.data)[i] = (uint8_t)(r >> 24);
    }
    assert_int_equal(edge_invoke(m), EDGE_OK);
    edge_tensor o = edge_output(m, 0);
    assert_true(o.bytes <= out_len);
    memcpy(out, o.data, o.bytes);
}

/* A fused pair gives the same bytes run forwards, backwards, and not fused
 * at all (EDGE_PLAN_NO_OVERLAP): the plan is redone with the reverse limit
 * withdrawn (forwards) and kept (backwards), in a large arena. */
static void test_fused_pair_both_directions(void **state) {
    (void)state;
    static const char *const names[] = {"tflite-micro/models/person_detect.tflite",
                                        "mlcommons-tiny/models/visual_wake_words/vww_96_int8.tflite"};
    for (size_t k = 0; k < 2; k++) {
        size_t len;
        uint8_t *data = need_model(names[k], &len);
        size_t arena_len = 8u << 20;
        uint8_t *arena = aligned_alloc(16, arena_len);
        uint8_t want[64], got[64];
        edge_model m;
        assert_int_equal(edge_model_init_ex(&m, data, len, arena, arena_len, EDGE_PLAN_NO_OVERLAP), EDGE_OK);
        run_once(&m, want, sizeof want);
        const size_t out_bytes = edge_output(&m, 0).bytes;
        for (int dir = 0; dir < 3; dir++) {
            assert_int_equal(edge_model_init(&m, data, len, arena, arena_len), EDGE_OK);
            uint32_t head = 0;
            while (head < m.n_ops && !(m.ops[head].fused & EDGE_FUSED_HEAD)) head++;
            assert_true(head < m.n_ops);
            if (dir > 0) {
                /* Forwards: no reverse limit. Backwards: no forward overlap. */
                if (dir == 1) m.ops[head].stream_e16 = EDGE_STREAM_NO_E;
                else m.ops[head].stream_d16 = (int16_t)-(int32_t)(m.tensors[m.ops[head + 1].io[m.ops[head + 1].n_in]].bytes / 16 + 1);
                const size_t work_len = edge_plan_work_bytes(&m);
                uint8_t *work = aligned_alloc(16, work_len + 16);
                size_t peak = 0;
                assert_int_equal(edge_plan(&m, work, &peak), EDGE_OK);
                free(work);
                assert_true(m.arena_records + peak <= arena_len);
                check_plan_peak(&m, peak);
                if (dir == 1) assert_int_equal(m.ops[head].stream_rev, 0);
            }
            {
                /* The pair's output lies over its input, whichever way it runs. */
                const int32_t in = m.ops[head].io[0], o = m.ops[head + 1].io[m.ops[head + 1].n_in];
                const int64_t a0 = m.tensors[o].offset, b0 = m.tensors[in].offset;
                assert_true(a0 < b0 + m.tensors[in].bytes && b0 < a0 + m.tensors[o].bytes);
                assert_int_equal(m.ops[head].stream_rev, dir == 1 ? 0 : 1);
            }
            run_once(&m, got, sizeof got);
            assert_memory_equal(want, got, out_bytes);
        }
        free(arena);
        free(data);
    }
}

/* Every op's outputs, hashed as each op ends (the profiler hook), so that
 * tensors a later op overwrites are seen too; a fused pair's middle tensor
 * never exists and is skipped. */
typedef struct op_hashes {
    const edge_model *m;
    uint64_t h[512];
    uint32_t n;
} op_hashes;

static void hash_outputs(void *user, uint32_t op_index, const char *name, int end) {
    (void)name;
    op_hashes *oh = (op_hashes *)user;
    if (!end || oh->n >= 512) return;
    const edge_model *m = oh->m;
    const edge_op_rt *op = &m->ops[op_index];
    uint64_t h = 1469598103934665603ull;
    for (uint32_t k = op->n_in; k < (uint32_t)op->n_in + op->n_out; k++) {
        if (op->io[k] < 0 || m->tensors[op->io[k]].fused) continue;
        edge_tensor t = edge_tensor_at(m, (uint32_t)op->io[k]);
        for (size_t b = 0; b < t.bytes; b++) h = (h ^ ((const uint8_t *)t.data)[b]) * 1099511628211ull;
    }
    oh->h[oh->n++] = h;
}

/* Packed weights (edge_model_pack) give the same bytes as weights re-laid
 * per invoke: every op's outputs, with the default plan (fused pairs
 * included) and with EDGE_PLAN_NO_OVERLAP (no pairs). */
static void test_packed_weights_change_no_byte(void **state) {
    (void)state;
    size_t packed_models = 0;
    for (size_t k = 0; k < sizeof real_models / sizeof real_models[0]; k++) {
        size_t len;
        uint8_t *data = need_model(real_models[k], &len);
        const size_t arena_len = 8u << 20;
        uint8_t *arena = aligned_alloc(16, arena_len);
        for (int plan = 0; plan < 2; plan++) {
            edge_model m;
            assert_int_equal(edge_model_init_ex(&m, data, len, arena, arena_len, plan ? 0u : EDGE_PLAN_NO_OVERLAP),
                             EDGE_OK);
            const size_t need = edge_model_pack_needed(&m);
            if (!need) continue; /* nothing packs here (a CPU without AVX2) */
            packed_models += (size_t)plan;
            static op_hashes want, got;
            uint8_t out[4096];
            want.m = got.m = &m;
            want.n = got.n = 0;
            edge_set_profiler(&m, hash_outputs, &want);
            run_once(&m, out, sizeof out);
            uint8_t *pack = malloc(need);
            /* One byte short is refused. */
            assert_int_equal(edge_model_pack(&m, pack, need - 1), EDGE_ERR_ARENA);
            assert_non_null(strstr(edge_model_error(&m), "too small"));
            assert_int_equal(edge_model_pack(&m, pack, need), EDGE_OK);
            edge_set_profiler(&m, hash_outputs, &got);
            run_once(&m, out, sizeof out);
            assert_int_equal(want.n, m.n_ops);
            assert_int_equal(got.n, m.n_ops);
            for (uint32_t i = 0; i < m.n_ops; i++) {
                if (want.h[i] != got.h[i]) print_message("%s: op %u differs when packed\n", real_models[k], i);
                assert_true(want.h[i] == got.h[i]);
            }
            free(pack);
        }
        free(arena);
        free(data);
    }
#if defined(EDGE_SYSTOLIC_X86)
    /* Only the AVX2 kernels pack today; a VNNI CPU runs its own, unpacked. */
    if (systolic_x86_level() == SYSTOLIC_X86_AVX2) assert_true(packed_models >= 4);
#endif
}

static void test_pack_misuse(void **state) {
    (void)state;
    edge_model m;
    memset(&m, 0, sizeof m);
    uint8_t buf[64];
    assert_int_equal(edge_model_pack(NULL, buf, sizeof buf), EDGE_ERR_ARG);
    assert_int_equal(edge_model_pack(&m, buf, sizeof buf), EDGE_ERR_STATE);
    assert_non_null(strstr(edge_model_error(&m), "before"));
    assert_int_equal(edge_model_pack_needed(NULL), 0);
    assert_int_equal(edge_model_pack_needed(&m), 0);
}

static void test_no_overlap_plan_is_exact(void **state) {
    (void)state;
    for (size_t k = 0; k < sizeof real_models / sizeof real_models[0]; k++) {
        size_t len, need = 0, need_stream = 0;
        uint8_t *data = need_model(real_models[k], &len);
        size_t work_len = 8u << 20;
        uint8_t *work = aligned_alloc(16, work_len);
        assert_int_equal(edge_model_arena_needed_ex(data, len, work, work_len, EDGE_PLAN_NO_OVERLAP, &need),
                         EDGE_OK);
        assert_int_equal(edge_model_arena_needed(data, len, work, work_len, &need_stream), EDGE_OK);
        assert_true(need_stream <= need);
        edge_model m;
        uint8_t *arena = aligned_alloc(16, (need + 15) & ~(size_t)15);
        assert_int_equal(edge_model_init_ex(&m, data, len, arena, need, EDGE_PLAN_NO_OVERLAP), EDGE_OK);
        check_plan(&m);
        for (uint32_t i = 0; i < edge_num_ops(&m); i++) {
            edge_op_info info;
            assert_int_equal(edge_op_info_at(&m, i, &info), EDGE_OK);
            assert_int_equal(info.stream_inputs, 0);
            assert_int_equal(info.fused, 0);
        }
        assert_int_equal(edge_model_init_ex(&m, data, len, arena, need - 1, EDGE_PLAN_NO_OVERLAP),
                         EDGE_ERR_ARENA);
        assert_int_equal(edge_model_init_ex(&m, data, len, arena, need, 0x80u), EDGE_ERR_ARG);
        free(arena);
        free(work);
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
        cmocka_unit_test(test_plan_keeps_random_stream_limits),
        cmocka_unit_test(test_no_overlap_plan_is_exact),
        cmocka_unit_test(test_fused_pairs),
        cmocka_unit_test(test_fused_pair_both_directions),
        cmocka_unit_test(test_packed_weights_change_no_byte),
        cmocka_unit_test(test_pack_misuse),
        cmocka_unit_test(test_truncated_models_are_refused),
        cmocka_unit_test(test_corrupted_models_do_not_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
