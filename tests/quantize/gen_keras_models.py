#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generate the Keras test models in tests/fixtures/keras/ (committed).

    python3 tests/quantize/gen_keras_models.py            # needs tests/requirements-gen.txt
    PYTHONPATH=/path/to/tf_keras python3 tests/quantize/gen_keras_models.py

For each good model NAME, written by real Keras:
    NAME.keras, NAME.h5        the model, Keras 3 zip and Keras 3 legacy HDF5
                               (Keras 2 models, made with tf_keras: NAME.h5 only)
    NAME.in<i>.npy             a seeded random input per model input
    NAME.out<i>.npy            Keras's float output for it (model.predict):
                               the oracle for the loader and the float executor
    NAME.weights.npz           layer.get_weights() of every layer with weights,
                               keyed "<layer path>/<i>" ("inner/conv2d/0")
Bad models (bad_*.h5 / .keras) must each be refused with the message
fragment MANIFEST.json lists. MANIFEST.json also records the versions used.

Keras 2 files need tf_keras (pip install tf_keras==2.21.0, or on PYTHONPATH);
without it the existing k2_* fixtures are kept and not regenerated.
Weights are random (seeded), batch norm statistics included, so that a
wrong layout or a swapped variable shows in the outputs.
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, "..", "fixtures", "keras"))


def randomize(model, rng):
    """Random weights everywhere; variances positive and away from zero."""
    for layer in all_layers(model):
        ws = layer.get_weights()
        if not ws:
            continue
        names = [w.name for w in layer.weights]
        new = []
        for name, w in zip(names, ws):
            if "variance" in name:
                new.append(rng.uniform(0.5, 2.0, w.shape).astype(np.float32))
            elif "gamma" in name:
                new.append(rng.uniform(0.5, 1.5, w.shape).astype(np.float32))
            else:
                fan = max(1, int(np.prod(w.shape[:-1])) if w.ndim > 1 else 4)
                new.append((rng.normal(0, 1.0 / np.sqrt(fan), w.shape)).astype(np.float32))
        layer.set_weights(new)


def all_layers(model, prefix=""):
    """(layer) for every non-model layer, depth first."""
    out = []
    for layer in model.layers:
        if hasattr(layer, "layers") and layer.__class__.__name__ in ("Functional", "Sequential",
                                                                      "Model"):
            out.extend(all_layers(layer))
        else:
            out.append(layer)
    return out


def weight_dict(model, prefix=""):
    d = {}
    for layer in model.layers:
        path = prefix + layer.name
        if layer.__class__.__name__ in ("Functional", "Sequential", "Model"):
            d.update(weight_dict(layer, path + "/"))
            continue
        for i, w in enumerate(layer.get_weights()):
            d["%s/%d" % (path, i)] = w.astype(np.float32)
    return d


def save_io(model, name, rng):
    ins = model.inputs
    xs = []
    for i, t in enumerate(ins):
        shape = [1] + [int(d) for d in t.shape[1:]]
        x = rng.uniform(-1.0, 1.0, shape).astype(np.float32)
        xs.append(x)
        np.save(os.path.join(OUT, "%s.in%d.npy" % (name, i)), x)
    ys = model.predict(xs if len(xs) > 1 else xs[0], verbose=0)
    if not isinstance(ys, (list, tuple)):
        ys = [ys]
    for i, y in enumerate(ys):
        np.save(os.path.join(OUT, "%s.out%d.npy" % (name, i)), np.asarray(y, np.float32))
    np.savez(os.path.join(OUT, "%s.weights.npz" % name), **weight_dict(model))
    return len(xs), len(ys)


# ------------------------------------------------------------------ Keras 3 models


def k3_models(keras):
    L = keras.layers
    models = {}

    # Sequential MLP: every activation form the loader maps.
    models["seq_mlp"] = keras.Sequential([
        keras.Input((20,)),
        L.Dense(16, activation="relu"),
        L.BatchNormalization(),
        L.Dropout(0.3),
        L.Dense(12, activation="tanh"),
        L.ReLU(max_value=6.0),
        L.Dense(12),
        L.LeakyReLU(negative_slope=0.1),
        L.GaussianNoise(0.1),
        L.Dense(10, activation="sigmoid"),
        L.Dense(10, activation="relu6"),
        L.Activation("hard_swish"),
        L.Dense(10, activation="leaky_relu"),
        L.ReLU(negative_slope=0.05),
        L.Activation("relu"),
        L.BatchNormalization(center=False, scale=False, epsilon=0.01),
        L.Dense(6),
        L.Activation("linear"),
        L.Softmax(),
    ], name="seq_mlp")

    # Functional CNN: convolutions, pools, padding, merges, reshapes.
    x = keras.Input((12, 12, 3), name="image")
    y = L.Rescaling(1.0 / 127.5, offset=-1.0)(x)
    y = L.ZeroPadding2D(((1, 2), (0, 1)))(y)
    y = L.Conv2D(8, 3, strides=2, padding="valid", activation="relu")(y)
    y = L.DepthwiseConv2D(3, depth_multiplier=2, padding="same", activation="relu6")(y)
    y = L.BatchNormalization(scale=False)(y)
    y = L.ReLU()(y)
    a = L.SeparableConv2D(8, 3, padding="same", depth_multiplier=2)(y)
    b = L.Conv2D(8, 3, groups=2, dilation_rate=2, padding="same", use_bias=False)(y)
    c = L.Conv2D(8, (1, 3), strides=(1, 1), padding="same", activation="sigmoid")(y)
    s = L.Add()([a, b, c])
    d = L.Subtract()([a, b])
    m = L.Multiply()([s, d])
    cat = L.Concatenate(axis=-1)([m, a])
    p1 = L.MaxPooling2D(2, padding="same")(cat)
    p2 = L.AveragePooling2D(pool_size=3, strides=1, padding="same")(p1)
    p3 = L.AveragePooling2D(pool_size=2)(p2)
    g1 = L.GlobalAveragePooling2D(keepdims=True)(p3)
    g1 = L.Flatten()(g1)
    g2 = L.GlobalMaxPooling2D()(L.SpatialDropout2D(0.2)(p2))
    f = L.Flatten()(p3)
    f = L.Dense(8, activation="tanh")(f)
    h = L.Concatenate()([g1, g2, f])
    h = L.Reshape((4, 10))(h)
    h = L.Dense(5)(h)          # Dense on a rank-3 tensor: over the last axis
    h = L.Reshape((-1,))(h)
    h = L.Dropout(0.5)(h)
    out = L.Dense(7, activation="softmax")(h)
    models["func_cnn"] = keras.Model(x, out, name="func_cnn")

    # Nesting: a Functional holding a Sequential holding a Functional, a
    # shared layer, two inputs and two outputs, an InputLayer-less
    # inner Sequential.
    ii = keras.Input((6, 6, 4))
    inner_f = keras.Model(ii, L.Conv2D(4, 3, padding="same", activation="relu")(ii),
                          name="inner_f")
    inner_seq = keras.Sequential([keras.Input((6, 6, 4)), inner_f, L.BatchNormalization(),
                                  L.DepthwiseConv2D(3, padding="same")], name="inner_seq")
    x1 = keras.Input((6, 6, 4), name="left")
    x2 = keras.Input((6, 6, 4), name="right")
    shared = L.Conv2D(4, 1, name="shared_conv")
    y1 = shared(x1)
    y2 = shared(x2)
    z1 = inner_seq(y1)
    z2 = inner_seq(y2)
    z = L.Add()([z1, z2])
    o1 = L.Dense(3, activation="softmax")(L.GlobalAveragePooling2D()(z))
    o2 = L.Conv2D(2, 3)(z2)
    models["nested"] = keras.Model([x1, x2], [o1, o2], name="nested")
    return models


def k3_bad_models(keras):
    L = keras.layers
    bad = {}

    bad["bad_lambda"] = (keras.Sequential([keras.Input((4,)), L.Dense(3),
                                           L.Lambda(lambda t: t * 2.0, name="double_it")]),
                         r"double_it.*Lambda")

    @keras.saving.register_keras_serializable(package="edgeq_test")
    class Scale(L.Layer):
        def call(self, t):
            return t * 3.0

    bad["bad_custom"] = (keras.Sequential([keras.Input((4,)), Scale(name="my_scale")]),
                         r"my_scale.*Scale.*custom")
    bad["bad_channels_first"] = (keras.Sequential(
        [keras.Input((3, 8, 8)), L.Conv2D(4, 3, data_format="channels_first", name="cf_conv")]),
        r"cf_conv.*channels_first")
    bad["bad_swish"] = (keras.Sequential([keras.Input((4,)),
                                          L.Dense(3, activation="swish", name="sw")]),
                        r"sw.*activation .(swish|silu).")
    nan = keras.Sequential([keras.Input((4,)), L.Dense(3, name="nan_dense")])
    w = nan.layers[0].get_weights()
    w[0][1, 2] = np.nan
    nan.layers[0].set_weights(w)
    bad["bad_nan"] = (nan, r"nan_dense.*NaN")
    bad["bad_none_dim"] = (keras.Sequential([keras.Input((None, 8)), L.Dense(3)]),
                           r"unknown \(None\)")
    return bad


def edit_h5_config(path, fn):
    import h5py
    with h5py.File(path, "r+") as f:
        cfg = json.loads(f.attrs["model_config"])
        fn(cfg)
        f.attrs["model_config"] = json.dumps(cfg)


def main():
    import keras
    os.makedirs(OUT, exist_ok=True)
    manifest = {"keras": keras.__version__, "models": {}, "bad": {}}
    try:
        import tensorflow as tf
        manifest["tensorflow"] = tf.__version__
    except ImportError:
        pass
    rng = np.random.default_rng(20241123)
    keras.utils.set_random_seed(1)

    for name, model in k3_models(keras).items():
        randomize(model, rng)
        model.save(os.path.join(OUT, name + ".keras"))
        model.save(os.path.join(OUT, name + ".h5"))
        n_in, n_out = save_io(model, name, rng)
        manifest["models"][name] = {"files": [name + ".keras", name + ".h5"], "inputs": n_in,
                                    "outputs": n_out, "keras": 3}

    for name, (model, msg) in k3_bad_models(keras).items():
        files = [name + ".h5"]
        model.save(os.path.join(OUT, name + ".h5"))
        if name in ("bad_lambda", "bad_custom"):
            model.save(os.path.join(OUT, name + ".keras"))
            files.append(name + ".keras")
        manifest["bad"][name] = {"files": files, "error": msg}

    # Hand-edited variants of Keras-made files (h5py), one defect each.
    import h5py
    small = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, name="d1"),
                              keras.layers.Dense(2, name="d2")])
    randomize(small, rng)
    for name, edit, msg in [
        ("bad_missing_weight", "delete", r"d1.*missing"),
        ("bad_wrong_shape", "units", r"d2.*shape"),
        ("bad_huge_dims", "huge", r"too large|unusable|dimension"),
        ("bad_weights_only", "weights_only", r"config"),
    ]:
        p = os.path.join(OUT, name + ".h5")
        if edit == "weights_only":
            small.save_weights(os.path.join(OUT, name + ".weights.h5"))
            os.replace(os.path.join(OUT, name + ".weights.h5"), p)
        else:
            small.save(p)
        if edit == "delete":
            with h5py.File(p, "r+") as f:
                found = []
                f["model_weights/d1"].visititems(
                    lambda n, o: found.append(n) if n.endswith("kernel") else None)
                del f["model_weights/d1/" + found[0]]
        elif edit == "units":
            edit_h5_config(p, lambda c: c["config"]["layers"][2]["config"].update(units=5))
        elif edit == "huge":
            edit_h5_config(p, lambda c: c["config"]["layers"][0]["config"].update(
                batch_shape=[None, 100000, 100000, 4]))
        manifest["bad"][name] = {"files": [name + ".h5"], "error": msg}

    # The attribute shapes of older Keras, on a Keras 3 file: fixed-length
    # string arrays (Keras <= 2.4), and layer_names split into
    # layer_names0/1 (what Keras does past HDF5's 64 KiB attribute limit).
    name = "small_oldattrs"
    p = os.path.join(OUT, name + ".h5")
    small.save(p)
    with h5py.File(p, "r+") as f:
        mw = f["model_weights"]
        names = [n.decode() if isinstance(n, bytes) else n for n in mw.attrs["layer_names"]]
        del mw.attrs["layer_names"]
        half = len(names) // 2
        mw.attrs["layer_names0"] = np.array([n.encode() for n in names[:half]], dtype="S")
        mw.attrs["layer_names1"] = np.array([n.encode() for n in names[half:]], dtype="S")
        for n in names:
            g = mw[n]
            wn = [x.decode() if isinstance(x, bytes) else x for x in g.attrs["weight_names"]]
            if wn:
                g.attrs["weight_names"] = np.array([x.encode() for x in wn], dtype="S")
    n_in, n_out = save_io(small, name, rng)
    manifest["models"][name] = {"files": [name + ".h5"], "inputs": n_in, "outputs": n_out,
                                "keras": 3}

    # A .keras whose weight groups are not where the class-name scheme puts
    # them (layers/dense and layers/dense_1 swapped): the loader must go by
    # the groups' "name" attributes.
    name = "small_swapped"
    p = os.path.join(OUT, name + ".keras")
    small.save(p)
    import io
    import zipfile
    zin = zipfile.ZipFile(p)
    members = {i.filename: zin.read(i.filename) for i in zin.infolist()}
    zin.close()
    bio = io.BytesIO(members["model.weights.h5"])
    with h5py.File(bio, "r+") as f:
        f.move("layers/dense", "layers/tmp")
        f.move("layers/dense_1", "layers/dense")
        f.move("layers/tmp", "layers/dense_1")
    members["model.weights.h5"] = bio.getvalue()
    with zipfile.ZipFile(p, "w") as z:
        for k, v in members.items():
            z.writestr(k, v)
    n_in, n_out = save_io(small, name, rng)
    manifest["models"][name] = {"files": [name + ".keras"], "inputs": n_in, "outputs": n_out,
                                "keras": 3}

    gen_keras2(manifest, rng)
    gen_shared_refs(manifest)

    with open(os.path.join(OUT, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT))
    print("wrote %d files, %d bytes, to %s" % (len(os.listdir(OUT)), total, OUT))


def gen_keras2(manifest, rng):
    """Keras 2 (tf_keras) files: nested models with Keras 2's node numbering,
    and a Sequential whose config has no InputLayer (as Keras <= 2.3 wrote)."""
    old = json.load(open(os.path.join(OUT, "MANIFEST.json"))) if os.path.exists(
        os.path.join(OUT, "MANIFEST.json")) else {}
    try:
        import tf_keras as k2
    except ImportError:
        print("tf_keras not installed: keeping the existing Keras 2 fixtures", file=sys.stderr)
        for k, v in old.get("models", {}).items():
            if v.get("keras") == 2:
                manifest["models"][k] = v
        if "tf_keras" in old:
            manifest["tf_keras"] = old["tf_keras"]
        return
    manifest["tf_keras"] = k2.__version__
    L = k2.layers
    k2.utils.set_random_seed(2)

    inner = k2.Sequential([L.Conv2D(4, 3, padding="same", input_shape=(6, 6, 3)),
                           L.BatchNormalization(), L.Activation("relu")], name="inner")
    i2 = k2.Input((6, 6, 4))
    innerf = k2.Model(i2, L.DepthwiseConv2D(3, depth_multiplier=1)(i2), name="innerf")
    x = k2.Input((6, 6, 3))
    a = inner(x)
    b = inner(x)  # the same nested model called twice
    c = innerf(L.Add()([a, b]))
    d = L.GlobalAveragePooling2D()(c)
    out = L.Dense(3, activation="softmax")(d)
    m = k2.Model(x, out)
    models = {"k2_nested": m}

    seq = k2.Sequential([L.Dense(8, activation="relu", input_shape=(5,)), L.Dropout(0.1),
                         L.BatchNormalization(), L.Dense(3)])
    models["k2_seq_noinput"] = seq

    for name, model in models.items():
        randomize(model, rng)
        p = os.path.join(OUT, name + ".h5")
        model.save(p, save_format="h5")
        if name == "k2_seq_noinput":
            def drop_input(cfg):
                layers = cfg["config"]["layers"]
                if layers[0]["class_name"] == "InputLayer":
                    shape = layers[0]["config"]["batch_input_shape"]
                    layers.pop(0)
                    layers[0]["config"]["batch_input_shape"] = shape
            edit_h5_config(p, drop_input)
        files = [name + ".h5"]
        if name == "k2_nested":  # tf.keras 2.13+ writes .keras zips too, Keras 2 configs inside
            model.save(os.path.join(OUT, name + ".keras"))
            files.insert(0, name + ".keras")
        n_in, n_out = save_io(model, name, rng)
        manifest["models"][name] = {"files": files, "inputs": n_in, "outputs": n_out,
                                    "keras": 2}


SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "models",
                                       "mlcommons-tiny", "models"))
SHARED_H5 = ["anomaly_detection/ad01.h5", "image_classification/pretrainedResnet.h5",
             "visual_wake_words/vww_96.h5", "streaming_wakeword/str_ww_ref_model.h5"]


def shared_input(shape):
    """The input the tests feed the shared models (test_keras_load.py makes
    the same one)."""
    return np.random.default_rng(11).uniform(0.0, 1.0, shape).astype(np.float32)


def gen_shared_refs(manifest):
    """Keras 2's own outputs for the shared MLPerf Tiny .h5 files (tf_keras
    loads them; Keras 3 cannot), so the tests can hold the loader to real
    Keras on real models without TensorFlow."""
    out = os.path.join(OUT, "shared_keras_outputs.npz")
    try:
        import tf_keras as k2
    except ImportError:
        print("tf_keras not installed: keeping shared_keras_outputs.npz", file=sys.stderr)
        return
    refs = {}
    for rel in SHARED_H5:
        p = os.path.join(SHARED, rel)
        if not os.path.isfile(p):
            print("missing %s: not in shared_keras_outputs.npz" % p, file=sys.stderr)
            continue
        m = k2.models.load_model(p, compile=False)
        x = shared_input([1] + [int(d) for d in m.input_shape[1:]])
        refs[rel] = m.predict(x, verbose=0).astype(np.float32)
    np.savez(out, **refs)
    manifest["shared_refs"] = sorted(refs)


if __name__ == "__main__":
    main()
