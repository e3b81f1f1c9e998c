"""One-op graphs the TF converter does not make, built here with the TFLite
schema and checked bit-exact against the reference kernels: pools and
ADD/SUB on uint8 (as TFLite's legacy quantized models carry them) and
int16 (the 16x8 mode: zero point 0, and the power-of-two ADD/SUB form),
and int8 ADD/SUB large enough for the engine's table path. Each runs on
edgeq and on the engine built without its x86 kernels (the code the Arm
builds run for these ops), and on the ASan+UBSan edgeq when it is built."""

import os
import shutil
import subprocess

import numpy as np
import pytest

import oracle

N_RANDOM = 8


def out_size(n, k, s, padding):
    return (n + s - 1) // s if padding == 0 else (n - k) // s + 1


def build(op, tensors, options_type, options, version=1):
    """tensors: (shape, type name, scale, zero point) of input(s) then the
    output; returns the .tflite bytes."""
    import flatbuffers
    S = oracle._schema()
    g = S.SubGraphT()
    g.tensors = []
    for i, (shape, ttype, scale, zero) in enumerate(tensors):
        x = S.TensorT()
        x.name, x.shape, x.type, x.buffer = "t%d" % i, list(shape), getattr(S.TensorType, ttype), i + 1
        q = S.QuantizationParametersT()
        q.scale, q.zeroPoint = [scale], [zero]
        x.quantization = q
        g.tensors.append(x)
    n_in = len(tensors) - 1
    code = S.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = getattr(S.BuiltinOperator, op)
    code.version = version
    o = S.OperatorT()
    o.opcodeIndex, o.inputs, o.outputs = 0, list(range(n_in)), [n_in]
    o.builtinOptionsType = getattr(S.BuiltinOptions, options_type)
    o.builtinOptions = options
    g.inputs, g.outputs, g.operators = list(range(n_in)), [n_in], [o]
    m = S.ModelT()
    m.version, m.operatorCodes, m.subgraphs = 3, [code], [g]
    m.buffers = [S.BufferT() for _ in range(len(tensors) + 1)]
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def pool(op, ttype, hwc, k, s, padding, act):
    S = oracle._schema()
    zero, scale = (0, 0.0023) if ttype == "INT16" else (131, 0.047)
    h, w, c = hwc
    oh, ow = out_size(h, k[0], s[0], padding), out_size(w, k[1], s[1], padding)
    opt = S.Pool2DOptionsT()
    opt.padding = padding
    opt.strideH, opt.strideW = s
    opt.filterHeight, opt.filterWidth = k
    opt.fusedActivationFunction = act
    return build(op, [((1, h, w, c), ttype, scale, zero), ((1, oh, ow, c), ttype, scale, zero)],
                 "Pool2DOptions", opt, version=3 if ttype == "INT16" else 1)


def add_sub(op, ttype, shape1, shape2, out_shape, q1, q2, qo, act=0, pot=False):
    S = oracle._schema()
    opt = (S.AddOptionsT if op == "ADD" else S.SubOptionsT)()
    opt.fusedActivationFunction = act
    opt.potScaleInt16 = pot
    return build(op, [(shape1, ttype) + q1, (shape2, ttype) + q2, (out_shape, ttype) + qo],
                 "AddOptions" if op == "ADD" else "SubOptions", opt,
                 version=3 if ttype == "INT16" else 2)


# padding: 0 SAME, 1 VALID; activation: 0 none, 1 RELU, 3 RELU6
CASES = {
    "avg_u8_3x3_s2_same": lambda: pool("AVERAGE_POOL_2D", "UINT8", (9, 7, 5), (3, 3), (2, 2), 0, 0),
    "avg_u8_2x2_relu6": lambda: pool("AVERAGE_POOL_2D", "UINT8", (6, 6, 70), (2, 2), (2, 2), 1, 3),
    "max_u8_3x2_s1_same": lambda: pool("MAX_POOL_2D", "UINT8", (5, 8, 3), (3, 2), (1, 1), 0, 0),
    "avg_s16_3x3_s1_same": lambda: pool("AVERAGE_POOL_2D", "INT16", (7, 7, 6), (3, 3), (1, 1), 0, 0),
    "avg_s16_global": lambda: pool("AVERAGE_POOL_2D", "INT16", (6, 6, 66), (6, 6), (1, 1), 1, 1),
    "max_s16_2x2_s2_relu": lambda: pool("MAX_POOL_2D", "INT16", (8, 6, 4), (2, 2), (2, 2), 1, 1),
    "max_s16_3x3_s2_same": lambda: pool("MAX_POOL_2D", "INT16", (7, 9, 3), (3, 3), (2, 2), 0, 0),
}
for op in ("ADD", "SUB"):
    o = op.lower()
    # same shape, 2,048 elements: the 8-bit table path
    CASES[o + "_s8_large"] = (lambda op=op: add_sub(
        op, "INT8", (1, 16, 16, 8), (1, 16, 16, 8), (1, 16, 16, 8), (0.05, -3), (0.11, 7), (0.09, 2)))
    CASES[o + "_u8_large_relu"] = (lambda op=op: add_sub(
        op, "UINT8", (1, 32, 40), (1, 32, 40), (1, 32, 40), (0.021, 128), (0.03, 120), (0.04, 131), act=1))
    CASES[o + "_u8_bcast"] = (lambda op=op: add_sub(
        op, "UINT8", (2, 5, 1, 3), (1, 1, 4, 3), (2, 5, 4, 3), (0.07, 140), (0.02, 100), (0.06, 127)))
    CASES[o + "_s16_general"] = (lambda op=op: add_sub(
        op, "INT16", (1, 9, 7), (1, 9, 7), (1, 9, 7), (0.0011, 0), (0.0007, 0), (0.0013, 0)))
    CASES[o + "_s16_pot"] = (lambda op=op: add_sub(
        op, "INT16", (3, 50), (3, 50), (3, 50), (2.0 ** -10, 0), (2.0 ** -12, 0), (2.0 ** -10, 0),
        pot=True))
CASES["sub_s16_pot_bcast"] = lambda: add_sub(
    "SUB", "INT16", (3, 50), (1, 50), (3, 50), (2.0 ** -12, 0), (2.0 ** -10, 0), (2.0 ** -10, 0), pot=True)


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def portable_run_model(tmp_path_factory):
    """tests/boards/run_model.c on the engine with EDGE_X86_MAX_LEVEL=0."""
    if not shutil.which("cc"):
        pytest.skip("no host C compiler")
    exe = str(tmp_path_factory.mktemp("portable") / "run_model")
    src = [os.path.join(REPO, "engine", "src", d, f) for d in ("", "ops", "kernels")
           for f in sorted(os.listdir(os.path.join(REPO, "engine", "src", d))) if f.endswith(".c")]
    r = subprocess.run(["cc", "-std=c11", "-O1", "-DEDGE_X86_MAX_LEVEL=0",
                        "-I" + os.path.join(REPO, "engine", "include"),
                        "-I" + os.path.join(REPO, "engine", "src")] + src +
                       [os.path.join(REPO, "tests", "boards", "run_model.c"), "-lm", "-o", exe],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return exe


@pytest.mark.parametrize("name", sorted(CASES))
def test_schema_op_portable(name, portable_run_model, tmp_path):
    path = str(tmp_path / (name + ".tflite"))
    with open(path, "wb") as f:
        f.write(CASES[name]())
    orc = oracle.Oracle(path, allow_tflm=False)
    args = [portable_run_model, path]
    sets = oracle.random_inputs(orc, name, n=N_RANDOM)
    for k, (_, arrs) in enumerate(sets):
        for j, a in enumerate(arrs):
            p = tmp_path / ("s%d.in%d" % (k, j))
            p.write_bytes(np.ascontiguousarray(a).tobytes())
            args.append(str(p))
        args.append(str(tmp_path / ("s%d.out" % k)))
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for k, (label, arrs) in enumerate(sets):
        want = orc.run(arrs)[0].tobytes()
        got = (tmp_path / ("s%d.out" % k)).read_bytes()
        assert got == want, "%s: input %s differs from the reference" % (name, label)


@pytest.mark.parametrize("name", sorted(CASES))
def test_schema_op(name, any_edgeq, tmp_path):
    path = str(tmp_path / (name + ".tflite"))
    with open(path, "wb") as f:
        f.write(CASES[name]())
    orc = oracle.Oracle(path, allow_tflm=False)
    assert len(orc.op_names()) == 1
    sets = oracle.random_inputs(orc, name, n=N_RANDOM)
    failures = oracle.check_against_oracle(path, orc, sets, name, binary=any_edgeq)
    assert not failures, "\n".join(failures)
