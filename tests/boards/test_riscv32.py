# SPDX-License-Identifier: Apache-2.0
"""RISC-V firmware under qemu-system-riscv32 -M virt: RV32IMC (soft float)
and RV32IMFC, bare metal, portable kernels.

- the firmware for the zoo's mnist_cnn (always: it is in the repository)
  and, with ../shared, for the MLPerf Tiny models exits 0 and prints the
  host firmware's answer lines, whose bytes are `edgeq run`'s on the same
  sample; mnist's sample_7.pgm is a 7;
- QEMU runs each build with the extensions it must not use turned off
  (RV32IMC: no A, F, D), so a stray instruction would trap (exit 250);
- -append reaches the firmware (device tree bootargs): three invokes;
- the exit status passes through (no model: exit 1);
- the systolic check (portable kernel) passes on both.
"""

import os

import numpy as np
import pytest

from boardlib import (BUILD, MODELS, REPO, RISCV32, build_board, riscv32_board, riscv32_cmd,
                      run)

CONFIGS = sorted(RISCV32)
MLPERF = {m: os.path.join(MODELS, "mlcommons-tiny", "models", sub) for m, sub in [
    ("kws", "keyword_spotting/kws_ref_model.tflite"),
    ("vww", "visual_wake_words/vww_96_int8.tflite"),
    ("ic", "image_classification/pretrainedResnet_quant.tflite")]}
FW_MODELS = {"mnist": os.path.join(REPO, "models", "mnist_cnn", "mnist_cnn_int8.tflite"), **MLPERF}


def answer_lines(text):
    return [line for line in text.splitlines() if line.startswith(("output ", "top: "))]


def need_model(model):
    if not os.path.isfile(FW_MODELS[model]):
        pytest.skip("%s not found: the MLPerf Tiny firmware needs ../shared/models" % FW_MODELS[model])


@pytest.fixture(scope="module")
def host_answers(tmp_path_factory):
    """The host firmware's answer lines per model, checked against edgeq run."""
    build_board("host")
    answers = {}
    for m, path in FW_MODELS.items():
        exe = os.path.join(BUILD, "host", "firmware-%s" % m)
        if not os.path.isfile(path) or not os.path.isfile(exe):
            continue
        r = run([exe])
        text = r.stdout.decode()
        assert r.returncode == 0, text + r.stderr.decode()
        lines = answer_lines(text)
        assert len(lines) == 2, text
        sample = os.path.join(BUILD, "firmware-data", m, "sample.bin")
        out = str(tmp_path_factory.mktemp("edgeq_run") / ("%s.out" % m))
        r = run([os.path.join(BUILD, "edgeq"), "run", path, "--input", sample, "--output", out])
        assert r.returncode == 0, r.stderr.decode()
        want = " ".join(str(v) for v in np.fromfile(out, np.int8))
        assert lines[0].endswith(": " + want), (lines[0], want)
        answers[m] = lines
    return answers


@pytest.mark.parametrize("model", sorted(FW_MODELS))
@pytest.mark.parametrize("config", CONFIGS)
def test_firmware_gives_host_answers(config, model, host_answers):
    need_model(model)
    riscv32_board()
    r = run(riscv32_cmd(config, "firmware-%s.elf" % model))
    text = r.stdout.decode(errors="replace")
    assert r.returncode == 0, text + r.stderr.decode()
    assert answer_lines(text) == host_answers[model], text
    if model == "mnist":
        assert answer_lines(text)[1].startswith('top: 7 "7"'), text


@pytest.mark.parametrize("config", CONFIGS)
def test_append_gives_invokes(config, host_answers):
    riscv32_board()
    r = run(riscv32_cmd(config, "firmware-mnist.elf", append="3"))
    text = r.stdout.decode(errors="replace")
    assert r.returncode == 0, text
    assert "invokes: 3" in text
    assert answer_lines(text) == host_answers["mnist"]


@pytest.mark.parametrize("config", CONFIGS)
def test_exit_status_passes_through(config):
    riscv32_board()
    r = run(riscv32_cmd(config, "firmware-none.elf"))
    assert r.returncode == 1, r.stdout.decode(errors="replace")
    assert b"error: malformed model" in r.stdout


@pytest.mark.parametrize("config", CONFIGS)
def test_systolic_check(config):
    riscv32_board()
    r = run(riscv32_cmd(config, "systolic_check.elf"))
    text = r.stdout.decode(errors="replace")
    assert r.returncode == 0, text
    assert "kernel portable," in text and "systolic_check: OK" in text


def test_soft_float_build_has_no_float_instructions():
    """RV32IMC: the ELF says soft-float ABI, and QEMU (F off) ran it above."""
    riscv32_board()
    with open(os.path.join(BUILD, "riscv32", "firmware-mnist.elf"), "rb") as fp:
        head = fp.read(52)
    assert head[:4] == b"\x7fELF" and head[4] == 1  # ELF32
    e_flags = int.from_bytes(head[36:40], "little")
    assert e_flags & 0x6 == 0, hex(e_flags)  # EF_RISCV_FLOAT_ABI_SOFT
    assert e_flags & 0x1, hex(e_flags)  # EF_RISCV_RVC: compressed


def test_own_model_in_one_command(tmp_path):
    """make BOARD=riscv32 OWN_MODEL=... OWN_SAMPLE=... OWN_LABELS=...: the
    zoo's digits_resnet on its sample 3, answering as the reference
    interpreter does."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    riscv32_board()
    model = os.path.join(REPO, "models", "digits_resnet", "digits_resnet_int8.tflite")
    sample = str(tmp_path / "in.bin")
    r = run([os.path.join(BUILD, "host", "classify"), model,
             os.path.join(REPO, "models", "digits_resnet", "sample_3.pgm"), "--dump-input", sample])
    assert r.returncode == 0, r.stderr.decode()
    r = run(["make", "-C", REPO, "-j2", "BOARD=riscv32", "OWN_MODEL=" + model, "OWN_SAMPLE=" + sample,
             "OWN_LABELS=" + os.path.join(REPO, "models", "digits_resnet", "labels.txt"),
             os.path.relpath(os.path.join(BUILD, "riscv32", "firmware-own.elf"), REPO)])
    assert r.returncode == 0, r.stdout.decode()[-2000:] + r.stderr.decode()[-2000:]
    r = run(riscv32_cmd("riscv32", "firmware-own.elf"))
    text = r.stdout.decode(errors="replace")
    assert r.returncode == 0, text
    it = Interpreter(model_path=model, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    d = it.get_input_details()[0]
    it.set_tensor(d["index"], np.fromfile(sample, d["dtype"]).reshape(d["shape"]))
    it.invoke()
    want = it.get_tensor(it.get_output_details()[0]["index"]).ravel()
    assert answer_lines(text)[0].endswith(": " + " ".join(str(v) for v in want)), text
    assert answer_lines(text)[1].startswith('top: 3 "3"'), text
