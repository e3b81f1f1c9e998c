#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what `make test` needs beyond tools/install-deps.sh, on Debian 12:
# clang and its sanitizer runtime, cmocka, flatbuffers (the reader's oracle),
# valgrind, cmake and git, the cross compilers and QEMU for the boards
# (Raspberry Pi, Cortex-M, RISC-V), libgpiod for the Pi targets (foreign
# dpkg architectures), and the Python oracles (tests/requirements.txt).
# `make test` runs it first (`make test-deps` alone): it checks before it
# installs, so it is quick when everything is there.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
apt_install() {
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@"
}

APT_PACKAGES=(
  clang libclang-rt-14-dev libcmocka-dev flatbuffers-compiler libflatbuffers-dev valgrind
  cmake git cpio python3 python3-pip
  gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf
  gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf
  qemu-user qemu-system-arm qemu-system-misc
)
if ! dpkg -s "${APT_PACKAGES[@]}" >/dev/null 2>&1; then
  echo "install-test-deps: installing Debian packages"
  $SUDO apt-get update -qq
  apt_install "${APT_PACKAGES[@]}"
fi

# libgpiod (v1.6) for the Raspberry Pi builds of examples/classify.
FOREIGN_PACKAGES=(libgpiod-dev:arm64 libgpiod-dev:armhf)
if ! dpkg -s "${FOREIGN_PACKAGES[@]}" >/dev/null 2>&1; then
  echo "install-test-deps: installing libgpiod for arm64 and armhf"
  $SUDO dpkg --add-architecture arm64
  $SUDO dpkg --add-architecture armhf
  $SUDO apt-get update -qq || true
  apt_install "${FOREIGN_PACKAGES[@]}"
fi

# The Python packages, when one of them does not import. A Debian python3
# refuses pip outside a virtual environment (PEP 668): the suite's machine
# is a test machine, so the packages go beside Debian's.
PY=${PYTHON:-python3}
MODULES="ai_edge_litert tflite_micro numpy ml_dtypes pytest kconfiglib"
if ! $PY -c "import importlib, sys; [importlib.import_module(m) for m in sys.argv[1:]]" $MODULES 2>/dev/null; then
  echo "install-test-deps: installing tests/requirements.txt"
  PIP_FLAGS=(-q --disable-pip-version-check)
  if $PY -c "import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path('stdlib'), 'EXTERNALLY-MANAGED')))"; then
    PIP_FLAGS+=(--break-system-packages)
  fi
  $PY -m pip install "${PIP_FLAGS[@]}" -r tests/requirements.txt
fi
