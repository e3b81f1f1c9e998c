# SPDX-License-Identifier: Apache-2.0
"""One-op graphs the TF converter does not make, built here with the TFLite
schema and checked bit-exact against the reference kernels: the uint8
paths (as TFLite's legacy quantized models carry them: pools, ADD/SUB, MUL,
RELU/RELU6/LEAKY_RELU, LOGISTIC, TANH, HARD_SWISH, SOFTMAX, CONCATENATION,
MEAN, and CONV_2D/DEPTHWISE_CONV_2D/FULLY_CONNECTED with asymmetric
weights), the int16 paths (the 16x8 mode, zero point 0: pools, ADD/SUB in
general and power-of-two form, MUL, RELU, LEAKY_RELU, CONCATENATION, MEAN,
int8 -> int16 SOFTMAX), QUANTIZE and DEQUANTIZE between float32, uint8,
int8 and int16, and int8 ADD/SUB large enough for the engine's table path.
Each runs on edgeq, on the ASan+UBSan edgeq when it is built, and on the
engine built without its x86 kernels (the code the Arm builds run for
these ops)."""

import os
import shutil
import subprocess

import numpy as np
import pytest

import oracle
from graph_builder import build

N_RANDOM = 8


def out_size(n, k, s, padding):
    return (n + s - 1) // s if padding == 0 else (n - k) // s + 1


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


# ---- more uint8 / int16 paths of the elementwise and weighted ops

def rng(name):
    return np.random.default_rng(oracle.stable_seed("schema", name))


def unary(op, ttype, shape, qi, qo, options_type=None, options=None, version=1):
    return build(op, [(shape, ttype) + qi, (shape, ttype) + qo], options_type, options, version=version)


def leaky(ttype, qi, qo, alpha):
    S = oracle._schema()
    o = S.LeakyReluOptionsT()
    o.alpha = alpha
    return unary("LEAKY_RELU", ttype, (2, 7, 9), qi, qo, "LeakyReluOptions", o, version=2)


def softmax(itype, otype, shape, qi, qo, beta=1.0):
    S = oracle._schema()
    o = S.SoftmaxOptionsT()
    o.beta = beta
    return build("SOFTMAX", [(shape, itype) + qi, (shape, otype) + qo], "SoftmaxOptions", o,
                 version=3 if otype == "INT16" else 2)


def mul(ttype, s1, s2, so, q1, q2, qo, act=0):
    S = oracle._schema()
    o = S.MulOptionsT()
    o.fusedActivationFunction = act
    return build("MUL", [(s1, ttype) + q1, (s2, ttype) + q2, (so, ttype) + qo], "MulOptions", o,
                 version=4 if ttype == "INT16" else 2)


def concat(ttype, shapes, axis, qs, qo, out_shape):
    S = oracle._schema()
    o = S.ConcatenationOptionsT()
    o.axis = axis
    return build("CONCATENATION", [(sh, ttype) + q for sh, q in zip(shapes, qs)] + [(out_shape, ttype) + qo],
                 "ConcatenationOptions", o, version=3 if ttype == "INT16" else 1)


def mean(ttype, shape, axes, out_shape, qi, qo, keep=True):
    S = oracle._schema()
    o = S.ReducerOptionsT()
    o.keepDims = keep
    axis = np.array(axes, np.int32)
    return build("MEAN", [(shape, ttype) + qi, ((len(axes),), "INT32", None, None, axis),
                          (out_shape, ttype) + qo], "ReducerOptions", o, version=2, n_in=2)


def u8_weighted(op, name):
    """A uint8 CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED with asymmetric
    per-tensor weights and an int32 bias, as TF1's quantized models."""
    S = oracle._schema()
    r = rng(name)
    qi, qw, qo = (0.031, 117), (0.0047, 139), (0.09, 121)
    if op == "CONV_2D":
        ins, w_shape, outs = (1, 9, 8, 5), (6, 3, 3, 5), (1, 5, 4, 6)
        o = S.Conv2DOptionsT()
        o.padding, o.strideW, o.strideH, o.dilationWFactor, o.dilationHFactor = 0, 2, 2, 1, 1
        opt = "Conv2DOptions"
    elif op == "DEPTHWISE_CONV_2D":
        ins, w_shape, outs = (1, 9, 8, 4), (1, 3, 3, 8), (1, 9, 8, 8)
        o = S.DepthwiseConv2DOptionsT()
        o.padding, o.strideW, o.strideH, o.depthMultiplier = 0, 1, 1, 2
        o.dilationWFactor, o.dilationHFactor = 1, 1
        opt = "DepthwiseConv2DOptions"
    else:
        ins, w_shape, outs = (3, 40), (10, 40), (3, 10)
        o = S.FullyConnectedOptionsT()
        opt = "FullyConnectedOptions"
    o.fusedActivationFunction = 1  # RELU
    n_out = w_shape[-1] if op == "DEPTHWISE_CONV_2D" else w_shape[0]
    w = r.integers(0, 256, w_shape, dtype=np.uint8)
    bias = r.integers(-3000, 3000, (n_out,), dtype=np.int32)
    return build(op, [(ins, "UINT8") + qi, (w_shape, "UINT8") + qw + (w,),
                      ((n_out,), "INT32", qi[0] * qw[0], 0, bias), (outs, "UINT8") + qo], opt, o,
                 n_in=3)


MORE = {
    "relu_u8": lambda: unary("RELU", "UINT8", (3, 5, 7), (0.05, 130), (0.03, 10)),
    "relu_s16": lambda: unary("RELU", "INT16", (3, 5, 7), (0.0009, 0), (0.0005, 0), version=3),
    "relu6_u8": lambda: unary("RELU6", "UINT8", (4, 30), (0.05, 125), (0.025, 3)),
    "leaky_relu_u8": lambda: leaky("UINT8", (0.04, 128), (0.03, 100), 0.2),
    "leaky_relu_s16": lambda: leaky("INT16", (0.001, 0), (0.0008, 0), 0.125),
    "logistic_u8": lambda: unary("LOGISTIC", "UINT8", (5, 40), (0.08, 128), (1.0 / 256, 0)),
    "tanh_u8": lambda: unary("TANH", "UINT8", (5, 40), (0.05, 120), (1.0 / 128, 128)),
    "hard_swish_u8": lambda: unary("HARD_SWISH", "UINT8", (5, 40), (0.04, 100), (0.03, 20)),
    "softmax_u8": lambda: softmax("UINT8", "UINT8", (3, 10), (0.1, 128), (1.0 / 256, 0)),
    "softmax_s8_s16": lambda: softmax("INT8", "INT16", (3, 10), (0.1, 3), (1.0 / 32768, 0)),
    "mul_u8": lambda: mul("UINT8", (2, 6, 5), (1, 1, 5), (2, 6, 5), (0.02, 120), (0.03, 130), (0.05, 128)),
    "mul_s16": lambda: mul("INT16", (2, 6, 5), (2, 6, 5), (2, 6, 5), (0.001, 0), (0.002, 0), (0.0015, 0)),
    "concat_u8": lambda: concat("UINT8", [(2, 3, 4), (2, 5, 4)], 1, [(0.02, 100), (0.02, 100)],
                                (0.02, 100), (2, 8, 4)),
    "concat_s16": lambda: concat("INT16", [(2, 3), (2, 4), (2, 1)], -1,
                                 [(0.001, 0), (0.001, 0), (0.001, 0)], (0.001, 0), (2, 8)),
    "mean_u8": lambda: mean("UINT8", (1, 6, 5, 7), [1, 2], (1, 1, 1, 7), (0.03, 110), (0.02, 100)),
    "mean_s16": lambda: mean("INT16", (1, 6, 5, 7), [1, 2], (1, 1, 1, 7), (0.001, 0), (0.0007, 0)),
    "conv_u8": lambda: u8_weighted("CONV_2D", "conv_u8"),
    "depthwise_u8": lambda: u8_weighted("DEPTHWISE_CONV_2D", "depthwise_u8"),
    "fc_u8": lambda: u8_weighted("FULLY_CONNECTED", "fc_u8"),
}


def convert(op, itype, otype, shape, qi, qo):
    """QUANTIZE / DEQUANTIZE between the types (a quantization of None: the
    float side)."""
    return build(op, [(shape, itype) + qi, (shape, otype) + qo], None, None,
                 version=3 if "INT16" in (itype, otype) else 2)


F = (None, None)
MORE.update({
    "quantize_f32_u8": lambda: convert("QUANTIZE", "FLOAT32", "UINT8", (4, 25), F, (0.02, 128)),
    "quantize_f32_s16": lambda: convert("QUANTIZE", "FLOAT32", "INT16", (4, 25), F, (0.0004, 0)),
    "quantize_u8_s8": lambda: convert("QUANTIZE", "UINT8", "INT8", (4, 25), (0.02, 128), (0.03, -5)),
    "quantize_s8_u8": lambda: convert("QUANTIZE", "INT8", "UINT8", (4, 25), (0.02, 3), (0.015, 120)),
    "quantize_s8_s8": lambda: convert("QUANTIZE", "INT8", "INT8", (4, 25), (0.02, 3), (0.05, -20)),
    "quantize_s16_s8": lambda: convert("QUANTIZE", "INT16", "INT8", (4, 25), (0.0004, 0), (0.05, 2)),
    "quantize_s16_s16": lambda: convert("QUANTIZE", "INT16", "INT16", (4, 25), (0.0004, 0), (0.0007, 0)),
    "dequantize_u8": lambda: convert("DEQUANTIZE", "UINT8", "FLOAT32", (4, 25), (0.02, 128), F),
    "dequantize_s16": lambda: convert("DEQUANTIZE", "INT16", "FLOAT32", (4, 25), (0.0004, 0), F),
})
CASES.update(MORE)


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def portable_run_model(tmp_path_factory):
    """tests/boards/run_model.c on the engine with EDGE_X86_MAX_LEVEL=0."""
    if not shutil.which("cc"):
        pytest.skip("no host C compiler")
    exe = str(tmp_path_factory.mktemp("portable") / "run_model")
    src = sorted(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(REPO, "engine", "src"))
                 for f in fs if f.endswith(".c"))
    r = subprocess.run(["cc", "-std=c11", "-O1", "-DEDGE_X86_MAX_LEVEL=0",
                        "-I" + os.path.join(REPO, "engine", "include"),
                        "-I" + os.path.join(REPO, "engine", "src")] + src +
                       [os.path.join(REPO, "tests", "boards", "run_model.c"), "-lm", "-o", exe],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return exe


def write_case(name, tmp_path):
    """Case `name` as a .tflite file, and the reference interpreter on it."""
    path = str(tmp_path / (name + ".tflite"))
    with open(path, "wb") as f:
        f.write(CASES[name]())
    return path, oracle.Oracle(path, allow_tflm=False)


@pytest.mark.parametrize("name", sorted(CASES))
def test_schema_op_portable(name, portable_run_model, tmp_path):
    path, orc = write_case(name, tmp_path)
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
    path, orc = write_case(name, tmp_path)
    assert len(orc.op_names()) == 1
    sets = oracle.random_inputs(orc, name, n=N_RANDOM)
    failures = oracle.check_against_oracle(path, orc, sets, name, binary=any_edgeq)
    assert not failures, "\n".join(failures)
