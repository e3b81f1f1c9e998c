#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generate the float per-op fixtures in tests/fixtures/ops_float/.

Run by hand (not in CI): needs tensorflow-cpu (tests/requirements-gen.txt).
The functions are gen_op_models.py's catalogue (same names, parameters and
seeded weights), converted by the official TFLiteConverter WITHOUT
quantization, so each fixture is the plain float32 model a user gets. Specs
that differ only in their int8 treatment (I/O type, per-channel) give the
same float model: only the first of each is kept. A spec whose float model
lacks its target op (QUANTIZE, DEQUANTIZE) or holds an op outside the
engine's list is reported and skipped.

    python3 tests/conformance/gen_float_op_models.py [-k NAME]

Writes tests/fixtures/ops_float/<name>.tflite and MANIFEST.json.
"""

import argparse
import hashlib
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_op_models as G  # noqa: E402
import oracle  # noqa: E402

OUT_DIR = os.path.join(G.REPO, "tests", "fixtures", "ops_float")
# oracle.ENGINE_OPS plus PADV2, which the engine runs but the int8 catalogue
# has no fixture for.
FLOAT_OPS = tuple(oracle.ENGINE_OPS) + ("PADV2",)


def convert_float(spec):
    import tensorflow as tf

    rng = np.random.default_rng(G.seed_of(spec.name))
    body = spec.fn(rng)
    sig = [tf.TensorSpec(s, tf.float32) for s in spec.in_shapes]
    fn = tf.function(body, input_signature=sig, autograph=False)
    cf = fn.get_concrete_function()
    conv = tf.lite.TFLiteConverter.from_concrete_functions([cf], fn)
    data = conv.convert()
    if spec.patch is not None:
        data = G.patch_model(data, spec.patch)
    return data


def extra_specs():
    """Float-only additions: a non-zero pad value makes the converter emit
    PADV2 (the int8 catalogue gets PADV2 from the input zero point)."""
    import tensorflow as tf

    out = []
    for name, v in (("padv2_half", 0.5), ("padv2_neg", -2.25)):
        pads = [[0, 0], [1, 2], [2, 1], [0, 0]]
        out.append(G.unary_spec(name, "PADV2", (1, 3, 4, 2), (-1.0, 1.0),
                                lambda x, pads=pads, v=v: tf.pad(x, pads, constant_values=v),
                                params=dict(pads=pads, value=v)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-k", default="")
    ap.add_argument("--out", default=OUT_DIR)
    args = ap.parse_args()
    import tensorflow as tf

    os.makedirs(args.out, exist_ok=True)
    entries, seen, skipped = [], {}, []
    for spec in G.catalogue() + extra_specs():
        if args.k and args.k not in spec.name:
            continue
        try:
            data = convert_float(spec)
        except Exception as e:
            skipped.append("%s: conversion failed: %s" % (spec.name, str(e).splitlines()[0]))
            continue
        info = oracle.model_info(data)
        h = hashlib.sha256(data).hexdigest()
        if h in seen:
            continue
        why = []
        if spec.op not in info.ops:
            why.append("no %s in the float model (ops: %s)" % (spec.op, info.ops))
        extra = sorted(set(info.ops) - set(FLOAT_OPS))
        if extra:
            why.append("ops outside the engine's list: %s" % extra)
        if set(info.activation_types()) != {"FLOAT32"} and not why:
            why.append("activations %s" % info.activation_types())
        if not why:
            try:
                oracle.Oracle(data, allow_tflm=False)
            except Exception as e:
                why.append("the reference interpreter refuses it: %s" % e)
        if why:
            skipped.append("%s: %s" % (spec.name, "; ".join(why)))
            continue
        seen[h] = spec.name
        with open(os.path.join(args.out, spec.name + ".tflite"), "wb") as f:
            f.write(data)
        entries.append(dict(name=spec.name, file=spec.name + ".tflite", op=spec.op,
                            params=spec.params, patched=spec.patch is not None, ops=info.ops,
                            input_shapes=spec.in_shapes,
                            input_ranges=[list(r) for r in spec.ranges], bytes=len(data),
                            sha256=h))
        print("%-40s %6d B  %s" % (spec.name, len(data), " ".join(info.ops)))
    manifest = dict(generator="tests/conformance/gen_float_op_models.py",
                    tensorflow=tf.__version__,
                    note="float32 twins of gen_op_models.py's catalogue; regenerate with: "
                         "python3 tests/conformance/gen_float_op_models.py",
                    skipped=skipped, fixtures=entries)
    with open(os.path.join(args.out, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    print("\n%d fixtures written to %s; %d skipped:" % (len(entries), args.out, len(skipped)))
    for s in skipped:
        print("  " + s)


if __name__ == "__main__":
    main()
