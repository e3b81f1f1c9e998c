/* SPDX-License-Identifier: Apache-2.0 */
/*
 * board.h — what a Cortex-M board gives the firmware: a console, an exit
 * status, a cycle counter. Implemented in console.c (+ startup.c).
 *
 * Console: semihosting (default; BKPT 0xAB, needs QEMU
 * `-semihosting-config enable=on` or a debugger) or the CMSDK UART0 of
 * the MPS2/MPS3 boards (build with -DBOARD_CONSOLE_UART). The exit status
 * always goes through semihosting's SYS_EXIT_EXTENDED, which QEMU turns
 * into its own exit status; without a debugger a real board stops in a
 * BKPT instead.
 */
#ifndef BOARD_CORTEX_M_H
#define BOARD_CORTEX_M_H

#include <stddef.h>
#include <stdint.h>

/* Console output; text is line-buffered and flushed on '\n' and exit. */
void board_write(const char *s, size_t n);
void board_puts(const char *s);
/* A small printf: %d %i %u %x %X %c %s %% with l / ll / z size prefixes,
 * field width (digits or *) and '-' / '0' flags. No floating point (see
 * board_put_fixed). */
void board_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* v as a decimal with `decimals` digits after the point (|v| < 2^31). */
void board_put_fixed(float v, int decimals);

/* The command line the debugger or QEMU passes (semihosting
 * SYS_GET_CMDLINE: under QEMU the kernel's file name, then -append's
 * text), NUL-terminated in a static buffer; "" when there is none. */
const char *board_cmdline(void);

/* Flush the console and stop with `code` as the exit status. */
__attribute__((noreturn)) void board_exit(int code);

/* Free-running core clock counter (DWT CYCCNT on M3/M4/M7/M33/M55
 * silicon; QEMU does not model it and reads 0). */
void board_cycles_start(void);
uint32_t board_cycles(void);

#endif
