#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generate the bf16 writer's fixtures in tests/fixtures/bf16/ (committed).

    python3 tests/quantize/gen_bf16_fixtures.py      # needs tests/requirements-gen.txt

Writes, made by real Keras 3 (model.save to legacy HDF5):
    rne.h5           Input(16) -> Dense(16): a kernel of crafted float32 bit
                     patterns (bf16 rounding ties with an even and an odd
                     kept part, one bit either side of a tie, NaNs whose
                     payload is only in the low half (naive rounding makes
                     them infinities), +-Inf, the largest float (rounds to
                     Inf), subnormals, +-0) and random normals; the bias
                     holds random values and a NaN payload, to show that
                     biases stay float32 bit for bit
    rne.weights.npz  kernel [16][16] and bias [16] exactly as Keras saved
                     them (read back from the .h5): the test converts these
                     with ml_dtypes, the independent oracle
    conv_only.h5     Input(8,8,2) -> Conv2D(4, 3): a model whose only op is
                     CONV_2D, to pin what the official interpreter does with a
                     BFLOAT16 filter on a float32 input
    conv_only.io.npz x (3 samples) and y (Keras's outputs)
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(REPO, "tests", "fixtures", "bf16")


def crafted_bits(rng):
    specials = []
    for k in (0x3F80, 0x3F81, 0x4049, 0x404A, 0xC2F6, 0xC2F7, 0x0001, 0x7F7E):
        specials += [(k << 16) | 0x8000,   # a tie: to even
                     (k << 16) | 0x8001,   # just above: up
                     (k << 16) | 0x7FFF]   # just below: down
    specials += [
        0x7F800001, 0xFF800001,  # NaN with only low payload bits
        0x7FC00000, 0xFFC00000, 0x7FFFFFFF, 0x7F80FFFF, 0x7FA00000,
        0x7F800000, 0xFF800000,  # +-Inf
        0x7F7FFFFF, 0xFF7FFFFF,  # largest float: rounds to +-Inf
        0x7F7F7FFF,              # stays the largest finite bf16
        0x00000001, 0x00008000, 0x00018000, 0x80008000, 0x007FFFFF,  # subnormals
        0x00000000, 0x80000000,
    ]
    bits = np.array(specials, np.uint32)
    rest = rng.normal(0, 1, 256 - len(bits)).astype(np.float32).view(np.uint32)
    allbits = np.concatenate([bits, rest])
    rng.shuffle(allbits)
    return allbits.view(np.float32).reshape(16, 16)


def main():
    import h5py
    import keras

    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(1807)
    L = keras.layers

    m = keras.Sequential([keras.Input((16,), name="x"), L.Dense(16, name="dense")])
    kernel = crafted_bits(rng)
    bias = rng.normal(0, 1, 16).astype(np.float32)
    bias[5] = np.array([0x7F800001], np.uint32).view(np.float32)[0]
    m.get_layer("dense").set_weights([kernel, bias])
    path = os.path.join(OUT, "rne.h5")
    m.save(path)
    with h5py.File(path, "r") as f:
        got = {}
        f.visititems(lambda n, o: got.__setitem__(n.split("/")[-1], o[()])
                     if isinstance(o, h5py.Dataset) else None)
    k, b = got["kernel"], got["bias"]
    assert k.dtype == np.float32 and np.array_equal(k.view(np.uint32), kernel.view(np.uint32))
    assert np.array_equal(b.view(np.uint32), bias.view(np.uint32))
    np.savez(os.path.join(OUT, "rne.weights.npz"), kernel=k, bias=b)

    c = keras.Sequential([keras.Input((8, 8, 2), name="img"),
                          L.Conv2D(4, 3, padding="same", name="conv")])
    c.get_layer("conv").set_weights([rng.normal(0, 0.5, (3, 3, 2, 4)).astype(np.float32),
                                     rng.normal(0, 0.1, 4).astype(np.float32)])
    c.save(os.path.join(OUT, "conv_only.h5"))
    x = rng.uniform(-1, 1, (3, 8, 8, 2)).astype(np.float32)
    np.savez(os.path.join(OUT, "conv_only.io.npz"), x=x, y=c.predict(x, verbose=0))
    print("wrote", sorted(os.listdir(OUT)), "with keras", keras.__version__)


if __name__ == "__main__":
    main()
