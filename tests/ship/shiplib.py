# SPDX-License-Identifier: Apache-2.0
"""Helpers for the shipping tests (tests/ship): paths, commands, and the
zoo model every consumer program runs, with its expected answer from the
official interpreter.

The model is the zoo's mnist_cnn (in the repository, so none of this needs
../shared); its input is sample_7.pgm quantized by the host classify
(`--dump-input`), and the expected output comes from ai-edge-litert's
reference kernels (BUILTIN_REF) on those bytes, not from the engine.
"""

import os
import shutil
import subprocess

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.join(REPO, os.environ.get("BUILD", "build"))
MNIST = os.path.join(REPO, "models", "mnist_cnn", "mnist_cnn_int8.tflite")
MNIST_SAMPLE = os.path.join(REPO, "models", "mnist_cnn", "sample_7.pgm")
MNIST_LABEL = 7
TIMEOUT = 900


def run(cmd, timeout=TIMEOUT, check=True, **kw):
    """Runs cmd; on failure (check) fails the test with its output."""
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    if check and r.returncode != 0:
        pytest.fail("%s: exit %d\n%s\n%s" % (" ".join(cmd), r.returncode, r.stdout[-4000:],
                                             r.stderr[-4000:]), pytrace=False)
    return r


def make(*targets, **kw):
    return run(["make", "-C", REPO, "--no-print-directory"] + list(targets), **kw)


def require_tools(*tools):
    missing = [t for t in tools if not shutil.which(t)]
    if missing:
        pytest.fail("%s not installed: `make test-deps` installs the test tools" % ", ".join(missing),
                    pytrace=False)


def built(path):
    """A build product `make` makes before the tests run: missing is a failure."""
    if not os.path.exists(path):
        pytest.fail("%s not built: run `make` first" % path, pytrace=False)
    return path


def mnist_input(tmp_path):
    """sample_7.pgm as mnist_cnn's int8 input bytes (the host classify's own
    resize and quantization)."""
    out = str(tmp_path / "mnist_input.bin")
    run([built(os.path.join(BUILD, "host", "classify")), MNIST, MNIST_SAMPLE, "--top", "1",
         "--dump-input", out])
    return out


def reference_output(model, input_path):
    """Output 0 of the official interpreter's reference kernels."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    it = Interpreter(model_path=model, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    d = it.get_input_details()[0]
    x = np.fromfile(input_path, dtype=d["dtype"]).reshape(d["shape"])
    it.set_tensor(d["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"]).reshape(-1)


def parse_run_model(stdout):
    """run_model's (and the Arduino sketch's) output line as a list of ints."""
    for line in stdout.splitlines():
        if line.startswith("output:"):
            return [int(v) for v in line.split()[1:]]
    pytest.fail("no output line in:\n" + stdout, pytrace=False)
