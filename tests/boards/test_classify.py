# SPDX-License-Identifier: Apache-2.0
"""examples/classify on the host: image formats, resizing, the pixel
mapping, and its errors. The images are made here from person_detect's
person.bmp, whose stored bytes are the int8 input values (pixel = value +
128), so every format must reach the same input tensor as `--raw`.
"""

import os
import struct

import numpy as np
import pytest

from boardlib import MODELS, REPO, run

PERSON = os.path.join(MODELS, "tflite-micro", "models", "person_detect.tflite")
VWW = os.path.join(MODELS, "mlcommons-tiny", "models", "visual_wake_words", "vww_96_int8.tflite")
BMP = os.path.join(MODELS, "tflite-micro", "data", "person.bmp")
LABELS = os.path.join(REPO, "tools", "person_labels.txt")


@pytest.fixture(scope="module")
def classify(host_build):
    return os.path.join(host_build, "classify")


@pytest.fixture(scope="module")
def person_values():
    """The int8 input values stored in person.bmp, top row first."""
    data = open(BMP, "rb").read()
    off = struct.unpack_from("<I", data, 10)[0]
    return np.frombuffer(data[off:off + 96 * 96], np.int8).reshape(96, 96)[::-1].copy()


def gray(values):
    return (values.astype(np.int16) + 128).astype(np.uint8)


def pgm(path, img, binary=True):
    h, w = img.shape
    if binary:
        path.write_bytes(b"P5\n# made by the test\n%d %d\n255\n" % (w, h) + img.tobytes())
    else:
        path.write_text("P2\n%d %d\n255\n" % (w, h) + "\n".join(" ".join(str(v) for v in row) for row in img) + "\n")


def ppm(path, rgb, binary=True, maxval=255):
    h, w, _ = rgb.shape
    if binary:
        body = rgb.astype(">u2").tobytes() if maxval > 255 else rgb.tobytes()
        path.write_bytes(b"P6 %d %d %d\n" % (w, h, maxval) + body)
    else:
        path.write_text("P3\n%d %d\n%d\n" % (w, h, maxval) + " ".join(str(v) for v in rgb.ravel()) + "\n")


def bmp(path, rgb, bpp=24, top_down=False):
    h, w, _ = rgb.shape
    row = ((w * bpp + 31) // 32) * 4
    rows = []
    for y in range(h):
        src = rgb[y if top_down else h - 1 - y]
        px = src[:, ::-1]  # BGR
        if bpp == 32:
            px = np.concatenate([px, np.zeros((w, 1), np.uint8)], axis=1)
        b = px.tobytes()
        rows.append(b + b"\0" * (row - len(b)))
    pixels = b"".join(rows)
    header = struct.pack("<2sIHHI", b"BM", 54 + len(pixels), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, w, -h if top_down else h, 1, bpp, 0, len(pixels), 2835, 2835, 0, 0)
    path.write_bytes(header + info + pixels)


def input_of(classify, image, tmp_path, *extra, model=PERSON):
    dump = tmp_path / "in.bin"
    r = run([classify, model, str(image), "--dump-input", str(dump)] + list(extra))
    assert r.returncode == 0, r.stderr.decode()
    return dump.read_bytes(), r.stdout.decode()


def test_raw_bmp_is_the_stored_bytes(classify, person_values, tmp_path):
    got, out = input_of(classify, BMP, tmp_path, "--raw", "--labels", LABELS)
    assert got == person_values.tobytes()
    assert out.splitlines()[0].endswith("-> person")


@pytest.mark.parametrize("kind", ["pgm-binary", "pgm-text", "ppm-binary", "ppm-text", "ppm-16bit",
                                  "bmp24", "bmp24-topdown", "bmp32", "signed-pixels"])
def test_formats_reach_the_same_input(kind, classify, person_values, tmp_path):
    """Pixel p maps to q = p - 128 with person_detect's default range, so
    every encoding of the same picture gives the stored values back."""
    g = gray(person_values)
    rgb = np.repeat(g[:, :, None], 3, axis=2)
    f = tmp_path / "img"
    extra = []
    if kind == "pgm-binary":
        pgm(f, g)
    elif kind == "pgm-text":
        pgm(f, g, binary=False)
    elif kind == "ppm-binary":
        ppm(f, rgb)
    elif kind == "ppm-text":
        ppm(f, rgb, binary=False)
    elif kind == "ppm-16bit":
        ppm(f, rgb.astype(np.uint16) * 257, maxval=65535)
    elif kind == "bmp24":
        bmp(f, rgb)
    elif kind == "bmp24-topdown":
        bmp(f, rgb, top_down=True)
    elif kind == "bmp32":
        bmp(f, rgb, bpp=32)
    else:
        f = BMP
        extra = ["--signed-pixels"]
    got, _ = input_of(classify, f, tmp_path, *extra)
    assert got == person_values.tobytes()


def test_bilinear_downscale_of_a_doubled_image(classify, person_values, tmp_path):
    """Half-pixel centres: shrinking a 2x pixel-doubled image averages two
    equal pixels, so the input is exact."""
    g = np.repeat(np.repeat(gray(person_values), 2, axis=0), 2, axis=1)
    pgm(tmp_path / "big.pgm", g)
    got, out = input_of(classify, tmp_path / "big.pgm", tmp_path, "--labels", LABELS)
    assert got == person_values.tobytes()
    assert "(PGM 192x192 gray) -> person" in out


def test_bilinear_upscale_interpolates(classify, tmp_path):
    """A 2x1 image [0, 255] stretched to 96 columns. With half-pixel centres
    the two source pixels sit at x = 23.5 and 71.5: flat (clamped) outside,
    a linear ramp of ~5.3 per column between."""
    pgm(tmp_path / "ramp.pgm", np.array([[0, 255]], np.uint8))
    got, _ = input_of(classify, tmp_path / "ramp.pgm", tmp_path)
    row = np.frombuffer(got, np.int8).reshape(96, 96)[0].astype(int)
    fx = np.clip((np.arange(96) + 0.5) * 2 / 96 - 0.5, 0, 1)
    want = np.round(fx * 255) - 128
    assert all(row[:24] == -128) and all(row[72:] == 127)
    assert np.abs(row - want).max() <= 1, row


def test_gray_to_rgb_for_a_color_model(classify, person_values, tmp_path):
    """VWW takes 96x96x3 (scale 1/255, zp -128): gray repeats per channel."""
    got, out = input_of(classify, BMP, tmp_path, "--signed-pixels", model=VWW)
    want = np.repeat(person_values[:, :, None], 3, axis=2)
    assert got == want.tobytes()


def test_range_option(classify, tmp_path):
    """--range 0,1 on person_detect (scale 2/255, zp -1): pixel p is p/255,
    q = round(p/255 / scale) - 1."""
    pgm(tmp_path / "g.pgm", np.arange(96 * 96, dtype=np.uint32).reshape(96, 96).astype(np.uint8))
    got, _ = input_of(classify, tmp_path / "g.pgm", tmp_path, "--range", "0,1")
    p = np.arange(96 * 96).astype(np.uint8).astype(np.float32)
    scale = np.float32(0.00784313772)
    want = np.clip(np.round(p / np.float32(255) / scale) - 1, -128, 127).astype(np.int8)
    diff = np.abs(np.frombuffer(got, np.int8).astype(int) - want.astype(int))
    assert diff.max() <= 1  # float rounding at exact halves may differ from numpy's


def test_top_k_and_labels(classify):
    r = run([classify, PERSON, BMP, "--raw", "--top", "1"])
    lines = r.stdout.decode().splitlines()
    assert r.returncode == 0 and len(lines) == 2
    assert lines[0].endswith("-> class 1") and "class 1" in lines[1] and "(q 113)" in lines[1]


@pytest.mark.parametrize("args,code,message", [
    ([], 2, b"need a model and an image"),
    (["--top", "0"], 2, b"--top"),
    (["--range", "1"], 2, b"--range"),
    (["--raw", "--range", "0,1"], 2, b"--raw"),
    (["--bogus"], 2, b"unknown option"),
])
def test_usage_errors(classify, args, code, message):
    base = [PERSON, BMP] if args else []
    r = run([classify] + base + args)
    assert r.returncode == code and message in r.stderr, r.stderr


def test_bad_images(classify, tmp_path):
    cases = {
        "text.pgm": b"hello",
        "trunc.pgm": b"P5 96 96 255\n" + b"\0" * 100,
        "pbm.pbm": b"P4 8 8\n" + b"\0" * 8,
        "rle.bmp": open(BMP, "rb").read()[:30] + struct.pack("<I", 1) + open(BMP, "rb").read()[34:],
        "huge.pgm": b"P5 100000 100000 255\n",
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        r = run([classify, PERSON, str(tmp_path / name)])
        assert r.returncode == 1, (name, r.stderr)
        assert r.stderr.startswith(b"classify: "), (name, r.stderr)
    r = run([classify, PERSON, str(tmp_path / "missing.pgm")])
    assert r.returncode == 1 and b"No such file" in r.stderr


def test_raw_needs_matching_gray_image(classify, tmp_path):
    pgm(tmp_path / "small.pgm", np.zeros((10, 10), np.uint8))
    r = run([classify, PERSON, str(tmp_path / "small.pgm"), "--raw"])
    assert r.returncode == 1 and b"--raw needs" in r.stderr


def test_model_errors(classify, tmp_path):
    (tmp_path / "bad.tflite").write_bytes(b"not a model at all")
    r = run([classify, str(tmp_path / "bad.tflite"), BMP])
    assert r.returncode == 1 and r.stderr.startswith(b"classify: "), r.stderr
    add = os.path.join(MODELS, "tflite-micro", "models", "simple_add_model.tflite")
    r = run([classify, add, BMP])
    assert r.returncode == 1 and b"inputs" in r.stderr, r.stderr
