# SPDX-License-Identifier: Apache-2.0
"""Calibration and evaluation data for quantizing the shared MLPerf Tiny
models (../shared/models/mlcommons-tiny), made from shared files only, so
that CI (numpy, no TensorFlow) and the reference generator
(gen_quantize_refs.py, with Keras) see exactly the same samples.

    ad01    the 40 log-mel frames of data/ad_normal_id_01_00000000_hist_librosa.bin
            (raw float32, 40 x 640): calibration and evaluation
    str_ww  data/sww_calibration_samples.npz "specs" (45 x 30x1x40): the very
            set the official int8 twin was calibrated with; also the evaluation
    resnet  32x32 RGB, 0..255; vww: 96x96 RGB, 0..1. No CIFAR-10 or COCO
            images ship with the shared models, so these are made from the two
            shared 96x96 grey photos (tflite-micro data/person.bmp and
            no_person.bmp): random crops, flips, per-channel tints and
            brightness, resized bilinearly, rounded to whole 0..255 values
            (exact in float32 on any machine). 100 calibration samples (seed
            1) and 200 different evaluation samples (seed 2).

The official twins were calibrated on real CIFAR-10 / COCO images that are
not available here: for resnet and vww, the twin and edgeq did NOT see the
same calibration data.
"""

import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.normpath(os.path.join(REPO, "..", "shared", "models"))
TINY = os.path.join(SHARED, "mlcommons-tiny")

# name: (Keras model, official int8 twin), under mlcommons-tiny/models
MODELS = {
    "ad01": ("anomaly_detection/ad01.h5", "anomaly_detection/ad01_int8.tflite"),
    "resnet": ("image_classification/pretrainedResnet.h5",
               "image_classification/pretrainedResnet_quant.tflite"),
    "vww": ("visual_wake_words/vww_96.h5", "visual_wake_words/vww_96_int8.tflite"),
    "str_ww": ("streaming_wakeword/str_ww_ref_model.h5",
               "streaming_wakeword/str_ww_ref_model.tflite"),
}


def model_path(name, twin=False):
    return os.path.join(TINY, "models", MODELS[name][1 if twin else 0])


def _bmp_gray(path):
    """An 8-bit BMP as float pixels 0..255 (the tflite-micro samples store
    the int8 input values as pixel bytes: value + 128 is the pixel)."""
    data = open(path, "rb").read()
    off = struct.unpack_from("<I", data, 10)[0]
    w, h = struct.unpack_from("<ii", data, 18)
    stride = (w + 3) & ~3
    rows = [np.frombuffer(data[off + r * stride: off + r * stride + w], dtype=np.int8)
            for r in range(abs(h))]
    if h > 0:
        rows.reverse()
    return np.stack(rows).astype(np.float32) + 128.0


def _resize(img, oh, ow):
    """Bilinear, half-pixel centres (as tf.image.resize without antialias)."""
    h, w = img.shape[:2]
    ys = np.clip((np.arange(oh) + 0.5) * h / oh - 0.5, 0, h - 1)
    xs = np.clip((np.arange(ow) + 0.5) * w / ow - 0.5, 0, w - 1)
    y0 = np.floor(ys).astype(int)
    x0 = np.floor(xs).astype(int)
    y1 = np.minimum(y0 + 1, h - 1)
    x1 = np.minimum(x0 + 1, w - 1)
    fy = (ys - y0)[:, None, None]
    fx = (xs - x0)[None, :, None]
    a, b, c, d = img[y0][:, x0], img[y0][:, x1], img[y1][:, x0], img[y1][:, x1]
    return a * (1 - fy) * (1 - fx) + b * (1 - fy) * fx + c * fy * (1 - fx) + d * fy * fx


def images(n, h, w, seed):
    """n RGB images [n, h, w, 3], whole values 0..255, float32."""
    data = os.path.join(SHARED, "tflite-micro", "data")
    base = [_bmp_gray(os.path.join(data, f)) for f in ("person.bmp", "no_person.bmp")]
    rng = np.random.default_rng(seed)
    out = np.zeros((n, h, w, 3), np.float32)
    for i in range(n):
        img = base[i % 2]
        s = int(rng.integers(40, 97))
        y = int(rng.integers(0, 97 - s))
        x = int(rng.integers(0, 97 - s))
        crop = img[y:y + s, x:x + s][:, :, None].astype(np.float64)
        if rng.random() < 0.5:
            crop = crop[:, ::-1]
        tint = rng.uniform(0.6, 1.2, size=3)
        shift = rng.uniform(-20, 20)
        out[i] = np.clip(np.round(_resize(crop, h, w) * tint + shift), 0, 255)
    return out


def data_for(name):
    """(calibration samples, evaluation samples), float32, batch first."""
    d = os.path.join(TINY, "data")
    if name == "ad01":
        x = np.fromfile(os.path.join(d, "ad_normal_id_01_00000000_hist_librosa.bin"),
                        dtype=np.float32).reshape(-1, 640)
        return x, x
    if name == "str_ww":
        x = np.load(os.path.join(d, "sww_calibration_samples.npz"))["specs"].astype(np.float32)
        return x, x
    if name == "resnet":
        return images(100, 32, 32, 1), images(200, 32, 32, 2)
    if name == "vww":
        return images(100, 96, 96, 1) / np.float32(255), images(200, 96, 96, 2) / np.float32(255)
    raise KeyError(name)


def metrics(ref, got):
    """(top-1 agreement over the last axis, SNR in dB) of got against ref,
    both [samples, values]."""
    ref = np.asarray(ref, np.float64).reshape(len(ref), -1)
    got = np.asarray(got, np.float64).reshape(len(got), -1)
    noise = np.sum((ref - got) ** 2)
    snr = float("inf") if noise == 0 else 10 * np.log10(np.sum(ref ** 2) / noise)
    top1 = float(np.mean(ref.argmax(-1) == got.argmax(-1))) if ref.shape[-1] > 1 else float("nan")
    return top1, float(snr)
