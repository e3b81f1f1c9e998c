/* SPDX-License-Identifier: Apache-2.0 */
/*
 * console.c — board.h on the host (stdio). The firmware's main() takes no
 * arguments, as on a microcontroller; this file owns the process's main()
 * and passes the command line on through board_cmdline().
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"

#undef main /* board.h renames the firmware's; this file has the real one */

static char cmdline[1024];

void board_write(const char *s, size_t n) { fwrite(s, 1, n, stdout); }
void board_puts(const char *s) { fputs(s, stdout); }

void board_printf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
}

/* Rounds half up on the magnitude, as the Cortex-M version does. */
void board_put_fixed(float v, int decimals) {
    unsigned long scale = 1;
    for (int i = 0; i < decimals; i++) scale *= 10ul;
    int neg = v < 0;
    float mag = neg ? -v : v;
    unsigned long whole = (unsigned long)(mag * (float)scale + 0.5f);
    printf("%s%lu", neg && whole ? "-" : "", whole / scale);
    if (decimals > 0) printf(".%0*lu", decimals, whole % scale);
}

const char *board_cmdline(void) { return cmdline; }

void board_exit(int code) {
    fflush(stdout);
    exit(code);
}

void board_cycles_start(void) {}
uint32_t board_cycles(void) { return 0; }

int main(int argc, char **argv) {
    size_t at = 0;
    for (int i = 1; i < argc; i++) {
        size_t n = strlen(argv[i]);
        if (at + n + 2 > sizeof cmdline) break;
        if (at) cmdline[at++] = ' ';
        memcpy(cmdline + at, argv[i], n);
        at += n;
    }
    cmdline[at] = 0;
    board_exit(firmware_main());
}
