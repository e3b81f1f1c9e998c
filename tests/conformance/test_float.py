# SPDX-License-Identifier: Apache-2.0
"""The float32 engine path on the real float models in ../shared/models.

Every model whose activations are all FLOAT32 (found by reading the model,
not a hard-coded list; pc_conv.bin, float I/O around int8, comes along
since its graph inputs and outputs are float) runs on seeded random inputs
through the engine and the oracle (ai_edge_litert BUILTIN_REF); per output,
max|engine - oracle| / max|oracle| must be <= 1e-5. The same on the
ASan+UBSan build with fewer inputs. Hybrid models (float activations, int8
weights: kws_ref_model_float32.tflite) are refused by the engine with a
message naming the hybrid op.

Needs ../shared/models beside the repository (CI has it).
"""

import os

import numpy as np
import pytest

import oracle
from float_check import TOL, check_float

MODELS = oracle.SHARED_MODELS
MALFORMED_DIR = os.path.join(MODELS, "litert", "malformed")

if not os.path.isdir(MODELS):
    pytest.skip("shared models not found at %s (expected ../shared/models beside the "
                "repository): float conformance not run" % MODELS, allow_module_level=True)

EXPECTED_FLOAT = {
    "ad01_fp32.tflite", "pretrainedResnet.tflite", "vww_96_float.tflite",
    "hello_world_float.tflite", "add.bin", "concat.bin", "mobilenet_like_model.bin",
    "multi_add.bin", "single_conv_weights_min_0_max_plus_10.bin",
    "weight_shared_between_convs.bin", "test_model_redux_precision.bin", "pc_conv.bin",
}
EXPECTED_HYBRID = {"kws_ref_model_float32.tflite"}


def discover():
    """'float': every graph input and output FLOAT32, every op in the
    engine's list, no int8 constant feeding a float op; 'hybrid': float
    activations with int8 weights."""
    found = {"float": {}, "hybrid": {}}
    for root, dirs, files in os.walk(MODELS):
        dirs.sort()
        if os.path.abspath(root) == os.path.abspath(MALFORMED_DIR):
            dirs[:] = []
            continue
        for f in sorted(files):
            p = os.path.join(root, f)
            if not oracle.is_tflite(p):
                continue
            info = oracle.model_info(p)
            if info.n_subgraphs == 0 or not info.inputs:
                continue
            io = [info.tensors[t]["type"] for t in info.inputs + info.outputs]
            if set(io) != {"FLOAT32"} or set(info.ops) - set(oracle.ENGINE_OPS):
                continue
            acts = set(info.activation_types())
            consts = {t["type"] for t in info.tensors if t["const"]}
            if acts == {"FLOAT32"} and consts & {"INT8", "UINT8"}:
                found["hybrid"][f] = p
            else:
                found["float"][f] = p
    return found


FOUND = discover()


def input_sets(orc, name, n):
    sets = oracle.random_inputs(orc, name, n=n, extremes=False)
    # Also a wider range than [-1, 1]: large activations stress the sums.
    rng = np.random.default_rng(oracle.stable_seed(name, "wide"))
    sets.append(("wide", [(rng.standard_normal(d.shape) * 8).astype(d.dtype)
                          if d.dtype.kind == "f" else a
                          for d, a in zip(orc.inputs, sets[0][1])]))
    return sets


def test_float_inventory():
    assert set(FOUND["float"]) == EXPECTED_FLOAT, (
        "float models found: %s" % sorted(FOUND["float"]))
    assert set(FOUND["hybrid"]) == EXPECTED_HYBRID, (
        "hybrid models found: %s" % sorted(FOUND["hybrid"]))


def _check(name, binary, n):
    path = FOUND["float"][name]
    orc = oracle.Oracle(path, allow_tflm=False)
    failures, worst = check_float(path, orc, input_sets(orc, name, n), name, binary=binary)
    assert not failures, "engine != litert reference (tol %g):\n%s" % (TOL, "\n".join(failures))
    print("%s: max rel error %.3g" % (name, worst))


@pytest.mark.parametrize("name", sorted(EXPECTED_FLOAT))
def test_float_model_matches_oracle(name, edgeq):
    _check(name, edgeq, 8)


@pytest.mark.parametrize("name", sorted(EXPECTED_FLOAT))
def test_float_model_matches_oracle_asan(name, asan_edgeq):
    _check(name, asan_edgeq, 2)


@pytest.mark.parametrize("name", sorted(EXPECTED_HYBRID))
def test_hybrid_model_refused(name, any_edgeq, tmp_path):
    path = FOUND["hybrid"][name]
    orc = oracle.Oracle(path, allow_tflm=False)
    x = tmp_path / "x.npy"
    np.save(x, np.zeros(orc.inputs[0].shape, np.float32))
    r = oracle.run_edgeq(["run", path, "--input", x], binary=any_edgeq)
    assert r.returncode == 1, "exit %s: %s" % (oracle.describe_rc(r.returncode), r.stderr)
    assert "hybrid op (input float32, filter int8) is not supported" in r.stderr, r.stderr
