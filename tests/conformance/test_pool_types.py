"""AVERAGE_POOL_2D and MAX_POOL_2D on uint8 and int16 tensors against the
reference kernels. The TF converter only makes int8 pools (the op fixtures),
so these one-op graphs are built here with the TFLite schema: uint8 as
TFLite's legacy quantized models carry it, int16 as the 16x8 mode does
(zero point 0)."""

import os

import pytest

import oracle

N_RANDOM = 8

# name, op, type, input h w c, filter, stride, padding (0 SAME, 1 VALID), fused activation
CASES = [
    ("avg_u8_3x3_s2_same", "AVERAGE_POOL_2D", "UINT8", (9, 7, 5), (3, 3), (2, 2), 0, 0),
    ("avg_u8_2x2_relu6", "AVERAGE_POOL_2D", "UINT8", (6, 6, 70), (2, 2), (2, 2), 1, 3),
    ("max_u8_3x2_s1_same", "MAX_POOL_2D", "UINT8", (5, 8, 3), (3, 2), (1, 1), 0, 0),
    ("avg_s16_3x3_s1_same", "AVERAGE_POOL_2D", "INT16", (7, 7, 6), (3, 3), (1, 1), 0, 0),
    ("avg_s16_global", "AVERAGE_POOL_2D", "INT16", (6, 6, 66), (6, 6), (1, 1), 1, 1),
    ("max_s16_2x2_s2_relu", "MAX_POOL_2D", "INT16", (8, 6, 4), (2, 2), (2, 2), 1, 1),
    ("max_s16_3x3_s2_same", "MAX_POOL_2D", "INT16", (7, 9, 3), (3, 3), (2, 2), 0, 0),
]


def out_size(n, k, s, padding):
    return (n + s - 1) // s if padding == 0 else (n - k) // s + 1


def build_pool(op, ttype, hwc, k, s, padding, act):
    import flatbuffers
    S = oracle._schema()
    t = getattr(S.TensorType, ttype)
    zero = 0 if ttype == "INT16" else 131
    scale = 0.0023 if ttype == "INT16" else 0.047
    h, w, c = hwc
    oh, ow = out_size(h, k[0], s[0], padding), out_size(w, k[1], s[1], padding)

    def tensor(name, shape, buf):
        x = S.TensorT()
        x.name, x.shape, x.type, x.buffer = name, list(shape), t, buf
        q = S.QuantizationParametersT()
        q.scale, q.zeroPoint = [scale], [zero]
        x.quantization = q
        return x

    code = S.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = getattr(S.BuiltinOperator, op)
    code.version = 3 if ttype == "INT16" else 1
    opt = S.Pool2DOptionsT()
    opt.padding = padding
    opt.strideH, opt.strideW = s
    opt.filterHeight, opt.filterWidth = k
    opt.fusedActivationFunction = act
    o = S.OperatorT()
    o.opcodeIndex, o.inputs, o.outputs = 0, [0], [1]
    o.builtinOptionsType, o.builtinOptions = S.BuiltinOptions.Pool2DOptions, opt
    g = S.SubGraphT()
    g.tensors = [tensor("in", (1, h, w, c), 1), tensor("out", (1, oh, ow, c), 2)]
    g.inputs, g.outputs, g.operators = [0], [1], [o]
    m = S.ModelT()
    m.version, m.operatorCodes, m.subgraphs = 3, [code], [g]
    m.buffers = [S.BufferT() for _ in range(3)]
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_pool_type(case, edgeq, tmp_path):
    name = case[0]
    path = str(tmp_path / (name + ".tflite"))
    with open(path, "wb") as f:
        f.write(build_pool(*case[1:]))
    orc = oracle.Oracle(path, allow_tflm=False)
    assert orc.op_names() == [case[1]]
    sets = oracle.random_inputs(orc, name, n=N_RANDOM)
    failures = oracle.check_against_oracle(path, orc, sets, name, binary=edgeq)
    assert not failures, "\n".join(failures)
