#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generate the float-executor fixtures in tests/fixtures/float_exec/ (committed).

    python3 tests/quantize/gen_float_fixtures.py     # needs tests/requirements-gen.txt

Writes, all made by real Keras (model.predict is the oracle):
    NAME.keras, NAME.h5   small Keras 3 models aimed at the graph passes'
                          corner cases (BatchNorm with nothing to fold into,
                          after an Add, on a Dense with two consumers, on a
                          rank-3 tensor; Rescaling on the input; split and
                          fused activations; every pool/conv window variant)
    NAME.io.npz           x (the inputs, N stacked) and y0, y1... (Keras's
                          outputs for them)
    shared_refs.npz       Keras's outputs for the four MLPerf Tiny .h5 models
                          in ../shared/models on deterministic inputs
                          (`det_input` in test_float_exec.py; str_ww: its
                          official calibration set), so CI can check the
                          executor on them without TensorFlow
    MANIFEST.json         what is where, and the versions used
Keras 3 cannot deserialize the Keras 2.4/2.14 DepthwiseConv2D configs of
vww_96 and str_ww (a 'groups' key): they load here with a subclass that
drops it; nothing else about the models changes.
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(REPO, "tests", "fixtures", "float_exec")
SHARED = os.path.normpath(os.path.join(REPO, "..", "shared", "models", "mlcommons-tiny"))

sys.path.insert(0, HERE)
from test_float_exec import SHARED_MODELS, det_input  # noqa: E402


def randomize_bn(model, rng):
    """Non-trivial BatchNorm statistics, so folding mistakes show."""
    import keras
    for layer in model.layers:
        if not isinstance(layer, keras.layers.BatchNormalization):
            continue
        new = []
        for v, w in zip(layer.weights, layer.get_weights()):
            n = v.path.split("/")[-1]
            if "variance" in n:
                new.append(rng.uniform(0.5, 2.0, w.shape))
            elif "mean" in n:
                new.append(rng.normal(0, 0.5, w.shape))
            elif "gamma" in n:
                new.append(rng.uniform(0.5, 1.5, w.shape))
            else:
                new.append(rng.normal(0, 0.3, w.shape))
        layer.set_weights([a.astype(np.float32) for a in new])


def models(keras):
    L = keras.layers
    out = {}
    out["seq_conv"] = (keras.Sequential([
        keras.Input((17, 19, 3)),
        L.Conv2D(8, 3, strides=2, padding="same"),
        L.BatchNormalization(),
        L.ReLU(),
        L.DepthwiseConv2D(3, depth_multiplier=2, padding="same"),
        L.BatchNormalization(),
        L.Activation("relu6"),
        L.MaxPooling2D(3, strides=2, padding="same"),
        L.Conv2D(8, 3, padding="valid", groups=2, dilation_rate=2, activation="tanh"),
        L.ZeroPadding2D(((1, 2), (0, 1))),
        L.AveragePooling2D(2, strides=1, padding="same"),
        L.Conv2D(6, (2, 3), strides=(1, 2), padding="same", activation="sigmoid"),
        L.DepthwiseConv2D((3, 1), strides=(2, 1), padding="valid"),
        L.GlobalAveragePooling2D(),
        L.Dropout(0.3),
        L.Dense(5, activation="softmax"),
    ]), ("normal", (4, 17, 19, 3)))

    i = keras.Input((12, 12, 3), name="img")
    x = L.Rescaling(1 / 127.5, offset=-1)(i)
    a = L.Conv2D(8, 3, padding="same", use_bias=False)(x)
    a = L.BatchNormalization()(a)
    a = L.Activation("relu")(a)
    b = L.Conv2D(8, 1, padding="same")(x)
    s = L.Add()([a, b])
    s = L.BatchNormalization()(s)  # after an Add: nothing to fold into
    s2 = L.Subtract()([s, b])
    mu = L.Multiply()([s2, a])
    c = L.Concatenate()([mu, a, b])
    c = L.LeakyReLU(negative_slope=0.2)(c)
    c = L.Conv2D(8, 3, strides=2, padding="same", activation="hard_swish")(c)
    g1 = L.GlobalMaxPooling2D()(c)
    g2 = L.Flatten()(L.GlobalAveragePooling2D(keepdims=True)(c))
    d = L.Reshape((4, 4))(L.Concatenate()([g1, g2]))
    d = L.Flatten()(L.Dense(6, activation="relu")(d))
    o1 = L.Dense(3, activation="softmax", name="probs")(d)
    o2 = L.Dense(2, name="reg")(d)
    out["func_mix"] = (keras.Model(i, [o1, o2]), ("pixels", (3, 12, 12, 3)))

    i = keras.Input((10,), name="feat")
    x = L.BatchNormalization()(i)  # the first layer
    x = L.Dense(16)(x)
    y = L.BatchNormalization()(x)
    z = L.Dense(16, activation="relu")(x)  # x has two consumers
    x = L.Add()([y, z])
    x = L.BatchNormalization()(L.Reshape((4, 4))(x))  # rank 3
    x = L.Dense(4, activation="sigmoid")(L.Flatten()(x))
    out["bn_edge"] = (keras.Model(i, x), ("normal", (5, 10)))

    # A grey-image model for the image readers (Rescaling 1/255).
    out["gray"] = (keras.Sequential([
        keras.Input((8, 10, 1), name="gray_in"),
        L.Rescaling(1 / 255.0),
        L.Conv2D(4, 3, padding="same", activation="relu"),
        L.GlobalAveragePooling2D(),
        L.Dense(3),
    ]), ("pixels", (2, 8, 10, 1)))
    return out


def main():
    import keras
    from keras import layers as L
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(7)
    keras.utils.set_random_seed(7)
    manifest = {"keras": keras.__version__, "models": {}, "shared": {}}
    try:
        import tensorflow as tf
        manifest["tensorflow"] = tf.__version__
    except ImportError:
        pass
    for name, (model, (kind, shape)) in models(keras).items():
        randomize_bn(model, rng)
        model.save(os.path.join(OUT, name + ".keras"))
        model.save(os.path.join(OUT, name + ".h5"))
        x = det_input(shape, kind, seed=len(name))
        y = model.predict(x, verbose=0)
        ys = y if isinstance(y, list) else [y]
        np.savez(os.path.join(OUT, name + ".io.npz"), x=x,
                 **{"y%d" % k: np.asarray(v, np.float32) for k, v in enumerate(ys)})
        manifest["models"][name] = {"files": [name + ".keras", name + ".h5", name + ".io.npz"],
                                    "outputs": len(ys), "input": kind}

    class DepthwiseConv2D(L.DepthwiseConv2D):  # Keras 2 configs carry 'groups'
        def __init__(self, groups=None, **kw):
            super().__init__(**kw)

    refs = {}
    for key, rel, kind, n in SHARED_MODELS:
        model = keras.models.load_model(os.path.join(SHARED, "models", rel), compile=False,
                                        custom_objects={"DepthwiseConv2D": DepthwiseConv2D})
        if kind == "strww_calib":
            x = np.load(os.path.join(SHARED, "data", "sww_calibration_samples.npz"))["specs"]
            x = x.astype(np.float32)
        else:
            x = det_input((n,) + tuple(model.input_shape[1:]), kind, seed=len(key))
        refs[key] = np.asarray(model.predict(x, verbose=0), np.float32)
        manifest["shared"][key] = {"model": rel, "input": kind, "samples": int(x.shape[0])}
    np.savez(os.path.join(OUT, "shared_refs.npz"), **refs)
    with open(os.path.join(OUT, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
