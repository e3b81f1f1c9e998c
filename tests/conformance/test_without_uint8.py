"""The engine built with EDGE_WITH_UINT8=0 (engine/src/edge_config.h): the
int8-only build a Cortex-M firmware for an int8 model wants, without the
uint8 kernels' code.

Every per-op fixture and every schema graph runs through it
(tests/boards/run_model.c on the engine sources, compiled here):
- a graph where an op that computes in uint8 (anything but QUANTIZE,
  DEQUANTIZE and the ops that only move bytes) has a uint8 operand must be
  refused at load, with an error naming the option;
- every other graph must give the reference interpreter's bytes, as the
  full build does.
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


@pytest.fixture(scope="module")
def run_model_int8_only(tmp_path_factory):
    if not shutil.which("cc"):
        pytest.skip("no host C compiler")
    exe = str(tmp_path_factory.mktemp("int8_only") / "run_model")
    src = [os.path.join(REPO, "engine", "src", d, f) for d in ("", "ops", "kernels")
           for f in sorted(os.listdir(os.path.join(REPO, "engine", "src", d))) if f.endswith(".c")]
    # -Werror: the uint8 code must drop out cleanly (no unused functions left).
    r = subprocess.run(["cc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-DEDGE_WITH_UINT8=0",
                        "-I" + os.path.join(REPO, "engine", "include"),
                        "-I" + os.path.join(REPO, "engine", "src")] + src +
                       [os.path.join(REPO, "tests", "boards", "run_model.c"), "-lm", "-o", exe],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return exe


def uint8_compute_ops(model):
    mi = oracle.model_info(model)
    return sorted({name for name, ins, outs in mi.op_list if name not in KEEP_UINT8 and any(
        t >= 0 and mi.tensors[t]["type"] == "UINT8" for t in ins + outs)})


def check(exe, path, name, tmp_path):
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
    refused = uint8_compute_ops(path)
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


FIXTURE_FILES = sorted(f for f in os.listdir(FIXTURES) if f.endswith(".tflite"))


@pytest.mark.parametrize("name", sorted(CASES))
def test_schema_graph_int8_only(name, run_model_int8_only, tmp_path):
    path = str(tmp_path / (name + ".tflite"))
    with open(path, "wb") as f:
        f.write(CASES[name]())
    check(run_model_int8_only, path, name, tmp_path)


@pytest.mark.parametrize("file", FIXTURE_FILES)
def test_op_fixture_int8_only(file, run_model_int8_only, tmp_path):
    check(run_model_int8_only, os.path.join(FIXTURES, file), file[:-len(".tflite")], tmp_path)


def test_both_kinds_are_covered():
    """The cases above hold graphs of both kinds (the test can fail both ways)."""
    kinds = {bool(uint8_compute_ops(os.path.join(FIXTURES, f))) for f in FIXTURE_FILES}
    kinds |= {bool(uint8_compute_ops(CASES[n]())) for n in CASES}
    assert kinds == {False, True}
