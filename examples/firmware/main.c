/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main.c — bare-metal firmware that runs one model on the engine.
 *
 * The model, a sample input and the class names are compiled in as const
 * arrays (flash) by `edgeq export --c`; the arena is a static array (RAM)
 * sized for the model by `edgeq export --c --arena`. The firmware loads the
 * model, fills the input with the sample, invokes, prints every output byte
 * and the top class, and exits 0 (1 when the engine refuses the model, 2
 * when the sample does not fit the input).
 *
 * The command line (semihosting: `cm-run fw.elf -- -append N`, or the
 * host build's arguments) may give a number of invokes N (default 1): the
 * difference between two such runs' instruction counts is the cost of
 * N - 1 inferences.
 *
 * Needs only board.h: boards/cortex-m (QEMU MPS2/MPS3) or boards/host.
 */
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "edge/edge.h"

#ifndef FIRMWARE_NAME
#define FIRMWARE_NAME "model"
#endif

extern const uint8_t model_data[];
extern const size_t model_data_len;
extern uint8_t model_data_arena[];
extern const size_t model_data_arena_len;
extern const uint8_t sample_data[];
extern const size_t sample_data_len;
extern const uint8_t labels_data[]; /* one class name per line; may be empty */
extern const size_t labels_data_len;

/* The context lives outside the stack: it is a few hundred bytes. */
static edge_model model;

/* Line `index` of the labels text, or NULL: *len gets its length. */
static const char *label_at(uint32_t index, size_t *len) {
    size_t at = 0;
    for (uint32_t line = 0; at < labels_data_len; line++) {
        size_t end = at;
        while (end < labels_data_len && labels_data[end] != '\n') end++;
        if (line == index) {
            size_t n = end - at;
            if (n && labels_data[at + n - 1] == '\r') n--;
            *len = n;
            return (const char *)labels_data + at;
        }
        at = end + 1;
    }
    return NULL;
}

/* The number of invokes from the command line: the last word that is a
 * positive decimal number (QEMU puts the ELF's name first). */
static uint32_t invokes_from_cmdline(void) {
    const char *p = board_cmdline();
    uint32_t n = 1;
    while (*p) {
        while (*p == ' ') p++;
        uint32_t v = 0;
        int digits = 0, other = 0;
        for (; *p && *p != ' '; p++) {
            if (*p >= '0' && *p <= '9' && v < 100000u)
                v = v * 10u + (uint32_t)(*p - '0'), digits = 1;
            else
                other = 1;
        }
        if (digits && !other && v > 0) n = v;
    }
    return n;
}

static void print_shape(const edge_tensor *t) {
    board_puts("[");
    for (int32_t i = 0; i < t->rank; i++) board_printf(i ? ",%ld" : "%ld", (long)t->dims[i]);
    board_puts("]");
}

static int32_t element(const edge_tensor *t, size_t i) {
    const uint8_t *d = (const uint8_t *)t->data;
    return t->type == EDGE_INT8 ? (int32_t)(int8_t)d[i] : (int32_t)d[i];
}

int main(void) {
    board_printf("edgeq firmware: %s, model %lu bytes, arena %lu bytes\n", FIRMWARE_NAME,
                 (unsigned long)model_data_len, (unsigned long)model_data_arena_len);

    edge_status s = edge_model_init(&model, model_data, model_data_len, model_data_arena,
                                    model_data_arena_len);
    if (s != EDGE_OK) {
        board_printf("error: %s: %s\n", edge_status_str(s), edge_model_error(&model));
        if (s == EDGE_ERR_ARENA)
            board_printf("error: the model needs %lu arena bytes\n",
                         (unsigned long)model.arena_needed);
        return 1;
    }
    uint64_t macs = 0;
    for (uint32_t i = 0; i < edge_num_ops(&model); i++) {
        edge_op_info info;
        if (edge_op_info_at(&model, i, &info) == EDGE_OK) macs += info.macs;
    }
    board_printf("arena: %lu bytes used (records %lu, activations %lu); %lu ops, %llu MACs\n",
                 (unsigned long)model.arena_needed, (unsigned long)model.arena_records,
                 (unsigned long)model.arena_activations, (unsigned long)edge_num_ops(&model),
                 (unsigned long long)macs);

    edge_tensor in = edge_input(&model, 0);
    board_printf("input: %s ", edge_type_name(in.type));
    print_shape(&in);
    board_printf(", %lu bytes\n", (unsigned long)in.bytes);
    if (edge_num_inputs(&model) != 1 || in.bytes != sample_data_len) {
        board_printf("error: the sample has %lu bytes; the model wants one input of %lu\n",
                     (unsigned long)sample_data_len, (unsigned long)in.bytes);
        return 2;
    }

    const uint32_t invokes = invokes_from_cmdline();
    uint32_t cycles = 0;
    for (uint32_t r = 0; r < invokes; r++) {
        /* The planner reuses the input's bytes once they are read: refill. */
        uint8_t *dst = (uint8_t *)in.data;
        for (size_t i = 0; i < sample_data_len; i++) dst[i] = sample_data[i];
        board_cycles_start();
        s = edge_invoke(&model);
        cycles = board_cycles();
        if (s != EDGE_OK) {
            board_printf("error: invoke: %s: %s\n", edge_status_str(s), edge_model_error(&model));
            return 1;
        }
    }
    board_printf("invokes: %lu", (unsigned long)invokes);
    if (cycles) board_printf(", %lu cycles (DWT) for the last", (unsigned long)cycles);
    board_puts("\n");

    for (uint32_t o = 0; o < edge_num_outputs(&model); o++) {
        edge_tensor t = edge_output(&model, o);
        board_printf("output %lu: %s ", (unsigned long)o, edge_type_name(t.type));
        print_shape(&t);
        board_puts(":");
        const uint8_t *d = (const uint8_t *)t.data;
        for (size_t i = 0; i < t.bytes; i++) {
            if (t.type == EDGE_INT8 || t.type == EDGE_UINT8)
                board_printf(" %ld", (long)element(&t, i));
            else
                board_printf(" %02x", d[i]); /* raw bytes of wider types */
        }
        board_puts("\n");
    }

    edge_tensor out = edge_output(&model, 0);
    if (out.type == EDGE_INT8 || out.type == EDGE_UINT8) {
        size_t best = 0;
        for (size_t i = 1; i < out.bytes; i++)
            if (element(&out, i) > element(&out, best)) best = i;
        size_t n = 0;
        const char *name = label_at((uint32_t)best, &n);
        board_printf("top: %lu \"", (unsigned long)best);
        if (name)
            board_write(name, n);
        else
            board_printf("class %lu", (unsigned long)best);
        board_puts("\" score ");
        board_put_fixed(out.scale * (float)(element(&out, best) - out.zero_point), 4);
        board_printf(" (q %ld)\n", (long)element(&out, best));
    }
    return 0;
}
