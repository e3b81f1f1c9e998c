# SPDX-License-Identifier: Apache-2.0
"""`edgeq export --c`: a file as an aligned C array (+ optionally the arena
the model needs), compiled and checked byte for byte by a C program; and
`edgeq export --ops`: the op-selection header, checked against LiteRT's
op list and by linking the engine with it."""

import os
import re
import shutil
import sys

import pytest

from boardlib import BUILD, MODELS, REPO, run

EDGEQ = os.path.join(BUILD, "edgeq")
HELLO = os.path.join(MODELS, "tflite-micro", "models", "hello_world_int8.tflite")

CHECK_C = r"""
#include <stdint.h>
#include <stdio.h>
#include <string.h>
extern const uint8_t NAME[];
extern const size_t NAME_len;
#ifdef ARENA
extern uint8_t NAME_arena[];
extern const size_t NAME_arena_len;
#endif
int main(int argc, char **argv) {
    FILE *fp = fopen(argv[1], "rb");
    static uint8_t buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, fp);
    (void)argc;
    if (n != NAME_len || memcmp(buf, NAME, n) != 0) return 3;
    if ((uintptr_t)NAME % 16) return 4;
#ifdef ARENA
    if ((uintptr_t)NAME_arena % 16 || NAME_arena_len % 16) return 5;
    printf("%zu\n", NAME_arena_len);
#endif
    return 0;
}
"""


@pytest.fixture(scope="module")
def edgeq(host_build):
    if not shutil.which("cc"):
        pytest.skip("no host C compiler")
    return EDGEQ


def export_and_check(edgeq, tmp_path, src, name="model_data", args=(), arena=False):
    out = tmp_path / "data.c"
    r = run([edgeq, "export", "--c", src, "--name", name, "-o", str(out)] + list(args))
    assert r.returncode == 0, r.stderr.decode()
    main = tmp_path / "check.c"
    main.write_text(CHECK_C.replace("NAME", name))
    exe = tmp_path / "check"
    cmd = ["cc", "-std=c99", "-Wall", "-Werror", "-o", str(exe), str(main), str(out)]
    if arena:
        cmd.insert(1, "-DARENA")
    r = run(cmd)
    assert r.returncode == 0, r.stderr.decode()
    r = run([str(exe), src])
    assert r.returncode == 0, "check exit %d" % r.returncode
    return out.read_text(), r.stdout.decode()


def test_export_any_file(edgeq, tmp_path):
    src = tmp_path / "blob.bin"
    src.write_bytes(bytes(range(256)) * 3 + b"\x00\xff")
    text, _ = export_and_check(edgeq, tmp_path, str(src), name="blob")
    assert "aligned(16)" in text and "const size_t blob_len = 770;" in text


def test_export_empty_file(edgeq, tmp_path):
    src = tmp_path / "empty.bin"
    src.write_bytes(b"")
    text, _ = export_and_check(edgeq, tmp_path, str(src), name="nothing")
    assert "nothing_len = 0;" in text


def test_export_model_with_arena(edgeq, tmp_path):
    text, printed = export_and_check(edgeq, tmp_path, HELLO, args=["--arena"], arena=True)
    arena = int(printed)
    r = run([edgeq, "inspect", HELLO])
    m = re.search(r"arena\s+(\d+) bytes", r.stdout.decode())
    assert m and arena == (int(m.group(1)) + 15) // 16 * 16


def test_export_section_and_stdout(edgeq):
    r = run([edgeq, "export", "--c", HELLO, "--section", ".rodata.model"])
    assert r.returncode == 0
    assert b'__attribute__((section(".rodata.model")))' in r.stdout
    assert b"const uint8_t model_data[2704]" in r.stdout


@pytest.mark.parametrize("args,code", [
    (["export", HELLO], 2),                                  # no --c
    (["export", "--c"], 2),                                  # no file
    (["export", "--c", HELLO, "--name", "1bad"], 2),
    (["export", "--c", HELLO, "--section", "a\"b"], 2),
    (["export", "--c", HELLO, "--arena-bytes", "x"], 2),
    (["export", "--c", HELLO, HELLO], 2),
    (["export", "--c", "/nonexistent/model.tflite"], 1),
])
def test_export_errors(edgeq, args, code):
    r = run([edgeq] + args)
    assert r.returncode == code, r.stderr
    assert r.stderr.startswith(b"edgeq")


def test_export_arena_refuses_a_non_model(edgeq, tmp_path):
    src = tmp_path / "x.bin"
    src.write_bytes(b"definitely not a flatbuffer")
    r = run([edgeq, "export", "--c", "--arena", str(src)])
    assert r.returncode == 1 and r.stdout == b""


# ---- edgeq export --ops: the op-selection header (engine/src/ops/registry.c)

KWS = os.path.join(MODELS, "mlcommons-tiny", "models", "keyword_spotting", "kws_ref_model.tflite")
IC = os.path.join(MODELS, "mlcommons-tiny", "models", "image_classification",
                  "pretrainedResnet_quant.tflite")
MNIST = os.path.join(REPO, "models", "mnist_cnn", "mnist_cnn_int8.tflite")
DIGITS = os.path.join(REPO, "models", "digits_resnet", "digits_resnet_int8.tflite")
HELLO_F = os.path.join(MODELS, "tflite-micro", "models", "hello_world_float.tflite")


def litert_ops(path):
    """(int8 ops, float twins) the official interpreter lists for a model, as
    registry names: an op whose input 0 is float32 runs on the float twin."""
    interp = pytest.importorskip("ai_edge_litert.interpreter").Interpreter(model_path=path)
    dtypes = {t["index"]: t["dtype"] for t in interp.get_tensor_details()}
    ints, floats = set(), set()
    for op in interp._get_ops_details():
        ins = [i for i in op["inputs"] if i >= 0]
        is_float = bool(ins) and dtypes.get(ins[0]) is not None and dtypes[ins[0]].__name__ == "float32"
        (floats if is_float else ints).add(op["op_name"].lower())
    return ints, floats


def header_ops(text):
    """The X(name) entries of EDGE_OPS and EDGE_FLOAT_OPS in a header."""
    out = []
    for macro in ("EDGE_OPS", "EDGE_FLOAT_OPS"):
        m = re.search(r"#define %s\(X\) \\\n((?:    .*\\\n)*)    /\* end \*/" % macro, text)
        assert m, text
        names = re.findall(r"X\((\w+)\)", m.group(1))
        assert len(names) == len(set(names)), text
        out.append(set(names))
    return out


@pytest.mark.parametrize("paths", [[KWS], [IC], [MNIST], [HELLO_F], [KWS, DIGITS, MNIST, HELLO_F]])
def test_export_ops_lists_the_ops_litert_runs(edgeq, tmp_path, paths):
    out = tmp_path / "ops.h"
    r = run([edgeq, "export", "--ops"] + paths + ["-o", str(out)])
    assert r.returncode == 0, r.stderr.decode()
    ints, floats = header_ops(out.read_text())
    want_i, want_f = set(), set()
    for p in paths:
        i, f = litert_ops(p)
        want_i |= i
        want_f |= f
    assert ints == want_i
    assert floats == {n + "_f" for n in want_f}


def test_export_ops_errors(edgeq, tmp_path):
    bad = tmp_path / "x.tflite"
    bad.write_bytes(b"not a model at all, really")
    out = tmp_path / "ops.h"
    r = run([edgeq, "export", "--ops", KWS, str(bad), "-o", str(out)])
    assert r.returncode == 1 and not out.exists()
    r = run([edgeq, "export", "--ops", "--c", KWS])
    assert r.returncode == 2
    r = run([edgeq, "export", "--ops", KWS, "--arena"])
    assert r.returncode == 2


def run_model_with_ops(hdr, exe):
    """tests/boards/run_model.c linked with an op registry built from header
    `hdr` ahead of the host libedge.a, with --gc-sections as firmware links;
    returns the program and its symbol table (nm)."""
    r = run(["cc", "-std=c11", "-O1", "-Wall", "-Werror", "-I" + os.path.join(REPO, "engine", "include"),
             "-I" + os.path.join(REPO, "engine", "src"), '-DEDGE_OPS_HEADER="%s"' % hdr,
             os.path.join(REPO, "engine", "src", "ops", "registry.c"),
             os.path.join(REPO, "tests", "boards", "run_model.c"), os.path.join(BUILD, "libedge.a"), "-lm",
             "-Wl,--gc-sections", "-o", str(exe)])
    assert r.returncode == 0, r.stderr.decode()
    return exe, run(["nm", str(exe)]).stdout.decode()


def test_engine_with_one_models_ops(edgeq, host_build, tmp_path):
    """run_model linked with a registry that keeps only KWS's ops: KWS runs
    and gives the full build's bytes, the other ops are not linked at all, and
    a model that needs one of them (IC's ADD) is refused by name."""
    hdr = tmp_path / "kws_ops.h"
    assert run([edgeq, "export", "--ops", KWS, "-o", str(hdr)]).returncode == 0
    exe, syms = run_model_with_ops(hdr, tmp_path / "run_kws_ops")
    assert "edge_op_conv_2d" in syms and "edge_op_softmax" in syms
    assert "edge_op_add" not in syms and "edge_op_conv_2d_f" not in syms

    sample = bytes((i * 37) % 256 for i in range(490))
    (tmp_path / "in.bin").write_bytes(sample)
    full = os.path.join(host_build, "run_model")
    r = run([full, KWS, str(tmp_path / "in.bin"), str(tmp_path / "full.bin")])
    assert r.returncode == 0, r.stderr.decode()
    r = run([str(exe), KWS, str(tmp_path / "in.bin"), str(tmp_path / "part.bin")])
    assert r.returncode == 0, r.stderr.decode()
    assert (tmp_path / "part.bin").read_bytes() == (tmp_path / "full.bin").read_bytes()

    r = run([str(exe), IC])
    assert r.returncode == 1
    err = r.stderr.decode()
    assert "ADD (builtin 0) is not supported" in err and "EDGE_OPS_HEADER" in err, err


def float_graph(op):
    """A float32 SOFTMAX, AVERAGE_POOL_2D, RELU or LOGISTIC graph
    (tests/conformance/graph_builder.py)."""
    sys.path.insert(0, os.path.join(REPO, "tests", "conformance"))
    import oracle
    from graph_builder import build
    S = oracle._schema()
    if op in ("relu", "logistic"):
        return build(op.upper(), [((2, 10), "FLOAT32", None, None), ((2, 10), "FLOAT32", None, None)],
                     None, None)
    if op == "softmax":
        opt = S.SoftmaxOptionsT()
        opt.beta = 1.0
        return build("SOFTMAX", [((2, 10), "FLOAT32", None, None), ((2, 10), "FLOAT32", None, None)],
                     "SoftmaxOptions", opt)
    opt = S.Pool2DOptionsT()
    opt.padding, opt.strideH, opt.strideW, opt.filterHeight, opt.filterWidth = 1, 1, 1, 2, 2
    return build("AVERAGE_POOL_2D", [((1, 3, 3, 5), "FLOAT32", None, None),
                                     ((1, 2, 2, 5), "FLOAT32", None, None)], "Pool2DOptions", opt)


@pytest.mark.parametrize("op,float_sym", [("softmax", "edge_expf"), ("average_pool_2d", "edge_pool_f32"),
                                         ("relu", "edge_relu_eval_f"), ("logistic", "edge_lut_act_eval_f")])
def test_float_twins_are_selected_apart(edgeq, host_build, tmp_path, op, float_sym):
    """SOFTMAX's, the pools' and the activations' float32 code lives in their
    float twins: a build whose header keeps the int8 op alone refuses the
    float32 op by name and links none of its float code (with --gc-sections,
    as firmware), and one that also keeps the twin runs it as the full build
    does."""
    import numpy as np

    model = tmp_path / ("%s_f32.tflite" % op)
    model.write_bytes(float_graph(op))
    x = np.linspace(-4, 3, 45 if op == "average_pool_2d" else 20, dtype=np.float32)
    (tmp_path / "in.bin").write_bytes(x.tobytes())
    r = run([os.path.join(host_build, "run_model"), str(model), str(tmp_path / "in.bin"),
             str(tmp_path / "full.bin")])
    assert r.returncode == 0, r.stderr.decode()

    outs = {}
    for name, floats in (("int8_only", ""), ("with_twin", "X(%s_f)" % op)):
        hdr = tmp_path / (name + ".h")
        hdr.write_text("#define EDGE_OPS(X) X(%s)\n#define EDGE_FLOAT_OPS(X) %s\n" % (op, floats))
        exe, syms = run_model_with_ops(hdr, tmp_path / name)
        outs[name] = (run([str(exe), str(model), str(tmp_path / "in.bin"), str(tmp_path / (name + ".bin"))]),
                      float_sym in syms)
    r, has_float = outs["int8_only"]
    assert r.returncode == 1 and "float twin" in r.stderr.decode(), r.stderr.decode()
    assert not has_float
    r, has_float = outs["with_twin"]
    assert r.returncode == 0, r.stderr.decode()
    assert has_float
    assert (tmp_path / "with_twin.bin").read_bytes() == (tmp_path / "full.bin").read_bytes()
