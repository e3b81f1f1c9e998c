/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_model.c — libFuzzer harness for the engine: any byte string is a
 * model file. Load it (verifier, records, prepare, planner) into an arena
 * of exactly the size the engine asked for, so ASan sees any write past it,
 * then fill the inputs from the fuzz bytes and run it.
 *
 * Limits keep each execution fast: the sizing pass gets a capped work
 * buffer, and models whose operators add up to more than FUZZ_MAX_MACS
 * multiply-accumulates are loaded but not invoked.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "edge/edge.h"

#define FUZZ_WORK_BYTES (1u << 20)
#define FUZZ_MAX_MACS (1u << 21)

static _Alignas(16) uint8_t work[FUZZ_WORK_BYTES];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* The engine wants 4-byte aligned model bytes; libFuzzer's copy may not be. */
    uint8_t *model = aligned_alloc(16, (size + 15) & ~(size_t)15);
    if (!model) return 0;
    if (size) memcpy(model, data, size);

    size_t needed = 0;
    edge_status st = edge_model_arena_needed(model, size, work, sizeof work, &needed);
    if (st == EDGE_OK && needed > 0 && needed <= FUZZ_WORK_BYTES) {
        uint8_t *arena = aligned_alloc(16, (needed + 15) & ~(size_t)15);
        edge_model m;
        /* One byte short must be refused with the exact need. */
        if (needed >= 16) {
            st = edge_model_init(&m, model, size, arena, needed - 1);
            if (st != EDGE_ERR_ARENA || m.arena_needed != needed) abort();
            if (edge_invoke(&m) != EDGE_ERR_STATE) abort();
        }
        st = edge_model_init(&m, model, size, arena, needed);
        if (st != EDGE_OK) abort(); /* the sizing pass said it loads */
        uint64_t macs = 0;
        for (uint32_t i = 0; i < edge_num_ops(&m); i++) {
            edge_op_info info;
            if (edge_op_info_at(&m, i, &info) != EDGE_OK) abort();
            macs += info.macs;
        }
        (void)edge_op_info_at(&m, edge_num_ops(&m), NULL);
        for (uint32_t i = 0; i < edge_num_tensors(&m); i++) (void)edge_tensor_at(&m, i);
        /* Packed weights: a short buffer refused, then the real one. */
        uint8_t *packed = NULL;
        const size_t pack_len = edge_model_pack_needed(&m);
        if (pack_len) {
            packed = malloc(pack_len);
            if (!packed) abort();
            if (edge_model_pack(&m, packed, pack_len - 1) != EDGE_ERR_ARENA) abort();
            if (edge_model_pack(&m, packed, pack_len) != EDGE_OK) abort();
        }
        if (macs <= FUZZ_MAX_MACS) {
            size_t k = 0;
            for (uint32_t i = 0; i < edge_num_inputs(&m); i++) {
                edge_tensor in = edge_input(&m, i);
                uint8_t *p = in.data;
                for (size_t b = 0; b < in.bytes; b++, k++) p[b] = size ? data[(k * 7) % size] : 0;
            }
            (void)edge_invoke(&m);
            for (uint32_t i = 0; i < edge_num_outputs(&m); i++) {
                edge_tensor out = edge_output(&m, i);
                volatile uint8_t sink = 0;
                for (size_t b = 0; b < out.bytes; b++) sink ^= ((const uint8_t *)out.data)[b];
                (void)sink;
            }
        }
        free(packed);
        free(arena);
    }
    free(model);
    return 0;
}
