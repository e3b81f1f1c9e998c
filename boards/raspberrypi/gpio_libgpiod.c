/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpio_libgpiod.c — classify's GPIO backend (examples/classify/gpio.h) on
 * a Linux GPIO character device through libgpiod's v1 API (1.6.x: Debian
 * 12, Raspberry Pi OS bookworm). Line numbers are the chip's offsets, i.e.
 * BCM GPIO numbers on a Raspberry Pi's 40-pin header. The header's chip is
 * gpiochip0 on a Pi 1-4; on a Pi 5 it is the RP1's (gpiochip4 with early
 * kernels, gpiochip0 with later ones). `gpiodetect` lists the chips, and
 * the chip's label (e.g. pinctrl-rp1) works as a name too.
 *
 * Built into classify for the Raspberry Pi boards when libgpiod-dev for
 * the target is installed (boards/raspberrypi/board.mk).
 */
#include <errno.h>
#include <gpiod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpio.h"

#define CONSUMER "edgeq-classify"
#define DEBOUNCE_NS 200000000LL

struct gpio_chip {
    struct gpiod_chip *chip;
    struct gpiod_line *outputs[GPIO_MAX_OUTPUTS];
    unsigned n_outputs;
    struct gpiod_line *button;
    long long last_press_ns; /* event time of the last accepted press */
};

static gpio_chip *lg_open(const char *name, char *err, size_t err_len) {
    gpio_chip *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    g->chip = gpiod_chip_open_lookup(name);
    if (!g->chip) {
        snprintf(err, err_len, "cannot open GPIO chip '%s': %s (is this a board with %s, and "
                 "may this user open it? try 'gpiodetect')",
                 name, strerror(errno), name);
        free(g);
        return NULL;
    }
    g->last_press_ns = -DEBOUNCE_NS;
    return g;
}

static struct gpiod_line *get_line(gpio_chip *g, unsigned offset, char *err, size_t err_len) {
    unsigned n = gpiod_chip_num_lines(g->chip);
    if (offset >= n) {
        snprintf(err, err_len, "GPIO chip %s has lines 0..%u; there is no line %u",
                 gpiod_chip_name(g->chip), n ? n - 1 : 0, offset);
        return NULL;
    }
    struct gpiod_line *line = gpiod_chip_get_line(g->chip, offset);
    if (!line) snprintf(err, err_len, "GPIO line %u: %s", offset, strerror(errno));
    return line;
}

static int lg_request_outputs(gpio_chip *g, const unsigned *lines, unsigned n, char *err,
                              size_t err_len) {
    if (n > GPIO_MAX_OUTPUTS) {
        snprintf(err, err_len, "at most %d output lines", GPIO_MAX_OUTPUTS);
        return -1;
    }
    for (unsigned i = 0; i < n; i++) {
        struct gpiod_line *line = get_line(g, lines[i], err, err_len);
        if (!line) return -1;
        if (gpiod_line_request_output(line, CONSUMER, 0) < 0) {
            snprintf(err, err_len, "GPIO line %u as output: %s (in use by another program?)",
                     lines[i], strerror(errno));
            return -1;
        }
        g->outputs[g->n_outputs++] = line;
    }
    return 0;
}

static int lg_set_output(gpio_chip *g, unsigned index, int value, char *err, size_t err_len) {
    if (index >= g->n_outputs) {
        snprintf(err, err_len, "no output %u", index);
        return -1;
    }
    if (gpiod_line_set_value(g->outputs[index], value != 0) < 0) {
        snprintf(err, err_len, "GPIO line %u: %s", gpiod_line_offset(g->outputs[index]),
                 strerror(errno));
        return -1;
    }
    return 0;
}

static int lg_request_button(gpio_chip *g, unsigned offset, char *err, size_t err_len) {
    struct gpiod_line *line = get_line(g, offset, err, err_len);
    if (!line) return -1;
    if (gpiod_line_request_falling_edge_events_flags(line, CONSUMER,
                                                     GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP) < 0) {
        snprintf(err, err_len, "GPIO line %u as button input: %s", offset, strerror(errno));
        return -1;
    }
    g->button = line;
    return 0;
}

static int lg_wait_press(gpio_chip *g, int timeout_ms, char *err, size_t err_len) {
    if (!g->button) {
        snprintf(err, err_len, "no button line requested");
        return -1;
    }
    const struct timespec timeout = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};
    for (;;) {
        int r = gpiod_line_event_wait(g->button, &timeout);
        if (r < 0) {
            snprintf(err, err_len, "waiting for the button: %s", strerror(errno));
            return -1;
        }
        if (r == 0) return 0;
        struct gpiod_line_event ev;
        if (gpiod_line_event_read(g->button, &ev) < 0) {
            snprintf(err, err_len, "reading the button event: %s", strerror(errno));
            return -1;
        }
        long long t = (long long)ev.ts.tv_sec * 1000000000LL + ev.ts.tv_nsec;
        if (ev.event_type == GPIOD_LINE_EVENT_FALLING_EDGE && t - g->last_press_ns >= DEBOUNCE_NS) {
            g->last_press_ns = t;
            return 1;
        }
        /* A bounce: keep waiting (for at most another timeout). */
    }
}

static void lg_close(gpio_chip *g) {
    if (!g) return;
    for (unsigned i = 0; i < g->n_outputs; i++) {
        gpiod_line_set_value(g->outputs[i], 0);
        gpiod_line_release(g->outputs[i]);
    }
    if (g->button) gpiod_line_release(g->button);
    gpiod_chip_close(g->chip);
    free(g);
}

const gpio_backend gpio_libgpiod = {
    "libgpiod",    lg_open, lg_request_outputs, lg_set_output, lg_request_button,
    lg_wait_press, lg_close,
};
