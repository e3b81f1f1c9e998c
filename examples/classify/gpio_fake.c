/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpio_fake.c — a GPIO backend with no hardware (see gpio.h), and the
 * backend chooser. Tests drive classify's LED and button logic through it
 * and read what it did from stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpio.h"

struct gpio_chip {
    unsigned outputs[GPIO_MAX_OUTPUTS];
    int values[GPIO_MAX_OUTPUTS];
    unsigned n_outputs;
    long presses_left;
    int has_button;
    unsigned button;
};

static gpio_chip *fake_open(const char *chip, char *err, size_t err_len) {
    long presses = 0;
    if (strncmp(chip, "fake:", 5) == 0) {
        const char *opt = chip + 5;
        char *end = NULL;
        if (strncmp(opt, "presses=", 8) != 0 || (presses = strtol(opt + 8, &end, 10)) < 0 ||
            end == opt + 8 || *end) {
            snprintf(err, err_len, "fake GPIO chip '%s': the only option is presses=N", chip);
            return NULL;
        }
    }
    gpio_chip *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    g->presses_left = presses;
    fprintf(stderr, "gpio-fake: open %s (%ld button presses)\n", chip, presses);
    return g;
}

static int fake_request_outputs(gpio_chip *g, const unsigned *lines, unsigned n, char *err,
                                size_t err_len) {
    if (n > GPIO_MAX_OUTPUTS) {
        snprintf(err, err_len, "at most %d output lines", GPIO_MAX_OUTPUTS);
        return -1;
    }
    for (unsigned i = 0; i < n; i++) {
        g->outputs[i] = lines[i];
        g->values[i] = 0;
        fprintf(stderr, "gpio-fake: output line %u = 0\n", lines[i]);
    }
    g->n_outputs = n;
    return 0;
}

static int fake_set_output(gpio_chip *g, unsigned index, int value, char *err, size_t err_len) {
    if (index >= g->n_outputs) {
        snprintf(err, err_len, "no output %u", index);
        return -1;
    }
    value = value != 0;
    if (g->values[index] != value)
        fprintf(stderr, "gpio-fake: line %u = %d\n", g->outputs[index], value);
    g->values[index] = value;
    return 0;
}

static int fake_request_button(gpio_chip *g, unsigned line, char *err, size_t err_len) {
    (void)err, (void)err_len;
    g->has_button = 1;
    g->button = line;
    fprintf(stderr, "gpio-fake: button line %u (pull-up, falling edge)\n", line);
    return 0;
}

static int fake_wait_press(gpio_chip *g, int timeout_ms, char *err, size_t err_len) {
    (void)timeout_ms;
    if (!g->has_button) {
        snprintf(err, err_len, "no button line requested");
        return -1;
    }
    if (g->presses_left <= 0) {
        snprintf(err, err_len, "fake button: no more presses");
        return -1;
    }
    g->presses_left--;
    fprintf(stderr, "gpio-fake: button line %u pressed\n", g->button);
    return 1;
}

static void fake_close(gpio_chip *g) {
    if (!g) return;
    for (unsigned i = 0; i < g->n_outputs; i++)
        if (g->values[i]) fprintf(stderr, "gpio-fake: line %u = 0\n", g->outputs[i]);
    fprintf(stderr, "gpio-fake: close\n");
    free(g);
}

const gpio_backend gpio_fake = {
    "fake",          fake_open, fake_request_outputs, fake_set_output, fake_request_button,
    fake_wait_press, fake_close,
};

const gpio_backend *gpio_backend_for(const char *chip, char *err, size_t err_len) {
    if (strcmp(chip, "fake") == 0 || strncmp(chip, "fake:", 5) == 0) return &gpio_fake;
#if defined(CLASSIFY_HAVE_LIBGPIOD)
    (void)err, (void)err_len;
    return &gpio_libgpiod;
#else
    snprintf(err, err_len,
             "GPIO chip '%s': this build has no libgpiod (build it for a Raspberry Pi: "
             "make BOARD=rpi-aarch64 or rpi-armhf; '--gpio-chip fake' simulates one)",
             chip);
    return NULL;
#endif
}
