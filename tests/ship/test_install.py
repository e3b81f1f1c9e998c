# SPDX-License-Identifier: Apache-2.0
"""`make install` into a temporary prefix, then three programs built as
users build them, each running the zoo's mnist_cnn on sample_7.pgm with
the reference interpreter's answer (and a 7):

- with pkg-config against the installed libedge (edgeq.pc);
- with CMake's find_package(edgeq CONFIG) (target edgeq::edge);
- with CMake's add_subdirectory on the source tree (same target), with
  EDGEQ_OPS_HEADER (the model's ops only: another model is refused,
  naming its op) and EDGEQ_WITH_UINT8=OFF;
- add_subdirectory cross-compiled with the Cortex-M toolchain file: the
  kernels follow the core (DSP on the M4, MVE on the M55, portable on the
  M0+) and an M4 firmware links only the listed ops.
"""

import os
import re

import numpy as np
import pytest

from shiplib import (BUILD, MNIST, MNIST_LABEL, REPO, make, mnist_input, parse_run_model,
                     reference_output, require_tools, run)

CONSUMER = os.path.join(REPO, "tests", "ship", "consumer")
MOBILENET = os.path.join(REPO, "models", "mnist_mobilenet", "mnist_mobilenet_int8.tflite")


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    p = tmp_path_factory.mktemp("prefix") / "usr"
    make("install", "PREFIX=%s" % p)
    return p


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    path = mnist_input(tmp_path_factory.mktemp("input"))
    want = [int(v) for v in reference_output(MNIST, path)]
    assert int(np.argmax(want)) == MNIST_LABEL
    return path, want


def check_runs(exe, sample):
    path, want = sample
    r = run([exe, MNIST, path])
    assert parse_run_model(r.stdout) == want, r.stdout
    assert "top: %d" % MNIST_LABEL in r.stdout


def test_install_layout(prefix):
    for f in ["lib/libedge.a", "include/edge/edge.h", "include/edge/schema.h", "bin/edgeq",
              "lib/pkgconfig/edgeq.pc", "lib/cmake/edgeq/edgeq-config.cmake",
              "lib/cmake/edgeq/edgeq-config-version.cmake", "share/doc/edgeq/LICENSE"]:
        assert (prefix / f).is_file(), f
    # Every header the public ones include is installed too.
    for h in (prefix / "include" / "edge").iterdir():
        for inc in re.findall(r'#include "([^"]+)"', h.read_text()):
            assert (prefix / "include" / "edge" / inc).is_file(), (h, inc)
    r = run([str(prefix / "bin" / "edgeq"), "inspect", MNIST])
    assert "CONV_2D" in r.stdout


def test_uninstall_removes_it_all(tmp_path):
    p = tmp_path / "usr"
    make("install", "PREFIX=%s" % p)
    make("uninstall", "PREFIX=%s" % p)
    left = [str(f) for f in p.rglob("*") if f.is_file()]
    assert left == []


def test_pkg_config(prefix, sample, tmp_path):
    require_tools("pkg-config")
    env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    flags = run(["pkg-config", "--cflags", "--libs", "edgeq"], env=env).stdout.split()
    assert run(["pkg-config", "--modversion", "edgeq"], env=env).stdout.strip()
    exe = str(tmp_path / "run_model")
    run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", os.path.join(CONSUMER, "run_model.c")] +
        flags + ["-o", exe])
    check_runs(exe, sample)


def cmake_build(src, build_dir, *defs):
    require_tools("cmake")
    run(["cmake", "-S", src, "-B", str(build_dir)] + list(defs))
    run(["cmake", "--build", str(build_dir), "-j2"])


def test_find_package(prefix, sample, tmp_path):
    cmake_build(CONSUMER, tmp_path / "b", "-DCMAKE_PREFIX_PATH=%s" % prefix)
    check_runs(str(tmp_path / "b" / "run_model"), sample)


def test_find_package_refuses_a_newer_version(prefix, tmp_path):
    require_tools("cmake")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\nproject(p C)\nfind_package(edgeq 99.0 CONFIG REQUIRED)\n")
    r = run(["cmake", "-S", str(tmp_path / "src"), "-B", str(tmp_path / "b"),
             "-DCMAKE_PREFIX_PATH=%s" % prefix], check=False)
    assert r.returncode != 0 and "edgeq" in r.stderr


def test_add_subdirectory(sample, tmp_path):
    """With both options set (one engine build: the defaults build the same
    sources, every op)."""
    ops = str(tmp_path / "mnist_ops.h")
    run([os.path.join(BUILD, "edgeq"), "export", "--ops", MNIST, "-o", ops])
    cmake_build(CONSUMER, tmp_path / "b", "-DEDGEQ_SOURCE_DIR=%s" % REPO, "-DEDGEQ_OPS_HEADER=%s" % ops,
                "-DEDGEQ_WITH_UINT8=OFF")
    exe = str(tmp_path / "b" / "run_model")
    check_runs(exe, sample)
    # A model with an op left out is refused at load, by name.
    r = run([exe, MOBILENET, sample[0]], check=False)
    assert r.returncode == 1 and "DEPTHWISE_CONV_2D" in r.stderr, r.stderr


FIRMWARE_MAIN = r"""
#include "edge/edge.h"
extern const unsigned char model_data[];
extern const unsigned int model_data_len;
static unsigned char arena[16384] __attribute__((aligned(16)));
int main(void) {
    edge_model m;
    if (edge_model_init(&m, model_data, model_data_len, arena, sizeof arena) != EDGE_OK) return 1;
    return edge_invoke(&m) == EDGE_OK ? 0 : 1;
}
const unsigned char model_data[16] __attribute__((aligned(16)));
const unsigned int model_data_len = 16;
"""


@pytest.mark.parametrize("cpu,kernels,build", [("cortex-m4", "dsp", True), ("cortex-m55", "mve", False),
                                               ("cortex-m0plus", "portable", False)])
def test_add_subdirectory_cross_cortex_m(cpu, kernels, build, tmp_path):
    """The M4 is built and linked; the others only configured (their strict
    compiles are the amalgamation tests')."""
    require_tools("arm-none-eabi-gcc", "cmake")
    ops = str(tmp_path / "mnist_ops.h")
    run([os.path.join(BUILD, "edgeq"), "export", "--ops", MNIST, "-o", ops])
    src = tmp_path / "fw"
    src.mkdir()
    (src / "main.c").write_text(FIRMWARE_MAIN)
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\nproject(fw C)\n"
        "add_subdirectory(%s edgeq)\nadd_executable(fw.elf main.c)\n"
        "target_link_libraries(fw.elf PRIVATE edgeq::edge)\n"
        "target_link_options(fw.elf PRIVATE --specs=nosys.specs -Wl,--gc-sections)\n" % REPO)
    tc = os.path.join(REPO, "dist", "cmake", "toolchains", "arm-none-eabi.cmake")
    r = run(["cmake", "-S", str(src), "-B", str(tmp_path / "b"), "-DCMAKE_TOOLCHAIN_FILE=" + tc,
             "-DEDGEQ_CPU=" + cpu, "-DEDGEQ_OPS_HEADER=" + ops, "-DCMAKE_BUILD_TYPE=MinSizeRel"])
    assert "edgeq: %s kernels" % kernels in r.stdout
    if not build:
        return
    run(["cmake", "--build", str(tmp_path / "b"), "-j2"])
    syms = run(["arm-none-eabi-nm", str(tmp_path / "b" / "fw.elf")]).stdout
    assert "edge_op_conv_2d" in syms and "edge_op_softmax" in syms
    assert "edge_op_mean" not in syms and "edge_op_average_pool_2d" not in syms
    variant = {"dsp": "systolic_conv_variant", "mve": "systolic_tile_dot_s8_variant"}
    if kernels in variant:
        assert variant[kernels] in syms
    else:
        assert "_variant" not in syms
