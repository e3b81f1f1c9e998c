# SPDX-License-Identifier: Apache-2.0
"""Issue 20's first-day quantizer items, on the real edgeq binary with the
zoo (models/) and the shared MLPerf Tiny models (../shared):

- calibration data that does not look like the model's input is never
  silent: per-input "as read" / "as fed" report lines, announced image
  conversions, --calib-range / --mean / --std for image folders, and
  WARNINGs for a Rescaling, the first BatchNormalization's statistics, a
  previous .tflite's input range and a user-given range that the data does
  not match; bad calibration files are errors (exit 1), bad options usage
  errors (exit 2), and nothing is written either way;
- the output path rule: an output that is an input (also ./, symlink, hard
  link) is refused, an existing output of another kind needs --force, and a
  failure never leaves a partial or clobbered file (quantize, bf16, export
  --c / --ops, run --output).

Expected numbers come from NumPy (pixel statistics of the images the test
writes) and LiteRT (a .tflite's input quantization), not from edgeq.
"""

import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "conformance"))
import oracle  # noqa: E402
import qdata  # noqa: E402

ZOO = os.path.join(REPO, "models")
MNIST_DIR = os.path.join(ZOO, "calib", "mnist")
IRIS = os.path.join(ZOO, "iris_mlp", "iris_mlp.keras")
IRIS_NPY = os.path.join(ZOO, "calib", "iris.npy")
MNIST_CNN = os.path.join(ZOO, "mnist_cnn", "mnist_cnn.h5")
VWW = qdata.model_path("vww")
HAVE_SHARED = os.path.isfile(VWW)
needs_shared = pytest.mark.skipif(not HAVE_SHARED, reason="../shared/models/mlcommons-tiny is "
                                  "absent: vww_96.h5 is needed")

SANITIZER_EXIT = 86
SAN_ENV = {
    "ASAN_OPTIONS": "exitcode=%d:detect_leaks=1:abort_on_error=0" % SANITIZER_EXIT,
    "UBSAN_OPTIONS": "halt_on_error=1:exitcode=%d:print_stacktrace=1" % SANITIZER_EXIT,
    "LSAN_OPTIONS": "exitcode=%d:suppressions=%s" % (SANITIZER_EXIT,
                                                     os.path.join(HERE, "lsan_hdf5.supp")),
}
OK, FAIL, USAGE = 0, 1, 2


class Cli:
    def __init__(self, path):
        self.path = path

    def __call__(self, *args, cwd=None):
        r = subprocess.run([self.path] + [str(a) for a in args], capture_output=True, text=True,
                           errors="replace", env=dict(os.environ, **SAN_ENV), timeout=600,
                           stdin=subprocess.DEVNULL, cwd=cwd)
        assert r.returncode != SANITIZER_EXIT, "sanitizer report:\n" + r.stderr
        assert "Sanitizer" not in r.stderr and "runtime error" not in r.stderr, r.stderr
        return r


def _binary(kind):
    p = oracle.edgeq_path() if kind == "edgeq" else oracle.asan_path()
    if not (os.path.isfile(p) and os.access(p, os.X_OK)):
        if kind == "edgeq":
            pytest.fail("edgeq CLI %s not found: build it first (`make`)" % p, pytrace=False)
        pytest.skip("ASan+UBSan build %s not built (`make asan`)" % p)
    return p


@pytest.fixture(scope="module")
def cli():
    return Cli(_binary("edgeq"))


@pytest.fixture(params=["edgeq", "asan"])
def any_cli(request):
    return Cli(_binary(request.param))


def warnings(stderr):
    return [ln for ln in stderr.splitlines() if "WARNING" in ln]


def md5(path):
    return hashlib.md5(open(path, "rb").read()).hexdigest()


def write_ppm_dir(d, x):
    """x: [N, H, W, 3] float 0..255 whole values -> one binary PPM each."""
    os.makedirs(d, exist_ok=True)
    for i, a in enumerate(x):
        h, w = a.shape[:2]
        with open(os.path.join(d, "%03d.ppm" % i), "wb") as f:
            f.write(b"P6 %d %d 255\n" % (w, h) + np.round(a).astype(np.uint8).tobytes())
    return d


@pytest.fixture(scope="module")
def vww_data(tmp_path_factory):
    """qdata's vww calibration samples (0..1) as an .npy, and the same as a
    folder of RGB 96x96 PPMs (pixels 0..255)."""
    if not HAVE_SHARED:
        pytest.skip("../shared absent")
    d = tmp_path_factory.mktemp("vww")
    x, _ = qdata.data_for("vww")
    x = x[:24]
    npy = d / "vww01.npy"
    np.save(npy, x)
    pixels = np.round(x * 255.0)
    img = write_ppm_dir(str(d / "img"), pixels)
    return dict(npy=npy, img=img, pixels=pixels)


# ------------------------------------------------------------ the issue's case

@needs_shared
def test_issue_case_mnist_digits_for_vww_warns(any_cli, tmp_path):
    """`edgeq vww_96.h5 v.tflite --calib models/calib/mnist`: grey 28x28
    digits 0..255 for a 96x96 RGB model trained on 0..1."""
    out = tmp_path / "v.tflite"
    r = any_cli(VWW, out, "--calib", MNIST_DIR)
    assert r.returncode == OK, r.stderr
    w = warnings(r.stderr)
    assert len(w) == 2, r.stderr
    assert "calibration images converted to fit input 'input_1' [1,96,96,3]" in w[0]
    assert "100 grey -> RGB (copied to 3 channels), 100 resized 28x28 -> 96x96" in w[0]
    assert "does not match the statistics the model was trained with" in w[1]
    assert "first layer conv2d (Conv2D) + batch_normalization" in w[1]
    assert "larger than what it was trained on (0..255 where it expects 0..1?" in w[1]
    # the report: as read (NumPy's view of the same PGMs) and as fed
    pix = np.stack([np.frombuffer(open(os.path.join(MNIST_DIR, f), "rb").read()[-784:],
                                  np.uint8) for f in sorted(os.listdir(MNIST_DIR))])
    assert "as read: 100 grey 28x28 images; values %d..%d" % (pix.min(), pix.max()) in r.stdout
    assert "mean %.6g (pixels)" % pix.mean() in r.stdout
    assert "as fed:  100 x [1,96,96,3]; values 0..255" in r.stdout
    assert "pixels fed as 0..255 (the default: no --calib-range or --mean/--std)" in r.stdout
    assert "converted: 100 grey -> RGB" in r.stdout


@needs_shared
def test_issue_case_with_proper_data_is_quiet(cli, tmp_path, vww_data):
    for args in (["--calib", vww_data["npy"]],
                 ["--calib", vww_data["img"], "--calib-range", "0,1"],
                 ["--calib", vww_data["img"], "--mean", "0", "--std", "255"],
                 ["--calib", vww_data["img"], "--mean", "0,0,0", "--std", "255,255,255"]):
        rep = tmp_path / "r.json"
        r = cli(VWW, tmp_path / "v.tflite", *args, "--report", rep)
        assert r.returncode == OK, r.stderr
        assert warnings(r.stderr) == [], (args, r.stderr)
        inp = json.load(open(rep))["calibration"]["inputs"][0]
        assert json.load(open(rep))["calibration"]["warnings"] == 0
        assert inp["fed_min"] == 0.0 and inp["fed_max"] == 1.0
        want = vww_data["pixels"].mean() / 255.0
        assert abs(inp["fed_mean"] - want) < 1e-5, (inp, want)
        assert "off by" in r.stdout


@needs_shared
def test_images_without_normalisation_for_a_0_1_model_warn(cli, tmp_path, vww_data):
    r = cli(VWW, tmp_path / "v.tflite", "--calib", vww_data["img"])
    assert r.returncode == OK, r.stderr
    w = warnings(r.stderr)
    assert len(w) == 1 and "larger than what it was trained on" in w[0], r.stderr
    assert "24 RGB 96x96 images" in r.stdout
    assert "converted" not in r.stdout  # same size and channels: nothing to announce


@needs_shared
def test_previous_tflite_input_range(cli, tmp_path, vww_data):
    """Re-quantizing over an existing .tflite: its input range (read here
    with LiteRT) against the new data's."""
    out = tmp_path / "v.tflite"
    assert cli(VWW, out, "--calib", vww_data["npy"]).returncode == OK
    from ai_edge_litert.interpreter import Interpreter
    scale, zp = Interpreter(model_path=str(out)).get_input_details()[0]["quantization"]
    lo, hi = (-128 - zp) * scale, (127 - zp) * scale
    r = cli(VWW, out, "--calib", vww_data["img"])  # 0..255 now
    assert r.returncode == OK, r.stderr
    w = [x for x in warnings(r.stderr) if "being replaced" in x]
    assert len(w) == 1, r.stderr
    assert "took %.4g..%.4g" % (lo, hi) in w[0]
    assert "previous %s: int8 input covered" % out in r.stdout
    # the same data again over it: consistent, no such warning
    r = cli(VWW, out, "--calib", vww_data["npy"])
    r = cli(VWW, out, "--calib", vww_data["npy"])
    assert r.returncode == OK and warnings(r.stderr) == [], r.stderr


# ------------------------------------------------------------ zoo models (no ../shared)

def test_rescaling_model_with_prescaled_data_warns(any_cli, tmp_path):
    """mnist_cnn starts with Rescaling(1/255): data already in 0..1 is wrong."""
    pix = np.stack([np.frombuffer(open(os.path.join(MNIST_DIR, f), "rb").read()[-784:],
                                  np.uint8) for f in sorted(os.listdir(MNIST_DIR))[:20]])
    x01 = (pix.reshape(-1, 28, 28, 1) / 255.0).astype(np.float32)
    np.save(tmp_path / "x01.npy", x01)
    r = any_cli(MNIST_CNN, tmp_path / "m.tflite", "--calib", tmp_path / "x01.npy")
    assert r.returncode == OK, r.stderr
    w = warnings(r.stderr)
    assert len(w) == 1, r.stderr
    assert "starts with a Rescaling (x * 0.00392157 + 0) made for data spanning about 255" in w[0]
    assert "already rescaled?" in w[0]
    assert "as read: float32 (20,28,28,1); values 0..1" in r.stdout
    # the zoo's own calibration folder is what the model takes: quiet
    r = any_cli(MNIST_CNN, tmp_path / "m2.tflite", "--calib", MNIST_DIR)
    assert r.returncode == OK and warnings(r.stderr) == [], r.stderr
    assert "the model then scales them: x * 0.00392157 + 0 (its Rescaling) -> 0..1" in r.stdout
    # ... unless the images are mapped to 0..1 on top of the Rescaling
    r = any_cli(MNIST_CNN, tmp_path / "m3.tflite", "--calib", MNIST_DIR, "--calib-range", "0,1")
    assert r.returncode == OK and len(warnings(r.stderr)) == 1, r.stderr


def test_calib_range_on_arrays_is_checked(cli, tmp_path):
    x = np.load(IRIS_NPY)
    r = cli(IRIS, tmp_path / "i.tflite", "--calib", IRIS_NPY, "--calib-range", "0,1")
    assert r.returncode == OK
    w = warnings(r.stderr)
    assert len(w) == 1 and "far from --calib-range 0,1" in w[0], r.stderr
    assert "spans %.4g..%.4g" % (x.min(), x.max()) in w[0]
    r = cli(IRIS, tmp_path / "i.tflite", "--calib", IRIS_NPY, "--calib-range", "0,8")
    assert r.returncode == OK and warnings(r.stderr) == [], r.stderr


def test_report_json_lists_each_input(cli, tmp_path):
    x = np.load(IRIS_NPY)
    rep = tmp_path / "r.json"
    r = cli(IRIS, tmp_path / "i.tflite", "--calib", IRIS_NPY, "--report", rep, "-q")
    assert r.returncode == OK and r.stdout == ""
    c = json.load(open(rep))["calibration"]
    assert c["warnings"] == 0 and len(c["inputs"]) == 1
    i = c["inputs"][0]
    assert i["read"] == "float32 (%d,4)" % len(x)
    assert i["fed_min"] == pytest.approx(float(x.min()))
    assert i["fed_max"] == pytest.approx(float(x.max()))
    assert i["fed_mean"] == pytest.approx(float(x.mean()), rel=1e-5)
    assert i["warnings"] == []


def _bad_calib(tmp):
    np.save(tmp / "c64.npy", np.zeros((5, 4), np.complex64))
    np.save(tmp / "str.npy", np.array([["a"] * 4] * 5))
    np.save(tmp / "obj.npy", np.array([[1, 2, 3, 4]] * 5, dtype=object), allow_pickle=True)
    np.save(tmp / "shape.npy", np.zeros((5, 7), np.float32))
    os.makedirs(tmp / "empty", exist_ok=True)
    os.makedirs(tmp / "png", exist_ok=True)
    (tmp / "png" / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 30)
    os.makedirs(tmp / "jpg", exist_ok=True)
    (tmp / "jpg" / "a.jpg").write_bytes(b"\xff\xd8\xff\xe0" + b"\0" * 30)
    return [
        (IRIS, "c64.npy", "unsupported dtype '<c8' (complex)"),
        (IRIS, "str.npy", "unsupported dtype '<U1' (strings)"),
        (IRIS, "obj.npy", "object arrays are not supported"),
        (IRIS, "shape.npy", "calibration data of shape (5,7) does not fit input 'features'"),
        (IRIS, "empty", "the folder holds no calibration files"),
        (MNIST_CNN, "png", "fails its CRC"),
        (MNIST_CNN, "jpg", "JPEG is not supported"),
        (IRIS, "png", "an image, but input 'features' is not an image input"),
    ]


@pytest.mark.parametrize("case", range(8))
def test_bad_calibration_files_are_errors(any_cli, tmp_path, case):
    model, name, msg = _bad_calib(tmp_path)[case]
    out = tmp_path / "o.tflite"
    r = any_cli(model, out, "--calib", tmp_path / name)
    assert r.returncode == FAIL, r.stderr
    assert msg in r.stderr
    assert not out.exists()
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".") or "tmp" in f]


@pytest.mark.parametrize("args,msg", [
    (["--calib-range", "1,0"], "--calib-range needs LO,HI with LO < HI"),
    (["--calib-range", "0"], "--calib-range needs LO,HI"),
    (["--mean", "1,2"], "--mean needs one value or three"),
    (["--mean", "1"], "--mean and --std go together"),
    (["--mean", "1", "--std", "0"], "--std needs one positive value or three"),
    (["--mean", "1,2,3", "--std", "2"], "--mean has 3 values but --std 1"),
    (["--mean", "1", "--std", "2", "--calib-range", "0,1"], "give one of them"),
])
def test_normalisation_usage_errors(cli, tmp_path, args, msg):
    r = cli(MNIST_CNN, tmp_path / "o.tflite", "--calib", MNIST_DIR, *args)
    assert r.returncode == USAGE and msg in r.stderr, r.stderr
    assert not (tmp_path / "o.tflite").exists()
    r = cli(MNIST_CNN, tmp_path / "o.tflite", "--mean", "1", "--std", "2")
    assert r.returncode == USAGE and "applies to --calib data" in r.stderr


def test_three_channel_mean_on_a_grey_model(cli, tmp_path):
    r = cli(MNIST_CNN, tmp_path / "o.tflite", "--calib", MNIST_DIR, "--mean", "1,2,3",
            "--std", "1,1,1")
    assert r.returncode == FAIL and "--mean/--std give 3 channels but input 'image' has 1" \
        in r.stderr


def test_mean_std_applied_to_pixels(cli, tmp_path):
    pix = np.stack([np.frombuffer(open(os.path.join(MNIST_DIR, f), "rb").read()[-784:],
                                  np.uint8) for f in sorted(os.listdir(MNIST_DIR))])
    rep = tmp_path / "r.json"
    r = cli(MNIST_CNN, tmp_path / "o.tflite", "--calib", MNIST_DIR, "--mean", "127.5", "--std",
            "127.5", "--report", rep)
    assert r.returncode == OK, r.stderr
    i = json.load(open(rep))["calibration"]["inputs"][0]
    want = (pix.astype(np.float64) - 127.5) / 127.5
    assert i["fed_min"] == pytest.approx(want.min()) and i["fed_max"] == pytest.approx(want.max())
    assert i["fed_mean"] == pytest.approx(want.mean(), rel=1e-5)
    assert "(pixel - 127.5) / 127.5 (--mean/--std)" in r.stdout


# ------------------------------------------------------------ output paths

def _listing(d):
    return sorted(os.listdir(d))


@pytest.mark.parametrize("spelling", ["same", "dot", "symlink", "hardlink", "report"])
def test_output_that_is_the_input_is_refused(any_cli, tmp_path, spelling):
    m = tmp_path / "m.keras"
    m.write_bytes(open(IRIS, "rb").read())
    before = md5(m)
    if spelling == "same":
        args = ["m.keras", "m.keras"]
        msg = "output 'm.keras' is also an input: refusing to overwrite it (nothing was written)"
    elif spelling == "dot":
        args = ["m.keras", "./m.keras"]
        msg = "output './m.keras' is the same file as input 'm.keras' (a link or another spelling)"
    elif spelling == "symlink":
        os.symlink("m.keras", tmp_path / "s.tflite")
        args = ["m.keras", "s.tflite"]
        msg = "output 's.tflite' is the same file as input 'm.keras'"
    elif spelling == "hardlink":
        os.link(m, tmp_path / "h.tflite")
        args = ["m.keras", "h.tflite"]
        msg = "output 'h.tflite' is the same file as input 'm.keras'"
    else:
        args = ["m.keras", "o.tflite", "--report", "m.keras"]
        msg = "--report 'm.keras' is also an input"
    listing = _listing(tmp_path)
    r = any_cli(*args, "--calib", IRIS_NPY, "--force", cwd=tmp_path)  # --force does not help
    assert r.returncode == USAGE, r.stderr
    assert msg in r.stderr
    assert md5(m) == before and _listing(tmp_path) == listing


def test_existing_output_of_another_kind_needs_force(cli, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("precious\n")
    for extra in ([], ["--dtype", "bf16"]):
        r = cli(IRIS, notes, "--calib", IRIS_NPY, *extra)
        assert r.returncode == USAGE, r.stderr
        assert ("output '%s' exists and is not a .tflite file: refusing to replace it (pass "
                "--force to overwrite it; nothing was written)" % notes) in r.stderr
        assert notes.read_text() == "precious\n"
    rep = tmp_path / "rep.txt"
    rep.write_text("x")
    r = cli(IRIS, tmp_path / "o.tflite", "--calib", IRIS_NPY, "--report", rep)
    assert r.returncode == USAGE and "is not a .json file" in r.stderr
    assert not (tmp_path / "o.tflite").exists()
    r = cli(IRIS, notes, "--calib", IRIS_NPY, "--force", "-q")
    assert r.returncode == OK, r.stderr
    assert notes.read_bytes()[4:8] == b"TFL3"
    # an existing .tflite is simply replaced
    out = tmp_path / "o.tflite"
    out.write_bytes(b"old")
    assert cli(IRIS, out, "--calib", IRIS_NPY, "-q").returncode == OK
    assert out.read_bytes()[4:8] == b"TFL3"


def test_failure_leaves_the_existing_output_alone(cli, tmp_path):
    out = tmp_path / "o.tflite"
    assert cli(IRIS, out, "--calib", IRIS_NPY, "-q").returncode == OK
    before, listing = md5(out), _listing(tmp_path)
    np.save(tmp_path / "bad.npy", np.zeros((3, 9), np.float32))
    listing = _listing(tmp_path)
    for extra in ([], ["--dtype", "bf16"], ["--dtype", "f32"]):
        r = cli(IRIS, out, "--calib", tmp_path / "bad.npy", *extra)
        assert r.returncode == FAIL, r.stderr
        assert md5(out) == before and _listing(tmp_path) == listing
    c = tmp_path / "o.c"
    assert cli("export", "--c", out, "-o", c).returncode == OK
    cbefore = md5(c)
    r = cli("export", "--c", "--arena", tmp_path / "bad.npy", "-o", c)
    assert r.returncode == FAIL and md5(c) == cbefore
    assert _listing(tmp_path) == sorted(listing + ["o.c"])


def test_export_and_run_outputs(cli, tmp_path):
    out = tmp_path / "o.tflite"
    assert cli(IRIS, out, "--calib", IRIS_NPY, "-q").returncode == OK
    before = md5(out)
    r = cli("export", "--c", out, "-o", out)
    assert r.returncode == USAGE and "is also an input" in r.stderr and md5(out) == before
    (tmp_path / "x.txt").write_text("keep")
    r = cli("export", "--c", out, "-o", tmp_path / "x.txt")
    assert r.returncode == USAGE and "is not a .c or .h file" in r.stderr
    r = cli("export", "--ops", out, "-o", tmp_path / "x.txt")
    assert r.returncode == USAGE and "is not a .h file" in r.stderr
    assert (tmp_path / "x.txt").read_text() == "keep"
    assert cli("export", "--c", out, "-o", tmp_path / "x.txt", "--force").returncode == OK
    assert "model_data" in (tmp_path / "x.txt").read_text()
    x = np.zeros((1, 4), np.int8)
    np.save(tmp_path / "in.npy", x)
    r = cli("run", out, "--input", tmp_path / "in.npy", "--output", tmp_path / "in.npy")
    assert r.returncode == USAGE and "--output" in r.stderr and "is also an input" in r.stderr
    r = cli("run", out, "--input", tmp_path / "in.npy", "--output", out)
    assert r.returncode == USAGE and md5(out) == before
    (tmp_path / "y.txt").write_text("keep")
    r = cli("run", out, "--input", tmp_path / "in.npy", "--output", tmp_path / "y.txt")
    assert r.returncode == USAGE and "is not a .npy or .bin or .raw file" in r.stderr
    assert cli("run", out, "--input", tmp_path / "in.npy", "--output",
               tmp_path / "y.npy").returncode == OK
    assert cli("run", out, "--input", tmp_path / "in.npy", "--output",
               tmp_path / "y.npy").returncode == OK  # an existing .npy is replaced
