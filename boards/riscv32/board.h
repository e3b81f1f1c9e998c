/* SPDX-License-Identifier: Apache-2.0 */
/*
 * board.h — what the RISC-V board gives the firmware: a console, an exit
 * status, a cycle counter, the command line. Implemented in console.c,
 * bootargs.c and startup.S for QEMU's `virt` machine (RV32, bare metal,
 * machine mode):
 *
 *   console    the NS16550A UART at 0x10000000 (QEMU: -nographic / -serial)
 *   exit code  the SiFive test device at 0x100000 (QEMU exits with it)
 *   cmdline    /chosen/bootargs of the device tree QEMU passes in a1
 *              (QEMU: -append "...")
 *
 * The same interface as boards/cortex-m/board.h, so examples/firmware and
 * tests/boards/systolic_check.c build unchanged.
 */
#ifndef BOARD_RISCV32_H
#define BOARD_RISCV32_H

#include <stddef.h>
#include <stdint.h>

/* Console output; text is line-buffered and flushed on '\n' and exit. */
void board_write(const char *s, size_t n);
void board_puts(const char *s);
/* printf through picolibc's vsnprintf (lines of up to 255 characters). */
void board_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* v as a decimal with `decimals` digits after the point (|v| < 2^31). */
void board_put_fixed(float v, int decimals);

/* The kernel command line (device tree /chosen/bootargs); "" if none. */
const char *board_cmdline(void);

/* Flush the console and stop with `code` as the exit status. */
__attribute__((noreturn)) void board_exit(int code);

/* The core's cycle counter (mcycle; QEMU without -icount ticks it with the
 * host clock, so there it measures nothing about the firmware). */
void board_cycles_start(void);
uint32_t board_cycles(void);

#endif
