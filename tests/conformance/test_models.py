# SPDX-License-Identifier: Apache-2.0
"""Conformance on the real models in ../shared/models (made by others).

For every int8/uint8 model whose ops are all in the engine's list (found by
reading each model's op list, not by a hard-coded list), the engine's output
bytes must equal the oracle's (ai_edge_litert BUILTIN_REF; TFLite Micro for
models the official interpreter refuses) on seeded random inputs covering the
full integer range plus the real sample inputs shipped beside the models.
Known answers (person_detect, micro_speech, hello_world) are separate tests.
Models with ops the engine does not run must be rejected cleanly (exit 1,
naming the op); models whose ops are all in the list but use a wider type
(int16 activations) must either be rejected the same way, naming the type,
or run bit-exact. Every malformed flatbuffer must get a clear error, never a
crash, from the normal and the ASan+UBSan build.

Needs ../shared/models beside the repository (CI has it); without it the
module is skipped with a message naming the path.
"""

import os

import numpy as np
import pytest

import oracle

MODELS = oracle.SHARED_MODELS
MALFORMED_DIR = os.path.join(MODELS, "litert", "malformed")

if not os.path.isdir(MODELS):
    pytest.skip("shared models not found at %s (expected ../shared/models beside the "
                "repository): real-model conformance not run" % MODELS, allow_module_level=True)

N_RANDOM = 20

# What discovery must find: guards against a model silently dropping out.
EXPECTED_CONFORMANCE = {
    "ad01_int8.tflite", "pretrainedResnet_quant.tflite", "vww_96_int8.tflite",
    "kws_ref_model.tflite", "str_ww_ref_model.tflite", "person_detect.tflite",
    "micro_speech_quantized.tflite", "hello_world_int8.tflite", "simple_add_model.tflite",
    "single_add_default_a8w8_recipe_quantized.tflite",
    "single_mul_default_a8w8_recipe_quantized.tflite", "add_quantized.bin",
    "add_quantized_int8.bin", "fc_qat.bin", "pc_conv.bin",
}
EXPECTED_UNSUPPORTED = {
    "trained_lstm_int8.tflite", "keyword_scrambled_8bit.tflite",
}
EXPECTED_WIDE_TYPES = {
    "single_add_default_a16w8_recipe_quantized.tflite",
    "single_mul_default_a16w8_recipe_quantized.tflite", "simple_quantized_ops.tflite",
}
# Files in malformed/ that are degenerate but valid: they must load.
MALFORMED_BUT_LOADS = {"empty_model.bin", "zero_size_constant.bin"}


def discover():
    """Classify every TFLite flatbuffer under MODELS (malformed/ aside):
    'conformance' (int8/uint8 activations, every op and type supported),
    'unsupported' (quantized, with an op outside the engine's list),
    'wide_types' (every op in the list, but activation types beyond
    int8/uint8, e.g. int16: the engine may reject them or run them),
    'float' (float-only or hybrid: outside the int8 engine's scope)."""
    found = {"conformance": {}, "unsupported": {}, "wide_types": {}, "float": {}}
    reasons = {}
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
            acts = set(info.activation_types())
            bad_ops = sorted(set(info.ops) - set(oracle.ENGINE_OPS))
            bad_types = sorted(acts - set(oracle.ENGINE_ACT_TYPES))
            if not acts & {"INT8", "UINT8"} and not bad_types:
                cat = "float"
            elif bad_ops:
                cat = "unsupported"
            elif bad_types:
                cat = "wide_types"
            else:
                cat = "conformance"
            if f in found[cat] or any(f in v for v in found.values()):
                raise RuntimeError("two shared models named %s" % f)
            found[cat][f] = p
            reasons[f] = dict(ops=info.op_set, activation_types=sorted(acts),
                              bad=bad_ops + bad_types)
    return found, reasons


FOUND, REASONS = discover()
CONFORMANCE = FOUND["conformance"]
UNSUPPORTED = FOUND["unsupported"]
WIDE_TYPES = FOUND["wide_types"]


def test_discovery_inventory():
    """Discovery finds the models this suite is meant to cover, in the right
    category (so a parsing slip cannot make a model silently untested)."""
    for cat, models in FOUND.items():
        print("%s (%d):" % (cat, len(models)))
        for name in sorted(models):
            print("  %-50s %s" % (name, REASONS[name]))
    missing = EXPECTED_CONFORMANCE - set(CONFORMANCE)
    assert not missing, "expected conformance models not found/classified: %s" % {
        m: REASONS.get(m, "absent") for m in missing}
    missing = EXPECTED_UNSUPPORTED - set(UNSUPPORTED)
    assert not missing, "expected unsupported models not found/classified: %s" % {
        m: REASONS.get(m, "absent") for m in missing}
    missing = EXPECTED_WIDE_TYPES - set(WIDE_TYPES)
    assert not missing, "expected int16 models not found/classified: %s" % {
        m: REASONS.get(m, "absent") for m in missing}


# --------------------------------------------------------------------------
# real sample inputs


def _shared(*parts):
    return os.path.join(MODELS, *parts)


def bmp_96x96_int8(path):
    """The TFLM person images: 8-bit BMP whose pixel bytes are already the
    int8 input values; skip the 1,078-byte header, flip to top-down."""
    with open(path, "rb") as f:
        b = f.read()
    px = np.frombuffer(b[1078:1078 + 96 * 96], dtype=np.int8).reshape(96, 96)[::-1]
    return np.ascontiguousarray(px).reshape(1, 96, 96, 1)


def micro_features(name):
    p = _shared("tflite-micro", "data", "%s_micro_features_49x40_s8.bin" % name)
    return np.fromfile(p, dtype=np.int8).reshape(1, 1960)


def sample_inputs(name, orc):
    """Real inputs shipped with the models, as (label, [arrays])."""
    d0 = orc.inputs[0]
    out = []
    if name == "person_detect.tflite":
        for img in ("person", "no_person"):
            out.append((img, [bmp_96x96_int8(_shared("tflite-micro", "data", img + ".bmp"))]))
    elif name == "micro_speech_quantized.tflite":
        for w in ("yes", "no"):
            out.append((w, [micro_features(w)]))
    elif name == "hello_world_int8.tflite":
        out.append(("x=-87q", [np.array([[-87]], np.int8)]))
        for x in np.linspace(0.0, 2 * np.pi, 7):
            out.append(("x=%.2f" % x, [oracle.quantize_float(np.full(d0.shape, x), d0)]))
    elif name == "ad01_int8.tflite":
        spec = np.fromfile(_shared("mlcommons-tiny", "data",
                                   "ad_normal_id_01_00000000_hist_librosa.bin"), np.float32)
        frames = spec.reshape(-1, 128)
        for start in (0, 50, 100, 195):
            w = frames[start:start + 5].reshape(1, 640)
            out.append(("ad-window%d" % start, [oracle.quantize_float(w, d0)]))
    elif name == "str_ww_ref_model.tflite":
        z = np.load(_shared("mlcommons-tiny", "data", "sww_calibration_samples.npz"))
        specs = z["specs"]
        for i in range(0, len(specs), 6):
            out.append(("sww%d" % i, [oracle.quantize_float(specs[i:i + 1], d0)]))
    elif name == "fc_qat.bin":
        imgs = np.fromfile(_shared("datasets", "mnist_first100_per_digit_28x28_u8.bin"),
                           np.uint8).reshape(-1, 28, 28)
        for digit in range(10):
            img = imgs[digit * 100].astype(np.float64) / 255.0
            out.append(("mnist%d" % digit, [oracle.quantize_float(img[None], d0)]))
    return out


# --------------------------------------------------------------------------
# engine == oracle on every supported real model


@pytest.mark.parametrize("name", sorted(CONFORMANCE))
def test_model_matches_oracle(name, edgeq):
    path = CONFORMANCE[name]
    orc = oracle.Oracle(path)
    sets = oracle.random_inputs(orc, name, n=N_RANDOM) + sample_inputs(name, orc)
    assert len(sets) >= N_RANDOM
    print("%s: oracle %s%s, %d input sets" % (
        name, orc.kind, " (ai_edge_litert refused it: %s)" % orc.litert_error
        if orc.litert_error else "", len(sets)))
    failures = oracle.check_against_oracle(path, orc, sets, name, binary=edgeq)
    assert not failures, "engine output != %s oracle:\n%s" % (orc.kind, "\n".join(failures))


@pytest.mark.parametrize("name", sorted(CONFORMANCE))
def test_model_matches_oracle_asan(name, asan_edgeq):
    """A few inputs through the ASan+UBSan build: same bytes, no report."""
    path = CONFORMANCE[name]
    orc = oracle.Oracle(path)
    sets = oracle.random_inputs(orc, name, n=1) + sample_inputs(name, orc)[:1]
    failures = oracle.check_against_oracle(path, orc, sets, name, binary=asan_edgeq)
    assert not failures, "asan build != %s oracle:\n%s" % (orc.kind, "\n".join(failures))


# --------------------------------------------------------------------------
# known answers


def _run_both(path, inputs, edgeq):
    orc = oracle.Oracle(path)
    exp = orc.run(inputs)
    got = oracle.engine_run(path, inputs, orc.outputs, binary=edgeq)
    return orc, exp[0], got[0]


@pytest.mark.parametrize("image,cls", [("person", 1), ("no_person", 0)])
def test_person_detect_known_answer(image, cls, edgeq):
    path = _shared("tflite-micro", "models", "person_detect.tflite")
    x = bmp_96x96_int8(_shared("tflite-micro", "data", image + ".bmp"))
    orc, exp, got = _run_both(path, [x], edgeq)
    assert int(np.argmax(exp)) == cls, "oracle (%s) says %s" % (orc.kind, exp)
    if image == "person":
        assert exp.reshape(-1).tolist() == [-113, 113], "oracle (%s): %s" % (orc.kind, exp)
        assert got.reshape(-1).tolist() == [-113, 113], "engine: %s" % got
    assert int(np.argmax(got)) == cls, "engine says %s for %s" % (got.reshape(-1), image)


@pytest.mark.parametrize("word,cls", [("yes", 2), ("no", 3)])
def test_micro_speech_known_answer(word, cls, edgeq):
    path = _shared("tflite-micro", "models", "micro_speech_quantized.tflite")
    orc, exp, got = _run_both(path, [micro_features(word)], edgeq)
    assert int(np.argmax(exp)) == cls, "oracle (%s) says %s" % (orc.kind, exp)
    assert int(np.argmax(got)) == cls, "engine says %s for %s" % (got.reshape(-1), word)


def test_hello_world_known_answer(edgeq):
    path = _shared("tflite-micro", "models", "hello_world_int8.tflite")
    orc, exp, got = _run_both(path, [np.array([[-87]], np.int8)], edgeq)
    assert int(exp.reshape(-1)[0]) == 104, "oracle (%s) says %s" % (orc.kind, exp)
    assert int(got.reshape(-1)[0]) == 104, "engine says %s for input -87" % got.reshape(-1)


# --------------------------------------------------------------------------
# unsupported models: a clean refusal naming the op or type


def _zero_inputs(info):
    arrs = []
    for t in info.inputs:
        d = info.tensors[t]
        arrs.append(np.zeros([int(x) for x in d["shape"]], oracle._NP_TYPES[d["type"]]))
    return arrs


def _assert_no_crash(r, what):
    assert r.returncode is not None, "%s: timed out\nstderr: %s" % (what, r.stderr)
    assert r.returncode >= 0, "%s: killed by %s\nstderr: %s" % (
        what, oracle.describe_rc(r.returncode), r.stderr)
    assert r.returncode < 128 and r.returncode != oracle.SANITIZER_EXIT, (
        "%s: exit %s\nstderr: %s" % (what, oracle.describe_rc(r.returncode), r.stderr))
    for marker in ("AddressSanitizer", "LeakSanitizer", "runtime error:",
                   "UndefinedBehaviorSanitizer"):
        assert marker not in r.stderr, "%s: sanitizer report:\n%s" % (what, r.stderr)


def _run_zero_inputs(path, binary, tmp_path):
    info = oracle.model_info(path)
    args = ["run", path]
    for k, a in enumerate(_zero_inputs(info)):
        p = tmp_path / ("i%d.npy" % k)
        np.save(p, a)
        args += ["--input", str(p)]
    for k in range(len(info.outputs)):
        args += ["--output", str(tmp_path / ("o%d.bin" % k))]
    r = oracle.run_edgeq(args, binary=binary)
    return r, "edgeq %s" % " ".join(str(a) for a in args)


def _assert_clean_refusal(name, r, what):
    _assert_no_crash(r, what)
    assert r.returncode == 1, "%s: expected exit 1 (unsupported), got %s\nstdout: %s\n" \
        "stderr: %s" % (what, oracle.describe_rc(r.returncode), r.stdout, r.stderr)
    names = REASONS[name]["bad"]
    msg = r.stderr.lower()
    assert any(n.lower() in msg for n in names), (
        "%s: the error should name the unsupported op or type (one of %s)\nstderr: %s"
        % (what, names, r.stderr))


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_unsupported_model_rejected(name, any_edgeq, tmp_path):
    """An op outside the engine's list: exit 1 with a message naming it."""
    r, what = _run_zero_inputs(UNSUPPORTED[name], any_edgeq, tmp_path)
    _assert_clean_refusal(name, r, what)


@pytest.mark.parametrize("name", sorted(WIDE_TYPES))
def test_wide_type_model_rejected_or_exact(name, any_edgeq, tmp_path):
    """Every op is in the list but the types are wider than int8 (int16):
    either a clean refusal naming the type, or bit-exact outputs."""
    path = WIDE_TYPES[name]
    r, what = _run_zero_inputs(path, any_edgeq, tmp_path)
    _assert_no_crash(r, what)
    if r.returncode != 0:
        _assert_clean_refusal(name, r, what)
        print("%s: refused cleanly: %s" % (name, r.stderr.strip()))
        return
    orc = oracle.Oracle(path)
    sets = oracle.random_inputs(orc, name, n=N_RANDOM)
    print("%s: the engine runs it; checking against %s on %d input sets"
          % (name, orc.kind, len(sets)))
    failures = oracle.check_against_oracle(path, orc, sets, name, binary=any_edgeq)
    assert not failures, "engine output != %s oracle:\n%s" % (orc.kind, "\n".join(failures))


# --------------------------------------------------------------------------
# malformed flatbuffers


MALFORMED = sorted(f for f in os.listdir(MALFORMED_DIR)) if os.path.isdir(MALFORMED_DIR) else []


def test_malformed_dir_present():
    assert MALFORMED, "no malformed models found in %s" % MALFORMED_DIR


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_inspect(name, any_edgeq):
    path = os.path.join(MALFORMED_DIR, name)
    r = oracle.run_edgeq(["inspect", path], binary=any_edgeq)
    what = "edgeq inspect %s" % path
    _assert_no_crash(r, what)
    if name in MALFORMED_BUT_LOADS:
        assert r.returncode == 0, "%s: this degenerate model must load; exit %s\nstderr: %s" % (
            what, oracle.describe_rc(r.returncode), r.stderr)
    else:
        assert r.returncode != 0, "%s: accepted a malformed model\nstdout: %s" % (what, r.stdout)
        assert r.stderr.strip(), "%s: failed (exit %d) without a message on stderr" % (
            what, r.returncode)


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_run(name, any_edgeq, tmp_path):
    """`run` goes through the same loader: no crash whatever it decides, a
    message with any refusal; the two loadable files, if run, give the
    oracle's bytes."""
    path = os.path.join(MALFORMED_DIR, name)
    if name in MALFORMED_BUT_LOADS:
        r, what = _run_zero_inputs(path, any_edgeq, tmp_path)
    else:
        args = ["run", path, "--output", str(tmp_path / "o0.bin")]
        r = oracle.run_edgeq(args, binary=any_edgeq)
        what = "edgeq %s" % " ".join(args)
    _assert_no_crash(r, what)
    if name not in MALFORMED_BUT_LOADS:
        assert r.returncode != 0, "%s: accepted a malformed model" % what
    if r.returncode != 0:
        assert r.stderr.strip(), "%s: failed (exit %d) without a message on stderr" % (
            what, r.returncode)
        return
    orc = oracle.Oracle(path)
    exp = orc.run(_zero_inputs(orc.info))
    for k, (e, d) in enumerate(zip(exp, orc.outputs)):
        with open(tmp_path / ("o%d.bin" % k), "rb") as f:
            got = np.frombuffer(f.read(), dtype=d.dtype)
        assert got.size == e.size, "%s: output %d has %d values, expected %d" % (
            what, k, got.size, e.size)
        msg = oracle.compare_bytes(e, got.reshape(e.shape))
        assert msg is None, "%s: output %d: %s" % (what, k, msg)
