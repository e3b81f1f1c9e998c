/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bootargs.c — board_cmdline() for QEMU `virt`: the /chosen/bootargs
 * property of the flattened device tree QEMU hands over at reset (what
 * -append sets), read without libfdt. Devicetree Specification v0.4,
 * chapter 5: a big-endian header, then a structure block of tokens.
 */
#include <string.h>

#include "board.h"

void board_set_fdt(const void *fdt);

enum { FDT_MAGIC = 0xd00dfeedu, FDT_BEGIN_NODE = 1, FDT_END_NODE = 2, FDT_PROP = 3, FDT_NOP = 4,
       FDT_END = 9 };

static const uint8_t *tree;
static char cmdline[256];

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t align4(uint32_t n) { return (n + 3u) & ~3u; }

/* Copies /chosen/bootargs into cmdline; leaves it "" when anything is off. */
static void find_bootargs(void) {
    if (!tree || be32(tree) != FDT_MAGIC) return;
    const uint32_t total = be32(tree + 4), off_struct = be32(tree + 8), off_strings = be32(tree + 12);
    const uint32_t size_struct = be32(tree + 36);
    if (off_struct > total || size_struct > total - off_struct || off_strings > total) return;
    const uint8_t *p = tree + off_struct, *end = p + size_struct;
    int depth = 0, in_chosen = 0;
    while (p + 4 <= end) {
        const uint32_t token = be32(p);
        p += 4;
        if (token == FDT_BEGIN_NODE) {
            const char *name = (const char *)p;
            size_t n = 0;
            while (p + n < end && name[n]) n++;
            depth++;
            in_chosen = depth == 2 && strcmp(name, "chosen") == 0;
            p += align4((uint32_t)n + 1u);
        } else if (token == FDT_END_NODE) {
            depth--;
            in_chosen = 0;
        } else if (token == FDT_PROP) {
            if (p + 8 > end) return;
            const uint32_t len = be32(p), name_off = be32(p + 4);
            p += 8;
            if (len > (uint32_t)(end - p)) return;
            if (in_chosen && name_off < total - off_strings &&
                strcmp((const char *)tree + off_strings + name_off, "bootargs") == 0) {
                const size_t n = len < sizeof cmdline ? len : sizeof cmdline - 1;
                memcpy(cmdline, p, n);
                cmdline[n] = 0;
                return;
            }
            p += align4(len);
        } else if (token != FDT_NOP) {
            return; /* FDT_END or a broken tree */
        }
    }
}

void board_set_fdt(const void *fdt) {
    tree = (const uint8_t *)fdt;
    find_bootargs();
}

const char *board_cmdline(void) { return cmdline; }
