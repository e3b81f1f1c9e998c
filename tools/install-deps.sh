#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what building edgeq and quantizing models need on Debian 12:
# a C compiler, make, pkg-config and the three libraries the edgeq tool
# links (HDF5, cJSON, libzip). The engine itself needs only a C99 compiler.
# The test suite's tools come separately: `make test` installs them
# (tools/install-test-deps.sh). Quick when everything is there.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

APT_PACKAGES=(build-essential pkg-config libhdf5-dev libcjson-dev libzip-dev)
if ! dpkg -s "${APT_PACKAGES[@]}" >/dev/null 2>&1; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${APT_PACKAGES[@]}"
fi
