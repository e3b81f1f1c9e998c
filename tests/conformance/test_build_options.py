# SPDX-License-Identifier: Apache-2.0
"""The engine's build options (engine/src/edge_config.h), each build run
against the reference interpreter (tests/boards/run_model.c on the engine
sources, compiled here):

- EDGE_WITH_UINT8=0, the int8-only build a Cortex-M firmware for an int8
  model wants: every per-op fixture and schema graph runs through it. A
  graph where an op that computes in uint8 (anything but QUANTIZE,
  DEQUANTIZE and the ops that only move bytes) has a uint8 operand must be
  refused at load, with an error naming the option; every other graph must
  give the reference's bytes.
- EDGE_DEPTHWISE_COMPACT=1, the direct-form depthwise kernel the Cortex-M
  builds fall back on (their DSP kernel takes the common shapes first):
  every graph with a DEPTHWISE_CONV_2D, with uint8 built in and without,
  must give the reference's bytes (or, without uint8, the refusal above).
"""

import os
import shutil
import subprocess

import numpy as np
import pytest

import oracle
from test_schema_ops import CASES

REPO = oracle.REPO
FIXTURES = os.path.join(REPO, "tests", "fixtures", "ops")
# Ops that keep uint8 in the int8-only build: the model's edges, and the
# ones that move bytes without arithmetic on them.
KEEP_UINT8 = {"QUANTIZE", "DEQUANTIZE", "RESHAPE", "SQUEEZE", "CONCATENATION", "PAD",
              "STRIDED_SLICE"}
N_RANDOM = 2
BUILDS = {
    "int8_only": ["-DEDGE_WITH_UINT8=0"],
    "compact_dw": ["-DEDGE_DEPTHWISE_COMPACT=1"],
    "int8_only_compact_dw": ["-DEDGE_WITH_UINT8=0", "-DEDGE_DEPTHWISE_COMPACT=1"],
}
FIXTURE_FILES = sorted(f for f in os.listdir(FIXTURES) if f.endswith(".tflite"))
GRAPHS = [("case", n) for n in sorted(CASES)] + [("fixture", f) for f in FIXTURE_FILES]


def _has_depthwise(kind, name):
    model = os.path.join(FIXTURES, name) if kind == "fixture" else CASES[name]()
    return "DEPTHWISE_CONV_2D" in oracle.model_info(model).ops


DW_GRAPHS = [g for g in GRAPHS if _has_depthwise(*g)]


@pytest.fixture(scope="module")
def run_model_builds(tmp_path_factory):
    if not shutil.which("cc"):
        pytest.skip("no host C compiler")
    src = sorted(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(REPO, "engine", "src"))
                 for f in fs if f.endswith(".c"))
    exes = {}
    for name, defs in BUILDS.items():
        exe = str(tmp_path_factory.mktemp(name) / "run_model")
        # -Werror: the code an option leaves out must drop out cleanly.
        r = subprocess.run(["cc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror"] + defs +
                           ["-I" + os.path.join(REPO, "engine", "include"),
                            "-I" + os.path.join(REPO, "engine", "src")] + src +
                           [os.path.join(REPO, "tests", "boards", "run_model.c"), "-lm", "-o", exe],
                           capture_output=True, text=True)
        assert r.returncode == 0, name + ": " + r.stderr
        exes[name] = exe
    return exes


def uint8_compute_ops(model):
    mi = oracle.model_info(model)
    return sorted({name for name, ins, outs in mi.op_list if name not in KEEP_UINT8 and any(
        t >= 0 and mi.tensors[t]["type"] == "UINT8" for t in ins + outs)})


def graph_path(kind, name, tmp_path):
    if kind == "fixture":
        return os.path.join(FIXTURES, name)
    path = str(tmp_path / (name + ".tflite"))
    with open(path, "wb") as f:
        f.write(CASES[name]())
    return path


def check(exe, path, name, tmp_path, uint8_built):
    orc = oracle.Oracle(path, allow_tflm=False)
    sets = oracle.random_inputs(orc, name, n=N_RANDOM)
    args = [exe, path]
    for k, (_, arrs) in enumerate(sets):
        for j, a in enumerate(arrs):
            p = tmp_path / ("s%d.in%d" % (k, j))
            p.write_bytes(np.ascontiguousarray(a).tobytes())
            args.append(str(p))
        for j in range(len(orc.outputs)):
            args.append(str(tmp_path / ("s%d.out%d" % (k, j))))
    r = subprocess.run(args, capture_output=True, text=True)
    refused = [] if uint8_built else uint8_compute_ops(path)
    if refused:
        assert r.returncode != 0, "%s: %s ran in uint8 in the int8-only build" % (name, refused)
        assert "EDGE_WITH_UINT8=0" in r.stderr, r.stderr
        return
    assert r.returncode == 0, r.stderr
    for k, (label, arrs) in enumerate(sets):
        for j, want in enumerate(orc.run(arrs)):
            got = (tmp_path / ("s%d.out%d" % (k, j))).read_bytes()
            assert got == want.tobytes(), "%s: input %s, output %d differs from the reference" % (
                name, label, j)


@pytest.mark.parametrize("kind,name", GRAPHS)
def test_int8_only(kind, name, run_model_builds, tmp_path):
    path = graph_path(kind, name, tmp_path)
    check(run_model_builds["int8_only"], path, name, tmp_path, uint8_built=False)


@pytest.mark.parametrize("kind,name", DW_GRAPHS)
@pytest.mark.parametrize("build", ["compact_dw", "int8_only_compact_dw"])
def test_compact_depthwise(build, kind, name, run_model_builds, tmp_path):
    path = graph_path(kind, name, tmp_path)
    check(run_model_builds[build], path, name, tmp_path, uint8_built=build == "compact_dw")


def test_both_kinds_are_covered():
    """The graphs hold both kinds for the int8-only build, and depthwise
    convolutions in both types for the compact kernel (the tests can fail
    both ways)."""
    models = [os.path.join(FIXTURES, f) for f in FIXTURE_FILES] + [CASES[n]() for n in CASES]
    assert {bool(uint8_compute_ops(m)) for m in models} == {False, True}
    dw = [os.path.join(FIXTURES, n) if k == "fixture" else CASES[n]() for k, n in DW_GRAPHS]
    assert len(dw) >= 10
    assert {bool(uint8_compute_ops(m)) for m in dw} == {False, True}
