# SPDX-License-Identifier: Apache-2.0
"""A uint8 ADD whose output the file declares FLOAT32 (as LiteRT's
add_quantized test model does), read by an op that has a float twin
(SOFTMAX, AVERAGE_POOL_2D, MAX_POOL_2D, another ADD, RELU). The loader
picks the next op's implementation from the declared type, the ADD's
prepare settles the tensor to uint8: the next op must then run its uint8
code on the uint8 bytes, not its float code (which read past the
buffer). Checked against the reference interpreter on the same graph with
the tensor declared UINT8, through edgeq and the ASan+UBSan build."""

import flatbuffers
import numpy as np
import pytest

import oracle

SHAPE = (1, 4, 4, 8)
QA, QB, QX, QY = (0.05, 120), (0.04, 131), (0.08, 128), (0.08, 128)


def graph(mid_type, second):
    """ADD(a, b) -> x (declared mid_type, quantized as uint8) -> second -> y."""
    S = oracle._schema()
    g = S.SubGraphT()
    buffers = [S.BufferT()]
    tensors = []

    def tensor(name, ttype, q, shape=SHAPE):
        t = S.TensorT()
        t.name, t.shape, t.type = name, list(shape), getattr(S.TensorType, ttype)
        buffers.append(S.BufferT())
        t.buffer = len(buffers) - 1
        qp = S.QuantizationParametersT()
        qp.scale, qp.zeroPoint = [q[0]], [q[1]]
        t.quantization = qp
        tensors.append(t)
        return len(tensors) - 1

    a, b = tensor("a", "UINT8", QA), tensor("b", "UINT8", QB)
    x = tensor("x", mid_type, QX)
    codes, ops = [], []

    def op(name, ins, outs, opt_type, opt):
        c = S.OperatorCodeT()
        c.builtinCode = c.deprecatedBuiltinCode = getattr(S.BuiltinOperator, name)
        c.version = 1
        codes.append(c)
        o = S.OperatorT()
        o.opcodeIndex, o.inputs, o.outputs = len(codes) - 1, ins, outs
        if opt_type:
            o.builtinOptionsType, o.builtinOptions = getattr(S.BuiltinOptions, opt_type), opt
        ops.append(o)

    op("ADD", [a, b], [x], "AddOptions", S.AddOptionsT())
    if second == "SOFTMAX":
        y = tensor("y", "UINT8", (1.0 / 256, 0))
        o = S.SoftmaxOptionsT()
        o.beta = 1.0
        op("SOFTMAX", [x], [y], "SoftmaxOptions", o)
    elif second in ("AVERAGE_POOL_2D", "MAX_POOL_2D"):
        y = tensor("y", "UINT8", QX, (1, 2, 2, 8))
        o = S.Pool2DOptionsT()
        o.padding, o.strideH, o.strideW, o.filterHeight, o.filterWidth = 1, 2, 2, 2, 2
        op(second, [x], [y], "Pool2DOptions", o)
    elif second == "ADD":
        y = tensor("y", "UINT8", QY)
        op("ADD", [x, a], [y], "AddOptions", S.AddOptionsT())
    else:
        y = tensor("y", "UINT8", QX)
        op(second, [x], [y], None, None)
    g.tensors, g.operators, g.inputs, g.outputs = tensors, ops, [a, b], [y]
    m = S.ModelT()
    m.version, m.operatorCodes, m.subgraphs, m.buffers = 3, codes, [g], buffers
    fb = flatbuffers.Builder(1024)
    fb.Finish(m.Pack(fb), file_identifier=b"TFL3")
    return bytes(fb.Output())


@pytest.mark.parametrize("second", ["SOFTMAX", "AVERAGE_POOL_2D", "MAX_POOL_2D", "ADD", "RELU"])
def test_float_declared_uint8_intermediate(second, any_edgeq, tmp_path):
    declared = tmp_path / "declared_float.tflite"
    declared.write_bytes(graph("FLOAT32", second))
    fixed = tmp_path / "declared_uint8.tflite"
    fixed.write_bytes(graph("UINT8", second))
    ref = oracle.Oracle(str(fixed), allow_tflm=False)
    rng = np.random.default_rng(oracle.stable_seed("retyped", second))
    for k in range(4):
        inputs = [rng.integers(0, 256, SHAPE, dtype=np.uint8) for _ in range(2)]
        want = ref.run(inputs)[0]
        got = oracle.engine_run(str(declared), inputs, outputs=ref.outputs, binary=any_edgeq)[0]
        assert got.tobytes() == want.tobytes(), "%s: input set %d differs from the reference" % (second, k)
