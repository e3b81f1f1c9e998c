/* SPDX-License-Identifier: Apache-2.0 */
/*
 * m4_size_main.c — the smallest program that loads and runs a model through
 * the engine's public API, linked for Cortex-M4 at -Os by bench.mk only to
 * measure the engine code a firmware carries (the linker's map, after
 * --gc-sections). Never run.
 */
#include <edge/edge.h>

extern const uint8_t size_model[];
const uint8_t size_model[16] = {0};
static uint8_t arena[64] __attribute__((aligned(16)));

int main(void) {
    edge_model m;
    if (edge_model_init(&m, size_model, sizeof size_model, arena, sizeof arena) != EDGE_OK)
        return (int)edge_model_error(&m)[0];
    edge_tensor in = edge_input(&m, 0), out = edge_output(&m, 0);
    ((uint8_t *)in.data)[0] = 1;
    if (edge_invoke(&m) != EDGE_OK) return 2;
    return ((const uint8_t *)out.data)[0];
}
