# SPDX-License-Identifier: Apache-2.0
"""A fresh clone with nothing beside it (no ../shared), as a new user has
it: the licence is there, `make demo` runs the zoo's MNIST CNN on its
sample 7, and a Cortex-M4 firmware for that model builds and, under QEMU,
answers 7. Clones the committed tree (HEAD): what CI and users get."""

import os

import pytest

from shiplib import REPO, require_tools, run


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    require_tools("git")
    root = tmp_path_factory.mktemp("fresh")
    dest = root / "edgeq"
    run(["git", "clone", "-q", REPO, str(dest)])
    assert not (root / "shared").exists()
    return dest


def env_without_overrides():
    env = dict(os.environ)
    for k in ("BUILD", "MODELS", "SHARED", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        env.pop(k, None)
    return env


def test_licence(clone):
    text = (clone / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert (clone / "NOTICE").is_file()


def test_make_demo(clone):
    r = run(["make", "-C", str(clone), "-j2", "demo"], env=env_without_overrides(), timeout=1500)
    lines = r.stdout.splitlines()
    top = [line for line in lines if line.strip().startswith("1. ")]
    assert top and top[0].split()[1] == "7", r.stdout[-2000:]
    assert "person_detect skipped" in r.stdout


def test_cortex_m4_firmware(clone):
    require_tools("arm-none-eabi-gcc", "qemu-system-arm")
    run(["make", "-C", str(clone), "-j2", "BOARD=cortex-m4", "build/cortex-m4/firmware-mnist.elf"],
        env=env_without_overrides(), timeout=1500)
    r = run(["qemu-system-arm", "-M", "mps2-an386", "-display", "none", "-monitor", "none",
             "-chardev", "stdio,id=con,mux=on", "-serial", "chardev:con",
             "-semihosting-config", "enable=on,target=native,chardev=con",
             "-kernel", str(clone / "build" / "cortex-m4" / "firmware-mnist.elf")], timeout=300)
    assert 'top: 7 "7"' in r.stdout, r.stdout
