#!/usr/bin/env bash
# Installs everything edgeq's build and test suite need on a fresh Debian 12
# machine: compilers and libraries from Debian, the oracles from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

APT_PACKAGES=(
  build-essential clang libclang-rt-14-dev
  libcmocka-dev libhdf5-dev libcjson-dev libzip-dev pkg-config
  flatbuffers-compiler libflatbuffers-dev valgrind
  python3 python3-pip
  gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf gcc-arm-none-eabi libnewlib-arm-none-eabi
  qemu-user qemu-system-arm cpio
)
if ! dpkg -s "${APT_PACKAGES[@]}" >/dev/null 2>&1; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${APT_PACKAGES[@]}"
fi

# libgpiod (v1.6) for the Raspberry Pi builds of examples/classify: the
# target architectures' development packages (boards/raspberrypi).
FOREIGN_PACKAGES=(libgpiod-dev:arm64 libgpiod-dev:armhf)
if ! dpkg -s "${FOREIGN_PACKAGES[@]}" >/dev/null 2>&1; then
  $SUDO dpkg --add-architecture arm64
  $SUDO dpkg --add-architecture armhf
  $SUDO apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${FOREIGN_PACKAGES[@]}"
fi

PY=${PYTHON:-python3}
$PY -m pip install -q --disable-pip-version-check -r tests/requirements.txt
