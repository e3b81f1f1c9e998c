# SPDX-License-Identifier: Apache-2.0
"""edgeq's float executor, graph passes and calibration, through `edgeq float-run`.

Oracles, all usable in CI (numpy + ai-edge-litert, no TensorFlow):
  - tests/fixtures/float_exec/: small Keras 3 models aimed at the passes'
    corner cases, with Keras's own outputs (gen_float_fixtures.py made them
    with real Keras), and Keras's outputs for the four MLPerf Tiny .h5 models
    of ../shared on deterministic inputs;
  - tests/fixtures/keras/: the loader's Keras fixtures and their outputs;
  - the official float .tflite twins beside the shared .h5 files, run live
    in ai-edge-litert;
  - the official int8 twin of str_ww, made by the TF converter from the
    calibration set in ../shared: its activation scales are what TFLite's
    min/max calibration gives, and edgeq's minmax ranges must give the same.
Tests needing ../shared skip, saying so, when it is absent; one test also
builds fresh Keras models live and skips without tensorflow/keras.

Binaries: $EDGEQ (build/edgeq) must exist; $EDGEQ_ASAN (build/asan/edgeq)
is optional, and every CLI test also runs on it when built, with sanitizer
reports turned into exit code 86.
"""

import json
import os
import struct
import subprocess
import zlib

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIX = os.path.join(REPO, "tests", "fixtures", "float_exec")
KERAS_FIX = os.path.join(REPO, "tests", "fixtures", "keras")
TINY = os.path.normpath(os.path.join(REPO, "..", "shared", "models", "mlcommons-tiny"))
TINY_MODELS = os.path.join(TINY, "models")
SWW_CALIB = os.path.join(TINY, "data", "sww_calibration_samples.npz")

# (key, .h5 under mlcommons-tiny/models, input kind, samples)
SHARED_MODELS = [
    ("ad01", "anomaly_detection/ad01.h5", "normal", 8),
    ("resnet", "image_classification/pretrainedResnet.h5", "unit", 4),
    ("vww", "visual_wake_words/vww_96.h5", "unit", 4),
    ("strww", "streaming_wakeword/str_ww_ref_model.h5", "strww_calib", 45),
]
FLOAT_TWINS = {
    "resnet": "image_classification/pretrainedResnet.tflite",
    "vww": "visual_wake_words/vww_96_float.tflite",
    "ad01": "anomaly_detection/ad01_fp32.tflite",
}

# The executor accumulates in float32 like TF, in another order.
REL_TOL = 1e-5

SANITIZER_EXIT = 86
SAN_ENV = {
    "ASAN_OPTIONS": "exitcode=%d:detect_leaks=1:abort_on_error=0" % SANITIZER_EXIT,
    "UBSAN_OPTIONS": "halt_on_error=1:exitcode=%d:print_stacktrace=1" % SANITIZER_EXIT,
    "LSAN_OPTIONS": "exitcode=%d" % SANITIZER_EXIT,
}


def det_input(shape, kind, seed=0):
    """Inputs that are the same on every machine and numpy version (integer
    hashing only): 'unit' uniform [0, 1), 'pixels' integers 0..255,
    'normal' approximately N(0, 1) (Irwin-Hall of four uniforms)."""
    n = int(np.prod(shape))
    k = 4 if kind == "normal" else 1
    i = np.arange(n * k, dtype=np.uint64) + np.uint64(seed) * np.uint64(0x9E3779B9)
    with np.errstate(over="ignore"):
        h = i * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
        h ^= h >> np.uint64(29)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(32)
    u = ((h >> np.uint64(40)).astype(np.float64)) / float(1 << 24)
    if kind == "normal":
        u = (u.reshape(n, 4).sum(axis=1) - 2.0) * np.sqrt(3.0)
    elif kind == "pixels":
        u = np.floor(u * 256.0)
    return u.reshape(shape).astype(np.float32)


# ---------------------------------------------------------------- the CLI


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
        env = dict(os.environ, **SAN_ENV)
        r = subprocess.run([self.path] + [str(a) for a in args], capture_output=True, text=True,
                           env=env, timeout=300)
        assert r.returncode != SANITIZER_EXIT, "sanitizer report:\n" + r.stderr
        return r

    def ok(self, *args):
        r = self(*args)
        assert r.returncode == 0, "edgeq %s failed (%d):\n%s" % (" ".join(map(str, args)),
                                                                 r.returncode, r.stderr)
        return r

    def float_run(self, model, x, tmp, n_out=1, extra=()):
        """Run `model` on x (an array, N samples stacked, or a path); returns
        the outputs as arrays."""
        if isinstance(x, np.ndarray):
            xp = os.path.join(str(tmp), "x.npy")
            np.save(xp, x)
        else:
            xp = x
        outs = [os.path.join(str(tmp), "y%d.npy" % k) for k in range(n_out)]
        args = [a for o in outs for a in ("--output", o)]
        self.ok("float-run", model, "--input", xp, *args, *extra)
        return [np.load(o) for o in outs]

    def graph(self, model, tmp, extra=()):
        p = os.path.join(str(tmp), "graph.json")
        self.ok("float-run", model, "--graph", p, *extra)
        with open(p) as f:
            return json.load(f)

    def ranges(self, model, tmp, *extra):
        p = os.path.join(str(tmp), "ranges.json")
        r = self.ok("float-run", model, "--ranges", p, *extra)
        with open(p) as f:
            doc = json.load(f)
        doc["stderr"] = r.stderr
        doc["by_name"] = {n["name"]: n for n in doc["nodes"]}
        return doc


@pytest.fixture(params=("edgeq", "asan"))
def cli(request):
    return Cli(_binary(request.param))


@pytest.fixture(scope="module")
def edgeq():
    return Cli(_binary("edgeq"))


def rel_err(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape, (got.shape, want.shape)
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


def need(path, what):
    if not os.path.exists(path):
        pytest.skip("%s not present (%s)" % (what, path))
    return path


def fixture_model(name, ext="h5"):
    return need(os.path.join(FIX, "%s.%s" % (name, ext)),
                "float_exec fixture: run tests/quantize/gen_float_fixtures.py")


def fixture_io(name):
    z = np.load(os.path.join(FIX, name + ".io.npz"))
    ys = [z["y%d" % k] for k in range(len([f for f in z.files if f.startswith("y")]))]
    return z["x"], ys


# ------------------------------------------------- outputs against Keras


FIXTURE_MODELS = ("seq_conv", "func_mix", "bn_edge", "gray")


@pytest.mark.parametrize("passes", (True, False), ids=("passes", "no-passes"))
@pytest.mark.parametrize("ext", ("h5", "keras"))
@pytest.mark.parametrize("name", FIXTURE_MODELS)
def test_fixture_models_match_keras(cli, tmp_path, name, ext, passes):
    model = fixture_model(name, ext)
    x, ys = fixture_io(name)
    got = cli.float_run(model, x, tmp_path, len(ys), () if passes else ("--no-passes",))
    for g, y in zip(got, ys):
        assert rel_err(g, y) < REL_TOL


def _keras_fixture_models():
    p = os.path.join(KERAS_FIX, "MANIFEST.json")
    if not os.path.exists(p):
        return []
    with open(p) as f:
        models = json.load(f).get("models", {})
    return [(name, fn, m["inputs"], m["outputs"]) for name, m in sorted(models.items())
            for fn in m["files"]]


@pytest.mark.parametrize("name,fn,n_in,n_out", _keras_fixture_models())
def test_loader_fixtures_match_keras(edgeq, tmp_path, name, fn, n_in, n_out):
    """The loader's Keras fixtures (tests/fixtures/keras), with the passes."""
    xs = [np.load(os.path.join(KERAS_FIX, "%s.in%d.npy" % (name, k))) for k in range(n_in)]
    if n_in == 1:
        x = xs[0]
    else:  # several inputs: an .npz, arrays in input order
        x = os.path.join(str(tmp_path), "x.npz")
        np.savez(x, *xs)
    for passes in ((), ("--no-passes",)):
        got = edgeq.float_run(os.path.join(KERAS_FIX, fn), x, tmp_path, n_out, passes)
        for k, g in enumerate(got):
            want = np.load(os.path.join(KERAS_FIX, "%s.out%d.npy" % (name, k)))
            assert rel_err(g, want.reshape(g.shape)) < REL_TOL, (fn, k, passes)


def shared_input(key, kind, n, shape_tail):
    if kind == "strww_calib":
        return np.load(need(SWW_CALIB, "str_ww calibration set"))["specs"].astype(np.float32)
    return det_input((n,) + tuple(shape_tail), kind, seed=len(key))


SHARED_SHAPES = {"ad01": (640,), "resnet": (32, 32, 3), "vww": (96, 96, 3),
                 "strww": (30, 1, 40)}


@pytest.mark.parametrize("key,rel,kind,n", SHARED_MODELS, ids=[m[0] for m in SHARED_MODELS])
def test_shared_models_match_keras(edgeq, tmp_path, key, rel, kind, n):
    model = need(os.path.join(TINY_MODELS, rel), "../shared models")
    refs = np.load(need(os.path.join(FIX, "shared_refs.npz"), "shared_refs.npz fixture"))
    x = shared_input(key, kind, n, SHARED_SHAPES[key])
    (got,) = edgeq.float_run(model, x, tmp_path)
    assert rel_err(got, refs[key]) < REL_TOL
    assert (got.argmax(-1) == refs[key].argmax(-1)).all()


@pytest.mark.parametrize("key", sorted(FLOAT_TWINS))
def test_shared_models_match_float_twins(edgeq, tmp_path, key):
    """Against the official fp32 .tflite twins, run live in ai-edge-litert.
    ad01_fp32.tflite is not an exact twin of ad01.h5: Keras's own outputs
    differ from it by ~1.5% (max relative), so it gets that bound; resnet and
    vww agree to float rounding."""
    from ai_edge_litert.interpreter import Interpreter

    key_, rel, kind, n = next(m for m in SHARED_MODELS if m[0] == key)
    model = need(os.path.join(TINY_MODELS, rel), "../shared models")
    twin = need(os.path.join(TINY_MODELS, FLOAT_TWINS[key]), "float twin")
    x = shared_input(key, kind, n, SHARED_SHAPES[key])
    (got,) = edgeq.float_run(model, x, tmp_path)
    it = Interpreter(model_path=twin)
    it.allocate_tensors()
    i, o = it.get_input_details()[0], it.get_output_details()[0]
    want = []
    for s in x:
        it.set_tensor(i["index"], s[None])
        it.invoke()
        want.append(it.get_tensor(o["index"])[0])
    tol = 0.03 if key == "ad01" else REL_TOL
    assert rel_err(got, np.array(want)) < tol


def test_live_keras_models(edgeq, tmp_path):
    """Fresh models with fresh random weights, built and run by Keras here."""
    keras = pytest.importorskip("keras", reason="keras (tests/requirements-gen.txt) not installed")
    pytest.importorskip("tensorflow", reason="tensorflow not installed")
    import sys
    sys.path.insert(0, HERE)
    import gen_float_fixtures as gen

    rng = np.random.default_rng()
    for name, (model, (kind, shape)) in gen.models(keras).items():
        gen.randomize_bn(model, rng)
        for ext in ("keras", "h5"):
            p = os.path.join(str(tmp_path), "%s.%s" % (name, ext))
            model.save(p)
            x = det_input(shape, kind, seed=int(rng.integers(1000)))
            ys = model.predict(x, verbose=0)
            ys = ys if isinstance(ys, list) else [ys]
            got = edgeq.float_run(p, x, tmp_path, len(ys))
            for g, y in zip(got, ys):
                assert rel_err(g, y) < REL_TOL, (name, ext)


# ------------------------------------------------------------- the passes

FUSABLE = {"linear", "relu", "relu6", "relu_n1_to_1"}


def check_invariants(g):
    """What every graph after the passes satisfies."""
    for i, n in enumerate(g["nodes"]):
        assert all(0 <= k < i for k in n["in"]), "not topological at %s" % n["name"]
        assert n["op"] not in ("BatchNormalization", "Identity"), n
        if n["op"] != "Activation":
            assert n["act"] in FUSABLE, n
        if n["op"] == "Rescaling":
            assert g["nodes"][n["in"][0]]["op"] != "Input", "leading Rescaling not folded"
    for k in g["outputs"]:
        assert 0 <= k < len(g["nodes"])


def ops(g):
    return [(n["op"], n["act"]) for n in g["nodes"]]


def test_passes_seq_conv(cli, tmp_path):
    g = cli.graph(fixture_model("seq_conv"), tmp_path)
    check_invariants(g)
    assert g["passes"]["bn_folded"] == 2 and g["passes"]["activations_fused"] == 2
    assert g["passes"]["identities_removed"] == 1  # the Dropout
    assert ops(g) == [
        ("Input", "linear"), ("Conv2D", "relu"), ("DepthwiseConv2D", "relu6"),
        ("MaxPooling2D", "linear"), ("Conv2D", "linear"), ("Activation", "tanh"),
        ("ZeroPadding2D", "linear"), ("AveragePooling2D", "linear"), ("Conv2D", "linear"),
        ("Activation", "sigmoid"), ("DepthwiseConv2D", "linear"),
        ("GlobalAveragePooling2D", "linear"), ("Dense", "linear"), ("Softmax", "linear")]
    assert g["outputs"] == [len(g["nodes"]) - 1]


def test_passes_func_mix(cli, tmp_path):
    g = cli.graph(fixture_model("func_mix", "keras"), tmp_path)
    check_invariants(g)
    p = g["passes"]
    assert p["rescales_folded"] == 1 and p["bn_folded"] == 1 and p["bn_to_depthwise"] == 1
    (inp,) = g["inputs"]
    assert inp["folded"] == 1
    assert inp["scale"] == pytest.approx(1 / 127.5, rel=1e-6)
    assert inp["offset"] == pytest.approx(-1.0)
    # the BN after the Add became a per-channel affine: a 1x1 depthwise
    dw = [n for n in g["nodes"] if n["op"] == "DepthwiseConv2D"]
    assert len(dw) == 1 and g["nodes"][dw[0]["in"][0]]["op"] == "Add"
    assert dw[0]["shape"] == [1, 12, 12, 8]
    assert [g["nodes"][k]["op"] for k in g["outputs"]] == ["Softmax", "Dense"]


def test_passes_bn_edge(cli, tmp_path):
    g = cli.graph(fixture_model("bn_edge"), tmp_path)
    check_invariants(g)
    p = g["passes"]
    assert p["bn_folded"] == 0 and p["bn_to_depthwise"] == 3
    # the first BN: reshape [1,10] -> [1,1,1,10], depthwise, reshape back
    n = g["nodes"]
    assert [x["op"] for x in n[:4]] == ["Input", "Reshape", "DepthwiseConv2D", "Reshape"]
    assert n[1]["shape"] == [1, 1, 1, 10] and n[3]["shape"] == [1, 10]
    # the rank-3 BN's reshapes merged with the Reshape/Flatten around it
    assert p["reshapes_merged"] == 2
    assert sum(x["op"] == "Reshape" for x in n) == 6


def test_passes_shared_models(edgeq, tmp_path):
    need(TINY_MODELS, "../shared models")
    g = edgeq.graph(os.path.join(TINY_MODELS, "visual_wake_words/vww_96.h5"), tmp_path)
    check_invariants(g)
    counts = {}
    for n in g["nodes"]:
        counts[n["op"]] = counts.get(n["op"], 0) + 1
    assert counts == {"Input": 1, "Conv2D": 14, "DepthwiseConv2D": 13, "AveragePooling2D": 1,
                      "Reshape": 1, "Dense": 1, "Softmax": 1}
    assert all(n["act"] == "relu" for n in g["nodes"] if n["op"] in ("Conv2D", "DepthwiseConv2D"))
    assert g["passes"]["bn_folded"] == 27 and g["passes"]["activations_fused"] == 27

    g = edgeq.graph(os.path.join(TINY_MODELS, "image_classification/pretrainedResnet.h5"),
                    tmp_path)
    check_invariants(g)
    assert g["passes"]["bn_folded"] == 7 and g["passes"]["bn_to_depthwise"] == 0
    adds = [n for n in g["nodes"] if n["op"] == "Add"]
    assert len(adds) == 3 and all(n["act"] == "relu" for n in adds)

    g = edgeq.graph(os.path.join(TINY_MODELS, "streaming_wakeword/str_ww_ref_model.h5"),
                    tmp_path)
    check_invariants(g)
    assert g["passes"]["identities_removed"] == 4  # Dropout
    assert g["passes"]["bn_folded"] == 4

    g = edgeq.graph(os.path.join(TINY_MODELS, "anomaly_detection/ad01.h5"), tmp_path)
    check_invariants(g)
    assert [n["op"] for n in g["nodes"]] == ["Input"] + ["Dense"] * 10
    assert [n["act"] for n in g["nodes"][1:]] == ["relu"] * 9 + ["linear"]


# ------------------------------------------------------------ calibration


def tflite_params(lo, hi):
    """TFLite's asymmetric int8 scale for a float range (0 included)."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    return (hi - lo) / 255.0


def test_minmax_ranges(cli, tmp_path):
    model = fixture_model("func_mix")
    x, _ = fixture_io("func_mix")
    np.save(tmp_path / "c.npy", x)
    r = cli.ranges(model, tmp_path, "--calib", tmp_path / "c.npy")
    assert r["method"] == "minmax" and r["samples"] == len(x)
    # the input node stands for the rescaled tensor once Rescaling is folded
    xin = x * np.float32(1 / 127.5) - 1.0
    inp = r["nodes"][0]
    assert inp["min"] == pytest.approx(min(xin.min(), 0), abs=1e-6)
    assert inp["max"] == pytest.approx(max(xin.max(), 0), abs=1e-6)
    # an output's range is the min/max of what the executor computes
    (y0, y1) = cli.float_run(model, x, tmp_path, 2)
    reg = r["by_name"]["reg"]
    assert reg["min"] == pytest.approx(min(y1.min(), 0), rel=1e-6)
    assert reg["max"] == pytest.approx(max(y1.max(), 0), rel=1e-6)
    for n in r["nodes"]:
        assert n["min"] <= 0.0 <= n["max"], n


def test_strww_ranges_match_official_converter(edgeq, tmp_path):
    """str_ww's int8 twin was made by the TF converter from the calibration
    set in ../shared: each activation's scale there is TFLite's min/max
    calibration of that tensor. edgeq's minmax ranges give the same scales."""
    from ai_edge_litert.interpreter import Interpreter

    model = need(os.path.join(TINY_MODELS, "streaming_wakeword/str_ww_ref_model.h5"),
                 "../shared models")
    twin = os.path.join(TINY_MODELS, "streaming_wakeword/str_ww_ref_model.tflite")
    r = edgeq.ranges(model, tmp_path, "--calib", need(SWW_CALIB, "str_ww calibration set"))
    assert r["samples"] == 45
    it = Interpreter(model_path=twin)
    tensors = {t["index"]: t for t in it.get_tensor_details()}
    official = []
    for op in it._get_ops_details():
        if op["op_name"] in ("DEPTHWISE_CONV_2D", "CONV_2D", "RESHAPE", "FULLY_CONNECTED"):
            official.append((op["op_name"], tensors[op["outputs"][0]]["quantization"][0]))
    ours = [n for n in r["nodes"] if n["op"] in ("DepthwiseConv2D", "Conv2D", "Reshape",
                                                 "Dense")]
    assert len(ours) == len(official) == 10
    for (name, scale), n in zip(official, ours):
        assert tflite_params(n["min"], n["max"]) == pytest.approx(scale, rel=0.01), (name, n)


def crafted_data(n=4000, outliers=True):
    """Heavy-tailed samples for bn_edge's [1,10] input: a Laplace bulk with
    asymmetric sides, and (optionally) three far outliers."""
    u = det_input((n, 10), "unit", seed=3).astype(np.float64)
    v = det_input((n, 10), "unit", seed=4).astype(np.float64)
    x = np.where(v < 0.5, np.log(2 * u + 1e-9) * 0.7, -np.log(2 * u + 1e-9) * 1.3)
    if outliers:
        x[7, 3], x[1234, 5], x[99, 0] = 40.0, -25.0, 31.0
    return x.astype(np.float32)


def fake_quant_mse(x, lo, hi):
    scale = (hi - lo) / 255.0
    zp = np.round(-128 - lo / scale)
    q = np.clip(np.round(x / scale) + zp, -128, 127)
    return float(np.mean(((q - zp) * scale - x) ** 2))


def test_percentile_and_mse_ranges(cli, tmp_path):
    model = fixture_model("bn_edge")
    x = crafted_data()
    np.save(tmp_path / "c.npy", x)
    mm = cli.ranges(model, tmp_path, "--calib", tmp_path / "c.npy")["nodes"][0]
    pc = cli.ranges(model, tmp_path, "--calib", tmp_path / "c.npy", "--range", "percentile")
    ms = cli.ranges(model, tmp_path, "--calib", tmp_path / "c.npy", "--range=mse")
    assert pc["method"] == "percentile" and ms["method"] == "mse"
    pc, ms = pc["nodes"][0], ms["nodes"][0]
    assert (mm["min"], mm["max"]) == pytest.approx((-25.0, 40.0))
    # percentile: per side, the magnitude below which 99.99% of that side's
    # values lie (the ceil(0.9999 n)-th smallest), to a histogram bin
    for side, got in ((x[x > 0], pc["max"]), (-x[x < 0], -pc["min"])):
        k = int(np.ceil(0.9999 * side.size))
        want = np.sort(side)[k - 1]
        assert abs(got - want) <= side.max() / 1024, (got, want)
        assert got < side.max()
    # mse: the real int8 quantization error at edgeq's range is no worse
    # than at min/max and within 2% of the best clip a brute-force search
    # finds, with the far outliers (worth keeping) and without them
    for data, m in ((x, ms), (x_bulk := crafted_data(outliers=False), None)):
        if m is None:
            np.save(tmp_path / "c.npy", data)
            mm = cli.ranges(model, tmp_path, "--calib", tmp_path / "c.npy")["nodes"][0]
            m = cli.ranges(model, tmp_path, "--calib", tmp_path / "c.npy", "--range", "mse")
            m = m["nodes"][0]
        hi_max, lo_max = float(data.max()), float(-data.min())
        best = min(fake_quant_mse(data, -a, b) for a in np.linspace(lo_max / 8, lo_max, 57)
                   for b in np.linspace(hi_max / 8, hi_max, 57))
        got = fake_quant_mse(data, m["min"], m["max"])
        assert got <= fake_quant_mse(data, mm["min"], mm["max"]) * 1.001
        assert got <= best * 1.02, (got, best, m)
    assert x_bulk.max() < 40


def test_range_always_contains_zero(cli, tmp_path):
    x = np.abs(det_input((50, 10), "normal", seed=9)) + 1.0
    np.save(tmp_path / "c.npy", x)
    for m in ("minmax", "percentile", "mse"):
        r = cli.ranges(fixture_model("bn_edge"), tmp_path, "--calib", tmp_path / "c.npy",
                       "--range", m)
        assert r["nodes"][0]["min"] == 0.0 and r["nodes"][0]["max"] > 1.0
        for n in r["nodes"]:
            assert n["min"] <= 0.0 <= n["max"]


def test_calib_count(cli, tmp_path):
    x = det_input((30, 10), "normal", seed=2)
    np.save(tmp_path / "c.npy", x)
    r = cli.ranges(fixture_model("bn_edge"), tmp_path, "--calib", tmp_path / "c.npy",
                   "--calib-count", 7)
    assert r["samples"] == 7
    assert r["nodes"][0]["max"] == pytest.approx(max(x[:7].max(), 0))


def test_synthetic_fallback(cli, tmp_path):
    # Rescaling on the input: 8-bit pixels, uniform over [0, 255]
    r = cli.ok("float-run", fixture_model("func_mix"), "--dump-calib", tmp_path / "d.npy")
    assert "WARNING" in r.stderr and "SYNTHETIC" in r.stderr and "[0, 255]" in r.stderr
    d = np.load(tmp_path / "d.npy")
    assert d.shape == (100, 12, 12, 3)
    assert d.min() >= 0 and d.max() <= 255 and abs(d.mean() - 127.5) < 2
    # otherwise N(0, 1); reproducible
    r = cli.ok("float-run", fixture_model("bn_edge"), "--dump-calib", tmp_path / "e.npy",
               "--calib-count", 500)
    assert "N(0, 1)" in r.stderr
    e = np.load(tmp_path / "e.npy")
    assert e.shape == (500, 10) and abs(e.mean()) < 0.05 and abs(e.std() - 1) < 0.05
    cli.ok("float-run", fixture_model("bn_edge"), "--dump-calib", tmp_path / "f.npy",
           "--calib-count", 500)
    assert (np.load(tmp_path / "f.npy") == e).all()
    a = cli.ranges(fixture_model("bn_edge"), tmp_path)
    b = cli.ranges(fixture_model("bn_edge"), tmp_path)
    assert a["nodes"] == b["nodes"] and "SYNTHETIC" in a["stderr"]


def test_nonfinite_model_output_is_an_error(cli, tmp_path):
    x = det_input((3, 10), "normal")
    x[1, :] = 3e38  # finite data that overflows inside the model
    np.save(tmp_path / "c.npy", x)
    r = cli("float-run", fixture_model("bn_edge"), "--ranges", tmp_path / "r.json",
            "--calib", tmp_path / "c.npy")
    assert r.returncode == 1 and "calibration sample 1" in r.stderr, r.stderr
    assert not os.path.exists(tmp_path / "r.json")


# -------------------------------------------------- calibration data files


def dump(cli, model, calib, tmp_path, *extra):
    out = tmp_path / "dump.npy"
    cli.ok("float-run", model, "--calib", calib, "--dump-calib", out, *extra)
    return np.load(out)


def fails(cli, model, calib, *needles):
    r = cli("float-run", model, "--calib", calib, "--dump-calib", "/dev/null")
    assert r.returncode == 1, (r.returncode, r.stderr)
    for n in needles:
        assert n in r.stderr, (n, r.stderr)
    return r


def test_npy_forms(cli, tmp_path):
    m = fixture_model("seq_conv")
    x = det_input((3, 17, 19, 3), "normal")
    np.save(tmp_path / "a.npy", x)
    assert (dump(cli, m, tmp_path / "a.npy", tmp_path) == x).all()
    np.save(tmp_path / "b.npy", x[1])  # one sample, no batch dimension
    assert (dump(cli, m, tmp_path / "b.npy", tmp_path) == x[1:2]).all()
    np.save(tmp_path / "c.npy", (x * 10).astype(np.int16))  # any numeric dtype
    assert (dump(cli, m, tmp_path / "c.npy", tmp_path) == (x * 10).astype(np.int16)).all()
    np.save(tmp_path / "d.npy", x.astype(np.float64))
    assert (dump(cli, m, tmp_path / "d.npy", tmp_path) == x).all()


def test_wrong_shape_names_expected_and_got(cli, tmp_path):
    m = fixture_model("seq_conv")
    np.save(tmp_path / "w.npy", np.zeros((5, 17, 19, 4), np.float32))
    fails(cli, m, tmp_path / "w.npy", "w.npy", "(5,17,19,4)", "(17,19,3)", "(N,17,19,3)")
    np.save(tmp_path / "v.npy", np.zeros((17, 3), np.float32))
    fails(cli, m, tmp_path / "v.npy", "(17,3)")


def test_nan_in_data(cli, tmp_path):
    x = det_input((4, 10), "normal")
    x[2, 1] = np.nan
    np.save(tmp_path / "n.npy", x)
    fails(cli, fixture_model("bn_edge"), tmp_path / "n.npy", "n.npy", "sample 2", "NaN")


def test_npz_selection(cli, tmp_path):
    m = fixture_model("func_mix")  # input named "img"
    good = det_input((2, 12, 12, 3), "pixels")
    other = det_input((3, 12, 12, 3), "pixels", seed=5)
    np.savez(tmp_path / "named.npz", aaa=other, img=good, labels=np.arange(2))
    assert (dump(cli, m, tmp_path / "named.npz", tmp_path) == good).all()
    np.savez(tmp_path / "first.npz", labels=np.arange(3), specs=other, more=good)
    assert (dump(cli, m, tmp_path / "first.npz", tmp_path) == other).all()
    np.savez_compressed(tmp_path / "zipped.npz", specs=other)
    assert (dump(cli, m, tmp_path / "zipped.npz", tmp_path) == other).all()
    np.savez(tmp_path / "none.npz", labels=np.arange(3), wrong=np.zeros((2, 12, 12)))
    fails(cli, m, tmp_path / "none.npz", "no array fits input 'img'", "labels", "wrong")


def test_npz_from_the_official_converter_run(cli, tmp_path):
    model = need(os.path.join(TINY_MODELS, "streaming_wakeword/str_ww_ref_model.h5"),
                 "../shared models")
    d = dump(cli, model, need(SWW_CALIB, "str_ww calibration set"), tmp_path)
    want = np.load(SWW_CALIB)["specs"]
    assert d.shape == (45, 30, 1, 40) and (d == want.astype(np.float32)).all()


def test_raw_files_and_folders(cli, tmp_path):
    m = fixture_model("bn_edge")
    x = det_input((6, 10), "normal")
    x.tofile(tmp_path / "all.raw")  # a file: a whole number of samples
    assert (dump(cli, m, tmp_path / "all.raw", tmp_path) == x).all()
    (tmp_path / "odd.raw").write_bytes(x.tobytes()[:-4])
    fails(cli, m, tmp_path / "odd.raw", "odd.raw", "40 bytes each")
    d = tmp_path / "dir"
    (d / "sub").mkdir(parents=True)
    for i in range(4):  # in a folder: one sample per file, sorted by path
        x[i].tofile(d / ("s%d.bin" % i))
    np.save(d / "sub" / "more.npy", x[4:6])
    (d / "README.txt").write_text("skipped")
    (d / ".hidden").write_bytes(b"skipped")
    assert (dump(cli, m, d, tmp_path) == x).all()
    assert (dump(cli, m, d, tmp_path, "--calib-count", "3") == x[:3]).all()
    (d / "s9.bin").write_bytes(x.tobytes()[:80])
    fails(cli, m, d, "s9.bin", "one per file")
    e = tmp_path / "empty"
    e.mkdir()
    fails(cli, m, e, "no calibration files")
    fails(cli, m, tmp_path / "missing", "missing")


# ---- image encoders (the decoders' oracles)


def pnm(arr, kind, maxval=255):
    h, w = arr.shape[:2]
    head = b"P%d\n# a comment\n%d %d\n%d\n" % (kind, w, h, maxval)
    flat = arr.reshape(-1).astype(np.int64)
    if kind in (2, 3):
        return head + " ".join(str(v) for v in flat).encode() + b"\n"
    if maxval > 255:
        return head + flat.astype(">u2").tobytes()
    return head + flat.astype(np.uint8).tobytes()


def bmp(rgb, bpp, top_down=False):
    h, w = rgb.shape[:2]
    pal = b""
    if bpp == 8:  # palette: the distinct colours
        colours, idx = np.unique(rgb.reshape(-1, 3), axis=0, return_inverse=True)
        pal = b"".join(bytes([c[2], c[1], c[0], 0]) for c in colours)
        pix = idx.reshape(h, w).astype(np.uint8)
        rows = [pix[y].tobytes() for y in range(h)]
    else:
        bgr = rgb[..., ::-1].astype(np.uint8)
        if bpp == 32:
            bgr = np.concatenate([bgr, np.full((h, w, 1), 255, np.uint8)], axis=2)
        rows = [bgr[y].tobytes() for y in range(h)]
    stride = (w * bpp + 31) // 32 * 4
    rows = [r + b"\0" * (stride - len(r)) for r in rows]
    if not top_down:
        rows = rows[::-1]
    data = b"".join(rows)
    off = 14 + 40 + len(pal)
    head = b"BM" + struct.pack("<IHHI", off + len(data), 0, 0, off)
    info = struct.pack("<IiiHHIIiiII", 40, w, -h if top_down else h, 1, bpp, 0, len(data),
                       2835, 2835, len(pal) // 4, 0)
    return head + info + pal + data


def png_chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)


def png_filter(rows, bpp):
    """Filter each row with type (row index % 5): exercises all five."""
    out, prev = [], bytes(len(rows[0]))
    for r, row in enumerate(rows):
        ft = r % 5
        f = bytearray()
        for i, x in enumerate(row):
            a = row[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ft == 0:
                p = 0
            elif ft == 1:
                p = a
            elif ft == 2:
                p = b
            elif ft == 3:
                p = (a + b) // 2
            else:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                p = a if pa <= pb and pa <= pc else b if pb <= pc else c
            f.append((x - p) & 0xFF)
        out.append(bytes([ft]) + bytes(f))
        prev = row
    return b"".join(out)


def png_pack_rows(samples, depth):
    """samples: [h][w*spp] ints -> packed rows (big-endian, MSB first)."""
    rows = []
    for s in samples:
        if depth == 16:
            rows.append(np.asarray(s, ">u2").tobytes())
        elif depth == 8:
            rows.append(np.asarray(s, np.uint8).tobytes())
        else:
            bits = "".join(format(int(v), "0%db" % depth) for v in s)
            bits += "0" * (-len(bits) % 8)
            rows.append(bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8)))
    return rows


def png(samples, ctype, depth, palette=None, interlace=False):
    """samples: [h][w][spp] ints in the file's own range."""
    samples = np.asarray(samples)
    h, w, spp = samples.shape
    bpp = max(1, spp * depth // 8)
    if not interlace:
        raw = png_filter(png_pack_rows(samples.reshape(h, w * spp), depth), bpp)
    else:
        raw = b""
        for x0, y0, dx, dy in ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4),
                               (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)):
            sub = samples[y0::dy, x0::dx]
            if sub.size:
                sh, sw = sub.shape[:2]
                raw += png_filter(png_pack_rows(sub.reshape(sh, sw * spp), depth), bpp)
    out = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype,
                                                                    0, 0, int(interlace)))
    if palette is not None:
        out += png_chunk(b"PLTE", bytes(np.asarray(palette, np.uint8).reshape(-1)))
    out += png_chunk(b"tEXt", b"Comment\0ignored")
    z = zlib.compress(raw, 9)
    out += png_chunk(b"IDAT", z[:len(z) // 2]) + png_chunk(b"IDAT", z[len(z) // 2:])
    return out + png_chunk(b"IEND", b"")


def resize_ref(img, h, w):
    """tf.image.resize(method='bilinear', antialias=False): half-pixel
    centres, as TF's ResizeBilinear computes them (float32)."""
    ih, iw = img.shape[:2]
    if (ih, iw) == (h, w):
        return img.astype(np.float32)

    def axis(o, i):
        scale = np.float32(i) / np.float32(o)
        src = (np.arange(o, dtype=np.float32) + np.float32(0.5)) * scale - np.float32(0.5)
        fl = np.floor(src)
        lo = np.maximum(fl, 0).astype(int)
        hi = np.minimum(np.ceil(src), i - 1).astype(int)
        return lo, hi, (src - fl).astype(np.float32)

    y0, y1, ly = axis(h, ih)
    x0, x1, lx = axis(w, iw)
    img = img.astype(np.float32)
    lx = lx[None, :, None]
    top = img[y0][:, x0] + (img[y0][:, x1] - img[y0][:, x0]) * lx
    bot = img[y1][:, x0] + (img[y1][:, x1] - img[y1][:, x0]) * lx
    return top + (bot - top) * ly[:, None, None]


def to_channels(img, c):
    img = img.astype(np.float32)
    if img.shape[2] == c:
        return img
    if c == 3:
        return np.repeat(img, 3, axis=2)
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    grey = np.float32(0.2989) * r + np.float32(0.5870) * g + np.float32(0.1140) * b
    return np.where((r == g) & (g == b), r, grey)[..., None]


def test_resize_reference_is_tf(tmp_path):
    tf = pytest.importorskip("tensorflow", reason="tensorflow not installed")
    img = det_input((7, 13, 3), "pixels", seed=1)
    for h, w in ((17, 19), (3, 4), (7, 26), (12, 12)):
        want = tf.image.resize(img, (h, w), method="bilinear").numpy()
        assert np.abs(resize_ref(img, h, w) - want).max() < 1e-3


def rgb_image(h, w, seed=0):
    return det_input((h, w, 3), "pixels", seed=seed).astype(np.int64)


def check_image(cli, tmp_path, model, name, data, want_hwc, shape):
    """Decode `data` as calibration image `name` for `model` (input shape
    (h, w, c)) and compare with the numpy reference."""
    p = tmp_path / name
    p.write_bytes(data)
    got = dump(cli, model, p, tmp_path)
    want = resize_ref(to_channels(np.asarray(want_hwc, np.float32), shape[2]), shape[0], shape[1])
    assert got.shape == (1,) + shape
    assert np.abs(got[0] - want).max() < 1e-3, name


def test_pnm_images(cli, tmp_path):
    rgb = rgb_image(17, 19)
    grey = rgb[..., :1]
    sc = fixture_model("seq_conv")  # (17, 19, 3)
    gr = fixture_model("gray")      # (8, 10, 1)
    check_image(cli, tmp_path, sc, "a.ppm", pnm(rgb, 6), rgb, (17, 19, 3))
    check_image(cli, tmp_path, sc, "b.ppm", pnm(rgb, 3), rgb, (17, 19, 3))
    check_image(cli, tmp_path, sc, "c.pgm", pnm(grey, 5), grey, (17, 19, 3))
    check_image(cli, tmp_path, gr, "d.pgm", pnm(grey, 2), grey, (8, 10, 1))
    check_image(cli, tmp_path, gr, "e.ppm", pnm(rgb, 6), rgb, (8, 10, 1))
    g16 = grey * 257
    check_image(cli, tmp_path, gr, "f.pgm", pnm(g16, 5, 65535), g16 * 255.0 / 65535, (8, 10, 1))
    g4 = grey // 16
    check_image(cli, tmp_path, gr, "g.pgm", pnm(g4, 2, 15), g4 * 17.0, (8, 10, 1))


def test_bmp_images(cli, tmp_path):
    rgb = rgb_image(17, 19, seed=2)
    sc = fixture_model("seq_conv")
    check_image(cli, tmp_path, sc, "a.bmp", bmp(rgb, 24), rgb, (17, 19, 3))
    check_image(cli, tmp_path, sc, "b.bmp", bmp(rgb, 24, top_down=True), rgb, (17, 19, 3))
    check_image(cli, tmp_path, sc, "c.bmp", bmp(rgb, 32), rgb, (17, 19, 3))
    few = (rgb // 64) * 64  # <= 64 colours: an 8-bit palette
    check_image(cli, tmp_path, sc, "d.bmp", bmp(few, 8), few, (17, 19, 3))
    grey = np.repeat(rgb[..., :1], 3, axis=2)
    check_image(cli, tmp_path, fixture_model("gray"), "e.bmp", bmp(grey, 8), grey[..., :1],
                (8, 10, 1))


PNG_CASES = [  # (ctype, depth, samples per pixel)
    (0, 1, 1), (0, 2, 1), (0, 4, 1), (0, 8, 1), (0, 16, 1), (2, 8, 3), (2, 16, 3),
    (3, 1, 1), (3, 2, 1), (3, 4, 1), (3, 8, 1), (4, 8, 2), (4, 16, 2), (6, 8, 4), (6, 16, 4),
]


@pytest.mark.parametrize("interlace", (False, True), ids=("plain", "adam7"))
@pytest.mark.parametrize("ctype,depth,spp", PNG_CASES,
                         ids=["ct%d_d%d" % c[:2] for c in PNG_CASES])
def test_png_images(cli, tmp_path, ctype, depth, spp, interlace):
    h, w = 17, 19
    top = (1 << depth) - 1
    raw = det_input((h, w, spp), "unit", seed=depth * 10 + ctype)
    s = np.floor(raw * (top + 1)).astype(np.int64)
    palette = None
    if ctype == 3:
        n = 1 << depth
        palette = rgb_image(1, n, seed=4)[0]
        want = palette[s[..., 0]]
    else:
        colour = s[..., :3] if ctype in (2, 6) else s[..., :1]
        want = colour * 255.0 / top
    c = 3 if ctype in (2, 3, 6) else 1
    model, shape = (fixture_model("seq_conv"), (17, 19, 3)) if c == 3 else \
        (fixture_model("gray"), (8, 10, 1))
    check_image(cli, tmp_path, model, "i.png", png(s, ctype, depth, palette, interlace), want,
                shape)


def test_image_folder_in_order(cli, tmp_path):
    d = tmp_path / "imgs"
    (d / "b").mkdir(parents=True)
    imgs = [rgb_image(12, 12, seed=s) for s in range(3)]
    (d / "a.ppm").write_bytes(pnm(imgs[0], 6))
    (d / "b" / "x.png").write_bytes(png(imgs[1], 2, 8))
    (d / "c.bmp").write_bytes(bmp(imgs[2], 24))
    (d / "labels.csv").write_text("a,1\n")
    got = dump(cli, fixture_model("func_mix"), d, tmp_path)
    assert got.shape == (3, 12, 12, 3)
    for g, i in zip(got, imgs):
        assert (g == i).all()


def test_bad_images(cli, tmp_path):
    m = fixture_model("seq_conv")
    good = png(rgb_image(9, 9), 2, 8)
    cases = {
        "jpeg.jpg": (b"\xff\xd8\xff\xe0" + b"\0" * 100, "JPEG is not supported"),
        "trunc.png": (good[:60], "trunc.png"),
        "crc.png": (good[:40] + bytes([good[40] ^ 1]) + good[41:], "CRC"),
        "noiend.png": (good[:-12], "noiend.png"),
        "huge.png": (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(
            ">IIBBBBB", 16000, 16000, 16, 6, 0, 0, 0)) + png_chunk(b"IDAT", zlib.compress(b"\0"))
            + png_chunk(b"IEND", b""), "huge.png"),
        "zlib.png": (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(
            ">IIBBBBB", 4, 4, 8, 0, 0, 0, 0)) + png_chunk(b"IDAT", b"\x78\x9c\xff\xff\xff")
            + png_chunk(b"IEND", b""), "corrupt"),
        "bigdim.png": (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(
            ">IIBBBBB", 1 << 20, 4, 8, 0, 0, 0, 0)), "image size"),
        "trunc.bmp": (bmp(rgb_image(9, 9), 24)[:100], "truncated"),
        "rle.bmp": (bmp(rgb_image(9, 9), 24)[:30] + struct.pack("<I", 1)
                    + bmp(rgb_image(9, 9), 24)[34:], "compressed"),
        "trunc.ppm": (pnm(rgb_image(9, 9), 6)[:50], "truncated"),
        "maxval.pgm": (b"P5 4 4 0\n" + b"\0" * 16, "maxval"),
        "ascii.pgm": (b"P2 2 2 255\n1 2 3\n", "missing"),
    }
    for name, (data, needle) in cases.items():
        (tmp_path / name).write_bytes(data)
        fails(cli, m, tmp_path / name, name, needle)
    # every truncation of a good PNG fails cleanly
    for cut in range(8, len(good), 7):
        (tmp_path / "cut.png").write_bytes(good[:cut])
        fails(cli, m, tmp_path / "cut.png", "cut.png")


def test_image_for_a_non_image_input(cli, tmp_path):
    (tmp_path / "a.ppm").write_bytes(pnm(rgb_image(4, 4), 6))
    fails(cli, fixture_model("bn_edge"), tmp_path / "a.ppm", "a.ppm", "not an image input")


def test_float_run_usage(cli, tmp_path):
    r = cli("float-run")
    assert r.returncode == 2 and "no model" in r.stderr
    r = cli("float-run", fixture_model("bn_edge"), "--range", "median")
    assert r.returncode == 2 and "median" in r.stderr
    r = cli("float-run", fixture_model("func_mix"), "--input", "x.npy", "--output", "a.npy")
    assert r.returncode == 2 and "2 outputs" in r.stderr
    r = cli("float-run", "--help")
    assert r.returncode == 0 and "float-run" in r.stdout
