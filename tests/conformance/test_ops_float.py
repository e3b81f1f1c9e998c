# SPDX-License-Identifier: Apache-2.0
"""Per-op conformance of the float32 engine path on the generated float
fixtures (tests/fixtures/ops_float, made by gen_float_op_models.py with the
official converter, no quantization).

For each fixture: the file must be the one MANIFEST.json describes and hold
the op it claims, and per output max|engine - oracle| / max|oracle| must be
<= 1e-5 (oracle: ai_edge_litert BUILTIN_REF) on seeded random inputs drawn
from the fixture's input ranges, its range ends, and a wide normal set.
A smaller run goes through the ASan+UBSan build.
"""

import hashlib
import json
import os

import numpy as np
import pytest

import oracle
from float_check import TOL, check_float

FIXTURES = os.path.join(oracle.REPO, "tests", "fixtures", "ops_float")
MANIFEST_PATH = os.path.join(FIXTURES, "MANIFEST.json")
FLOAT_OPS = tuple(oracle.ENGINE_OPS) + ("PADV2",)


def load_manifest():
    with open(MANIFEST_PATH) as f:
        return json.load(f)


MANIFEST = load_manifest() if os.path.exists(MANIFEST_PATH) else None
ENTRIES = {e["name"]: e for e in (MANIFEST or {}).get("fixtures", [])}


def float_sets(orc, e, n):
    """(label, arrays): n seeded uniform sets in the fixture's ranges, the
    range ends, and one wide normal set."""
    ranges = e["input_ranges"]
    sets = []
    for i in range(n):
        rng = np.random.default_rng(oracle.stable_seed(e["name"], "float", i))
        sets.append(("seed%d" % i, [rng.uniform(lo, hi, size=d.shape).astype(np.float32)
                                    for d, (lo, hi) in zip(orc.inputs, ranges)]))
    sets.append(("all-lo", [np.full(d.shape, lo, np.float32) for d, (lo, _) in zip(orc.inputs, ranges)]))
    sets.append(("all-hi", [np.full(d.shape, hi, np.float32) for d, (_, hi) in zip(orc.inputs, ranges)]))
    rng = np.random.default_rng(oracle.stable_seed(e["name"], "wide"))
    sets.append(("wide", [(rng.standard_normal(d.shape) * 4).astype(np.float32)
                          for d in orc.inputs]))
    return sets


def test_float_manifest_matches_files():
    assert MANIFEST is not None, "missing %s: run tests/conformance/gen_float_op_models.py" % (
        MANIFEST_PATH)
    assert len(ENTRIES) >= 100, "only %d fixtures in the manifest" % len(ENTRIES)
    on_disk = {f for f in os.listdir(FIXTURES) if f.endswith(".tflite")}
    listed = {e["file"] for e in ENTRIES.values()}
    assert on_disk == listed, "not in the manifest: %s; listed but missing: %s" % (
        sorted(on_disk - listed), sorted(listed - on_disk))
    for e in ENTRIES.values():
        with open(os.path.join(FIXTURES, e["file"]), "rb") as f:
            h = hashlib.sha256(f.read()).hexdigest()
        assert h == e["sha256"], "%s differs from the manifest (regenerate both)" % e["file"]
    covered = {o for e in ENTRIES.values() for o in e["ops"]}
    missing = sorted(set(FLOAT_OPS) - covered - {"QUANTIZE", "DEQUANTIZE"} - set(oracle.DATA_OPS))
    assert not missing, "engine ops with no float fixture: %s" % missing


def _check(name, binary, n):
    e = ENTRIES[name]
    path = os.path.join(FIXTURES, e["file"])
    orc = oracle.Oracle(path, allow_tflm=False)
    ops = orc.op_names()
    assert ops == e["ops"], "%s: ops %s differ from the manifest's %s" % (name, ops, e["ops"])
    failures, worst = check_float(path, orc, float_sets(orc, e, n), name, binary=binary)
    assert not failures, "engine != litert reference (%s %s, tol %g):\n%s" % (
        e["op"], json.dumps(e["params"]), TOL, "\n".join(failures))


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_float_op_fixture(name, edgeq):
    _check(name, edgeq, 10)


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_float_op_fixture_asan(name, asan_edgeq):
    _check(name, asan_edgeq, 1)
