#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reference outputs for test_quantize.py (committed in tests/fixtures/quantize/).

    python3 tests/quantize/gen_quantize_refs.py      # needs tests/requirements-gen.txt

For each shared MLPerf Tiny .h5 model (qdata.MODELS) and its evaluation
samples (qdata.data_for): the Keras float outputs (keras_outputs.npz, key =
model name, [samples, values] float32), the oracle for the fidelity tests,
which then run without TensorFlow.

It also converts each model with this machine's TensorFlow converter on
the same calibration samples edgeq is given (full int8, int8 I/O) and
records in MANIFEST.json the converter's wall time and its fidelity on the
evaluation samples, for the side-by-side figures; the converted files are
not kept (TF >= 2.16 writes SHAPE/PACK ops for Flatten that the engine does
not run, so they are only run in ai-edge-litert here).
"""

import contextlib
import json
import os
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import qdata  # noqa: E402

OUT = os.path.normpath(os.path.join(HERE, "..", "fixtures", "quantize"))


def load_keras(path):
    import keras

    class DepthwiseConv2D(keras.layers.DepthwiseConv2D):
        # Keras 2.4 wrote `groups` into DepthwiseConv2D configs; Keras 3 refuses it.
        def __init__(self, *a, groups=None, **k):
            super().__init__(*a, **k)

    return keras.models.load_model(path, compile=False,
                                   custom_objects={"DepthwiseConv2D": DepthwiseConv2D})


def run_tflite(path, x):
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    it = Interpreter(model_path=path, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    i, o = it.get_input_details()[0], it.get_output_details()[0]
    res = []
    for s in x:
        s = s.reshape(i["shape"])
        if i["dtype"] != np.float32:
            sc, zp = i["quantization"]
            info = np.iinfo(i["dtype"])
            s = np.clip(np.round(s / sc) + zp, info.min, info.max).astype(i["dtype"])
        it.set_tensor(i["index"], s)
        it.invoke()
        y = it.get_tensor(o["index"])
        if o["dtype"] != np.float32:
            sc, zp = o["quantization"]
            y = (y.astype(np.float32) - zp) * sc
        res.append(y.reshape(-1))
    return np.array(res, np.float32)


def main():
    import keras
    import tensorflow as tf
    os.makedirs(OUT, exist_ok=True)
    outs, manifest = {}, {"tensorflow": tf.__version__, "keras": keras.__version__,
                          "numpy": np.__version__, "models": {}}
    for name in qdata.MODELS:
        calib, ev = qdata.data_for(name)
        m = load_keras(qdata.model_path(name))
        shape = (-1,) + tuple(m.input_shape[1:])
        fl = m.predict(ev.reshape(shape), verbose=0).reshape(len(ev), -1).astype(np.float32)
        outs[name] = fl

        def rep():
            for s in calib.reshape(shape):
                yield [s[None]]
        t = time.time()
        cv = tf.lite.TFLiteConverter.from_keras_model(m)
        cv.optimizations = [tf.lite.Optimize.DEFAULT]
        cv.representative_dataset = rep
        cv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        cv.inference_input_type = tf.int8
        cv.inference_output_type = tf.int8
        with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
            blob = cv.convert()
        secs = time.time() - t
        with tempfile.NamedTemporaryFile(suffix=".tflite") as f:
            f.write(blob)
            f.flush()
            top1, snr = qdata.metrics(fl, run_tflite(f.name, ev))
        manifest["models"][name] = {
            "calibration_samples": int(len(calib)), "evaluation_samples": int(len(ev)),
            "tf_converter_seconds": round(secs, 3),
            "tf_converter_same_calibration": {"top1": top1, "snr_db": round(snr, 3)}}
        print("%-7s keras %s  TF converter %.2f s, top-1 %.4f, SNR %.2f dB"
              % (name, fl.shape, secs, top1, snr))
    np.savez_compressed(os.path.join(OUT, "keras_outputs.npz"), **outs)
    with open(os.path.join(OUT, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
