# SPDX-License-Identifier: Apache-2.0
"""The test suite under valgrind (issue 8): the cmocka unit tests and a set
of edgeq invocations (run, inspect, export, keras-dump, float-run, quantize
from .h5 and .keras, refused models, the regression corpus) with
`valgrind --leak-check=full`: no invalid reads or writes, no use of
uninitialised values, no definite or indirect leaks. Valgrind's own exit
code (99) is told apart from edgeq's (0, 1). `make valgrind` runs just this
file; `make test` runs it with the rest of tests/.
"""

import glob
import os
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("BUILD", os.path.join(REPO, "build"))
EDGEQ = os.environ.get("EDGEQ", os.path.join(BUILD, "edgeq"))
SHARED = os.path.normpath(os.path.join(REPO, "..", "shared", "models"))
FIX = os.path.join(REPO, "tests", "fixtures")
VG_ERR = 99
VALGRIND = ["valgrind", "-q", "--error-exitcode=%d" % VG_ERR, "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect", "--trace-children=yes"]

pytestmark = pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind not installed")


def vg(args, ok=(0,), timeout=600, cwd=None):
    r = subprocess.run(VALGRIND + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout, cwd=cwd)
    err = r.stderr.decode(errors="replace")
    assert r.returncode != VG_ERR, "valgrind errors in %s:\n%s" % (" ".join(args), err[-6000:])
    assert r.returncode in ok, "exit %d: %s\n%s" % (r.returncode, " ".join(args), err[-3000:])


UNIT = sorted(glob.glob(os.path.join(BUILD, "tests", "test_*")))


@pytest.mark.parametrize("exe", UNIT, ids=[os.path.basename(u) for u in UNIT])
def test_unit_under_valgrind(exe):
    vg([exe])


def _edgeq():
    if not os.access(EDGEQ, os.X_OK):
        pytest.fail("%s not built (`make`)" % EDGEQ, pytrace=False)
    return EDGEQ


def _cases(tmp):
    hello = os.path.join(SHARED, "tflite-micro", "models", "hello_world_int8.tflite")
    kws = os.path.join(SHARED, "mlcommons-tiny", "models", "keyword_spotting", "kws_ref_model.tflite")
    addc = os.path.join(FIX, "ops", "add_const.tflite")
    k = os.path.join(FIX, "keras")
    open(os.path.join(tmp, "in1.bin"), "wb").write(bytes(1))
    open(os.path.join(tmp, "in128.bin"), "wb").write(bytes(range(128)))
    open(os.path.join(tmp, "kws.bin"), "wb").write(bytes(490))
    return {
        "run_hello": (["run", hello, "--input", "in1.bin", "--output", "o.npy", "--profile"], (0,)),
        "run_add": (["run", addc, "--input", "in128.bin", "--output", "o.bin", "--json"], (0,)),
        "run_kws": (["run", kws, "--input", "kws.bin", "--output", "k.bin"], (0,)),
        "run_wrong_size": (["run", addc, "--input", "in1.bin"], (1,)),
        "inspect_json": (["inspect", "--json", kws], (0,)),
        "export": (["export", "--c", hello, "-o", "m.c"], (0,)),
        "keras_dump_keras": (["keras-dump", os.path.join(k, "func_cnn.keras")], (0,)),
        "float_run": (["float-run", os.path.join(k, "func_cnn.h5"), "--input",
                       os.path.join(k, "func_cnn.in0.npy")], (0,)),
        "quantize_h5": ([os.path.join(k, "seq_mlp.h5"), "q1.tflite", "--calib-count", "10"], (0,)),
        "quantize_keras": ([os.path.join(k, "nested.keras"), "q2.tflite", "--calib-count", "10",
                            "--io", "float"], (0,)),
        "quantize_refused": ([os.path.join(k, "bad_missing_weight.h5"), "q3.tflite"], (1,)),
        "quantize_truncated": (["keras-dump", "cut.h5"], (1,)),
    }





def _names():
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        return sorted(_cases(d))


@pytest.mark.parametrize("case", _names())
def test_edgeq_under_valgrind(tmp_path, case):
    exe = _edgeq()
    cases = _cases(str(tmp_path))
    data = open(os.path.join(FIX, "keras", "seq_mlp.h5"), "rb").read()
    (tmp_path / "cut.h5").write_bytes(data[:len(data) // 2])
    args, ok = cases[case]
    vg([exe] + args, ok=ok, cwd=str(tmp_path))


REGRESS = sorted(glob.glob(os.path.join(REPO, "tests", "regress", "*.tflite")))
MALFORMED = sorted(glob.glob(os.path.join(SHARED, "litert", "malformed", "*")))


def test_hostile_models_under_valgrind():
    exe = _edgeq()
    for p in REGRESS + MALFORMED:
        vg([exe, "inspect", p], ok=(0, 1))
