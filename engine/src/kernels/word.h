/* SPDX-License-Identifier: Apache-2.0 */
/*
 * word.h — four bytes as one 32-bit word, from any address (unaligned
 * loads are fine on every target the engine has: x86-64, ARMv7-A/v8-A and
 * ARMv7E-M), for the kernels that move activations and weights a word at
 * a time.
 */
#ifndef EDGE_KERNELS_WORD_H
#define EDGE_KERNELS_WORD_H

#include <stdint.h>

static inline uint32_t edge_load_word(const void *p) {
    uint32_t v;
    __builtin_memcpy(&v, p, 4);
    return v;
}

/* The first n (< 4) bytes of p, zeros above: a row's last, partial word,
 * without reading past its end. */
static inline uint32_t edge_load_word_tail(const int8_t *p, int32_t n) {
    uint32_t v = 0;
    for (int32_t i = 0; i < n; i++) v |= (uint32_t)(uint8_t)p[i] << (8 * i);
    return v;
}

#endif
