# SPDX-License-Identifier: Apache-2.0
"""edgeq on hostile input and hostile conditions (issue 8).

* Keras files that are damaged in ways the fixtures do not cover:
  wrong-typed weights (integer, string), a `model_config` attribute that is
  not text or not JSON, config values of the wrong JSON type, a weight
  dataset with huge dimensions (nothing is allocated for it), a missing
  weight, a truncated file: every one is exit 1 with one clear line naming
  the file, through the quantize command (the fixture tests use keras-dump).
* Interrupted runs: SIGINT/SIGTERM delivered while the output's temporary
  file exists (an LD_PRELOAD shim raises it inside fsync) and at random
  moments leave no partial output and no temporary file, and an existing
  output untouched; a full disk (a tiny tmpfs when we may mount one, and
  /dev/full) is an error naming the reason, with nothing left behind, and
  writing to a device writes to it instead of replacing it.
"""

import os
import re
import shutil
import signal
import subprocess
import time

import pytest

h5py = pytest.importorskip("h5py")
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIX = os.path.join(REPO, "tests", "fixtures", "keras")
EDGEQ = os.environ.get("EDGEQ", os.path.join(REPO, "build", "edgeq"))
SEQ = os.path.join(FIX, "seq_mlp.h5")
KERNEL = "model_weights/dense/seq_mlp/dense/kernel"


@pytest.fixture(scope="module")
def edgeq():
    if not os.access(EDGEQ, os.X_OK):
        pytest.fail("%s not built (`make`)" % EDGEQ, pytrace=False)
    return EDGEQ


def quantize(edgeq, src, out, *extra, env=None, timeout=120):
    return subprocess.run([edgeq, str(src), str(out), "--calib-count", "8"] + list(extra),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=timeout, env=env)


def errors(r):
    return [l for l in r.stderr.splitlines() if "WARNING" not in l]


def expect_clear_error(r, path, *needles):
    assert r.returncode == 1, "exit %d: %s" % (r.returncode, r.stderr)
    lines = errors(r)
    assert len(lines) == 1, "one message line, not a stack:\n" + r.stderr
    assert os.path.basename(str(path)) in lines[0], lines[0]
    for n in needles:
        assert re.search(n, lines[0], re.I), "%r not in %s" % (n, lines[0])


def edited(tmp_path, name, fn):
    p = tmp_path / name
    shutil.copy(SEQ, p)
    with h5py.File(p, "r+") as f:
        fn(f)
    return p


def _replace(f, path, **kw):
    del f[path]
    f.create_dataset(path, **kw)


BROKEN = {
    "int_kernel": (lambda f: _replace(f, KERNEL, data=np.ones((20, 16), np.int32)), r"floating point"),
    "string_kernel": (lambda f: _replace(f, KERNEL, data=np.array([b"abc"] * 4)), r"floating point"),
    "huge_kernel": (lambda f: _replace(f, KERNEL, shape=(1 << 22, 1 << 22), dtype="f4", chunks=(64, 64)),
                    r"unusable dimension|too large"),
    "rank7_kernel": (lambda f: _replace(f, KERNEL, shape=(1,) * 7, dtype="f4"), r"dimensions"),
    "missing_kernel": (lambda f: f.__delitem__(KERNEL), r"missing"),
    "config_not_text": (lambda f: f.attrs.__setitem__("model_config", 42), r"config"),
    "config_not_json": (lambda f: f.attrs.__setitem__("model_config", "{not json"), r"JSON"),
    "config_wrong_types": (lambda f: f.attrs.__setitem__(
        "model_config", f.attrs["model_config"].replace('"units": 16', '"units": "sixteen"')), r"units"),
    "config_negative_units": (lambda f: f.attrs.__setitem__(
        "model_config", f.attrs["model_config"].replace('"units": 16', '"units": -16')), r"units"),
    "config_huge_input": (lambda f: f.attrs.__setitem__(
        "model_config", re.sub(r'"batch_shape": \[null, 20\]', '"batch_shape": [null, 2147483647]',
                               f.attrs["model_config"])), r"too large|dimension|shape"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_h5_is_a_clear_error(edgeq, tmp_path, name):
    fn, needle = BROKEN[name]
    p = edited(tmp_path, name + ".h5", fn)
    out = tmp_path / "out.tflite"
    r = quantize(edgeq, p, out)
    expect_clear_error(r, p, needle)
    assert sorted(os.listdir(tmp_path)) == [p.name]


def test_config_edit_applied():
    # The text edits above must really change the config (else they test nothing).
    with h5py.File(SEQ, "r") as f:
        cfg = f.attrs["model_config"]
    assert '"units": 16' in cfg
    assert re.search(r'"batch_shape": \[null, 20\]', cfg), cfg[:400]


@pytest.mark.parametrize("cut", [0.1, 0.5, 0.9, 0.999])
def test_truncated_h5_through_quantize(edgeq, tmp_path, cut):
    data = open(SEQ, "rb").read()
    p = tmp_path / "cut.h5"
    p.write_bytes(data[:int(len(data) * cut)])
    r = quantize(edgeq, p, tmp_path / "out.tflite")
    expect_clear_error(r, p)
    assert sorted(os.listdir(tmp_path)) == ["cut.h5"]


# ---- interrupted runs ----

SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
/* Raise $SHIM_SIG at the first fsync: the output's temporary file exists
 * and is complete but not yet renamed. */
int fsync(int fd) {
    raise(atoi(getenv("SHIM_SIG")));
    int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    return real(fd);
}
"""


@pytest.fixture(scope="module")
def shim(tmp_path_factory):
    d = tmp_path_factory.mktemp("shim")
    (d / "shim.c").write_text(SHIM)
    so = d / "shim.so"
    r = subprocess.run(["cc", "-shared", "-fPIC", "-o", str(so), str(d / "shim.c"), "-ldl"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert r.returncode == 0, r.stdout
    return str(so)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_signal_while_writing_leaves_nothing(edgeq, tmp_path, shim, sig):
    out = tmp_path / "out" / "model.tflite"
    out.parent.mkdir()
    env = dict(os.environ, LD_PRELOAD=shim, SHIM_SIG=str(int(sig)))
    r = quantize(edgeq, SEQ, out, env=env)
    assert r.returncode == -sig, "exit %d: %s" % (r.returncode, r.stderr)
    assert os.listdir(out.parent) == [], os.listdir(out.parent)
    # An existing output stays as it was.
    out.write_bytes(b"previous")
    r = quantize(edgeq, SEQ, out, env=env)
    assert r.returncode == -sig
    assert os.listdir(out.parent) == ["model.tflite"]
    assert out.read_bytes() == b"previous"


def test_signal_during_run_output(edgeq, tmp_path, shim):
    model = os.path.join(REPO, "tests", "fixtures", "ops", "add_const.tflite")
    inp = tmp_path / "in.bin"
    inp.write_bytes(bytes(128))
    d = tmp_path / "o"
    d.mkdir()
    env = dict(os.environ, LD_PRELOAD=shim, SHIM_SIG=str(int(signal.SIGINT)))
    r = subprocess.run([edgeq, "run", model, "--input", str(inp), "--output", str(d / "y.bin")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=60)
    assert r.returncode == -signal.SIGINT, r.stderr
    assert os.listdir(d) == []


def test_sigint_at_random_moments(edgeq, tmp_path):
    """Whatever the moment, the output directory holds the whole output or
    nothing."""
    ok = subprocess.run([edgeq, SEQ, str(tmp_path / "ref.tflite"), "--calib-count", "400"],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert ok.returncode == 0
    ref = (tmp_path / "ref.tflite").read_bytes()
    t0 = time.monotonic()
    subprocess.run([edgeq, SEQ, str(tmp_path / "ref2.tflite"), "--calib-count", "400"],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    dur = time.monotonic() - t0
    for k in range(12):
        d = tmp_path / ("r%d" % k)
        d.mkdir()
        p = subprocess.Popen([edgeq, SEQ, str(d / "m.tflite"), "--calib-count", "400"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(dur * k / 10.0)
        p.send_signal(signal.SIGINT)
        p.wait(60)
        left = os.listdir(d)
        assert left in ([], ["m.tflite"]), left
        if left:
            assert (d / "m.tflite").read_bytes() == ref


def test_device_output_is_written_not_replaced(edgeq, tmp_path):
    r = quantize(edgeq, SEQ, "/dev/full")
    assert r.returncode == 1
    assert "No space left on device" in r.stderr
    assert not os.path.isfile("/dev/full"), "the device node was replaced by a file"
    r = quantize(edgeq, SEQ, "/dev/null")
    assert r.returncode == 0, r.stderr
    assert not os.path.isfile("/dev/null"), "the device node was replaced by a file"


def test_disk_full_leaves_nothing(edgeq, tmp_path):
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", str(mnt)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        pytest.skip("cannot mount a tmpfs here: " + r.stdout.decode(errors="replace").strip())
    try:
        out = mnt / "model.tflite"
        r = quantize(edgeq, os.path.join(FIX, "func_cnn.h5"), out)
        assert r.returncode == 1, r.stderr
        assert re.search(r"No space left on device", r.stderr), r.stderr
        assert os.listdir(mnt) == []
    finally:
        subprocess.run(["umount", str(mnt)])
