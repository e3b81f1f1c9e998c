/* SPDX-License-Identifier: Apache-2.0 */
/*
 * console.c — board.h for QEMU `virt` (RV32): the NS16550A UART, printf
 * through picolibc's vsnprintf, the exit status through the SiFive test
 * device, mcycle, and the C entry (board_start) and trap report called
 * from startup.S.
 */
#include <stdarg.h>
#include <stdio.h>

#include "board.h"

#define UART_BASE 0x10000000u /* NS16550A, virt's UART0 */
#define UART_THR (*(volatile uint8_t *)(UART_BASE + 0))
#define UART_LSR (*(volatile uint8_t *)(UART_BASE + 5))
#define UART_LSR_THRE 0x20u

#define TEST_BASE 0x100000u /* sifive_test: QEMU exits on a write */
#define TEST_PASS 0x5555u
#define TEST_FAIL 0x3333u /* exit status in the upper 16 bits */

#define BOARD_FAULT_EXIT 250

int main(void);
void board_set_fdt(const void *fdt); /* bootargs.c */
__attribute__((noreturn)) void board_start(const void *fdt);
__attribute__((noreturn)) void board_trap(uint32_t cause, uint32_t pc, uint32_t tval);

static void uart_put(char c) {
    while (!(UART_LSR & UART_LSR_THRE)) {
    }
    UART_THR = (uint8_t)c;
}

static char line[256];
static size_t line_len;

static void flush(void) {
    for (size_t i = 0; i < line_len; i++) uart_put(line[i]);
    line_len = 0;
}

static void put_char(char c) {
    line[line_len++] = c;
    if (c == '\n' || line_len == sizeof line) flush();
}

void board_write(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) put_char(s[i]);
}

void board_puts(const char *s) {
    while (*s) put_char(*s++);
}

void board_printf(const char *fmt, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0) board_write(buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* Rounds half up on the magnitude, as the other boards do. */
void board_put_fixed(float v, int decimals) {
    uint32_t scale = 1;
    for (int i = 0; i < decimals; i++) scale *= 10u;
    int neg = v < 0;
    float mag = neg ? -v : v;
    uint32_t whole = (uint32_t)(mag * (float)scale + 0.5f);
    board_printf("%s%lu", neg && whole ? "-" : "", (unsigned long)(whole / scale));
    if (decimals > 0) board_printf(".%0*lu", decimals, (unsigned long)(whole % scale));
}

void board_exit(int code) {
    flush();
    volatile uint32_t *test = (volatile uint32_t *)TEST_BASE;
    *test = code == 0 ? TEST_PASS : ((uint32_t)(code & 0xffff) << 16) | TEST_FAIL;
    for (;;) __asm__ volatile("wfi");
}

static uint32_t cycles_at_start;

static uint32_t read_mcycle(void) {
    uint32_t v;
    __asm__ volatile("csrr %0, mcycle" : "=r"(v));
    return v;
}

void board_cycles_start(void) { cycles_at_start = read_mcycle(); }
uint32_t board_cycles(void) { return read_mcycle() - cycles_at_start; }

void board_start(const void *fdt) {
    board_set_fdt(fdt);
    board_exit(main());
}

void board_trap(uint32_t cause, uint32_t pc, uint32_t tval) {
    board_printf("\n*** trap: mcause=0x%08lx at pc=0x%08lx (mtval=0x%08lx)\n", (unsigned long)cause,
                 (unsigned long)pc, (unsigned long)tval);
    board_exit(BOARD_FAULT_EXIT);
}
