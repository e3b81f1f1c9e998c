# SPDX-License-Identifier: Apache-2.0
"""`edgeq model.h5 out.tflite --dtype bf16|f32` (issue 7): float files.

What is checked, and against what (all usable in CI: numpy, ml_dtypes,
ai-edge-litert, tflite-micro; no TensorFlow):
  - lowering: `--dtype f32` files of the four MLPerf Tiny .h5 models in
    ../shared and of the float_exec fixtures, run by ai-edge-litert's
    REFERENCE kernels, against Keras's own outputs
    (tests/fixtures/float_exec, made with real Keras): within 1e-5
    (max relative error, below). This checks the lowering independently of
    edgeq's engine.
  - accuracy: `--dtype bf16 --act f32` and `--act bf16` files run by the
    edgeq ENGINE (`edgeq run`), against the same Keras outputs: within 1 %.
    The files are made with bias correction (bias_correct.h) on --calib
    samples that are NOT the evaluation inputs: the same distribution with
    another seed, or for str_ww (whose evaluation inputs are its official
    calibration set) the first 15 official samples, evaluated on the other
    30.
    Max relative error, per output, over all samples:
        max |y - k| / max |k|
    (y the file's outputs, k Keras's). The measured figures are printed
    and written to build/bf16_figures.json.
  - size: a bf16 file is about half its f32 twin (edgeq's --dtype f32, and
    the official float .tflite twins where ../shared has them); the
    report's byte figures match the files edgeq writes.
  - bias correction: the biases edgeq writes equal b - sum_k (bf16(W_nk) -
    W_nk) E[x_k] computed by numpy from litert's activations of the f32
    file on the same samples; --no-bias-correction (and no --calib) keeps
    the float32 biases bit for bit, and leaves ResNet-8 above 1 %.
  - rounding: a Keras fixture with crafted weights (ties, NaNs, infinities,
    the largest float, subnormals) converted to bf16 matches ml_dtypes bit
    for bit in the written file; biases stay float32.
  - the official interpreters on edgeq's bf16 files: what they do, pinned
    (README.md "bf16 models" states it).
The engine tests skip, saying so, while the engine in this build has no
float kernels at all (it refuses a one-CONV_2D float32 file): once it has
any, every model must pass.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import test_float_exec as fx  # noqa: E402  (inputs, Keras references, paths)

BF16_FIX = os.path.join(REPO, "tests", "fixtures", "bf16")
FIGURES = os.path.join(REPO, "build", "bf16_figures.json")

F32_TOL = 1e-5   # float32 against Keras: rounding only
BF16_TOL = 0.01  # the bound
ACTS = ("f32", "bf16")
# Without bias correction, ResNet-8 misses the 1 % on the suite's
# uniform-noise inputs: rounding its filters alone gives 1.19 %
# (ai-edge-litert on the f32 file with its filters rounded to bf16 and
# back, the same figure as the engine's --act f32 --no-bias-correction);
# one layer (conv2d_3) alone gives 1.59 %, conv2d_2 1.18 %, conv2d_1
# 0.85 %: the network amplifies the mean shift each rounded filter adds to
# its channels, and its softmax peaks at 0.48 there. (Keras itself, with
# its unfolded kernels rounded to bf16 by ml_dtypes, is off by 3.7 % on the
# same inputs.) Bias correction removes that shift: 0.21 % (act f32),
# 0.93 % (act bf16), with the filters still rounded to nearest even.
# The float_exec fixtures (random weights, there for op coverage: MUL, SUB,
# CONCATENATION, LEAKY_RELU, HARD_SWISH, PAD, pools...) are not the issue's
# models. func_mix's linear 'reg' output measures 1.21 % with float32
# activations (0.89 % uncorrected: on its 3 samples the 'reg' Dense's own
# correction, the mean over 32 other samples, moves them away; its
# Rescaling constant 1/127.5 is a bf16 MUL operand, which no bias fixes)
# and 1.59 % with bf16 ones.
FIXTURE_TOL = {"f32": 0.015, "bf16": 0.025}
# Over 1 % without bias correction (the litert simulation of rounded filters,
# --no-bias-correction on the engine).
OVER_1PCT = {
    "resnet": "rounding its filters to bf16 alone costs 1.19 % on these inputs",
}
# Bias correction's calibration samples: never the evaluation inputs.
CALIB_N = 32
CALIB_SEED = 1000      # the evaluation inputs use seed len(name)
STRWW_CALIB = 15       # str_ww: calibrate on official samples [:15], evaluate on [15:]
FIXTURES = ("seq_conv", "func_mix", "bn_edge", "gray")
SHARED_KEYS = [m[0] for m in fx.SHARED_MODELS]


def edgeq_bin():
    p = os.environ.get("EDGEQ", os.path.join(REPO, "build", "edgeq"))
    if not (os.path.isfile(p) and os.access(p, os.X_OK)):
        pytest.fail("edgeq CLI %s not found: build it first (`make`)" % p, pytrace=False)
    return p


SAN_ENV = dict(fx.SAN_ENV, LSAN_OPTIONS="exitcode=%d:suppressions=%s" % (
    fx.SANITIZER_EXIT, os.path.join(HERE, "lsan_hdf5.supp")))


def asan_bin():
    p = os.environ.get("EDGEQ_ASAN", os.path.join(REPO, "build", "asan", "edgeq"))
    if not (os.path.isfile(p) and os.access(p, os.X_OK)):
        pytest.skip("ASan+UBSan build %s not built (`make asan`)" % p)
    return p


def edgeq(*args, check=True, binary=None):
    env = dict(os.environ, **SAN_ENV)
    r = subprocess.run([binary or edgeq_bin()] + [str(a) for a in args], capture_output=True,
                       text=True, env=env, timeout=300)
    assert r.returncode != fx.SANITIZER_EXIT, r.stderr
    if check:
        assert r.returncode == 0, "edgeq %s: exit %d\n%s" % (" ".join(map(str, args)),
                                                             r.returncode, r.stderr)
    return r


def max_rel(got, want):
    """max |y - k| / max |k| over everything given."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64).reshape(np.shape(got))
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


# ------------------------------------------------------------ the cases


def shared_case(key):
    """(model path, inputs [N, ...], [Keras outputs]) of a shared model."""
    _, rel, kind, n = next(m for m in fx.SHARED_MODELS if m[0] == key)
    model = fx.need(os.path.join(fx.TINY_MODELS, rel), "../shared models")
    refs = np.load(fx.need(os.path.join(fx.FIX, "shared_refs.npz"), "shared_refs.npz fixture"))
    x = fx.shared_input(key, kind, n, fx.SHARED_SHAPES[key])
    return model, x, [refs[key]]


def fixture_case(name):
    model = fx.fixture_model(name)
    x, ys = fx.fixture_io(name)
    return model, x, ys


def case(name):
    return shared_case(name) if name in SHARED_KEYS else fixture_case(name)


def calib_inputs(name):
    """Samples for bias correction, distinct from the evaluation inputs:
    the same kind of deterministic inputs with another seed; str_ww: the
    first STRWW_CALIB samples of its official calibration set."""
    if name == "strww":
        return shared_case(name)[1][:STRWW_CALIB]
    if name in SHARED_KEYS:
        kind, shape = next(m for m in fx.SHARED_MODELS if m[0] == name)[2], fx.SHARED_SHAPES[name]
    else:
        with open(os.path.join(fx.FIX, "MANIFEST.json")) as f:
            kind = json.load(f)["models"][name]["input"]
        shape = fixture_case(name)[1].shape[1:]
    return fx.det_input((CALIB_N,) + tuple(shape), kind, seed=CALIB_SEED + len(name))


def eval_case(name):
    """(model, inputs, Keras outputs) a bias-corrected file is judged on:
    everything but str_ww's calibration samples."""
    model, x, ys = case(name)
    if name == "strww":
        return model, x[STRWW_CALIB:], [y[STRWW_CALIB:] for y in ys]
    return model, x, ys


class Converted:
    """edgeq's files for each (model, dtype, act), made once per session."""

    def __init__(self, root):
        self.root = root
        self.files = {}

    def get(self, name, dtype, act=None, bc=True):
        """bf16 files: bias-corrected on calib_inputs(name) unless bc=False
        (--no-bias-correction)."""
        k = (name, dtype, act, bc)
        if k not in self.files:
            model = case(name)[0]
            out = os.path.join(self.root, "%s_%s%s%s.tflite" % (name, dtype, "_" + act if act else "",
                                                                "" if bc else "_nobc"))
            rep = out + ".json"
            args = [model, out, "--dtype", dtype, "--report", rep, "-q"]
            if act:
                args += ["--act", act]
            if dtype == "bf16" and bc:
                xc = os.path.join(self.root, name + "_calib.npy")
                np.save(xc, calib_inputs(name))
                args += ["--calib", xc]
            elif dtype == "bf16":
                args += ["--no-bias-correction"]
            edgeq(*args)
            with open(rep) as f:
                self.files[k] = (out, json.load(f))
        return self.files[k]


@pytest.fixture(scope="session")
def conv(tmp_path_factory):
    return Converted(str(tmp_path_factory.mktemp("bf16")))


@pytest.fixture(scope="session")
def figures():
    figs = {}
    yield figs
    if figs:
        os.makedirs(os.path.dirname(FIGURES), exist_ok=True)
        old = {}
        if os.path.exists(FIGURES):
            with open(FIGURES) as f:
                old = json.load(f)
        old.update(figs)
        with open(FIGURES, "w") as f:
            json.dump(old, f, indent=1, sort_keys=True)


# ------------------------------------------------------------ runners


def litert(path, ref=True):
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    kind = OpResolverType.BUILTIN_REF if ref else OpResolverType.BUILTIN
    it = Interpreter(model_path=path, experimental_op_resolver_type=kind)
    it.allocate_tensors()
    return it


def run_litert(path, x):
    it = litert(path)
    i = it.get_input_details()[0]
    outs = it.get_output_details()
    ys = [[] for _ in outs]
    for s in x:
        it.set_tensor(i["index"], s[None].astype(np.float32))
        it.invoke()
        for k, o in enumerate(outs):
            ys[k].append(it.get_tensor(o["index"])[0])
    return [np.array(y) for y in ys]


def run_engine(path, x, n_out, tmp):
    """Every sample through `edgeq run` (float32 in, float32 out); x is one
    array (samples stacked) or a list of them, one per model input."""
    xs = x if isinstance(x, list) else [x]
    ys = [[] for _ in range(n_out)]
    xps = [os.path.join(str(tmp), "x%d.npy" % k) for k in range(len(xs))]
    outs = [os.path.join(str(tmp), "y%d.npy" % k) for k in range(n_out)]
    for i in range(len(xs[0])):
        for xp, xk in zip(xps, xs):
            np.save(xp, xk[i:i + 1].astype(np.float32))
        edgeq("run", path, *[a for p in xps for a in ("--input", p)],
              *[a for o in outs for a in ("--output", o)])
        for k, o in enumerate(outs):
            y = np.load(o)
            assert y.dtype == np.float32
            ys[k].append(y[0])
    return [np.array(y) for y in ys]


_ENGINE_FLOAT = {}


def engine_has_float_kernels(tmp):
    """Does this build's engine run any float file? (The one-CONV_2D
    fixture as --dtype f32.)"""
    if "ok" not in _ENGINE_FLOAT:
        out = os.path.join(str(tmp), "probe_f32.tflite")
        edgeq(os.path.join(BF16_FIX, "conv_only.h5"), out, "--dtype", "f32", "-q")
        x = os.path.join(str(tmp), "probe.npy")
        np.save(x, np.zeros((1, 8, 8, 2), np.float32))
        r = edgeq("run", out, "--input", x, check=False)
        _ENGINE_FLOAT["ok"] = r.returncode == 0
        _ENGINE_FLOAT["why"] = r.stderr.strip()
    return _ENGINE_FLOAT["ok"]


def need_engine_float(tmp):
    if not engine_has_float_kernels(tmp):
        pytest.skip("the engine in this build runs no float file (%s): bf16 support lands "
                    "with branch `float`" % _ENGINE_FLOAT["why"][:200])


# ------------------------------------------------------------ lowering: f32 in litert


@pytest.mark.parametrize("name", SHARED_KEYS + list(FIXTURES))
def test_f32_file_matches_keras_in_litert(conv, figures, name):
    _, x, ys = case(name)
    path, rep = conv.get(name, "f32")
    got = run_litert(path, x)
    assert len(got) == len(ys)
    errs = [max_rel(g, y) for g, y in zip(got, ys)]
    print("f32 (litert reference) %s: max rel error %s" % (name, ["%.2e" % e for e in errs]))
    figures["f32_litert/" + name] = errs
    assert max(errs) < F32_TOL, errs
    assert rep["dtype"] == "f32" and rep["io"] == "float32"


# ------------------------------------------------------------ bf16 weights, simulated in litert


def load_model(path):
    with open(path, "rb") as f:
        return schema().ModelT.InitFromPackedBuf(f.read(), 0)


def weighted_ops(m):
    """[(op name, operator)] of the CONV_2D / DEPTHWISE_CONV_2D /
    FULLY_CONNECTED operators, in file order."""
    S = schema()
    ops = {v: k for k, v in vars(S.BuiltinOperator).items() if not k.startswith("_")}
    r = []
    for op in m.subgraphs[0].operators:
        c = m.operatorCodes[op.opcodeIndex]
        name = ops[max(c.builtinCode, c.deprecatedBuiltinCode)]
        if name in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"):
            r.append((name, op))
    return r


def const_f32(m, ti):
    t = m.subgraphs[0].tensors[ti]
    return np.frombuffer(bytes(m.buffers[t.buffer].data), "<f4").reshape(t.shape)


def bf16_rounded_twin(f32_path, out, biases_from=None):
    """edgeq's f32 file with every float constant but the biases of CONV_2D /
    DEPTHWISE_CONV_2D / FULLY_CONNECTED rounded to bf16 (ml_dtypes) and
    widened back: what a bf16 --act f32 file computes, runnable by litert.
    biases_from: a bf16 file whose (float32, maybe corrected) biases to use."""
    import flatbuffers
    import ml_dtypes

    m = load_model(f32_path)
    g = m.subgraphs[0]
    w = weighted_ops(m)
    biases = set(op.inputs[2] for _, op in w)
    if biases_from is not None:
        m16 = load_model(biases_from)
        w16 = weighted_ops(m16)
        assert [k for k, _ in w] == [k for k, _ in w16]
        for (_, op), (_, op16) in zip(w, w16):
            t = g.tensors[op.inputs[2]]
            m.buffers[t.buffer].data = np.frombuffer(
                const_f32(m16, op16.inputs[2]).astype("<f4").tobytes(), np.uint8)
    for i, t in enumerate(g.tensors):
        d = m.buffers[t.buffer].data
        if d is None or len(d) == 0 or t.type != schema().TensorType.FLOAT32 or i in biases:
            continue
        a = np.frombuffer(bytes(d), "<f4").astype(ml_dtypes.bfloat16).astype("<f4")
        m.buffers[t.buffer].data = np.frombuffer(a.tobytes(), np.uint8)
    b = flatbuffers.Builder(0)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    with open(out, "wb") as f:
        f.write(b.Output())
    return out


@pytest.mark.parametrize("name", SHARED_KEYS + list(FIXTURES))
def test_bf16_weights_simulated_in_litert(conv, figures, tmp_path, name):
    """The cost of bf16 weights alone, without edgeq's engine: litert's
    reference kernels on the f32 file with bf16-rounded constants."""
    _, x, ys = case(name)
    f32, _ = conv.get(name, "f32")
    got = run_litert(bf16_rounded_twin(f32, str(tmp_path / "sim.tflite")), x)
    errs = [max_rel(g, y) for g, y in zip(got, ys)]
    print("bf16 weights (litert simulation) %s: max rel error %s"
          % (name, ["%.3f %%" % (100 * e) for e in errs]))
    figures["bf16_weights_litert_sim/" + name] = errs
    assert max(errs) > 1e-6, errs
    if name in OVER_1PCT:
        assert 0.01 <= max(errs) < 0.02, errs
    else:
        assert max(errs) < BF16_TOL, errs


# ------------------------------------------------------------ accuracy: bf16 on the engine


@pytest.mark.parametrize("act", ACTS)
@pytest.mark.parametrize("name", SHARED_KEYS + list(FIXTURES))
def test_bf16_file_on_engine_within_1pct_of_keras(conv, figures, tmp_path, name, act):
    need_engine_float(tmp_path)
    _, x, ys = eval_case(name)
    path, rep = conv.get(name, "bf16", act)
    assert rep["bias_correction"]["layers"] > 0 and not rep["bias_correction"]["synthetic"]
    got = run_engine(path, x, len(ys), tmp_path)
    if act == "f32":
        # bf16 filters widened exactly, the file's float32 biases, float32
        # arithmetic: what litert's reference kernels compute on the
        # rounded twin, to float rounding.
        f32, _ = conv.get(name, "f32")
        sim = run_litert(bf16_rounded_twin(f32, str(tmp_path / "sim.tflite"), path), x)
        for g, y in zip(got, sim):
            assert max_rel(g, y) < 1e-5
    errs = [max_rel(g, y) for g, y in zip(got, ys)]
    print("bf16 act=%s (engine, bias-corrected) %s: max rel error %s"
          % (act, name, ["%.3f %%" % (100 * e) for e in errs]))
    figures["bf16_engine/%s/act_%s" % (name, act)] = errs
    assert max(errs) < (BF16_TOL if name in SHARED_KEYS else FIXTURE_TOL[act]), errs
    # bf16 is not float32 in disguise: rounding shows.
    assert max(errs) > 1e-6, errs


def test_calibration_and_evaluation_inputs_are_distinct():
    """Bias correction must not fit the samples it is judged on."""
    for name in SHARED_KEYS + list(FIXTURES):
        xc = calib_inputs(name)
        x = eval_case(name)[1]
        assert xc.shape[1:] == x.shape[1:], name
        a = {s.tobytes() for s in xc.astype(np.float32)}
        assert not any(s.tobytes() in a for s in x.astype(np.float32)), name


@pytest.mark.parametrize("act", ACTS)
@pytest.mark.parametrize("name", SHARED_KEYS)
def test_without_bias_correction_on_engine(conv, figures, tmp_path, name, act):
    """--no-bias-correction: the float32 biases bit for bit as the f32
    file's, and the errors before correction (ResNet-8 misses 1 % there)."""
    need_engine_float(tmp_path)
    path, rep = conv.get(name, "bf16", act, bc=False)
    assert rep["bias_correction"] is None
    f32, _ = conv.get(name, "f32")
    m32, m16 = load_model(f32), load_model(path)
    for (_, a), (_, b) in zip(weighted_ops(m32), weighted_ops(m16)):
        assert const_f32(m32, a.inputs[2]).tobytes() == const_f32(m16, b.inputs[2]).tobytes()
    _, x, ys = eval_case(name)
    got = run_engine(path, x, len(ys), tmp_path)
    errs = [max_rel(g, y) for g, y in zip(got, ys)]
    print("bf16 act=%s (engine, no bias correction) %s: max rel error %s"
          % (act, name, ["%.3f %%" % (100 * e) for e in errs]))
    figures["bf16_engine_no_bias_correction/%s/act_%s" % (name, act)] = errs
    if name in OVER_1PCT:
        assert 0.01 <= max(errs) < 0.02, errs
    else:
        assert max(errs) < BF16_TOL, errs


def patch_means(x, kh, kw, sh, sw, dh, dw, same):
    """E over samples and output positions of each im2col tap [kh, kw, C]
    of x [N, H, W, C] (TensorFlow's padding, padded taps 0)."""
    n, h, w, c = x.shape

    def geom(size, k, s, d):
        if not same:
            return (size - (k - 1) * d - 1) // s + 1, 0
        out = -(-size // s)
        return out, max((out - 1) * s + (k - 1) * d + 1 - size, 0) // 2

    oh, pt = geom(h, kh, sh, dh)
    ow, pl = geom(w, kw, sw, dw)
    xp = np.zeros((n, h + 2 * (kh * dh + sh), w + 2 * (kw * dw + sw), c))
    xp[:, pt:pt + h, pl:pl + w] = x
    e = np.zeros((kh, kw, c))
    for i in range(kh):
        for j in range(kw):
            e[i, j] = xp[:, i * dh:i * dh + (oh - 1) * sh + 1:sh,
                         j * dw:j * dw + (ow - 1) * sw + 1:sw].mean(axis=(0, 1, 2))
    return e


@pytest.mark.parametrize("name", SHARED_KEYS + list(FIXTURES))
def test_bias_correction_is_what_numpy_computes(conv, name):
    """The biases of the bf16 file minus those of the f32 file equal
    -sum_k (bf16(W_nk) - W_nk) E[x_k], with W the f32 file's filters
    (a folded input Rescaling included), E from litert's activations of
    the f32 file on the calibration samples (numpy; ml_dtypes rounds).
    edgeq measures E on the bf16 model itself (sequential correction):
    the two agree to within 2 % of the largest correction of each layer."""
    import ml_dtypes
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    f32, _ = conv.get(name, "f32")
    p16, rep = conv.get(name, "bf16", "f32")
    m32, m16 = load_model(f32), load_model(p16)
    w32, w16 = weighted_ops(m32), weighted_ops(m16)
    it = Interpreter(model_path=f32, experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
                     experimental_preserve_all_tensors=True)
    it.allocate_tensors()
    ins = it.get_input_details()
    xc = calib_inputs(name)
    acts = {op.inputs[0]: [] for _, op in w32}
    for s in xc:
        it.set_tensor(ins[0]["index"], s[None].astype(np.float32))
        it.invoke()
        for t in acts:
            acts[t].append(it.get_tensor(t)[0])
    corrected = 0
    for (kind, a), (_, b) in zip(w32, w16):
        w = const_f32(m32, a.inputs[1]).astype(np.float32)
        dw = (w.astype(ml_dtypes.bfloat16).astype(np.float64) - w)
        xin = np.array(acts[a.inputs[0]], np.float64)
        o = a.builtinOptions
        if kind == "FULLY_CONNECTED":
            corr = -(dw @ xin.reshape(-1, w.shape[1]).mean(0))
        else:
            e = patch_means(xin, w.shape[1], w.shape[2], o.strideH, o.strideW,
                            o.dilationHFactor, o.dilationWFactor, o.padding == 0)
            if kind == "CONV_2D":
                groups = xin.shape[-1] // w.shape[3]
                opg = w.shape[0] // groups
                corr = np.concatenate([
                    -np.einsum("nijc,ijc->n", dw[k * opg:(k + 1) * opg],
                               e[..., k * w.shape[3]:(k + 1) * w.shape[3]])
                    for k in range(groups)])
            else:  # [1, kh, kw, C*M]: channel c*M+m reads input channel c
                e = np.repeat(e, w.shape[3] // xin.shape[-1], axis=2)
                corr = -np.einsum("ijn,ijn->n", dw[0], e)
        got = const_f32(m16, b.inputs[2]).astype(np.float64) - const_f32(m32, a.inputs[2])
        scale = np.abs(corr).max()
        assert np.abs(got - corr).max() <= 0.02 * scale + 1e-9, (kind, got[:4], corr[:4])
        corrected += scale > 0
    assert corrected >= len(w32) - 1  # every layer but possibly an exact-bf16 one
    assert rep["bias_correction"]["layers"] == len(w32)
    assert rep["bias_correction"]["samples"] == len(xc)


def test_without_calib_no_bias_correction(tmp_path):
    """No --calib: the biases stay the float32 ones, and edgeq says so."""
    model = shared_case("resnet")[0]
    r = edgeq(model, tmp_path / "m.tflite", "--dtype", "bf16", "--report", tmp_path / "r.json")
    assert "no --calib: the bf16 biases are not corrected" in r.stderr
    assert json.loads((tmp_path / "r.json").read_text())["bias_correction"] is None
    edgeq(model, tmp_path / "f.tflite", "--dtype", "f32", "-q")
    m32, m16 = load_model(str(tmp_path / "f.tflite")), load_model(str(tmp_path / "m.tflite"))
    for (_, a), (_, b) in zip(weighted_ops(m32), weighted_ops(m16)):
        assert const_f32(m32, a.inputs[2]).tobytes() == const_f32(m16, b.inputs[2]).tobytes()
    r = edgeq(model, tmp_path / "m.tflite", "--dtype", "bf16", "-q")
    assert r.stderr == ""


def _loader_fixtures():
    p = os.path.join(fx.KERAS_FIX, "MANIFEST.json")
    if not os.path.exists(p):
        return []
    with open(p) as f:
        models = json.load(f).get("models", {})
    return [(name, fn, m["inputs"], m["outputs"]) for name, m in sorted(models.items())
            for fn in m["files"]]


@pytest.mark.parametrize("name,fn,n_in,n_out", _loader_fixtures())
def test_loader_fixtures_as_float_files_on_engine(tmp_path, name, fn, n_in, n_out):
    """The loader's Keras fixtures (tests/fixtures/keras: nested models, two
    inputs and outputs, Keras 2 and 3 files) as f32 and bf16 files on the
    engine, against Keras's outputs."""
    need_engine_float(tmp_path)
    xs = [np.load(os.path.join(fx.KERAS_FIX, "%s.in%d.npy" % (name, k))) for k in range(n_in)]
    ys = [np.load(os.path.join(fx.KERAS_FIX, "%s.out%d.npy" % (name, k))) for k in range(n_out)]
    for dtype, act, tol in (("f32", None, F32_TOL), ("bf16", "f32", BF16_TOL),
                            ("bf16", "bf16", BF16_TOL)):
        out = tmp_path / "m.tflite"
        edgeq(os.path.join(fx.KERAS_FIX, fn), out, "--dtype", dtype, "-q",
              *(["--act", act] if act else []))
        got = run_engine(str(out), xs, n_out, tmp_path)
        for g, y in zip(got, ys):
            assert max_rel(g, y) < tol, (dtype, act, max_rel(g, y))


def test_bf16_report_checks_calib_samples_on_engine(tmp_path):
    """With --calib, the report compares the bf16 file on the engine with
    the float graph (edgeq's executor, which follows Keras)."""
    need_engine_float(tmp_path)
    model, x, _ = shared_case("ad01")
    xp = tmp_path / "x.npy"
    np.save(xp, x)
    rep = tmp_path / "r.json"
    r = edgeq(model, tmp_path / "m.tflite", "--dtype", "bf16", "--calib", xp, "--report", rep)
    assert "bf16 vs float on the 8 check samples" in r.stdout
    doc = json.loads(rep.read_text())
    assert doc["engine_refused"] is None
    (o,) = doc["agreement"]["outputs"]
    assert 1e-6 < o["max_rel_error"] < BF16_TOL


# ------------------------------------------------------------ sizes


def param_bytes(path):
    """Bytes of constant buffers, and of quantization parameters (a float
    scale and an int64 zero point per entry) of constant tensors."""
    S = schema()
    with open(path, "rb") as f:
        m = S.ModelT.InitFromPackedBuf(f.read(), 0)
    data = qp = 0
    for t in m.subgraphs[0].tensors:
        d = m.buffers[t.buffer].data
        if d is None or len(d) == 0:
            continue
        data += len(d)
        if t.quantization is not None and t.quantization.scale is not None:
            qp += 12 * len(t.quantization.scale)
    return data, qp


def schema():
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as S

    return S


@pytest.mark.parametrize("name", SHARED_KEYS)
def test_bf16_file_is_about_half_its_float_twin(conv, figures, name):
    f32, _ = conv.get(name, "f32")
    sizes = {"f32": os.path.getsize(f32)}
    for act in ACTS:
        p, rep = conv.get(name, "bf16", act)
        sizes["bf16_act_" + act] = os.path.getsize(p)
        assert rep["output_bytes"] == os.path.getsize(p)
        ratio = os.path.getsize(p) / sizes["f32"]
        assert 0.48 < ratio < 0.53, (act, ratio)
    key = next(m for m in fx.SHARED_MODELS if m[0] == name)[0]
    if key in fx.FLOAT_TWINS:
        twin = os.path.join(fx.TINY_MODELS, fx.FLOAT_TWINS[key])
        if os.path.exists(twin):
            sizes["official_float_twin"] = os.path.getsize(twin)
            ratio = sizes["bf16_act_f32"] / sizes["official_float_twin"]
            assert 0.45 < ratio < 0.53, ratio
    print("sizes %s: %s" % (name, sizes))
    figures["sizes/" + name] = sizes


@pytest.mark.parametrize("name", ["ad01", "strww", "resnet"])
def test_report_bytes_match_the_files(conv, figures, tmp_path, name):
    """The report's bf16 / float32 / int8 parameter bytes are what the bf16,
    f32 and int8 files edgeq writes hold (int8: data + per-channel scales and
    zero points)."""
    p16, rep = conv.get(name, "bf16", "f32")
    p32, rep32 = conv.get(name, "f32")
    model, x, _ = case(name)
    xp = tmp_path / "x.npy"
    np.save(xp, x)
    p8 = str(tmp_path / "m8.tflite")
    edgeq(model, p8, "--calib", xp, "-q")
    d16, q16 = param_bytes(p16)
    d32, q32 = param_bytes(p32)
    d8, q8 = param_bytes(p8)
    assert q16 == 0 and q32 == 0
    assert rep["param_bytes"] == d16
    assert rep["param_bytes_float32"] == d32 == rep32["param_bytes"]
    assert rep["param_bytes_int8"] == d8 + q8
    # what bf16 saves: close to half of float32's weights
    assert 0.49 < rep["param_bytes"] / rep["param_bytes_float32"] < 0.52
    figures["param_bytes/" + name] = {"bf16": d16, "float32": d32, "int8_with_qparams": d8 + q8,
                                      "int8_file": os.path.getsize(p8)}


# ------------------------------------------------------------ rounding on a written file


def tensor_bytes(path, name):
    S = schema()
    with open(path, "rb") as f:
        m = S.ModelT.InitFromPackedBuf(f.read(), 0)
    for t in m.subgraphs[0].tensors:
        if t.name.decode() == name:
            return t.type, bytes(m.buffers[t.buffer].data)
    raise KeyError(name)


def test_bf16_weights_round_to_nearest_even_nan_inf_survive(tmp_path):
    import ml_dtypes

    w = np.load(os.path.join(BF16_FIX, "rne.weights.npz"))
    kernel, bias = w["kernel"], w["bias"]          # Keras [in][out]
    out = tmp_path / "rne.tflite"
    edgeq(os.path.join(BF16_FIX, "rne.h5"), out, "--dtype", "bf16", "--allow-nonfinite", "-q")
    ttype, kb = tensor_bytes(str(out), "dense/kernel")
    assert ttype == schema().TensorType.BFLOAT16
    got = np.frombuffer(kb, "<u2").reshape(16, 16)  # TFLite [out][in]
    with np.errstate(invalid="ignore", over="ignore"):
        want = kernel.T.astype(ml_dtypes.bfloat16).view(np.uint16)
    bad = np.argwhere(got != want)
    assert bad.size == 0, ["%08x -> %04x, ml_dtypes %04x" % (kernel.T[i, j].view(np.uint32),
                                                              got[i, j], want[i, j])
                           for i, j in bad[:8]]
    # The fixture does exercise what it claims: NaN, +-Inf, an overflow to
    # Inf, and ties where truncation or rounding half up would differ.
    f = kernel.T.ravel()
    bits = f.view(np.uint32)
    g = got.ravel()
    assert np.isnan(f).sum() >= 5 and (g[np.isnan(f)] & 0x7FFF >= 0x7F81).all()
    assert (g[np.isinf(f)] & 0x7FFF == 0x7F80).all() and np.isinf(f).sum() == 2
    big = (bits & 0x7FFFFFFF) == 0x7F7FFFFF  # the largest float
    assert big.sum() == 2 and (g[big] & 0x7FFF == 0x7F80).all()
    ties = np.isfinite(f) & ((bits & 0xFFFF) == 0x8000)
    assert (g[ties] != (bits[ties] >> 16)).any()         # not truncation
    assert (g[ties] != (bits[ties] + 0x8000) >> 16).any()  # not half up
    # Biases stay float32: finite ones bit for bit, the NaN a NaN.
    btype, bb = tensor_bytes(str(out), "dense/bias")
    assert btype == schema().TensorType.FLOAT32
    gb = np.frombuffer(bb, "<f4")
    fin = np.isfinite(bias)
    assert np.array_equal(gb[fin].view(np.uint32), bias[fin].view(np.uint32))
    assert np.isnan(gb[~fin]).all() and (~fin).sum() == 1


def test_nonfinite_weights_are_refused_without_the_flag(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    for dtype in ("bf16", "f32"):
        r = edgeq(os.path.join(BF16_FIX, "rne.h5"), out / "m.tflite", "--dtype", dtype,
                  check=False)
        assert r.returncode == 1, r.stderr
        assert "infinity" in r.stderr or "NaN" in r.stderr, r.stderr
        assert os.listdir(out) == []
    r = edgeq(os.path.join(BF16_FIX, "rne.h5"), out / "m.tflite", "--allow-nonfinite",
              check=False)
    assert r.returncode == 2 and "--allow-nonfinite applies to --dtype bf16 or f32" in r.stderr


# ------------------------------------------------------------ the file contract


@pytest.mark.parametrize("act", ACTS)
@pytest.mark.parametrize("name", SHARED_KEYS + list(FIXTURES))
def test_bf16_file_contract(conv, name, act):
    """I/O float32; activations float32 or bf16 (--act); CONV_2D /
    DEPTHWISE_CONV_2D / FULLY_CONNECTED filters bf16, biases float32, other
    float constants bf16; no quantization, no QUANTIZE/DEQUANTIZE."""
    S = schema()
    TT = S.TensorType
    path, _ = conv.get(name, "bf16", act)
    with open(path, "rb") as f:
        m = S.ModelT.InitFromPackedBuf(f.read(), 0)
    g = m.subgraphs[0]
    ops = {v: k for k, v in vars(S.BuiltinOperator).items() if not k.startswith("_")}
    const = [m.buffers[t.buffer].data is not None and len(m.buffers[t.buffer].data) > 0
             for t in g.tensors]
    for k in list(g.inputs) + list(g.outputs):
        assert g.tensors[k].type == TT.FLOAT32
    act_type = TT.BFLOAT16 if act == "bf16" else TT.FLOAT32
    for t in g.tensors:
        assert t.quantization is None or t.quantization.scale is None
    weighted = 0
    for op in g.operators:
        code = m.operatorCodes[op.opcodeIndex]
        name_ = ops[max(code.builtinCode, code.deprecatedBuiltinCode)]
        assert name_ not in ("QUANTIZE", "DEQUANTIZE")
        out = op.outputs[0]
        if out in g.outputs:
            want = TT.FLOAT32
        elif name_ in ("RESHAPE", "PAD"):  # data movement keeps its input's type
            want = g.tensors[op.inputs[0]].type
        else:
            want = act_type
        assert g.tensors[out].type == want, (name_, g.tensors[out].name, g.tensors[out].type)
        for k, ti in enumerate(op.inputs):
            if ti < 0 or not const[ti]:
                continue
            t = g.tensors[ti]
            if name_ in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED") and k == 2:
                assert t.type == TT.FLOAT32, t.name
            elif t.type != TT.INT32:
                assert t.type == TT.BFLOAT16, (name_, t.name, t.type)
        weighted += name_ in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")
    assert weighted > 0


def test_options_that_do_not_apply_are_refused(tmp_path):
    model = fx.fixture_model("gray")
    for args, frag in ((["--act", "bf16"], "--act applies to --dtype bf16 only"),
                       (["--dtype", "f32", "--act", "f32"], "--act applies to --dtype bf16"),
                       (["--dtype", "bf16", "--io", "float"], "--io applies to --dtype int8"),
                       (["--dtype", "bf16", "--range", "mse"], "--range applies to --dtype int8"),
                       (["--dtype", "fp16"], "--dtype is int8, bf16 or f32"),
                       (["--dtype", "bf16", "--act", "fp8"], "--act is f32 or bf16"),
                       (["--dtype", "f32", "--no-bias-correction"],
                        "--no-bias-correction applies to --dtype bf16 only"),
                       (["--no-bias-correction"],
                        "--no-bias-correction applies to --dtype bf16 only")):
        r = edgeq(model, tmp_path / "m.tflite", *args, check=False)
        assert r.returncode == 2, (args, r.stderr)
        assert frag in r.stderr, (args, r.stderr)
        assert not (tmp_path / "m.tflite").exists()


def test_help_documents_dtype_and_act():
    for args in (["--help"], ["x.h5", "y.tflite", "--help"]):
        out = edgeq(*args).stdout
        for frag in ("--dtype TYPE", "bf16", "f32", "--act TYPE", "--allow-nonfinite",
                     "--no-bias-correction"):
            assert frag in out, frag


# ------------------------------------------------------------ the official interpreters

# What ai-edge-litert 2.3.0 says on edgeq's bf16 files (the same with the
# default and the reference resolver): each refuses at its first weighted
# op, in prepare. act f32: the kernels want float32 filters; act bf16: the
# first op's float32 input and bf16 output differ.
LITERT_REFUSALS = {
    ("ad01", "f32"): ("fully_connected.cc", "filter->type != kTfLiteFloat32 (BFLOAT16 != FLOAT32)",
                      "Node number 0 (FULLY_CONNECTED) failed to prepare"),
    ("ad01", "bf16"): ("fully_connected.cc", "output->type != kTfLiteFloat32 (BFLOAT16 != FLOAT32)",
                       "Node number 0 (FULLY_CONNECTED) failed to prepare"),
    # its CONV_2Ds pass prepare with bf16 filters (see the conv-only test)
    ("resnet", "f32"): ("fully_connected.cc", "filter->type != kTfLiteFloat32 (BFLOAT16 != FLOAT32)",
                        "(FULLY_CONNECTED) failed to prepare"),
    ("resnet", "bf16"): ("conv.cc", "output->type != input_type (BFLOAT16 != FLOAT32)",
                         "Node number 0 (CONV_2D) failed to prepare"),
    ("vww", "f32"): ("depthwise_conv.cc", "filter->type == data_type",
                     "(DEPTHWISE_CONV_2D) failed to prepare"),
    ("vww", "bf16"): ("conv.cc", "output->type != input_type (BFLOAT16 != FLOAT32)",
                      "Node number 0 (CONV_2D) failed to prepare"),
    ("strww", "f32"): ("depthwise_conv.cc", "filter->type == data_type",
                       "Node number 0 (DEPTHWISE_CONV_2D) failed to prepare"),
    ("strww", "bf16"): ("depthwise_conv.cc", "output->type != data_type (BFLOAT16 != FLOAT32)",
                        "Node number 0 (DEPTHWISE_CONV_2D) failed to prepare"),
}

# tflite-micro's python interpreter: RuntimeError "TFLM failed to allocate
# tensors", its reason printed by the C++ side.
TFLM_REFUSALS = {
    ("ad01", "f32"): "Input type: FLOAT32 with filter type: BFLOAT16 not supported.",
    ("ad01", "bf16"): "input->type != output->type (FLOAT32 != BFLOAT16)",
    ("resnet", "f32"): "Hybrid models are not supported on TFLite Micro.",
    ("resnet", "bf16"): "input->type != output->type (1 != 19)",
    ("vww", "f32"): "Hybrid models are not supported on TFLite Micro.",
    ("vww", "bf16"): "input->type != output->type (1 != 19)",
    ("strww", "f32"): "Hybrid models are not supported on TFLite Micro.",
    ("strww", "bf16"): "Hybrid models are not supported on TFLite Micro.",
}


@pytest.mark.parametrize("ref", (True, False), ids=("litert-ref", "litert-default"))
@pytest.mark.parametrize("act", ACTS)
@pytest.mark.parametrize("name", SHARED_KEYS)
def test_litert_refuses_bf16_files(conv, name, act, ref):
    path, _ = conv.get(name, "bf16", act)
    with pytest.raises(RuntimeError) as e:
        litert(path, ref=ref)
    for frag in LITERT_REFUSALS[(name, act)]:
        assert frag in str(e.value), str(e.value)


@pytest.mark.parametrize("act", ACTS)
@pytest.mark.parametrize("name", SHARED_KEYS)
def test_tflite_micro_refuses_bf16_files(conv, capfd, name, act):
    from tflite_micro.python.tflite_micro import runtime

    path, _ = conv.get(name, "bf16", act)
    with pytest.raises(RuntimeError) as e:
        it = runtime.Interpreter.from_file(path)
        d = it.get_input_details(0)
        it.set_input(np.zeros(d["shape"], np.float32), 0)
        it.invoke()
    assert "TFLM failed to allocate tensors" in str(e.value)
    said = "".join(capfd.readouterr())
    assert TFLM_REFUSALS[(name, act)] in said, said


def test_litert_runs_a_conv_only_bf16_file_and_gets_it_wrong(tmp_path):
    """ai-edge-litert's CONV_2D does not check its filter's type for a
    float32 input: a file whose only op is CONV_2D with a bf16 filter loads
    and runs, reading the bf16 filter as float32, and returns garbage.
    Its f32 twin is right, which is what makes this a finding about bf16."""
    fix = np.load(os.path.join(BF16_FIX, "conv_only.io.npz"))
    x, y = fix["x"], fix["y"]
    p32, p16 = tmp_path / "c32.tflite", tmp_path / "c16.tflite"
    edgeq(os.path.join(BF16_FIX, "conv_only.h5"), p32, "--dtype", "f32", "-q")
    edgeq(os.path.join(BF16_FIX, "conv_only.h5"), p16, "--dtype", "bf16", "-q")
    (ok,) = run_litert(str(p32), x)
    assert max_rel(ok, y) < F32_TOL
    for ref in (True, False):
        from ai_edge_litert.interpreter import Interpreter, OpResolverType

        it = Interpreter(model_path=str(p16), experimental_op_resolver_type=(
            OpResolverType.BUILTIN_REF if ref else OpResolverType.BUILTIN))
        it.allocate_tensors()
        i, o = it.get_input_details()[0], it.get_output_details()[0]
        it.set_tensor(i["index"], x[:1])
        it.invoke()
        err = max_rel(it.get_tensor(o["index"]), y[:1])
        assert err > 0.2, err  # wrong, not bf16 rounding


# ------------------------------------------------------------ under ASan + UBSan


def test_bf16_paths_under_asan(tmp_path):
    """The float lowering, writer, report (with and without the engine's
    check) and refusals, on the sanitizer build."""
    san = asan_bin()
    model, x, _ = shared_case("strww")
    xp = tmp_path / "x.npy"
    np.save(xp, x[:4])
    for args in (["--dtype", "bf16"], ["--dtype", "bf16", "--act", "bf16", "--calib", xp],
                 ["--dtype", "f32", "--sram-kb", "64", "--report", tmp_path / "r.json"]):
        edgeq(model, tmp_path / "m.tflite", *args, binary=san)
    for name in FIXTURES:  # bias correction: grouped, dilated, depthwise x2, rank-3 Dense, Rescaling
        xc = tmp_path / "c.npy"
        np.save(xc, calib_inputs(name)[:4])
        edgeq(fx.fixture_model(name), tmp_path / "f.tflite", "--dtype", "bf16", "--act", "bf16",
              "--calib", xc, binary=san)
    edgeq(os.path.join(BF16_FIX, "rne.h5"), tmp_path / "rne.tflite", "--dtype", "bf16",
          "--allow-nonfinite", binary=san)
    r = edgeq(os.path.join(BF16_FIX, "rne.h5"), tmp_path / "no.tflite", "--dtype", "bf16",
              binary=san, check=False)
    assert r.returncode == 1 and not (tmp_path / "no.tflite").exists()
