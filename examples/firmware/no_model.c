/* SPDX-License-Identifier: Apache-2.0 */
/*
 * no_model.c — empty stand-ins for the arrays `edgeq export --c` makes, so
 * the firmware links with no model: `make size` uses that image to measure
 * the engine and the board code alone. Run, it stops at edge_model_init
 * (exit 1: no model).
 */
#include <stddef.h>
#include <stdint.h>

__attribute__((aligned(16))) const uint8_t model_data[16];
const size_t model_data_len = 0;
__attribute__((aligned(16))) uint8_t model_data_arena[16];
const size_t model_data_arena_len = sizeof model_data_arena;
const uint8_t sample_data[1];
const size_t sample_data_len = 0;
const uint8_t labels_data[1];
const size_t labels_data_len = 0;
