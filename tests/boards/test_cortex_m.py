# SPDX-License-Identifier: Apache-2.0
"""Cortex-M firmware under qemu-system-arm: mps2-an386 (M4, DSP kernel),
mps2-an500 (M7, DSP) and mps3-an547 (M55, MVE).

- the firmware for each MLPerf Tiny model (KWS, VWW, IC) and the zoo's
  mnist_cnn exits 0 and prints
  the host engine's answers: every output byte and the top class equal to
  the same firmware built for the host, whose output bytes are in turn those
  of `edgeq run` on the same sample;
- the exit status passes through (no model: exit 1);
- the systolic variant check passes on each core;
- `make size` reports the engine alone and with each model.
"""

import os
import re
import subprocess

import numpy as np
import pytest

from boardlib import BUILD, CORTEX_M, MODELS, REPO, cortex_m_board, cortex_m_cmd, make_cmd, run

MODELS_FW = ["mnist", "kws", "vww", "ic"]
MLPERF = {m: os.path.join(MODELS, "mlcommons-tiny", "models", sub) for m, sub in [
    ("kws", "keyword_spotting/kws_ref_model.tflite"),
    ("vww", "visual_wake_words/vww_96_int8.tflite"),
    ("ic", "image_classification/pretrainedResnet_quant.tflite")]}
MLPERF["mnist"] = os.path.join(REPO, "models", "mnist_cnn", "mnist_cnn_int8.tflite")  # the zoo's
KERNEL = {"cortex-m4": "dsp", "cortex-m7": "dsp", "cortex-m55": "mve"}
BOARDS = sorted(CORTEX_M)


def answer_lines(text):
    """The lines that carry the answer: the output bytes and the top class."""
    return [line for line in text.splitlines() if line.startswith(("output ", "top: "))]


@pytest.fixture(scope="module")
def host_firmware(host_build, tmp_path_factory):
    """The host firmware's answer lines per model, checked against edgeq run."""
    answers = {}
    for m in MODELS_FW:
        r = run([os.path.join(host_build, "firmware-%s" % m)])
        text = r.stdout.decode()
        assert r.returncode == 0, text + r.stderr.decode()
        lines = answer_lines(text)
        assert len(lines) == 2, text
        # The same sample through the engine CLI gives the same bytes.
        sample = os.path.join(BUILD, "firmware-data", m, "sample.bin")
        out = str(tmp_path_factory.mktemp("edgeq_run") / ("%s.out" % m))
        r = run([os.path.join(BUILD, "edgeq"), "run", MLPERF[m], "--input", sample, "--output", out])
        assert r.returncode == 0, r.stderr.decode()
        want = " ".join(str(v) for v in np.fromfile(out, np.int8))
        assert lines[0].endswith(": " + want), (lines[0], want)
        answers[m] = lines
    return answers


@pytest.mark.parametrize("model", MODELS_FW)
@pytest.mark.parametrize("board", BOARDS)
def test_firmware_gives_host_answers(board, model, host_firmware):
    cortex_m_board(board)
    r = run(cortex_m_cmd(board, "firmware-%s.elf" % model))
    text = r.stdout.decode()
    assert r.returncode == 0, text + r.stderr.decode()
    assert answer_lines(text) == host_firmware[model], text
    # The arena the firmware links (sized on the 64-bit host) is enough.
    m = re.search(r"arena: (\d+) bytes used", text)
    assert m, text


@pytest.mark.parametrize("board", BOARDS)
def test_firmware_repeated_invokes(board, host_firmware):
    """The inputs are refilled before each invoke: three invokes, same answer."""
    cortex_m_board(board)
    r = run(cortex_m_cmd(board, "firmware-kws.elf", append="3"))
    text = r.stdout.decode()
    assert r.returncode == 0, text
    assert "invokes: 3" in text
    assert answer_lines(text) == host_firmware["kws"]


@pytest.mark.parametrize("board", BOARDS)
def test_exit_status_passes_through(board):
    cortex_m_board(board)
    r = run(cortex_m_cmd(board, "firmware-none.elf"))
    assert r.returncode == 1, r.stdout.decode()
    assert b"error: malformed model" in r.stdout


@pytest.mark.parametrize("board", BOARDS)
def test_systolic_variant_check(board):
    cortex_m_board(board)
    r = run(cortex_m_cmd(board, "systolic_check.elf"))
    text = r.stdout.decode()
    assert r.returncode == 0, text
    assert "kernel %s," % KERNEL[board] in text
    assert "tile cases match" in text and "systolic_check: OK" in text


def test_make_size():
    cortex_m_board("cortex-m4")
    r = subprocess.run(make_cmd() + ["--no-print-directory", "-s", "size"], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = {}
    for line in r.stdout.splitlines():
        f = line.split()
        if f and f[0].startswith("firmware-") and len(f) == 7:
            rows[f[0]] = [int(x) for x in f[1:]]
    assert set(rows) == {"firmware-none", "firmware-mnist", "firmware-kws", "firmware-vww",
                         "firmware-ic"}, r.stdout
    model_bytes = {"mnist": 19280, "kws": 53936, "vww": 333288, "ic": 98496}
    for m, n in model_bytes.items():
        # flash holds the model, and less engine than firmware-none's every
        # op (each firmware links only its model's ops); RAM grows by the arena
        assert rows["firmware-" + m][3] >= n
        assert rows["firmware-" + m][3] - n < rows["firmware-none"][3]
        assert rows["firmware-" + m][4] > rows["firmware-none"][4]
        # engine code (link map): some, and less than with every op
        assert 0 < rows["firmware-" + m][5] < rows["firmware-none"][5]
    assert os.path.isfile(os.path.join(REPO, "boards", "cortex-m", "ld", "sections.ld"))
