# SPDX-License-Identifier: Apache-2.0
"""The Keras loader (quantize/keras_*.c), through `edgeq keras-dump`.

What is checked, with numpy only (CI):
- every model in tests/fixtures/keras (made by real Keras 3 and tf_keras 2
  with tests/quantize/gen_keras_models.py) loads from .keras and .h5; each
  weight edgeq read equals layer.get_weights() from Keras, and the graph
  run by a small numpy reference executor (below) reproduces Keras's own
  outputs: node kinds, parameters, layouts and wiring all have to be right
  for that;
- each bad model, and files damaged here (truncated, not HDF5, an empty or
  JSON file, a zip without config.json...), is refused with a clear
  message, exit code 1 and no sanitizer report (ASan build, when built).
With the shared MLPerf Tiny models present (../shared/models): every .h5
loads with the node count and shapes its config implies (config read from
the file's bytes, no HDF5 library needed); the loaded graph run in numpy
matches Keras 2's own outputs (tf_keras, stored in
fixtures/keras/shared_keras_outputs.npz) and, where ai-edge-litert is
installed and the model has a float .tflite twin made from the same
weights, the twin's outputs. With h5py: every weight edgeq read equals the
HDF5 dataset.
"""

import io
import json
import os
import re
import shutil
import subprocess
import zipfile

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIX = os.path.join(REPO, "tests", "fixtures", "keras")
SHARED = os.path.normpath(os.path.join(REPO, "..", "shared", "models", "mlcommons-tiny",
                                       "models"))
MANIFEST = json.load(open(os.path.join(FIX, "MANIFEST.json")))

SANITIZER_EXIT = 86
# libhdf5 leaks on some of its own error paths (damaged files); not ours.
LSAN_SUPP = os.path.join(HERE, "lsan_hdf5.supp")
SAN_ENV = {
    "ASAN_OPTIONS": "exitcode=%d:detect_leaks=1:abort_on_error=0" % SANITIZER_EXIT,
    "UBSAN_OPTIONS": "halt_on_error=1:exitcode=%d:print_stacktrace=1" % SANITIZER_EXIT,
    "LSAN_OPTIONS": "exitcode=%d:suppressions=%s" % (SANITIZER_EXIT, LSAN_SUPP),
}


def _binary(kind):
    if kind == "edgeq":
        p = os.environ.get("EDGEQ", os.path.join(REPO, "build", "edgeq"))
        if not (os.path.isfile(p) and os.access(p, os.X_OK)):
            pytest.fail("edgeq CLI %s not found: build it first (`make`) or set $EDGEQ" % p,
                        pytrace=False)
        return p
    p = os.environ.get("EDGEQ_ASAN", os.path.join(REPO, "build", "asan", "edgeq"))
    if not (os.path.isfile(p) and os.access(p, os.X_OK)):
        pytest.skip("ASan+UBSan build %s not built (`make asan`)" % p)
    return p


class Cli:
    def __init__(self, path):
        self.path = path

    def __call__(self, *args):
        r = subprocess.run([self.path] + [str(a) for a in args], capture_output=True, text=True,
                           errors="replace", env=dict(os.environ, **SAN_ENV), timeout=300)
        assert r.returncode != SANITIZER_EXIT, "sanitizer report:\n" + r.stderr
        # The loader reads files in a child process (keras_load.c): its
        # sanitizer reports show on stderr, the parent exits 1.
        assert "Sanitizer" not in r.stderr and "runtime error" not in r.stderr, r.stderr
        return r

    def dump(self, model, tmp_path):
        wdir = tmp_path / "w"
        os.makedirs(tmp_path, exist_ok=True)
        r = self("keras-dump", model, "--json", "--weights", wdir)
        assert r.returncode == 0, "keras-dump %s failed:\n%s" % (model, r.stderr)
        g = json.loads(r.stdout)
        for n in g["nodes"]:
            n["w"] = {}
            for field in ("kernel", "bias", "gamma", "beta", "mean", "var"):
                p = wdir / ("%d.%s.npy" % (n["index"], field))
                if p.exists():
                    n["w"][field] = np.load(p)
        return g


@pytest.fixture(params=("edgeq", "asan"))
def cli(request):
    return Cli(_binary(request.param))


@pytest.fixture(scope="module")
def edgeq():
    return Cli(_binary("edgeq"))


# ------------------------------------------------------------ a numpy executor
#
# The float semantics of each graph node, written from Keras's definitions.


def act(x, name, alpha):
    if name == "linear":
        return x
    if name == "relu":
        return np.maximum(x, 0)
    if name == "relu6":
        return np.clip(x, 0, 6)
    if name == "relu_n1_to_1":
        return np.clip(x, -1, 1)
    if name == "leaky_relu":
        return np.where(x >= 0, x, x * alpha)
    if name == "sigmoid":
        return 1 / (1 + np.exp(-x))
    if name == "tanh":
        return np.tanh(x)
    if name == "hard_swish":
        return x * np.clip(x + 3, 0, 6) / 6
    raise AssertionError("activation " + name)


def same_pads(size, k, s, d):
    eff = (k - 1) * d + 1
    out = -(-size // s)
    total = max((out - 1) * s + eff - size, 0)
    return total // 2, total - total // 2


def windows(x, n, fill):
    """x: [1,H,W,C] padded for node n; yields (i, j, slice [1,OH,OW,C])."""
    kh, kw = n["kernel_size"]
    sh, sw = n["strides"]
    dh, dw = n["dilation"]
    _, H, W, C = x.shape
    if n["padding"] == "same":
        ph = same_pads(H, kh, sh, dh)
        pw = same_pads(W, kw, sw, dw)
        x = np.pad(x, ((0, 0), ph, pw, (0, 0)), constant_values=fill)
    _, H, W, C = x.shape
    oh = (H - ((kh - 1) * dh + 1)) // sh + 1
    ow = (W - ((kw - 1) * dw + 1)) // sw + 1
    for i in range(kh):
        for j in range(kw):
            yield i, j, x[:, i * dh:i * dh + (oh - 1) * sh + 1:sh,
                          j * dw:j * dw + (ow - 1) * sw + 1:sw, :]


def run_graph(g, inputs):
    vals = {}
    for i, idx in enumerate(g["inputs"]):
        vals[idx] = inputs[i].astype(np.float64)
    for n in g["nodes"]:
        op, w = n["op"], n["w"]
        xs = [vals[i] for i in n["inputs"]]
        x = xs[0] if xs else None
        if op == "Input":
            continue
        if op == "Conv2D":
            k = w["kernel"].astype(np.float64)
            groups = n["groups"]
            cin = x.shape[3]
            cg, og = cin // groups, k.shape[3] // groups
            y = 0
            for i, j, s in windows(x, n, 0.0):
                parts = [np.einsum("nhwc,co->nhwo", s[..., gi * cg:(gi + 1) * cg],
                                   k[i, j, :, gi * og:(gi + 1) * og]) for gi in range(groups)]
                y = y + np.concatenate(parts, axis=-1)
            if "bias" in w:
                y = y + w["bias"]
            y = act(y, n["act"], n["alpha"])
        elif op == "DepthwiseConv2D":
            k = w["kernel"].astype(np.float64)  # [kh, kw, cin, dm]
            y = 0
            for i, j, s in windows(x, n, 0.0):
                y = y + (s[..., :, None] * k[i, j]).reshape(s.shape[:3] + (-1,))
            if "bias" in w:
                y = y + w["bias"]
            y = act(y, n["act"], n["alpha"])
        elif op == "Dense":
            y = x @ w["kernel"].astype(np.float64)
            if "bias" in w:
                y = y + w["bias"]
            y = act(y, n["act"], n["alpha"])
        elif op == "BatchNormalization":
            y = (x - w["mean"]) / np.sqrt(w["var"].astype(np.float64) + n["eps"])
            if "gamma" in w:
                y = y * w["gamma"]
            if "beta" in w:
                y = y + w["beta"]
        elif op == "Activation":
            y = act(x, n["act"], n["alpha"])
        elif op == "Softmax":
            e = np.exp(x - x.max(axis=-1, keepdims=True))
            y = e / e.sum(axis=-1, keepdims=True)
        elif op == "Add":
            y = sum(xs)
        elif op == "Subtract":
            y = xs[0] - xs[1]
        elif op == "Multiply":
            y = np.prod(xs, axis=0)
        elif op == "Concatenate":
            y = np.concatenate(xs, axis=n["axis"])
        elif op == "MaxPooling2D":
            y = np.max([s for _, _, s in windows(x, n, -np.inf)], axis=0)
        elif op == "AveragePooling2D":
            ones = np.ones(x.shape[:3] + (1,))
            tot = sum(s for _, _, s in windows(x, n, 0.0))
            cnt = sum(s for _, _, s in windows(ones, n, 0.0))
            y = tot / cnt
        elif op == "GlobalAveragePooling2D":
            y = x.mean(axis=(1, 2), keepdims=bool(n["keepdims"]))
        elif op == "GlobalMaxPooling2D":
            y = x.max(axis=(1, 2), keepdims=bool(n["keepdims"]))
        elif op == "Reshape":
            y = x.reshape(n["shape"])
        elif op == "ZeroPadding2D":
            y = np.pad(x, [tuple(p) for p in n["pad"]][:x.ndim])
        elif op == "Rescaling":
            y = x * n["scale"] + n["offset"]
        elif op == "Identity":
            y = x
        else:
            raise AssertionError("op " + op)
        assert list(y.shape) == n["shape"], "%s: numpy shape %s, edgeq %s" % (
            n["name"], y.shape, n["shape"])
        vals[n["index"]] = y
    return [vals[i] for i in g["outputs"]]


# ------------------------------------------------------------ good models


def model_files():
    for name, m in sorted(MANIFEST["models"].items()):
        for f in m["files"]:
            yield pytest.param(name, f, id=f)


def node_path(name):
    """Node name -> Keras layer path: drop call suffixes ("inner#1/x" -> "inner/x")."""
    return "/".join(p.split("#")[0] for p in name.split("/"))


def keras_weights_of(g):
    """What layer.get_weights() would list per layer path, from edgeq's nodes."""
    out = {}
    by = {}
    for n in g["nodes"]:
        by.setdefault(n["name"], n)
    for n in g["nodes"]:
        if "#" in n["name"] or not n["w"]:
            continue
        path = node_path(n["name"])
        w = n["w"]
        if n["class"] == "SeparableConv2D":
            if n["op"] == "DepthwiseConv2D":
                continue
            base = path
            dw = by[n["name"] + "/depthwise"]
            lst = [dw["w"]["kernel"], w["kernel"]] + ([w["bias"]] if "bias" in w else [])
        elif n["op"] == "BatchNormalization":
            lst = [w[f] for f in ("gamma", "beta", "mean", "var") if f in w]
            base = path
        else:
            lst = [w["kernel"]] + ([w["bias"]] if "bias" in w else [])
            base = path
        for i, a in enumerate(lst):
            out["%s/%d" % (base, i)] = a
    return out


@pytest.mark.parametrize("name,fname", list(model_files()))
def test_model_loads_and_matches_keras(cli, tmp_path, name, fname):
    m = MANIFEST["models"][name]
    g = cli.dump(os.path.join(FIX, fname), tmp_path)
    assert len(g["inputs"]) == m["inputs"] and len(g["outputs"]) == m["outputs"]
    # weights: exactly Keras's get_weights(), every one of them
    want = dict(np.load(os.path.join(FIX, name + ".weights.npz")))
    have = keras_weights_of(g)
    assert sorted(have) == sorted(want), "weights: edgeq %s, keras %s" % (sorted(have),
                                                                          sorted(want))
    for k, v in want.items():
        assert have[k].shape == v.shape, k
        assert np.array_equal(have[k], v), k
    # outputs: the graph computes what Keras computed
    ins = [np.load(os.path.join(FIX, "%s.in%d.npy" % (name, i))) for i in range(m["inputs"])]
    outs = run_graph(g, ins)
    for i, y in enumerate(outs):
        ref = np.load(os.path.join(FIX, "%s.out%d.npy" % (name, i)))
        assert y.shape == ref.shape
        np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-5,
                                   err_msg="%s output %d" % (fname, i))


def test_keras_and_h5_give_the_same_graph(edgeq, tmp_path):
    for name, m in MANIFEST["models"].items():
        if len(m["files"]) < 2:
            continue
        a = edgeq.dump(os.path.join(FIX, m["files"][0]), tmp_path / "a")
        b = edgeq.dump(os.path.join(FIX, m["files"][1]), tmp_path / "b")
        strip = [{k: v for k, v in n.items() if k != "w"} for n in a["nodes"]]
        assert strip == [{k: v for k, v in n.items() if k != "w"} for n in b["nodes"]], name
        assert a["source"].startswith("keras %d." % m["keras"]) and ".keras zip" in a["source"]
        assert b["source"].startswith("keras %d." % m["keras"]) and "legacy HDF5" in b["source"]


def test_format_is_told_by_content_not_extension(edgeq, tmp_path):
    a = tmp_path / "really_a_zip.h5"
    b = tmp_path / "really_hdf5.keras"
    shutil.copy(os.path.join(FIX, "nested.keras"), a)
    shutil.copy(os.path.join(FIX, "nested.h5"), b)
    ga = edgeq.dump(a, tmp_path / "a")
    gb = edgeq.dump(b, tmp_path / "b")
    assert ".keras zip" in ga["source"] and "legacy HDF5" in gb["source"]
    assert len(ga["nodes"]) == len(gb["nodes"]) == 15


def test_deflated_keras_zip(edgeq, tmp_path):
    """Keras stores its zip members uncompressed; a re-zipped (deflated)
    archive is as good."""
    src = zipfile.ZipFile(os.path.join(FIX, "func_cnn.keras"))
    p = tmp_path / "deflated.keras"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            z.writestr(info.filename, src.read(info.filename))
    g = edgeq.dump(p, tmp_path)
    ins = [np.load(os.path.join(FIX, "func_cnn.in0.npy"))]
    np.testing.assert_allclose(run_graph(g, ins)[0],
                               np.load(os.path.join(FIX, "func_cnn.out0.npy")),
                               rtol=1e-4, atol=1e-5)


def test_text_dump(edgeq):
    r = edgeq("keras-dump", os.path.join(FIX, "func_cnn.keras"))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("keras 3") and "31 nodes" in lines[0]
    assert re.search(r"DepthwiseConv2D\s+separable_conv2d/depthwise", r.stdout)
    assert re.search(r"Conv2D\s+conv2d_1\s.*groups=2", r.stdout)
    r = edgeq("keras-dump", "--help")
    assert r.returncode == 0 and "--weights" in r.stdout
    assert edgeq("keras-dump").returncode == 2
    assert edgeq("keras-dump", "--bogus", "x.h5").returncode == 2


# ------------------------------------------------------------ bad models


def bad_files():
    for name, m in sorted(MANIFEST["bad"].items()):
        for f in m["files"]:
            yield pytest.param(f, m["error"], id=f)


def expect_fail(r, *needles):
    assert r.returncode == 1, "exit %d\nstdout:%s\nstderr:%s" % (r.returncode, r.stdout,
                                                                 r.stderr)
    assert r.stdout == ""
    assert r.stderr.count("\n") == 1, "one message line, not HDF5's error stack:\n" + r.stderr
    for n in needles:
        assert re.search(n, r.stderr, re.I), "%r not in: %s" % (n, r.stderr)


@pytest.mark.parametrize("fname,msg", list(bad_files()))
def test_bad_model_refused(cli, fname, msg):
    expect_fail(cli("keras-dump", os.path.join(FIX, fname)), re.escape(fname), msg)


def test_lambda_is_never_executed(cli):
    # The Lambda's code would double its input; the loader must not even
    # look at it beyond its class.
    r = cli("keras-dump", os.path.join(FIX, "bad_lambda.keras"))
    expect_fail(r, r"layer 'double_it' \(Lambda\)", r"never runs")


@pytest.mark.parametrize("src", ["func_cnn.h5", "func_cnn.keras", "nested.h5"])
def test_truncated_files(cli, tmp_path, src):
    data = open(os.path.join(FIX, src), "rb").read()
    for cut in (8, 100, 2048, len(data) // 3, len(data) // 2, len(data) - 1000, len(data) - 1):
        p = tmp_path / ("cut%d_%s" % (cut, src))
        p.write_bytes(data[:cut])
        expect_fail(cli("keras-dump", p), re.escape(p.name))


@pytest.mark.parametrize("src", ["seq_mlp.h5", "small_oldattrs.h5", "nested.keras"])
def test_corrupted_bytes(edgeq, tmp_path, src):
    """Damage anywhere in the file: an error or a load, never a crash.
    libhdf5 itself crashes on about 1 damaged file in 80 (it is not
    hardened against them); the loader's child process turns that into an
    error. Normal build only: under ASan those libhdf5 faults are reported
    (in the child) though handled."""
    data = bytearray(open(os.path.join(FIX, src), "rb").read())
    rng = np.random.default_rng(7)
    codes = set()
    for trial in range(60):
        d = bytearray(data)
        for pos in rng.integers(0, len(d), int(rng.integers(1, 20))):
            d[pos] = int(rng.integers(0, 256))
        p = tmp_path / ("corrupt%d_%s" % (trial, src))
        p.write_bytes(bytes(d))
        r = edgeq("keras-dump", p)
        assert r.returncode in (0, 1), r.stderr
        codes.add(r.returncode)
        if r.returncode == 1:
            assert r.stderr.count("\n") == 1 and p.name in r.stderr, r.stderr
    assert 1 in codes


def test_reader_crash_is_an_error(edgeq, tmp_path):
    """A file that makes libhdf5 1.10 crash (found by the fuzzing above):
    a clean error either way (a fixed libhdf5 may just refuse it)."""
    data = bytearray(open(os.path.join(FIX, "seq_mlp.h5"), "rb").read())
    rng = np.random.default_rng(1)
    crashed = 0
    for trial in range(300):
        d = bytearray(data)
        for pos in rng.integers(0, len(d), int(rng.integers(1, 20))):
            d[pos] = int(rng.integers(0, 256))
        if trial not in (264, 272, 274, 316, 419, 456, 515):
            continue
        p = tmp_path / ("crash%d.h5" % trial)
        p.write_bytes(bytes(d))
        r = edgeq("keras-dump", p)
        assert r.returncode in (0, 1) and r.stderr.count("\n") <= 1, r.stderr
        crashed += "crashed on this file" in r.stderr
    print("libhdf5 crashes contained:", crashed)


def test_not_a_model(cli, tmp_path):
    p = tmp_path / "model.h5"
    p.write_bytes(b"GIF89a this is not a model at all")
    expect_fail(cli("keras-dump", p), r"neither HDF5.*nor a zip")
    p.write_bytes(b"")
    expect_fail(cli("keras-dump", p), r"empty")
    p.write_text('{"class_name": "Sequential", "config": {"layers": []}}')
    expect_fail(cli("keras-dump", p), r"JSON file")
    expect_fail(cli("keras-dump", tmp_path / "missing.h5"), r"No such file")


def test_zip_without_keras_contents(cli, tmp_path):
    p = tmp_path / "model.keras"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("readme.txt", "hello")
    expect_fail(cli("keras-dump", p), r"without config\.json")
    src = zipfile.ZipFile(os.path.join(FIX, "seq_mlp.keras"))
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("config.json", src.read("config.json"))
    expect_fail(cli("keras-dump", p), r"no model\.weights\.h5")
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("config.json", src.read("config.json"))
        z.writestr("model.weights.h5", b"\x89HDF\r\n\x1a\n" + b"\0" * 100)
    expect_fail(cli("keras-dump", p), r"model\.weights\.h5")
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("config.json", b"{not json")
        z.writestr("model.weights.h5", src.read("model.weights.h5"))
    expect_fail(cli("keras-dump", p), r"not valid JSON")
    # a config that does not match the weights: another model's weights
    other = zipfile.ZipFile(os.path.join(FIX, "func_cnn.keras"))
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("config.json", src.read("config.json"))
        z.writestr("model.weights.h5", other.read("model.weights.h5"))
    expect_fail(cli("keras-dump", p), r"layer 'dense'")


def edit_keras_config(tmp_path, src, fn, name="edited.keras"):
    z = zipfile.ZipFile(os.path.join(FIX, src))
    cfg = json.loads(z.read("config.json"))
    fn(cfg)
    p = tmp_path / name
    with zipfile.ZipFile(p, "w") as out:
        for info in z.infolist():
            data = json.dumps(cfg) if info.filename == "config.json" else z.read(info.filename)
            out.writestr(info.filename, data)
    return p


def seq_layer(cfg, cls):
    return [l for l in cfg["config"]["layers"] if l["class_name"] == cls]


@pytest.mark.parametrize("edit,needle", [
    (lambda c: seq_layer(c, "Dense")[0]["config"].update(activation="gelu"),
     r"layer 'dense' \(Dense\): activation 'gelu' is not supported"),
    (lambda c: seq_layer(c, "ReLU")[0]["config"].update(threshold=0.5),
     r"threshold"),
    (lambda c: seq_layer(c, "ReLU")[0]["config"].update(max_value=4.0),
     r"max_value 4"),
    (lambda c: seq_layer(c, "BatchNormalization")[0]["config"].update(axis=0),
     r"axis"),
    (lambda c: seq_layer(c, "BatchNormalization")[0]["config"].update(renorm=True),
     r"renorm"),
    (lambda c: seq_layer(c, "Dense")[0].update(class_name="Conv3D"),
     r"layer 'dense' \(Conv3D\).*not supported.*supported: InputLayer"),
    (lambda c: seq_layer(c, "Dense")[0].update(module="my_project.layers"),
     r"custom layer \(module 'my_project\.layers'"),
    (lambda c: seq_layer(c, "Dense")[0]["config"].update(units=17),
     r"layer 'dense'.*shape \[20, 16\].*needs \[20, 17\]"),
    (lambda c: seq_layer(c, "InputLayer")[0]["config"].update(batch_shape=[None, 20, 3, 3, 3]),
     r"rank 5"),
    (lambda c: seq_layer(c, "InputLayer")[0]["config"].update(dtype="int32"),
     r"dtype 'int32'"),
    (lambda c: c.update(class_name="MyModel"),
     r"MyModel"),
    (lambda c: seq_layer(c, "Dense")[0]["config"].update(
        dtype={"class_name": "QuantizedDTypePolicy", "config": {"name": "int8_from_float32"}}),
     r"already quantized"),
])
def test_config_edits_refused(cli, tmp_path, edit, needle):
    expect_fail(cli("keras-dump", edit_keras_config(tmp_path, "seq_mlp.keras", edit)), needle)


def test_functional_graph_errors(cli, tmp_path):
    def cycle(c):
        # add's input becomes its own consumer: never computable
        for l in c["config"]["layers"]:
            if l["name"] == "add":
                l["inbound_nodes"][0]["args"][0][0]["config"]["keras_history"] = ["multiply", 0, 0]
    expect_fail(cli("keras-dump", edit_keras_config(tmp_path, "func_cnn.keras", cycle)),
                r"layer 'add'.*never computed")

    def dangling(c):
        c["config"]["output_layers"] = [["no_such_layer", 0, 0]]
    expect_fail(cli("keras-dump", edit_keras_config(tmp_path, "func_cnn.keras", dangling)),
                r"no_such_layer")

    def mismatch(c):
        for l in c["config"]["layers"]:
            if l["class_name"] == "Add":
                l["inbound_nodes"][0]["args"][0][2]["config"]["keras_history"] = ["image", 0, 0]
    expect_fail(cli("keras-dump", edit_keras_config(tmp_path, "func_cnn.keras", mismatch)),
                r"layer 'add' \(Add\).*different shapes")


# ------------------------------------------------------------ shared MLPerf Tiny models

SHARED_MODELS = {
    # file: (float twin or None, node count: layers + a Softmax node per softmax-Dense)
    # ad01_fp32.tflite was not converted from these weights: Keras itself
    # (tf_keras 2.21 loading ad01.h5) differs from it by up to 0.6.
    "anomaly_detection/ad01.h5": (None, 29),
    "image_classification/pretrainedResnet.h5": ("image_classification/pretrainedResnet.tflite",
                                                 31),
    "visual_wake_words/vww_96.h5": ("visual_wake_words/vww_96_float.tflite", 86),
    "streaming_wakeword/str_ww_ref_model.h5": (None, 24),
}


def raw_model_config(path):
    """The model_config JSON straight from the file's bytes: HDF5 keeps a
    variable-length string attribute whole in a global heap."""
    data = open(path, "rb").read()
    dec = json.JSONDecoder()
    for m in re.finditer(rb'\{"class_name": "(Functional|Model|Sequential)"', data):
        try:
            obj, _ = dec.raw_decode(data[m.start():].decode("utf-8", "replace"))
            return obj
        except ValueError:
            continue
    raise AssertionError("no model_config in " + path)


@pytest.fixture(params=sorted(SHARED_MODELS))
def shared_model(request):
    p = os.path.join(SHARED, request.param)
    if not os.path.isfile(p):
        pytest.skip("shared model %s not present" % p)
    return request.param, p


def test_shared_model_graph(edgeq, tmp_path, shared_model):
    rel, path = shared_model
    g = edgeq.dump(path, tmp_path)
    twin, count = SHARED_MODELS[rel]
    assert len(g["nodes"]) == count
    cfg = raw_model_config(path)
    layers = cfg["config"]["layers"]
    by_name = {n["name"]: n for n in g["nodes"]}
    for l in layers:
        c = l["config"]
        n = by_name[l["name"]]
        assert n["class"] == l["class_name"]
        if l["class_name"] == "InputLayer":
            assert n["shape"] == [1] + c["batch_input_shape"][1:]
        if l["class_name"] in ("Dense", "Conv2D"):
            key = "units" if l["class_name"] == "Dense" else "filters"
            assert n["shape"][-1] == c[key]
            assert list(n["w"]["kernel"].shape)[-1] == c[key]
            assert ("bias" in n["w"]) == c["use_bias"]
        if l["class_name"] in ("Conv2D", "DepthwiseConv2D"):
            assert n["kernel_size"] == c["kernel_size"] and n["strides"] == c["strides"]
            assert n["padding"] == c["padding"]
        if l["class_name"] == "BatchNormalization":
            assert n["w"]["var"].min() >= 0
        # inputs wired as the config says (Keras 2 inbound nodes)
        if l["inbound_nodes"]:
            want = [r[0] for r in l["inbound_nodes"][0]]
            got = [g["nodes"][i]["name"] for i in n["inputs"]]
            assert got == want, l["name"]


def test_shared_model_matches_keras(edgeq, tmp_path, shared_model):
    """Against Keras 2 itself: outputs tf_keras computed for these files
    (stored by gen_keras_models.py) on a seeded input."""
    rel, path = shared_model
    refs = np.load(os.path.join(FIX, "shared_keras_outputs.npz"))
    if rel not in refs:
        pytest.skip("no Keras reference for %s" % rel)
    g = edgeq.dump(path, tmp_path)
    shape = g["nodes"][g["inputs"][0]]["shape"]
    x = np.random.default_rng(11).uniform(0.0, 1.0, shape).astype(np.float32)
    ref = refs[rel]
    y = run_graph(g, [x])[0]
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-5 * max(1.0, np.abs(ref).max()))


def test_shared_model_weights_h5py(edgeq, tmp_path, shared_model):
    h5py = pytest.importorskip("h5py")
    rel, path = shared_model
    g = edgeq.dump(path, tmp_path)
    fields = {"kernel": ["kernel", "depthwise_kernel"], "bias": ["bias"], "gamma": ["gamma"],
              "beta": ["beta"], "mean": ["moving_mean"], "var": ["moving_variance"]}
    checked = 0
    with h5py.File(path, "r") as f:
        for n in g["nodes"]:
            grp = "model_weights/%s/%s" % (n["name"], n["name"])
            for field, arr in n["w"].items():
                ds = [grp + "/%s:0" % k for k in fields[field] if grp + "/%s:0" % k in f]
                assert len(ds) == 1, (n["name"], field)
                assert np.array_equal(f[ds[0]][()], arr), (n["name"], field)
                checked += 1
    assert checked > 0


def test_shared_model_matches_float_tflite(edgeq, tmp_path, shared_model):
    rel, path = shared_model
    twin = SHARED_MODELS[rel][0]
    if twin is None or not os.path.isfile(os.path.join(SHARED, twin)):
        pytest.skip("no float twin for %s" % rel)
    litert = pytest.importorskip("ai_edge_litert.interpreter")
    g = edgeq.dump(path, tmp_path)
    it = litert.Interpreter(model_path=os.path.join(SHARED, twin))
    it.allocate_tensors()
    inp = it.get_input_details()[0]
    if inp["dtype"] != np.float32:
        pytest.skip("%s is not a float model" % twin)
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 1, inp["shape"]).astype(np.float32)
    it.set_tensor(inp["index"], x)
    it.invoke()
    ref = it.get_tensor(it.get_output_details()[0]["index"])
    y = run_graph(g, [x])[0]
    np.testing.assert_allclose(y, ref, rtol=1e-3, atol=1e-4)


# ------------------------------------------------------------ live Keras (optional)


def test_live_keras3_roundtrip(edgeq, tmp_path):
    """Build, save and load a fresh model with the installed Keras 3 (skips
    without it): the committed fixtures stay honest as Keras evolves."""
    keras = pytest.importorskip("keras")
    L = keras.layers
    x = keras.Input((9, 9, 2))
    y = L.Conv2D(3, 3, padding="same", activation="relu")(x)
    y = L.DepthwiseConv2D(2, strides=2)(y)
    y = L.BatchNormalization()(y)
    y = L.SeparableConv2D(4, 3, padding="same")(y)
    y = L.GlobalMaxPooling2D()(y)
    y = L.Dense(3)(y)
    m = keras.Model(x, y)
    rng = np.random.default_rng(5)
    m.set_weights([rng.normal(0, 0.5, w.shape).astype(np.float32) for w in m.get_weights()])
    for layer in m.layers:
        if isinstance(layer, L.BatchNormalization):
            gw = layer.get_weights()
            gw[3] = np.abs(gw[3]) + 0.5
            layer.set_weights(gw)
    xin = rng.uniform(-1, 1, (1, 9, 9, 2)).astype(np.float32)
    ref = m.predict(xin, verbose=0)
    for ext in (".keras", ".h5"):
        p = str(tmp_path / ("live" + ext))
        m.save(p)
        g = edgeq.dump(p, tmp_path / ext[1:])
        np.testing.assert_allclose(run_graph(g, [xin])[0], ref, rtol=1e-4, atol=1e-5)
