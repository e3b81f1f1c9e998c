#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Turn a float32 .tflite into a bfloat16 one (TensorType BFLOAT16 = 18).

The file contract edgeq's engine runs (and `edgeq quantize --dtype bf16`
writes): CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED filters and every
other float32 constant become BFLOAT16 (rounded to nearest even by
ml_dtypes), except those ops' biases, which stay FLOAT32. With
--act bf16 every float32 activation inside the graph becomes BFLOAT16 too;
graph inputs and outputs stay FLOAT32 unless --io bf16.

--rounded-float OUT also writes the reference twin: the same float32 model
with the converted constants replaced by their bf16-rounded float32 values
(same math as the bf16 model with float32 activations, so the official
interpreter can check it).

    python3 tools/tflite_to_bf16.py in.tflite out.tflite [--act f32|bf16]
        [--io f32|bf16] [--rounded-float ref.tflite]

Needs numpy, ml_dtypes, flatbuffers and the TFLite schema bindings of the
tflite-micro wheel (tests/requirements.txt).
"""

import argparse
import sys

import ml_dtypes
import numpy as np

FLOAT32, BFLOAT16 = 0, 18
BIAS_OPS = {"CONV_2D": 2, "DEPTHWISE_CONV_2D": 2, "FULLY_CONNECTED": 2}


def _schema():
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as S

    return S


def _op_names(S, m):
    names = {v: k for k, v in vars(S.BuiltinOperator).items() if not k.startswith("_")}
    out = []
    for c in m.operatorCodes:
        code = max(c.builtinCode, c.deprecatedBuiltinCode)
        out.append(names.get(code, "UNKNOWN"))
    return out


def _pack(S, m, size_hint):
    """Serialize with every buffer's data 16-byte aligned (the engine reads
    float32 and bf16 constants in place)."""
    import flatbuffers

    def pack_buffer(self, builder):
        data = None
        if self.data is not None:
            payload = np.asarray(self.data, np.uint8).tobytes()
            builder.StartVector(1, len(payload), 16)
            builder.head = builder.head - len(payload)
            builder.Bytes[builder.head:builder.head + len(payload)] = payload
            builder.vectorNumElems = len(payload)
            data = builder.EndVector()
        S.BufferStart(builder)
        if data is not None:
            S.BufferAddData(builder, data)
        S.BufferAddOffset(builder, self.offset)
        S.BufferAddSize(builder, self.size)
        return S.BufferEnd(builder)

    old = S.BufferT.Pack
    S.BufferT.Pack = pack_buffer
    try:
        b = flatbuffers.Builder(size_hint + 4096)
        b.Finish(m.Pack(b), file_identifier=b"TFL3")
    finally:
        S.BufferT.Pack = old
    return bytes(b.Output())


def _const_data(m, t):
    if t.buffer <= 0 or t.buffer >= len(m.buffers):
        return None
    d = m.buffers[t.buffer].data
    if d is None or len(d) == 0:
        return None
    return np.frombuffer(np.asarray(d, np.uint8).tobytes(), "<f4")


def _set_data(S, m, t, raw, users):
    """Give tensor t the bytes raw: in its own buffer when no other tensor
    shares it (so the float32 bytes do not linger), else in a new one."""
    data = np.frombuffer(raw, np.uint8).copy()
    if users.get(t.buffer, 0) == 1:
        m.buffers[t.buffer].data = data
        return
    b = S.BufferT()
    b.data = data
    m.buffers.append(b)
    t.buffer = len(m.buffers) - 1


def convert(data, act="f32", io="f32", rounded_float=False):
    """Returns the converted model bytes (or, with rounded_float, the
    float32 reference twin)."""
    S = _schema()
    m = S.ModelT.InitFromPackedBuf(bytearray(data), 0)
    names = _op_names(S, m)
    for sg in m.subgraphs:
        keep_f32 = set()
        for op in sg.operators:
            k = BIAS_OPS.get(names[op.opcodeIndex])
            if k is not None and op.inputs is not None and len(op.inputs) > k and op.inputs[k] >= 0:
                keep_f32.add(int(op.inputs[k]))
        users = {}
        for t in sg.tensors:
            users[t.buffer] = users.get(t.buffer, 0) + 1
        graph_io = set(int(i) for i in sg.inputs) | set(int(i) for i in sg.outputs)
        for i, t in enumerate(sg.tensors):
            if t.type != FLOAT32:
                continue
            vals = _const_data(m, t)
            if vals is not None:
                if i in keep_f32:
                    continue
                r = vals.astype(ml_dtypes.bfloat16)
                if rounded_float:
                    _set_data(S, m, t, r.astype(np.float32).astype("<f4").tobytes(), users)
                else:
                    _set_data(S, m, t, r.view(np.uint16).astype("<u2").tobytes(), users)
                    t.type = BFLOAT16
                continue
            if rounded_float:
                continue
            if i in graph_io:
                if io == "bf16":
                    t.type = BFLOAT16
            elif act == "bf16":
                t.type = BFLOAT16
    return _pack(S, m, len(data))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--act", choices=("f32", "bf16"), default="f32")
    ap.add_argument("--io", choices=("f32", "bf16"), default="f32")
    ap.add_argument("--rounded-float", metavar="OUT")
    a = ap.parse_args()
    with open(a.input, "rb") as f:
        data = f.read()
    with open(a.output, "wb") as f:
        f.write(convert(data, a.act, a.io))
    if a.rounded_float:
        with open(a.rounded_float, "wb") as f:
            f.write(convert(data, rounded_float=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
