/* SPDX-License-Identifier: Apache-2.0 */
/*
 * console.c — board.h for the Cortex-M boards: semihosting or UART
 * console, a small printf, exit status through semihosting, DWT cycles.
 */
#include <stdarg.h>

#include "board.h"

/* ---- semihosting (ARM "Semihosting for AArch32 and AArch64") ---- */

enum {
    SH_SYS_WRITE0 = 0x04,
    SH_SYS_GET_CMDLINE = 0x15,
    SH_SYS_EXIT = 0x18,
    SH_SYS_EXIT_EXTENDED = 0x20,
    SH_ADP_STOPPED_APPLICATION_EXIT = 0x20026
};

static uint32_t semihost(uint32_t op, const void *arg) {
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

/* ---- output: a line buffer drained to semihosting or the UART ---- */

#if defined(BOARD_CONSOLE_UART)
#ifndef BOARD_UART_BASE
#define BOARD_UART_BASE 0x40004000u /* CMSDK APB UART0 on mps2-an385/an386/an500 */
#endif
#define UART_REG(off) (*(volatile uint32_t *)(BOARD_UART_BASE + (off)))
static void uart_put(char c) {
    static int ready;
    if (!ready) {
        UART_REG(0x10) = 16; /* BAUDDIV: any value >= 16 is valid */
        UART_REG(0x08) = 1;  /* CTRL: TX enable */
        ready = 1;
    }
    while (UART_REG(0x04) & 1u) { /* STATE: TX buffer full */
    }
    UART_REG(0x00) = (uint8_t)c;
}
#endif

static char line[128];
static size_t line_len;

static void flush(void) {
    if (line_len == 0) return;
#if defined(BOARD_CONSOLE_UART)
    for (size_t i = 0; i < line_len; i++) uart_put(line[i]);
#else
    line[line_len] = 0;
    (void)semihost(SH_SYS_WRITE0, line);
#endif
    line_len = 0;
}

static void put_char(char c) {
    if (c == 0) return; /* SYS_WRITE0 would stop at it */
    line[line_len++] = c;
    if (c == '\n' || line_len == sizeof line - 1) flush();
}

void board_write(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) put_char(s[i]);
}

void board_puts(const char *s) {
    while (*s) put_char(*s++);
}

/* ---- formatting ---- */

static void put_padded(const char *s, size_t n, int width, int left, char pad) {
    int fill = width > (int)n ? width - (int)n : 0;
    if (!left)
        for (; fill > 0; fill--) put_char(pad);
    board_write(s, n);
    for (; fill > 0; fill--) put_char(' ');
}

static void put_number(unsigned long long v, int neg, unsigned base, int upper, int width,
                       int left, char pad) {
    char buf[24];
    size_t i = sizeof buf;
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    do {
        buf[--i] = digits[v % base];
        v /= base;
    } while (v);
    if (neg) {
        if (pad == '0' && !left) {
            put_char('-');
            width = width > 0 ? width - 1 : 0;
        } else {
            buf[--i] = '-';
        }
    }
    put_padded(buf + i, sizeof buf - i, width, left, pad);
}

void board_printf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            put_char(*p);
            continue;
        }
        int left = 0, width = 0, size = 0;
        char pad = ' ';
        for (p++; *p == '-' || *p == '0'; p++) {
            if (*p == '-') left = 1;
            else pad = '0';
        }
        if (*p == '*') {
            width = va_arg(ap, int);
            p++;
        }
        for (; *p >= '0' && *p <= '9'; p++) width = width * 10 + (*p - '0');
        for (; *p == 'l' || *p == 'z'; p++) size += *p == 'z' ? (sizeof(size_t) > 4 ? 2 : 0) : 1;
        switch (*p) {
        case 'd':
        case 'i': {
            long long v = size >= 2 ? va_arg(ap, long long)
                          : size == 1 ? va_arg(ap, long)
                                      : va_arg(ap, int);
            unsigned long long mag = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
            put_number(mag, v < 0, 10, 0, width, left, pad);
            break;
        }
        case 'u':
        case 'x':
        case 'X': {
            unsigned long long v = size >= 2 ? va_arg(ap, unsigned long long)
                                   : size == 1 ? va_arg(ap, unsigned long)
                                               : va_arg(ap, unsigned int);
            put_number(v, 0, *p == 'u' ? 10u : 16u, *p == 'X', width, left, pad);
            break;
        }
        case 'c': {
            char c = (char)va_arg(ap, int);
            put_padded(&c, 1, width, left, ' ');
            break;
        }
        case 's': {
            const char *s = va_arg(ap, const char *);
            size_t n = 0;
            if (!s) s = "(null)";
            while (s[n]) n++;
            put_padded(s, n, width, left, ' ');
            break;
        }
        case '%': put_char('%'); break;
        case 0: p--; break;
        default: put_char('%'), put_char(*p); break;
        }
    }
    va_end(ap);
}

void board_put_fixed(float v, int decimals) {
    uint32_t scale = 1;
    for (int i = 0; i < decimals; i++) scale *= 10u;
    int neg = v < 0;
    float mag = neg ? -v : v;
    uint32_t whole = (uint32_t)(mag * (float)scale + 0.5f);
    if (neg && whole) put_char('-');
    board_printf("%lu", (unsigned long)(whole / scale));
    if (decimals > 0) {
        put_char('.');
        board_printf("%0*lu", decimals, (unsigned long)(whole % scale));
    }
}

/* ---- command line ---- */

const char *board_cmdline(void) {
    static char buf[256];
    static int done;
    if (!done) {
        uint32_t block[2] = {(uint32_t)(uintptr_t)buf, sizeof buf - 1};
        if (semihost(SH_SYS_GET_CMDLINE, block) != 0) buf[0] = 0;
        buf[sizeof buf - 1] = 0;
        done = 1;
    }
    return buf;
}

/* ---- exit and cycles ---- */

void board_exit(int code) {
    flush();
    /* SYS_EXIT_EXTENDED carries the status; plain SYS_EXIT could only say
     * "success" or "failure" on 32-bit Arm. */
    uint32_t block[2] = {SH_ADP_STOPPED_APPLICATION_EXIT, (uint32_t)code};
    (void)semihost(SH_SYS_EXIT_EXTENDED, block);
    (void)semihost(SH_SYS_EXIT, (const void *)(uintptr_t)SH_ADP_STOPPED_APPLICATION_EXIT);
    for (;;) __asm__ volatile("bkpt 0");
}

#define DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)

void board_cycles_start(void) {
    DEMCR |= 1u << 24; /* TRCENA */
    DWT_CYCCNT = 0;
    DWT_CTRL |= 1u; /* CYCCNTENA */
}

uint32_t board_cycles(void) { return DWT_CYCCNT; }
