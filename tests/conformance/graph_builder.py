# SPDX-License-Identifier: Apache-2.0
"""graph_builder.py — one-op TFLite graphs written with the schema's object
API (tflite_micro's schema_py_generated), for tests that need a type or an
op the TF converter does not produce."""

import numpy as np

import oracle


def build(op, tensors, options_type, options, version=1, n_in=None, n_out=1):
    """tensors: (shape, type name, scale, zero point[, constant data]) of the
    inputs then the n_out outputs; a tensor with data is a constant (its bytes in a
    buffer), the others are graph inputs. Scale None: not quantized.
    Returns the .tflite bytes."""
    import flatbuffers
    S = oracle._schema()
    g = S.SubGraphT()
    g.tensors = []
    buffers = [S.BufferT()]
    for i, spec in enumerate(tensors):
        shape, ttype, scale, zero = spec[:4]
        x = S.TensorT()
        x.name, x.shape, x.type = "t%d" % i, list(shape), getattr(S.TensorType, ttype)
        b = S.BufferT()
        if len(spec) > 4:
            b.data = list(np.ascontiguousarray(spec[4]).tobytes())
        buffers.append(b)
        x.buffer = len(buffers) - 1
        if scale is not None:
            q = S.QuantizationParametersT()
            q.scale = list(scale) if isinstance(scale, (list, tuple)) else [scale]
            q.zeroPoint = list(zero) if isinstance(zero, (list, tuple)) else [zero]
            x.quantization = q
        g.tensors.append(x)
    n_in = len(tensors) - n_out if n_in is None else n_in
    outs = list(range(n_in, n_in + n_out))
    code = S.OperatorCodeT()
    code.builtinCode = getattr(S.BuiltinOperator, op)
    code.deprecatedBuiltinCode = min(code.builtinCode, 127)  # 127: see builtinCode
    code.version = version
    o = S.OperatorT()
    o.opcodeIndex, o.inputs, o.outputs = 0, list(range(n_in)), outs
    if options_type:
        o.builtinOptionsType = getattr(S.BuiltinOptions, options_type)
        o.builtinOptions = options
    g.inputs = [i for i in range(n_in) if len(tensors[i]) <= 4]
    g.outputs, g.operators = outs, [o]
    m = S.ModelT()
    m.version, m.operatorCodes, m.subgraphs = 3, [code], [g]
    m.buffers = buffers
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())
