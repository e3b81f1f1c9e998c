# SPDX-License-Identifier: Apache-2.0
"""`make amalgamation`: build/amalgamation/edge.c + edge.h, the engine as
one strict C99 file (dist/amalgamate.py).

- compiles with -std=c99 -pedantic -Werror (and the engine's own warnings)
  with the host's gcc and clang, and with arm-none-eabi-gcc for the
  Cortex-M0+, M4, M33 and M55, and riscv64-unknown-elf-gcc for RV32IMC;
  the kernel variant follows the core (none on the M0+, DSP on the M4 and
  M33, MVE on the M55);
- a host program built from it runs the zoo's mnist_cnn with the
  reference interpreter's answer; with the options as macros
  (EDGE_OPS_HEADER, EDGE_WITH_UINT8=0) it refuses a model whose op was
  left out, naming it;
- examples/firmware built from it (no libedge.a) for the Cortex-M4 runs
  under QEMU with the same answer.
"""

import os
import re

import numpy as np
import pytest

from shiplib import (BUILD, MNIST, MNIST_LABEL, REPO, make, mnist_input, parse_run_model,
                     reference_output, require_tools, run)

AMAL = os.path.join(BUILD, "amalgamation")
STRICT = ["-std=c99", "-pedantic", "-Werror", "-Wall", "-Wextra", "-Wconversion", "-Wshadow"]
MOBILENET = os.path.join(REPO, "models", "mnist_mobilenet", "mnist_mobilenet_int8.tflite")
CORTEX_M = {
    "cortex-m0plus": ([], None),
    "cortex-m4": (["-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"], "systolic_conv_variant"),
    "cortex-m33": (["-mfloat-abi=hard", "-mfpu=fpv5-sp-d16"], "systolic_conv_variant"),
    "cortex-m55": (["-mfloat-abi=hard"], "systolic_tile_dot_s8_variant"),
}


@pytest.fixture(scope="module")
def amalgamation():
    make("amalgamation")
    for f in ("edge.c", "edge.h"):
        assert os.path.isfile(os.path.join(AMAL, f))
    return AMAL


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    path = mnist_input(tmp_path_factory.mktemp("input"))
    return path, [int(v) for v in reference_output(MNIST, path)]


def test_one_file_of_every_engine_source(amalgamation):
    text = open(os.path.join(amalgamation, "edge.c")).read()
    for d, _, files in os.walk(os.path.join(REPO, "engine", "src")):
        for f in files:
            if f.endswith(".c"):
                rel = os.path.relpath(os.path.join(d, f), os.path.join(REPO, "engine"))
                assert "/* ======== %s ======== */" % rel in text, rel
    # No include of the engine's own headers is left to resolve.
    for line in text.splitlines():
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        assert not m or m.group(1) == "edge.h", line
    header = open(os.path.join(amalgamation, "edge.h")).read()
    assert "edge_model_init" in header and '#include "' not in header
    for t in (text, header):
        assert t.splitlines()[0] == "/* SPDX-License-Identifier: Apache-2.0 */"


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_strict_c99_host(amalgamation, cc, tmp_path):
    require_tools(cc)
    run([cc] + STRICT + ["-c", os.path.join(amalgamation, "edge.c"), "-o", str(tmp_path / "e.o")])


@pytest.mark.parametrize("cpu", sorted(CORTEX_M))
def test_strict_c99_cortex_m(amalgamation, cpu, tmp_path):
    require_tools("arm-none-eabi-gcc")
    flags, variant = CORTEX_M[cpu]
    obj = str(tmp_path / "e.o")
    run(["arm-none-eabi-gcc"] + STRICT + ["-Os", "-mthumb", "-mcpu=" + cpu] + flags +
        ["-c", os.path.join(amalgamation, "edge.c"), "-o", obj])
    syms = run(["arm-none-eabi-nm", obj]).stdout
    assert "edge_model_init" in syms
    if variant:
        assert variant in syms, "%s: no %s" % (cpu, variant)
    else:
        assert "_variant" not in syms


def test_strict_c99_riscv32(amalgamation, tmp_path):
    require_tools("riscv64-unknown-elf-gcc")
    run(["riscv64-unknown-elf-gcc"] + STRICT + ["-Os", "-ffreestanding", "-march=rv32imc", "-mabi=ilp32",
                                                "-c", os.path.join(amalgamation, "edge.c"),
                                                "-o", str(tmp_path / "e.o")])


def build_host_program(amalgamation, tmp_path, *defs):
    exe = str(tmp_path / "run_model")
    run(["cc", "-std=c99", "-O1", "-I", amalgamation] + list(defs) +
        [os.path.join(amalgamation, "edge.c"), os.path.join(REPO, "tests", "ship", "consumer", "run_model.c"),
         "-o", exe])
    return exe


def test_runs_on_host(amalgamation, sample, tmp_path):
    # run_model.c includes "edge/edge.h": give it the amalgamation's header.
    (tmp_path / "edge").mkdir()
    os.symlink(os.path.join(amalgamation, "edge.h"), str(tmp_path / "edge" / "edge.h"))
    exe = build_host_program(amalgamation, tmp_path, "-I", str(tmp_path))
    r = run([exe, MNIST, sample[0]])
    assert parse_run_model(r.stdout) == sample[1]
    assert "top: %d" % MNIST_LABEL in r.stdout


def test_options_as_macros(amalgamation, sample, tmp_path):
    ops = str(tmp_path / "mnist_ops.h")
    run([os.path.join(BUILD, "edgeq"), "export", "--ops", MNIST, "-o", ops])
    (tmp_path / "edge").mkdir()
    os.symlink(os.path.join(amalgamation, "edge.h"), str(tmp_path / "edge" / "edge.h"))
    exe = build_host_program(amalgamation, tmp_path, "-I", str(tmp_path),
                             '-DEDGE_OPS_HEADER="%s"' % ops, "-DEDGE_WITH_UINT8=0")
    r = run([exe, MNIST, sample[0]])
    assert parse_run_model(r.stdout) == sample[1]
    r = run([exe, MOBILENET, sample[0]], check=False)
    assert r.returncode == 1 and "DEPTHWISE_CONV_2D" in r.stderr, r.stderr


def test_cortex_m4_firmware_from_the_amalgamation(amalgamation, sample, tmp_path):
    """examples/firmware + boards/cortex-m + edge.c alone (DSP kernels chosen
    by the amalgamation itself), under qemu-system-arm."""
    require_tools("arm-none-eabi-gcc", "qemu-system-arm")
    data = os.path.join(BUILD, "firmware-data", "mnist")
    parts = ["model_data.c", "sample_data.c", "labels_data.c"]
    make(*[os.path.join("build", "firmware-data", "mnist", p) for p in parts])
    elf = str(tmp_path / "fw.elf")
    cpu = ["-mthumb", "-mcpu=cortex-m4", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"]
    (tmp_path / "edge").mkdir()
    os.symlink(os.path.join(amalgamation, "edge.h"), str(tmp_path / "edge" / "edge.h"))
    run(["arm-none-eabi-gcc", "-std=c11", "-O2", "-ffunction-sections", "-fdata-sections"] + cpu +
        ["-I", amalgamation, "-I", str(tmp_path), "-I", os.path.join(REPO, "boards", "cortex-m"),
         os.path.join(amalgamation, "edge.c"), os.path.join(REPO, "examples", "firmware", "main.c"),
         os.path.join(REPO, "boards", "cortex-m", "startup.c"),
         os.path.join(REPO, "boards", "cortex-m", "console.c")] +
        [os.path.join(data, p) for p in parts] +
        ["-nostartfiles", "--specs=nano.specs", "--specs=nosys.specs",
         "-T", os.path.join(REPO, "boards", "cortex-m", "ld", "mps2.ld"),
         "-L", os.path.join(REPO, "boards", "cortex-m", "ld"), "-Wl,--gc-sections", "-o", elf])
    syms = run(["arm-none-eabi-nm", elf]).stdout
    assert "systolic_conv_variant" in syms  # the DSP kernels, picked from -mcpu
    r = run(["qemu-system-arm", "-M", "mps2-an386", "-display", "none", "-monitor", "none",
             "-chardev", "stdio,id=con,mux=on", "-serial", "chardev:con",
             "-semihosting-config", "enable=on,target=native,chardev=con", "-kernel", elf], timeout=300)
    out = [line for line in r.stdout.splitlines() if line.startswith("output 0:")]
    assert r.returncode == 0 and out, r.stdout
    got = [int(v) for v in out[0].split(":")[-1].split()]
    assert got == sample[1]
    assert int(np.argmax(got)) == MNIST_LABEL
