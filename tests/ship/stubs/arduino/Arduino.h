/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Arduino.h — a stand-in for an Arduino core, just enough for the edgeq
 * library's example sketch: Serial (print, println, begin) over the
 * Cortex-M board console (boards/cortex-m), and the setup()/loop() entry.
 * Used by tests/ship/test_layouts.py, which compiles the library the way
 * arduino-cli does; no Arduino core is installed here.
 */
#ifndef ARDUINO_STUB_H
#define ARDUINO_STUB_H

#include <stddef.h>
#include <stdint.h>

class SerialPort {
  public:
    void begin(unsigned long baud);
    explicit operator bool() const { return true; }
    void print(const char *s);
    void print(int v);
    void println(const char *s);
    void println(int v);
    void println();
};

extern SerialPort Serial;

void setup();
void loop();

#endif
