/* SPDX-License-Identifier: Apache-2.0 */
/*
 * core.cpp — the stand-in Arduino core's main() and Serial: setup() once,
 * loop() once (a test has to end), then exit 0 through the board.
 */
#include "Arduino.h"

extern "C" {
#include "board.h"
}

SerialPort Serial;

void SerialPort::begin(unsigned long) {}
void SerialPort::print(const char *s) { board_puts(s); }
void SerialPort::print(int v) { board_printf("%d", v); }
void SerialPort::println(const char *s) { board_puts(s), board_puts("\n"); }
void SerialPort::println(int v) { board_printf("%d\n", v); }
void SerialPort::println() { board_puts("\n"); }

int main() {
    setup();
    loop();
    return 0;
}
