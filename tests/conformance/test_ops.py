# SPDX-License-Identifier: Apache-2.0
"""Per-op conformance on the generated fixtures (tests/fixtures/ops).

Each fixture in MANIFEST.json is a single-op (or tiny) model made by the
official TFLite converter (gen_op_models.py). For each: the file must be the
one the manifest describes and contain the op it claims (as the reference
interpreter lists it), and the engine's output bytes must equal the oracle's
on >= 20 seeded random inputs plus all-min/all-max (and, for float inputs,
values on rounding midpoints).
"""

import hashlib
import json
import os

import pytest

import oracle

FIXTURES = os.path.join(oracle.REPO, "tests", "fixtures", "ops")
MANIFEST_PATH = os.path.join(FIXTURES, "MANIFEST.json")
N_RANDOM = 20


def load_manifest():
    with open(MANIFEST_PATH) as f:
        return json.load(f)


MANIFEST = load_manifest() if os.path.exists(MANIFEST_PATH) else None
ENTRIES = {e["name"]: e for e in (MANIFEST or {}).get("fixtures", [])}


def test_manifest_matches_files():
    assert MANIFEST is not None, "missing %s: run tests/conformance/gen_op_models.py" % (
        MANIFEST_PATH)
    assert len(ENTRIES) >= 100, "only %d fixtures in the manifest" % len(ENTRIES)
    on_disk = {f for f in os.listdir(FIXTURES) if f.endswith(".tflite")}
    listed = {e["file"] for e in ENTRIES.values()}
    assert on_disk == listed, "fixtures not in the manifest: %s; listed but missing: %s" % (
        sorted(on_disk - listed), sorted(listed - on_disk))
    for e in ENTRIES.values():
        with open(os.path.join(FIXTURES, e["file"]), "rb") as f:
            h = hashlib.sha256(f.read()).hexdigest()
        assert h == e["sha256"], "%s differs from the manifest (regenerate both)" % e["file"]
    covered = {e["op"] for e in ENTRIES.values()} | {
        o for e in ENTRIES.values() for o in e["ops"]}
    missing = sorted(set(oracle.ENGINE_OPS) - covered - set(oracle.DATA_OPS))
    assert not missing, "engine ops with no fixture: %s" % missing


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_op_fixture(name, edgeq):
    e = ENTRIES[name]
    path = os.path.join(FIXTURES, e["file"])
    orc = oracle.Oracle(path, allow_tflm=False)
    ops = orc.op_names()
    assert e["op"] in ops, "%s claims to test %s but holds only %s" % (name, e["op"], ops)
    assert ops == e["ops"], "%s: ops %s differ from the manifest's %s" % (name, ops, e["ops"])
    sets = oracle.random_inputs(orc, name, n=N_RANDOM)
    failures = oracle.check_against_oracle(path, orc, sets, name, binary=edgeq)
    assert not failures, "engine output != %s oracle (%s %s):\n%s" % (
        orc.kind, e["op"], json.dumps(e["params"]), "\n".join(failures))


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_op_fixture_asan(name, asan_edgeq):
    """All-min, all-max and one random input through the ASan+UBSan build."""
    e = ENTRIES[name]
    path = os.path.join(FIXTURES, e["file"])
    orc = oracle.Oracle(path, allow_tflm=False)
    sets = oracle.random_inputs(orc, name, n=1)
    failures = oracle.check_against_oracle(path, orc, sets, name, binary=asan_edgeq)
    assert not failures, "asan build != %s oracle:\n%s" % (orc.kind, "\n".join(failures))
