#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Quantize and measure the zoo; write the model cards and models/results.json.

    make models-eval        (= python3 models/evaluate.py [NAME...])

For each model in models/<name>/ (trained by models/train.py):
  1. edgeq int8: build/edgeq <name>.h5 <name>_int8.tflite --calib models/calib/<set>
     (the committed calibration set: 10 training samples per class)
  2. float accuracy: the Keras model on every held-out sample (models/data/)
  3. edgeq int8 accuracy IN THE ENGINE: every held-out sample through
     build/models/batch_run (libedge), argmax of the int8 output
  4. the same .tflite under LiteRT's reference kernels (BUILTIN_REF): the
     engine's outputs must be bit-exact with it, sample for sample
  5. TF converter int8: tf.lite.TFLiteConverter, full int8 (int8 in/out), the
     same calibration samples as representative data, run under LiteRT
Needs tensorflow + keras (tests/requirements-gen.txt), ai-edge-litert, and
`make all zoo-runner`. Figures go to models/results.json (what tests/models
checks) and each model's card, models/<name>/README.md.
"""
import json
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import zoo  # noqa: E402

HERE, ROOT = data.HERE, data.ROOT


def load_calib(dataset):
    """The committed calibration set as the model's float input (N, ...)."""
    if dataset == "iris":
        return np.load(os.path.join(HERE, "calib", "iris.npy"))
    d = os.path.join(HERE, "calib", dataset)
    imgs = [zoo.read_pgm(os.path.join(d, f)) for f in sorted(os.listdir(d)) if f.endswith(".pgm")]
    return np.stack(imgs)[..., None].astype(np.float32)


def tf_int8(model, calib, out_path):
    import tensorflow as tf
    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]

    def rep():
        for i in range(len(calib)):
            yield [calib[i:i + 1]]
    conv.representative_dataset = rep
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    conv.inference_input_type = tf.int8
    conv.inference_output_type = tf.int8
    with open(out_path, "wb") as f:
        f.write(conv.convert())


def params_and_macs(info):
    return sum(op["macs"] for op in info["ops"])


def evaluate(name):
    import keras
    m = zoo.MODELS[name]
    d = os.path.join(HERE, name)
    src = os.path.join(d, m["file"])
    tfl = zoo.int8_path(name)
    calib_arg = os.path.join(HERE, "calib", "iris.npy" if m["dataset"] == "iris" else m["dataset"])
    subprocess.run([zoo.EDGEQ, src, tfl, "--calib", calib_arg], check=True,
                   stdout=subprocess.DEVNULL)
    info = zoo.inspect(tfl)
    x, y = data.heldout(m["dataset"])
    xf = x.astype(np.float32)

    model = keras.models.load_model(src, compile=False)
    float_pred = np.argmax(model.predict(xf, verbose=0, batch_size=256), 1)
    eng = zoo.engine_run(tfl, xf)
    ref = zoo.litert_run(tfl, xf)
    bit_exact = bool(np.array_equal(eng, ref))
    with tempfile.TemporaryDirectory() as t:
        tfc = os.path.join(t, "tf.tflite")
        tf_int8(model, load_calib(m["dataset"]), tfc)
        tf_out = zoo.litert_run(tfc, xf)
        tf_bytes = os.path.getsize(tfc)
    res = {
        "dataset": m["dataset"],
        "heldout_samples": int(len(y)),
        "params": int(model.count_params()),
        "macs": int(params_and_macs(info)),
        "arena_bytes": int(info["arena_bytes"]),
        "tflite_bytes": int(info["model_bytes"]),
        "tf_tflite_bytes": int(tf_bytes),
        "float_acc": round(100 * float(np.mean(float_pred == y)), 2),
        "edgeq_int8_acc": round(100 * float(np.mean(np.argmax(eng, 1) == y)), 2),
        "edgeq_int8_correct": int(np.sum(np.argmax(eng, 1) == y)),
        "tf_int8_acc": round(100 * float(np.mean(np.argmax(tf_out, 1) == y)), 2),
        "float_vs_edgeq_agreement": round(100 * float(np.mean(np.argmax(eng, 1) == float_pred)), 2),
        "bit_exact_vs_builtin_ref": bit_exact,
    }
    write_card(name, m, res, model)
    return res


def layer_summary(model):
    rows = []
    for layer in model.layers:
        if layer.__class__.__name__ == "InputLayer":
            continue
        try:
            shape = tuple(layer.output.shape[1:])
        except Exception:  # noqa: BLE001
            shape = ()
        rows.append(f"| {layer.name} | {layer.__class__.__name__} | {shape} | {layer.count_params()} |")
    return "\n".join(rows)


def write_card(name, m, r, model):
    ds = m["dataset"]
    if ds == "iris":
        run = (f"    build/edgeq models/{name}/{m['file']} out.tflite --calib models/calib/iris.npy\n"
               f"    # samples: sample_<class>.npy hold the 4 float features; evaluate.py and\n"
               f"    # tests/models quantize them with the input's scale and zero point")
    else:
        run = (f"    build/edgeq models/{name}/{m['file']} out.tflite --calib models/calib/{ds}\n"
               f"    build/host/classify out.tflite models/{name}/sample_7.pgm "
               f"--labels models/{name}/labels.txt")
    text = f"""# {name}

{m['task']}

| | |
|---|---|
| data | {zoo.DATA_TEXT[ds]} |
| split | fixed, by position: held out = every sample whose index % 5 == 4 (`models/data.py`); {r['heldout_samples']} held-out samples, committed in `models/data/{ds}_heldout.npz` |
| input | {m['input']} |
| architecture | {m['arch']} |
| parameters | {r['params']} |
| MACs per inference | {r['macs']} (int8 model, from `edgeq inspect`) |
| arena bytes | {r['arena_bytes']} (`edgeq inspect {name}_int8.tflite`) |
| int8 .tflite | {r['tflite_bytes']} bytes (TF converter's: {r['tf_tflite_bytes']}) |
| calibration | `models/calib/{'iris.npy' if ds == 'iris' else ds + '/'}`: the first 10 training samples of each class |
| training | `python3 models/train.py {name}` (seed 1234, Adam, {m['train']}) |

## Accuracy on the held-out set

| model | top-1 accuracy |
|---|---|
| float Keras (`{m['file']}`) | {r['float_acc']:.2f} % |
| edgeq int8 in the engine (`{name}_int8.tflite`, libedge) | {r['edgeq_int8_acc']:.2f} % |
| TF converter int8 (TFLiteConverter, same calibration samples, LiteRT) | {r['tf_int8_acc']:.2f} % |

edgeq int8 agrees with the float model's top-1 on {r['float_vs_edgeq_agreement']:.2f} % of the
held-out samples; the engine's int8 outputs are {'bit-exact' if r['bit_exact_vs_builtin_ref'] else 'NOT bit-exact'}
with LiteRT's reference kernels (BUILTIN_REF) on every one of them.
Measured by `models/evaluate.py` (`make models-eval`); checked by `tests/models`.

## Run it

{run}

## Layers

| layer | type | output | parameters |
|---|---|---|---|
{layer_summary(model)}
"""
    with open(os.path.join(HERE, name, "README.md"), "w") as f:
        f.write(text)


def main(argv):
    names = argv or list(zoo.MODELS)
    path = os.path.join(HERE, "results.json")
    results = {}
    if os.path.exists(path):
        with open(path) as f:
            results = json.load(f)
    for n in names:
        results[n] = evaluate(n)
        r = results[n]
        print(f"{n:16s} float {r['float_acc']:6.2f}  edgeq int8 {r['edgeq_int8_acc']:6.2f}  "
              f"TF int8 {r['tf_int8_acc']:6.2f}  ({r['heldout_samples']} held out, "
              f"bit-exact vs BUILTIN_REF: {r['bit_exact_vs_builtin_ref']})")
    results = {k: results[k] for k in zoo.MODELS if k in results}
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    readme = os.path.join(HERE, "README.md")
    with open(readme) as f:
        text = f.read()
    a = text.index("<!-- zoo-table")
    a = text.index("\n", a) + 1
    b = text.index("<!-- /zoo-table -->")
    with open(readme, "w") as f:
        f.write(text[:a] + zoo.table(results) + "\n" + text[b:])


if __name__ == "__main__":
    main(sys.argv[1:])
