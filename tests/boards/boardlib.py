# SPDX-License-Identifier: Apache-2.0
"""Helpers for the board tests: builds, and QEMU runners.

The boards are built by make (boards/boards.mk): `board-test-<board>`
builds everything these tests run for that board. A board whose cross
compiler or QEMU is not installed is skipped, saying which package is
missing; a build that fails is a test failure.

Runners:
  linux boards  qemu-aarch64 / qemu-arm (qemu-user) with the Raspberry Pi's
                CPU model (-cpu), the Debian cross sysroot (-L)
  cortex-m      qemu-system-arm with semihosting on stdout; the firmware's
                exit status comes back as QEMU's
  riscv32       qemu-system-riscv32 -M virt: UART on stdout, exit status
                through the SiFive test device, -append as the device
                tree's bootargs
"""

import os
import shutil
import subprocess
import threading

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.join(REPO, os.environ.get("BUILD", "build"))
SHARED = os.path.normpath(os.path.join(REPO, "..", "shared"))
MODELS = os.path.join(SHARED, "models")
TIMEOUT = float(os.environ.get("EDGEQ_BOARD_TIMEOUT", "300"))

# Linux board configurations: build directory (under build/), compiler,
# qemu-user binary, sysroot, and the Pi CPU models each must run on (QEMU
# 7.2 has no 32-bit ARMv8 model: cortex-a15 stands in for a Pi 3/4 in
# 32-bit mode, as ../shared/tools/pi-run does).
LINUX = {
    "rpi-aarch64": dict(board="rpi-aarch64", dir="rpi-aarch64", cc="aarch64-linux-gnu-gcc",
                        qemu="qemu-aarch64", sysroot="/usr/aarch64-linux-gnu",
                        cpus={"pi3": "cortex-a53", "pi4": "cortex-a72", "pi5": "cortex-a76"}),
    "rpi-aarch64-pi5": dict(board="rpi-aarch64", dir="rpi-aarch64/pi5", cc="aarch64-linux-gnu-gcc",
                            qemu="qemu-aarch64", sysroot="/usr/aarch64-linux-gnu",
                            cpus={"pi5": "cortex-a76"}),
    "rpi-armhf": dict(board="rpi-armhf", dir="rpi-armhf", cc="arm-linux-gnueabihf-gcc",
                      qemu="qemu-arm", sysroot="/usr/arm-linux-gnueabihf",
                      cpus={"pi2": "cortex-a7", "pi4": "cortex-a15"}),
}
PACKAGES = {
    "aarch64-linux-gnu-gcc": "gcc-aarch64-linux-gnu",
    "arm-linux-gnueabihf-gcc": "gcc-arm-linux-gnueabihf",
    "arm-none-eabi-gcc": "gcc-arm-none-eabi libnewlib-arm-none-eabi",
    "qemu-aarch64": "qemu-user",
    "qemu-arm": "qemu-user",
    "qemu-system-arm": "qemu-system-arm",
    "riscv64-unknown-elf-gcc": "gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf",
    "qemu-system-riscv32": "qemu-system-misc",
}

# Cortex-M boards: QEMU machine.
CORTEX_M = {
    "cortex-m4": "mps2-an386",
    "cortex-m7": "mps2-an500",
    "cortex-m55": "mps3-an547",
}

# RISC-V configurations: build directory (under build/) and QEMU CPU, with
# the extensions the build does not use turned off so that they trap.
RISCV32 = {
    "riscv32": dict(dir="riscv32", cpu="rv32,a=off,f=off,d=off"),
    "riscv32-f": dict(dir="riscv32/f", cpu="rv32,a=off,d=off"),
}

_built = {}
_lock = threading.Lock()


def make_cmd():
    """make, with boards/boards.mk added when the top Makefile does not
    include it (yet)."""
    with open(os.path.join(REPO, "Makefile")) as fp:
        included = "boards/boards.mk" in fp.read()
    cmd = ["make", "-C", REPO, "-j%d" % max(2, os.cpu_count() or 2)]
    if not included:
        cmd += ["-f", "Makefile", "-f", "boards/boards.mk"]
    return cmd


def require_tools(*tools):
    missing = [t for t in tools if not shutil.which(t)]
    if missing:
        pkgs = sorted({PACKAGES.get(t, t) for t in missing})
        pytest.skip("%s not installed (apt-get install %s): board test skipped"
                    % (", ".join(missing), " ".join(pkgs)))


def build_board(board):
    """Build everything the tests need for `board` (once per session)."""
    with _lock:
        if board not in _built:
            r = subprocess.run(make_cmd() + ["board-test-%s" % board], capture_output=True,
                               text=True, timeout=1800)
            _built[board] = r
        r = _built[board]
    if r.returncode != 0:
        pytest.fail("make board-test-%s failed:\n%s\n%s" % (board, r.stdout[-3000:], r.stderr[-6000:]),
                    pytrace=False)


def require_models():
    if not os.path.isdir(MODELS):
        pytest.skip("shared models not found at %s: board tests need them" % MODELS)


def run(cmd, timeout=TIMEOUT, **kw):
    return subprocess.run(cmd, capture_output=True, timeout=timeout, **kw)


def linux_cmd(config, cpu, prog, *args):
    c = LINUX[config]
    return [c["qemu"], "-cpu", cpu, "-L", c["sysroot"], os.path.join(BUILD, c["dir"], prog)] + list(args)


def cortex_m_cmd(board, elf, append=None):
    cmd = ["qemu-system-arm", "-M", CORTEX_M[board], "-display", "none", "-monitor", "none",
           "-chardev", "stdio,id=con,mux=on", "-serial", "chardev:con",
           "-semihosting-config", "enable=on,target=native,chardev=con",
           "-kernel", os.path.join(BUILD, board, elf)]
    if append is not None:
        cmd += ["-append", append]
    return cmd


def riscv32_cmd(config, elf, append=None):
    c = RISCV32[config]
    cmd = ["qemu-system-riscv32", "-M", "virt", "-cpu", c["cpu"], "-bios", "none", "-nographic",
           "-monitor", "none", "-kernel", os.path.join(BUILD, c["dir"], elf)]
    if append is not None:
        cmd += ["-append", append]
    return cmd


def host_board():
    """The host board: classify, the firmware on stdio, the test tools, and
    the engine CLI (build/edgeq), which `make board-test-host` needs anyway."""
    require_models()
    build_board("host")
    return os.path.join(BUILD, "host")


def linux_config(config):
    c = LINUX[config]
    require_tools(c["cc"], c["qemu"])
    require_models()
    build_board(c["board"])
    return c


def cortex_m_board(board):
    require_tools("arm-none-eabi-gcc", "qemu-system-arm")
    require_models()
    build_board(board)


def riscv32_board():
    """Both RISC-V configurations (their firmware for the zoo's mnist needs
    nothing from ../shared)."""
    require_tools("riscv64-unknown-elf-gcc", "qemu-system-riscv32")
    build_board("riscv32")
