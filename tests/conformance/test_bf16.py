# SPDX-License-Identifier: Apache-2.0
"""bfloat16 models on the engine, checked against the official interpreter.

ai_edge_litert does not run BFLOAT16 tensors, so each bf16 model is made
from a float model by tools/tflite_to_bf16.py, together with its float32
reference twin (the same model with the converted constants replaced by
their bf16-rounded float32 values), which the oracle (ai_edge_litert
BUILTIN_REF) runs:

* weights bf16, activations f32: products of bf16 weights and fp32
  activations accumulate in fp32, the same math as the twin, so per output
  max|engine - oracle| / max|oracle| <= 1e-5, on every float model in
  ../shared/models and every float per-op fixture (tests/fixtures/ops_float).
* activations bf16 on single-op fixtures, graph I/O bf16 too: inputs are
  bf16-representable, so the engine's bf16 output must be the oracle's
  float32 output rounded to bf16 (ml_dtypes, nearest even), within 1 bf16
  ulp (the fp32 results may differ by float rounding at a bf16 tie), and
  at most 1% of the elements (or one) may be that 1 ulp off, so that
  truncating instead of rounding is caught.
* activations bf16 on the real models (graph I/O float32): every
  intermediate is rounded, so only closeness is asserted (1e-1 relative;
  measured up to 4.7e-2, on hello_world whose outputs are near 0),
  as a smoke test that every op runs with mixed float32/bf16 operands.
"""

import json
import os
import subprocess  # noqa: F401  (oracle.run_edgeq wraps it)
import sys
import tempfile

import ml_dtypes
import numpy as np
import pytest

import oracle
from float_check import TOL, check_float, rel_err

sys.path.insert(0, os.path.join(oracle.REPO, "tools"))
import tflite_to_bf16  # noqa: E402

FIXTURES = os.path.join(oracle.REPO, "tests", "fixtures", "ops_float")
with open(os.path.join(FIXTURES, "MANIFEST.json")) as f:
    ENTRIES = {e["name"]: e for e in json.load(f)["fixtures"]}
SINGLE_OP = sorted(n for n, e in ENTRIES.items() if len(e["ops"]) == 1)

REAL = {}
if os.path.isdir(oracle.SHARED_MODELS):
    import test_float

    REAL = {n: p for n, p in test_float.FOUND["float"].items()}
# The fp16 weights model keeps its DEQUANTIZE fp16 -> fp32 producing the
# filters: with bf16 activations that would be fp16 -> bf16, which is not in
# the file contract; it runs with float32 activations only.
ACT_BF16_SKIP = {"test_model_redux_precision.bin"}
ACT_BF16_TOL = 1e-1


def _read(p):
    with open(p, "rb") as f:
        return f.read()


def _write(tmp, name, data):
    p = os.path.join(tmp, name)
    with open(p, "wb") as f:
        f.write(data)
    return p


def _sets(orc, name, n):
    sets = []
    for i in range(n):
        rng = np.random.default_rng(oracle.stable_seed(name, "bf16", i))
        sets.append(("seed%d" % i, [rng.uniform(-1, 1, size=d.shape).astype(np.float32)
                                    for d in orc.inputs]))
    rng = np.random.default_rng(oracle.stable_seed(name, "bf16-wide"))
    sets.append(("wide", [(rng.standard_normal(d.shape) * 4).astype(np.float32)
                          for d in orc.inputs]))
    return sets


def _weights_bf16(path, name, binary, n):
    data = _read(path)
    with tempfile.TemporaryDirectory(prefix="edgeq-bf16-") as td:
        bf = _write(td, "bf16.tflite", tflite_to_bf16.convert(data))
        ref = _write(td, "ref.tflite", tflite_to_bf16.convert(data, rounded_float=True))
        orc = oracle.Oracle(ref, allow_tflm=False)
        failures, worst = check_float(bf, orc, _sets(orc, name, n), name + " (bf16 weights)",
                                      binary=binary)
    assert not failures, "bf16-weights engine != litert on the rounded twin (tol %g):\n%s" % (
        TOL, "\n".join(failures))


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_model_weights_bf16(name, edgeq):
    _weights_bf16(REAL[name], name, edgeq, 4)


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_fixture_weights_bf16(name, edgeq):
    _weights_bf16(os.path.join(FIXTURES, ENTRIES[name]["file"]), name, edgeq, 3)


@pytest.mark.parametrize("name", sorted(set(REAL) - ACT_BF16_SKIP))
def test_real_model_act_bf16_close(name, edgeq):
    data = _read(REAL[name])
    with tempfile.TemporaryDirectory(prefix="edgeq-bf16-") as td:
        bf = _write(td, "bf16.tflite", tflite_to_bf16.convert(data, act="bf16"))
        ref = _write(td, "ref.tflite", tflite_to_bf16.convert(data, rounded_float=True))
        orc = oracle.Oracle(ref, allow_tflm=False)
        failures, worst = check_float(bf, orc, _sets(orc, name, 2), name + " (bf16 acts)",
                                      binary=edgeq, tol=ACT_BF16_TOL)
    assert not failures, "\n".join(failures)


def _bf16_ordered(bits):
    """bf16 bit patterns as integers ordered like their values (so that the
    difference of two is their distance in ulps)."""
    b = bits.astype(np.int32)
    return np.where(b & 0x8000, 0x8000 - (b & 0x7FFF), 0x8000 + b)


def run_bf16_io(model, arrays_bf16, out_descs, binary):
    """edgeq run on raw bf16 inputs; returns the raw bf16 outputs (uint16)."""
    with tempfile.TemporaryDirectory(prefix="edgeq-bf16io-") as td:
        args = ["run", model]
        for k, a in enumerate(arrays_bf16):
            p = os.path.join(td, "i%d.bin" % k)
            a.view(np.uint16).astype("<u2").tofile(p)
            args += ["--input", p]
        outs = [os.path.join(td, "o%d.bin" % k) for k in range(len(out_descs))]
        for p in outs:
            args += ["--output", p]
        r = oracle.run_edgeq(args, binary=binary)
        assert r.returncode == 0, "edgeq %s failed (exit %s): %s" % (
            " ".join(args), oracle.describe_rc(r.returncode), r.stderr)
        return [np.fromfile(p, "<u2").reshape(d.shape) for p, d in zip(outs, out_descs)]


def _act_bf16_single(name, binary, n):
    e = ENTRIES[name]
    data = _read(os.path.join(FIXTURES, e["file"]))
    with tempfile.TemporaryDirectory(prefix="edgeq-bf16-") as td:
        bf = _write(td, "bf16.tflite", tflite_to_bf16.convert(data, act="bf16", io="bf16"))
        ref = _write(td, "ref.tflite", tflite_to_bf16.convert(data, rounded_float=True))
        orc = oracle.Oracle(ref, allow_tflm=False)
        failures = []
        for i in range(n):
            rng = np.random.default_rng(oracle.stable_seed(name, "actbf16", i))
            xs = [rng.uniform(lo, hi, size=d.shape).astype(ml_dtypes.bfloat16)
                  for d, (lo, hi) in zip(orc.inputs, e["input_ranges"])]
            exp = orc.run([x.astype(np.float32) for x in xs])
            got = run_bf16_io(bf, xs, orc.outputs, binary)
            for k, (ex, g) in enumerate(zip(exp, got)):
                want = ex.astype(ml_dtypes.bfloat16).view(np.uint16)
                d = np.abs(_bf16_ordered(want) - _bf16_ordered(g))
                off1 = int(np.sum(d == 1))
                if off1 > max(1, d.size // 100):
                    failures.append("%s seed%d output %d: %d of %d elements 1 bf16 ulp off "
                                    "(more than ties can explain: rounding is not to nearest "
                                    "even?)" % (name, i, k, off1, d.size))
                if d.max() > 1:
                    j = int(np.argmax(d))
                    failures.append("%s seed%d output %d: %d elements off by > 1 bf16 ulp, worst "
                                    "at %d: expected %r got %r" % (
                                        name, i, k, int(np.sum(d > 1)), j,
                                        float(want.view(ml_dtypes.bfloat16).reshape(-1)[j]),
                                        float(g.view(ml_dtypes.bfloat16).reshape(-1)[j])))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name", SINGLE_OP)
def test_fixture_act_bf16_within_one_ulp(name, edgeq):
    _act_bf16_single(name, edgeq, 3)


@pytest.mark.parametrize("name", SINGLE_OP[::4])
def test_fixture_act_bf16_asan(name, asan_edgeq):
    _act_bf16_single(name, asan_edgeq, 1)


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_model_weights_bf16_asan(name, asan_edgeq):
    _weights_bf16(REAL[name], name, asan_edgeq, 1)


def test_rel_err_can_fail():
    """The comparison itself: a 2e-5 relative change must be caught."""
    a = np.linspace(-1, 1, 11).astype(np.float32)
    assert rel_err(a, a) == 0.0
    assert rel_err(a, a * np.float32(1 + 2e-5)) > TOL


def _refusal(model_bytes, tmp_path, binary):
    p = tmp_path / "m.tflite"
    p.write_bytes(model_bytes)
    r = oracle.run_edgeq(["inspect", p], binary=binary)
    assert r.returncode == 1, "exit %s: %s" % (oracle.describe_rc(r.returncode), r.stderr)
    return r.stderr


def test_bf16_with_int8_operand_refused(any_edgeq, tmp_path):
    """ADD of a bfloat16 and an int8 tensor: a clear refusal that names the
    op and the operand types the file has."""
    S = tflite_to_bf16._schema()
    data = _read(os.path.join(FIXTURES, ENTRIES["add_same"]["file"]))
    m = S.ModelT.InitFromPackedBuf(bytearray(data), 0)
    sg = m.subgraphs[0]
    op = sg.operators[0]
    sg.tensors[op.inputs[0]].type = tflite_to_bf16.BFLOAT16
    sg.tensors[op.inputs[1]].type = 9  # INT8
    err = _refusal(tflite_to_bf16._pack(S, m, len(data)), tmp_path, any_edgeq)
    assert "unsupported: op 0 (ADD)" in err and "bfloat16,int8->float32" in err, err


@pytest.mark.skipif("test_model_redux_precision.bin" not in REAL, reason="needs ../shared/models")
def test_fp16_dequantize_to_bf16_refused(any_edgeq, tmp_path):
    """DEQUANTIZE float16 -> bfloat16 is outside the contract: refused by name."""
    data = tflite_to_bf16.convert(_read(REAL["test_model_redux_precision.bin"]), act="bf16")
    err = _refusal(data, tmp_path, any_edgeq)
    assert "(DEQUANTIZE): output bfloat16 not supported" in err, err


def test_cli_bf16_io_through_npy(edgeq, tmp_path):
    """edgeq run: a float32 .npy feeds a bfloat16 input (rounded to nearest
    even, as ml_dtypes) and a bfloat16 output is written to .npy as float32;
    the same as the raw-bytes route."""
    name = "logistic_r-1_1"
    data = tflite_to_bf16.convert(_read(os.path.join(FIXTURES, ENTRIES[name]["file"])),
                                  act="bf16", io="bf16")
    model = tmp_path / "m.tflite"
    model.write_bytes(data)
    x = np.random.default_rng(7).uniform(-3, 3, size=(1, 64)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = oracle.run_edgeq(["run", model, "--input", tmp_path / "x.npy", "--output",
                          tmp_path / "y.npy"], binary=edgeq)
    assert r.returncode == 0, r.stderr
    y = np.load(tmp_path / "y.npy")
    assert y.dtype == np.float32 and y.shape == (1, 64)

    class D:
        shape = (1, 64)

    raw = run_bf16_io(str(model), [x.astype(ml_dtypes.bfloat16)], [D], edgeq)[0]
    np.testing.assert_array_equal(y, raw.view(ml_dtypes.bfloat16).astype(np.float32))


def test_operand_listed_twice(any_edgeq, tmp_path):
    """ADD(x, x) with x bfloat16: the widened stand-in must not outlive the
    op (three invokes in a row, then the output checked)."""
    S = tflite_to_bf16._schema()
    data = _read(os.path.join(FIXTURES, ENTRIES["add_same"]["file"]))
    m = S.ModelT.InitFromPackedBuf(bytearray(data), 0)
    op = m.subgraphs[0].operators[0]
    op.inputs[1] = op.inputs[0]
    model = tmp_path / "m.tflite"
    model.write_bytes(tflite_to_bf16.convert(tflite_to_bf16._pack(S, m, len(data)),
                                             act="bf16", io="bf16"))
    info = oracle.model_info(str(model))
    shape = info.tensors[info.inputs[0]]["shape"]
    x = np.random.default_rng(3).uniform(-1, 1, shape).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = oracle.run_edgeq(["run", model, "--input", tmp_path / "x.npy", "--input",
                          tmp_path / "x.npy", "--output", tmp_path / "y.npy", "--repeat", "3"],
                         binary=any_edgeq)
    assert r.returncode == 0, r.stderr
    xb = x.astype(ml_dtypes.bfloat16).astype(np.float32)
    want = (xb + xb).astype(ml_dtypes.bfloat16).astype(np.float32)
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), want)


def _retyped_single_op(fixture, builtin, in_type, out_type):
    """The fixture's one op turned into `builtin` with new I/O types."""
    S = tflite_to_bf16._schema()
    data = _read(os.path.join(FIXTURES, ENTRIES[fixture]["file"]))
    m = S.ModelT.InitFromPackedBuf(bytearray(data), 0)
    code = m.operatorCodes[m.subgraphs[0].operators[0].opcodeIndex]
    code.builtinCode = builtin
    code.deprecatedBuiltinCode = builtin
    sg = m.subgraphs[0]
    sg.operators[0].builtinOptionsType = 0
    sg.operators[0].builtinOptions = None
    sg.tensors[sg.inputs[0]].type = in_type
    sg.tensors[sg.outputs[0]].type = out_type
    return tflite_to_bf16._pack(S, m, len(data))


def test_dequantize_bf16_to_f32_widens(any_edgeq, tmp_path):
    """DEQUANTIZE bfloat16 -> float32 is exact widening."""
    model = tmp_path / "m.tflite"
    model.write_bytes(_retyped_single_op("relu_r-2_2", 6, tflite_to_bf16.BFLOAT16,
                                         tflite_to_bf16.FLOAT32))
    info = oracle.model_info(str(model))
    assert info.ops == ["DEQUANTIZE"]
    shape = info.tensors[info.inputs[0]]["shape"]
    x = np.random.default_rng(5).standard_normal(shape).astype(ml_dtypes.bfloat16)
    x.reshape(-1)[:4] = np.array([np.inf, -np.inf, np.nan, -0.0], ml_dtypes.bfloat16)
    x.view(np.uint16).astype("<u2").tofile(tmp_path / "x.bin")
    r = oracle.run_edgeq(["run", model, "--input", tmp_path / "x.bin", "--output",
                          tmp_path / "y.npy"], binary=any_edgeq)
    assert r.returncode == 0, r.stderr
    y = np.load(tmp_path / "y.npy")
    np.testing.assert_array_equal(y.view(np.uint32),
                                  x.view(np.uint16).astype(np.uint32) << 16)


def test_quantize_bf16_to_int8_matches_float(edgeq, tmp_path):
    """QUANTIZE bfloat16 -> int8 gives the bytes litert gives for the same
    (bf16-representable) values as float32."""
    S = tflite_to_bf16._schema()

    def with_quant(data):
        m = S.ModelT.InitFromPackedBuf(bytearray(data), 0)
        sg = m.subgraphs[0]
        q = S.QuantizationParametersT()
        q.scale = [0.0173]
        q.zeroPoint = [-5]
        sg.tensors[sg.outputs[0]].quantization = q
        return tflite_to_bf16._pack(S, m, len(data))

    f32 = with_quant(_retyped_single_op("relu_r-2_2", 114, tflite_to_bf16.FLOAT32, 9))
    bf = with_quant(_retyped_single_op("relu_r-2_2", 114, tflite_to_bf16.BFLOAT16, 9))
    (tmp_path / "f.tflite").write_bytes(f32)
    (tmp_path / "b.tflite").write_bytes(bf)
    orc = oracle.Oracle(str(tmp_path / "f.tflite"), allow_tflm=False)
    assert orc.op_names() == ["QUANTIZE"]
    x = np.random.default_rng(9).uniform(-3, 3, orc.inputs[0].shape).astype(ml_dtypes.bfloat16)
    want = orc.run([x.astype(np.float32)])[0]
    x.view(np.uint16).astype("<u2").tofile(tmp_path / "x.bin")
    r = oracle.run_edgeq(["run", tmp_path / "b.tflite", "--input", tmp_path / "x.bin",
                          "--output", tmp_path / "y.npy"], binary=edgeq)
    assert r.returncode == 0, r.stderr
    got = np.load(tmp_path / "y.npy")
    assert oracle.compare_bytes(want, got.reshape(want.shape)) is None
