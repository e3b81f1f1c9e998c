/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpio.h — the little GPIO that classify needs: a few output lines (LEDs,
 * one per class) and one input line (a button), behind a backend table so
 * that the logic runs and is tested without a board.
 *
 * Backends:
 *   gpio_fake     (examples/classify/gpio_fake.c; in every build): chip
 *                 "fake" or "fake:presses=N". Logs every change on stderr
 *                 ("gpio-fake: ...") and reports N button presses, then
 *                 "no more presses".
 *   gpio_libgpiod (boards/raspberrypi/gpio_libgpiod.c; when built with
 *                 CLASSIFY_HAVE_LIBGPIOD): a real chip through libgpiod's
 *                 v1 API (1.6, as on Debian 12 / Raspberry Pi OS bookworm).
 *
 * Every function that can fail returns 0 on success and -1 with a message
 * in `err`.
 */
#ifndef CLASSIFY_GPIO_H
#define CLASSIFY_GPIO_H

#include <stddef.h>

#define GPIO_MAX_OUTPUTS 16

typedef struct gpio_chip gpio_chip; /* defined by each backend */

typedef struct gpio_backend {
    const char *name;
    /* Open a chip by name ("gpiochip0"), path ("/dev/gpiochip0"), label
     * or number; NULL on failure. */
    gpio_chip *(*open)(const char *chip, char *err, size_t err_len);
    /* Claim `n` lines as outputs, all driven low. */
    int (*request_outputs)(gpio_chip *g, const unsigned *lines, unsigned n, char *err,
                           size_t err_len);
    /* Drive output number `index` (in request_outputs order). */
    int (*set_output)(gpio_chip *g, unsigned index, int value, char *err, size_t err_len);
    /* Claim `line` as the button: input with pull-up bias, a press is a
     * falling edge (button to ground). */
    int (*request_button)(gpio_chip *g, unsigned line, char *err, size_t err_len);
    /* Wait up to timeout_ms for a press (bounces within 200 ms of the last
     * press are dropped). 1: pressed, 0: timed out, -1: error or (fake)
     * no more presses. */
    int (*wait_press)(gpio_chip *g, int timeout_ms, char *err, size_t err_len);
    /* Release the lines (outputs are driven low first) and the chip. */
    void (*close)(gpio_chip *g);
} gpio_backend;

extern const gpio_backend gpio_fake;
#if defined(CLASSIFY_HAVE_LIBGPIOD)
extern const gpio_backend gpio_libgpiod;
#endif

/* The backend for a --gpio-chip value: the fake one for "fake" or
 * "fake:...", libgpiod for anything else; NULL (with a message) when this
 * build has no libgpiod. */
const gpio_backend *gpio_backend_for(const char *chip, char *err, size_t err_len);

#endif
