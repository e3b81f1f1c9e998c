/* SPDX-License-Identifier: Apache-2.0 */
/*
 * board.h — the host "board": the same console interface as
 * boards/cortex-m/board.h on top of stdio, so examples/firmware also builds
 * and runs on the development machine (its output is the reference the
 * Cortex-M runs are compared with).
 */
#ifndef BOARD_HOST_H
#define BOARD_HOST_H

#include <stddef.h>
#include <stdint.h>

/* The firmware's `int main(void)` becomes firmware_main(), called by the
 * real main() in console.c with the command line kept for board_cmdline(). */
#define main firmware_main
int firmware_main(void);

void board_write(const char *s, size_t n);
void board_puts(const char *s);
void board_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void board_put_fixed(float v, int decimals);
/* The program's arguments after argv[0], joined by spaces ("" if none):
 * set by the host main wrapper, see console.c. */
const char *board_cmdline(void);
__attribute__((noreturn)) void board_exit(int code);
void board_cycles_start(void);
uint32_t board_cycles(void); /* 0: no cycle counter on the host */

#endif
