# SPDX-License-Identifier: Apache-2.0
"""The model zoo (models/): the quick start, the committed int8 files and
the figures on the model cards.

- the quick start (`make quickstart`) quantizes a committed .h5 with edgeq
  and classifies a held-out sample image: the printed class is the sample's
- classify gets every sample image of every image model right
- edgeq quantizes each committed Keras file to exactly the committed .tflite
- each committed .tflite runs bit-exact in the engine vs LiteRT's reference
  kernels (BUILTIN_REF) on every held-out sample
- the engine's int8 accuracy on the held-out set is the card's, and at most
  0.5 point below float
- float accuracy (needs tensorflow + keras: skipped without them)
- a fresh clone runs the quick start (once the zoo is committed)

Needs numpy + ai-edge-litert + the committed files only (tests/requirements.txt).
"""

import json
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from zoolib import REPO, data, make_cmd, zoo

RESULTS = os.path.join(REPO, "models", "results.json")
IMAGE_MODELS = [n for n, m in zoo.MODELS.items() if m["dataset"] != "iris"]


@pytest.fixture(scope="module")
def results():
    with open(RESULTS) as f:
        return json.load(f)


def samples(name):
    d = os.path.join(REPO, "models", name)
    return sorted(f for f in os.listdir(d) if f.startswith("sample_"))


def classify_top1(tflite, image, labels):
    r = subprocess.run([zoo.CLASSIFY, tflite, image, "--labels", labels, "--top", "1"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    m = re.search(r"-> (\S+)", r.stdout)
    assert m, r.stdout
    return m.group(1), r.stdout


@pytest.mark.parametrize("name,sample", [("mnist_cnn", "7"), ("mnist_mobilenet", "3"),
                                         ("digits_resnet", "5")])
def test_quickstart(zoo_tools, name, sample):
    r = subprocess.run(make_cmd() + ["quickstart", f"ZOO_MODEL={name}", f"ZOO_SAMPLE={sample}"],
                       cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"sample_%s\.pgm \(PGM \d+x\d+ gray\) -> (\S+)" % sample, r.stdout)
    assert m, r.stdout
    assert m.group(1) == sample, r.stdout


@pytest.mark.parametrize("name", IMAGE_MODELS)
def test_classify_every_sample(zoo_tools, name):
    d = os.path.join(REPO, "models", name)
    got = {}
    for s in samples(name):
        label = s[len("sample_"):-len(".pgm")]
        got[label] = classify_top1(zoo.int8_path(name), os.path.join(d, s),
                                   os.path.join(d, "labels.txt"))[0]
    assert got and all(k == v for k, v in got.items()), got


@pytest.mark.parametrize("name", list(zoo.MODELS))
def test_edgeq_reproduces_committed_tflite(zoo_tools, name, tmp_path):
    m = zoo.MODELS[name]
    calib = os.path.join(REPO, "models", "calib",
                         "iris.npy" if m["dataset"] == "iris" else m["dataset"])
    out = tmp_path / "out.tflite"
    r = subprocess.run([zoo.EDGEQ, os.path.join(REPO, "models", name, m["file"]), str(out),
                        "--calib", calib], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with open(zoo.int8_path(name), "rb") as f:
        assert out.read_bytes() == f.read(), "edgeq's output differs from the committed .tflite"


@pytest.mark.parametrize("name", list(zoo.MODELS))
def test_engine_int8_heldout(zoo_tools, results, name):
    """Bit-exact vs BUILTIN_REF on every held-out sample, and the card's accuracy."""
    pytest.importorskip("ai_edge_litert")
    r = results[name]
    x, y = data.heldout(r["dataset"])
    assert len(y) == r["heldout_samples"]
    eng = zoo.engine_run(zoo.int8_path(name), x.astype(np.float32))
    ref = zoo.litert_run(zoo.int8_path(name), x.astype(np.float32))
    diff = np.flatnonzero(np.any(eng != ref, axis=1))
    assert diff.size == 0, f"{diff.size} samples differ from BUILTIN_REF, first {diff[:5]}"
    correct = int(np.sum(np.argmax(eng, 1) == y))
    assert correct == r["edgeq_int8_correct"]
    acc = round(100 * correct / len(y), 2)
    assert acc == r["edgeq_int8_acc"]
    assert acc >= r["float_acc"] - 0.5, (acc, r["float_acc"])
    with open(os.path.join(REPO, "models", name, "README.md")) as f:
        assert f"| {acc:.2f} %" in f.read(), "the model card's int8 figure is stale"


@pytest.mark.parametrize("name", list(zoo.MODELS))
def test_float_accuracy(results, name):
    pytest.importorskip("tensorflow", reason="float accuracy needs tensorflow (tests/requirements-gen.txt)")
    keras = pytest.importorskip("keras")
    m, r = zoo.MODELS[name], results[name]
    x, y = data.heldout(m["dataset"])
    model = keras.models.load_model(os.path.join(REPO, "models", name, m["file"]), compile=False)
    pred = np.argmax(model.predict(x.astype(np.float32), verbose=0, batch_size=256), 1)
    assert round(100 * float(np.mean(pred == y)), 2) == r["float_acc"]


def test_splits_match_sources():
    """The committed held-out sets are data.py's split of the shared sources."""
    for name, loader in (("digits", data.load_digits), ("iris", data.load_iris)):
        try:
            _, (xh, yh) = loader()
        except FileNotFoundError:
            pytest.skip("../shared/models/datasets is not here")
        x, y = data.heldout(name)
        assert np.array_equal(x, xh) and np.array_equal(y, yh), name


def test_zoo_is_small():
    total = 0
    for dirpath, dirnames, files in os.walk(os.path.join(REPO, "models")):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        total += sum(os.path.getsize(os.path.join(dirpath, f)) for f in files)
    assert total < 2_000_000, total


def test_quickstart_fresh_clone(tmp_path):
    """`make quickstart` in a fresh clone: builds everything, then classifies."""
    if shutil.which("git") is None:
        pytest.skip("no git")
    tracked = subprocess.run(["git", "ls-files", "models/mnist_cnn/mnist_cnn.h5", "models/models.mk"],
                             cwd=REPO, capture_output=True, text=True).stdout.split()
    if len(tracked) < 2:
        pytest.skip("the zoo is not committed yet: nothing for a clone to get")
    clone = tmp_path / "edgeq"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", REPO, str(clone)], check=True)
    env = dict(os.environ)
    env.pop("BUILD", None)
    with open(clone / "Makefile") as f:
        included = "models/models.mk" in f.read()
    cmd = ["make", "-j2", "--no-print-directory"] + \
        ([] if included else ["-f", "Makefile", "-f", "models/models.mk"]) + ["quickstart"]
    r = subprocess.run(cmd, cwd=clone, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert re.search(r"sample_7\.pgm \(PGM 28x28 gray\) -> 7\b", r.stdout), r.stdout[-2000:]


def test_readme_table_is_current(results):
    with open(os.path.join(REPO, "models", "README.md")) as f:
        assert zoo.table(results) in f.read(), "models/README.md's table is stale: make models-eval"
