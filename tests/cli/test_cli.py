# SPDX-License-Identifier: Apache-2.0
"""Behaviour of the edgeq command line: help, version, exit codes, file
errors, .npy parsing, input/output checks and all-or-nothing outputs.

Binaries: $EDGEQ (default build/edgeq) must exist (`make` builds it before
`make test` runs pytest), so a missing one is a failure. $EDGEQ_ASAN
(default build/asan/edgeq, from `make asan`) is optional: every test also
runs on it when it was built, with sanitizer reports turned into exit code
86 so they cannot pass for the CLI's own exit codes.

Exit codes under test: 0 ok, 1 failure (model refused, bad data, file I/O),
2 usage error.
"""

import json
import os
import re
import struct
import subprocess

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MODELS = os.path.normpath(os.path.join(REPO, "..", "shared", "models", "tflite-micro", "models"))
HELLO = os.path.join(MODELS, "hello_world_int8.tflite")
# an int8 autoencoder: one [1,640] input, one [1,640] output, FULLY_CONNECTED only
AD01 = os.path.normpath(os.path.join(REPO, "..", "shared", "models", "mlcommons-tiny", "models",
                                     "anomaly_detection", "ad01_int8.tflite"))

SANITIZER_EXIT = 86
SAN_ENV = {
    "ASAN_OPTIONS": "exitcode=%d:detect_leaks=1:abort_on_error=0" % SANITIZER_EXIT,
    "UBSAN_OPTIONS": "halt_on_error=1:exitcode=%d:print_stacktrace=1" % SANITIZER_EXIT,
    "LSAN_OPTIONS": "exitcode=%d" % SANITIZER_EXIT,
}

OK, FAIL, USAGE = 0, 1, 2


def _binary(kind):
    if kind == "edgeq":
        p = os.environ.get("EDGEQ", os.path.join(REPO, "build", "edgeq"))
        if not (os.path.isfile(p) and os.access(p, os.X_OK)):
            pytest.fail("edgeq CLI %s not found: build it first (`make`) or set $EDGEQ" % p,
                        pytrace=False)
        return p
    p = os.environ.get("EDGEQ_ASAN", os.path.join(REPO, "build", "asan", "edgeq"))
    if not (os.path.isfile(p) and os.access(p, os.X_OK)):
        pytest.skip("ASan+UBSan build %s not built (`make asan`)" % p)
    return p


class Cli:
    def __init__(self, path):
        self.path = path

    def __call__(self, *args, cwd=None):
        env = dict(os.environ, **SAN_ENV)
        r = subprocess.run([self.path] + [str(a) for a in args], capture_output=True, text=True,
                           cwd=cwd, env=env, timeout=120)
        assert r.returncode != SANITIZER_EXIT, "sanitizer report:\n" + r.stderr
        return r


@pytest.fixture(params=("edgeq", "asan"))
def cli(request):
    return Cli(_binary(request.param))


@pytest.fixture
def hello():
    if not os.path.isfile(HELLO):
        pytest.skip("shared model %s not present" % HELLO)
    return HELLO


def expect(r, code, *needles, stream="stderr"):
    """Assert the exit code and that each needle (regex) is in the stream."""
    text = getattr(r, stream)
    assert r.returncode == code, "exit %d, wanted %d\nstdout:\n%s\nstderr:\n%s" % (
        r.returncode, code, r.stdout, r.stderr)
    for n in needles:
        assert re.search(n, text, re.I), "%r not in %s:\n%s" % (n, stream, text)
    if code != OK:
        assert r.stderr.strip(), "an error must say something on stderr"


def npy_bytes(arr, version=(1, 0)):
    import io
    f = io.BytesIO()
    np.lib.format.write_array(f, arr, version=version)
    return f.getvalue()


def handmade_npy(header, data=b"", major=1):
    """An .npy with an arbitrary header dict text (padded like NumPy's)."""
    h = header.encode("latin1")
    pre = 10 if major == 1 else 12
    pad = (-(pre + len(h) + 1)) % 64
    h = h + b" " * pad + b"\n"
    ln = struct.pack("<H", len(h)) if major == 1 else struct.pack("<I", len(h))
    return b"\x93NUMPY" + bytes([major, 0]) + ln + h + data


def x86_level():
    """The x86 kernel level the engine picks on this CPU (as
    systolic_x86_level does): "vnni", "avx2" or "none"."""
    try:
        flags = set(re.search(r"^flags\s*:(.*)$", open("/proc/cpuinfo").read(), re.M).group(1).split())
    except (OSError, AttributeError):
        return "none"
    if {"avx512f", "avx512bw", "avx512vl", "avx512_vnni"} <= flags:
        return "vnni"
    return "avx2" if "avx2" in flags else "none"


def version_string():
    text = open(os.path.join(REPO, "engine", "include", "edge", "edge.h")).read()
    return re.search(r'#define EDGE_VERSION_STRING "([^"]+)"', text).group(1)


def tmp_leftovers(d):
    return [n for n in os.listdir(d) if ".tmp-" in n]


# ---------------------------------------------------------------- dispatch


def test_help(cli):
    r = cli("--help")
    expect(r, OK, r"\brun\b", r"\binspect\b", r"exit codes", r"\b2\b.*usage", stream="stdout")
    assert cli("-h").stdout == r.stdout
    assert cli("help").stdout == r.stdout


@pytest.mark.parametrize("cmd", ["run", "inspect"])
def test_command_help(cli, cmd):
    r = cli(cmd, "--help")
    expect(r, OK, r"usage: edgeq " + cmd, r"exit codes", stream="stdout")
    assert cli("help", cmd).stdout == r.stdout


def test_version(cli):
    r = cli("--version")
    expect(r, OK, stream="stdout")
    assert r.stdout.strip() == "edgeq " + version_string()


def test_no_arguments_is_usage_error(cli):
    expect(cli(), USAGE, r"usage:")


@pytest.mark.parametrize("args, needle", [
    (["--bogus"], r"unknown option '--bogus'"),
    (["frobnicate"], r"unknown command 'frobnicate'"),
    (["help", "frobnicate"], r"not a command"),
])
def test_unknown_things_are_usage_errors(cli, args, needle):
    expect(cli(*args), USAGE, needle)


def test_quantize_missing_model(cli, tmp_path):
    # The quantizer itself is tested in tests/quantize/test_quantize.py.
    out = tmp_path / "out.tflite"
    r = cli("model.h5", out)
    expect(r, FAIL, r"model\.h5: No such file")
    assert not out.exists()


# ------------------------------------------------------- run: usage errors


@pytest.mark.parametrize("args, needle", [
    (["run"], r"no model"),
    (["run", "m.tflite", "--frob"], r"unknown option '--frob'"),
    (["run", "a.tflite", "b.tflite"], r"one model only"),
    (["run", "m.tflite", "--input"], r"--input needs a file"),
    (["run", "m.tflite", "--output"], r"--output needs a file"),
    (["run", "m.tflite", "--repeat", "0"], r"--repeat wants"),
    (["run", "m.tflite", "--repeat", "ten"], r"--repeat wants"),
    (["run", "m.tflite", "--repeat=-3"], r"--repeat wants"),
    (["run", "m.tflite", "--repeat"], r"--repeat needs"),
    (["run", "m.tflite", "--arena", "lots"], r"--arena wants"),
    (["run", "m.tflite", "--arena", "0"], r"--arena wants"),
    (["inspect"], r"no file"),
    (["inspect", "a.tflite", "b.tflite"], r"one file at a time"),
    (["inspect", "a.tflite", "--frob"], r"unknown option"),
])
def test_bad_arguments(cli, args, needle):
    # usage is checked before any file is opened: these files need not exist
    expect(cli(*args), USAGE, needle, r"edgeq (run|inspect) --help")


def test_wrong_number_of_inputs_and_outputs(cli, hello, tmp_path):
    a = tmp_path / "a.bin"
    a.write_bytes(b"\xa9")
    expect(cli("run", hello), USAGE, r"model has 1 input; give --input for each")
    expect(cli("run", hello, "--input", a, "--input", a), USAGE, r"model has 1 input but 2")
    expect(cli("run", hello, "--input", a, "--output", tmp_path / "o1", "--output",
               tmp_path / "o2"), USAGE, r"model has 1 output but 2")
    assert not (tmp_path / "o1").exists()


# ------------------------------------------------------------ file errors


def test_missing_model(cli, tmp_path):
    missing = tmp_path / "nope.tflite"
    expect(cli("run", missing, "--input", "x.bin"), FAIL, re.escape(str(missing)),
           r"no such file")
    expect(cli("inspect", missing), FAIL, re.escape(str(missing)), r"no such file")


def test_model_is_a_directory(cli, tmp_path):
    expect(cli("inspect", tmp_path), FAIL, r"directory")


@pytest.mark.parametrize("content", [b"", b"not a flatbuffer at all", bytes(range(256)) * 4])
def test_engine_refuses_garbage(cli, tmp_path, content):
    m = tmp_path / "bad.tflite"
    m.write_bytes(content)
    r = cli("inspect", m)
    expect(r, FAIL, re.escape(str(m)) + ": ")
    r2 = cli("run", m, "--input", "x.bin")
    expect(r2, FAIL, re.escape(str(m)) + ": ")
    assert r.stderr == r2.stderr  # the same refusal, in the engine's words


def test_missing_input_file(cli, hello, tmp_path):
    missing = tmp_path / "in.npy"
    expect(cli("run", hello, "--input", missing), FAIL, r"input 0", re.escape(str(missing)),
           r"no such file")


# --------------------------------------------------------- run: the model


def test_hello_world_known_answer(cli, hello, tmp_path):
    np.save(tmp_path / "x.npy", np.array([[-87]], dtype=np.int8))
    r = cli("run", hello, "--input", tmp_path / "x.npy", "--output", tmp_path / "y.bin")
    expect(r, OK, r"latency", r"arena", r"values 104\b", stream="stdout")
    assert (tmp_path / "y.bin").read_bytes() == bytes([104])
    assert tmp_leftovers(tmp_path) == []


def test_raw_input_and_npy_output(cli, hello, tmp_path):
    (tmp_path / "x.bin").write_bytes(np.int8(-87).tobytes())
    r = cli("run", hello, "--input", tmp_path / "x.bin", "--output", tmp_path / "y.npy")
    expect(r, OK, stream="stdout")
    y = np.load(tmp_path / "y.npy")
    assert y.dtype == np.int8 and y.shape == (1, 1) and y[0, 0] == 104


def test_repeat_gives_the_same_answer(cli, hello, tmp_path):
    # The planner may reuse an input's bytes after it is read: each invoke
    # must start from the given input again.
    np.save(tmp_path / "x.npy", np.array([[-87]], dtype=np.int8))
    r = cli("run", hello, "--input", tmp_path / "x.npy", "--repeat", 7, "--json",
            "--output", tmp_path / "y.bin")
    expect(r, OK, stream="stdout")
    j = json.loads(r.stdout)
    assert j["repeat"] == 7
    assert j["outputs"][0]["values"] == [104]
    assert (tmp_path / "y.bin").read_bytes() == bytes([104])


def test_run_json(cli, hello, tmp_path):
    np.save(tmp_path / "x.npy", np.array([[-87]], dtype=np.int8))
    r = cli("run", hello, "--input", tmp_path / "x.npy", "--json", "--repeat", 3)
    expect(r, OK, stream="stdout")
    j = json.loads(r.stdout)  # one JSON object and nothing else
    for k in ("model", "arena_bytes", "arena_records", "arena_activations",
              "latency_ms_median", "latency_ms_min", "repeat", "ops", "outputs"):
        assert k in j, k
    assert j["arena_bytes"] == j["arena_records"] + j["arena_activations"]
    assert 0 <= j["latency_ms_min"] <= j["latency_ms_median"]
    assert [o["name"] for o in j["ops"]] == ["FULLY_CONNECTED"] * 3
    assert [o["index"] for o in j["ops"]] == [0, 1, 2]
    for o in j["ops"]:
        assert o["ms"] >= 0 and o["macs"] > 0 and isinstance(o["systolic"], bool)
    assert abs(sum(o["percent"] for o in j["ops"]) - 100) < 0.01
    out = j["outputs"][0]
    assert out["type"] == "int8" and out["shape"] == [1, 1]
    assert out["scale"] > 0 and isinstance(out["zero_point"], int)
    assert out["argmax"] is None  # one value: no class to pick


def test_packed_and_unpacked_runs_agree(cli, tmp_path):
    """edgeq run packs the weights (edge_model_pack) unless --no-pack: the
    same output bytes, pack_bytes reported (0 without; on a CPU without
    AVX2 nothing packs), the arena unchanged."""
    if not os.path.isfile(AD01):
        pytest.skip("shared model %s not present" % AD01)
    x = np.random.RandomState(6).randint(-128, 128, (1, 640)).astype(np.int8)
    np.save(tmp_path / "x.npy", x)
    runs = {}
    for name, extra in (("packed", []), ("unpacked", ["--no-pack"])):
        r = cli("run", AD01, "--input", tmp_path / "x.npy", "--output", tmp_path / (name + ".bin"),
                "--json", *extra)
        expect(r, OK, stream="stdout")
        runs[name] = json.loads(r.stdout)
    assert (tmp_path / "packed.bin").read_bytes() == (tmp_path / "unpacked.bin").read_bytes()
    assert runs["unpacked"]["pack_bytes"] == 0
    assert runs["packed"]["arena_bytes"] == runs["unpacked"]["arena_bytes"]
    if x86_level() == "avx2":  # ad01's ten FULLY_CONNECTED layers pack about their weights' size
        assert 264192 <= runs["packed"]["pack_bytes"] < 300000
        r = cli("run", AD01, "--input", tmp_path / "x.npy")
        expect(r, OK, r"packed +\d+ bytes", stream="stdout")


def test_profile_table(cli, hello, tmp_path):
    np.save(tmp_path / "x.npy", np.array([[-87]], dtype=np.int8))
    r = cli("run", hello, "--input", tmp_path / "x.npy", "--profile", "--repeat", 2)
    expect(r, OK, r"profile", r"FULLY_CONNECTED", r"total", stream="stdout")


def test_arena_option(cli, hello, tmp_path):
    np.save(tmp_path / "x.npy", np.array([[-87]], dtype=np.int8))
    need = json.loads(cli("inspect", hello, "--json").stdout)["arena_bytes"]
    expect(cli("run", hello, "--input", tmp_path / "x.npy", "--arena", need - 16), FAIL,
           r"too small", r"needs %d" % need)
    r = cli("run", hello, "--input", tmp_path / "x.npy", "--arena", "1M")
    expect(r, OK, r"values 104\b", stream="stdout")


def test_argmax_and_labels(cli, tmp_path):
    if not os.path.isfile(AD01):
        pytest.skip("shared model %s not present" % AD01)
    x = (np.arange(640) % 251 - 125).astype(np.int8).reshape(1, 640)
    np.save(tmp_path / "x.npy", x)
    labels = tmp_path / "labels.txt"
    labels.write_text("".join("class %d\r\n" % k for k in range(640)))
    r = cli("run", AD01, "--input", tmp_path / "x.npy", "--json", "--labels", labels,
            "--output", tmp_path / "y.npy")
    expect(r, OK, stream="stdout")
    out = json.loads(r.stdout)["outputs"][0]
    y = np.load(tmp_path / "y.npy")
    assert y.shape == (1, 640) and y.dtype == np.int8
    assert out["argmax"] == int(np.argmax(y)) and out["label"] == "class %d" % out["argmax"]
    assert out["values"] == y.ravel()[:16].tolist()
    r = cli("run", AD01, "--input", tmp_path / "x.npy", "--labels", labels)
    expect(r, OK, r'argmax %d "class %d"' % (out["argmax"], out["argmax"]), r"\(640 values\)",
           stream="stdout")
    expect(cli("run", AD01, "--input", tmp_path / "x.npy", "--labels", tmp_path / "none.txt"),
           FAIL, r"--labels: .*none\.txt")


def test_person_detect_demo(cli, tmp_path):
    """The README's first run: person.bmp -> [-113, 113], "person"."""
    model = os.path.join(MODELS, "person_detect.tflite")
    bmp = os.path.join(MODELS, "..", "data", "person.bmp")
    if not (os.path.isfile(model) and os.path.isfile(bmp)):
        pytest.skip("person_detect model or image not present")
    data = open(bmp, "rb").read()
    offset = struct.unpack_from("<I", data, 10)[0]
    w, h = struct.unpack_from("<ii", data, 18)
    rows = np.frombuffer(data, np.uint8, w * abs(h), offset).reshape(abs(h), w)
    pixels = (rows[::-1] if h > 0 else rows).view(np.int8)  # the bytes are the int8 values
    np.save(tmp_path / "person.npy", pixels.reshape(1, 96, 96, 1))
    labels = os.path.join(REPO, "tools", "person_labels.txt")
    r = cli("run", model, "--input", tmp_path / "person.npy", "--labels", labels, "--json",
            "--output", tmp_path / "y.npy")
    expect(r, OK, stream="stdout")
    out = json.loads(r.stdout)["outputs"][0]
    assert out["values"] == [-113, 113] and out["argmax"] == 1 and out["label"] == "person"
    assert np.load(tmp_path / "y.npy").tolist() == [[-113, 113]]


def test_endless_stream_input_is_refused(cli, hello):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    expect(cli("run", hello, "--input", "/dev/zero"), FAIL, r"input 0: /dev/zero: more than")


# -------------------------------------------------- run: input data checks


@pytest.mark.parametrize("arr, needles", [
    (np.array([[0.5]], dtype=np.float32), [r"int8", r"float32", r"does not quantize"]),
    (np.array([[-87]], dtype=np.int16), [r"is int8 but .* holds int16"]),
    (np.array([[1]], dtype=np.uint8), [r"is int8 but .* holds uint8"]),
    (np.array([-87, 1], dtype=np.int8), [r"1 elements", r"holds 2 elements"]),
    (np.zeros((0,), dtype=np.int8), [r"holds 0 elements"]),
])
def test_npy_input_mismatch(cli, hello, tmp_path, arr, needles):
    np.save(tmp_path / "x.npy", arr)
    out = tmp_path / "y.bin"
    expect(cli("run", hello, "--input", tmp_path / "x.npy", "--output", out), FAIL, r"input 0",
           *needles)
    assert not out.exists()


def test_npy_input_other_shape_same_count_is_fine(cli, hello, tmp_path):
    np.save(tmp_path / "x.npy", np.array([-87], dtype=np.int8))  # (1,) for a [1,1] tensor
    expect(cli("run", hello, "--input", tmp_path / "x.npy"), OK, r"values 104\b",
           stream="stdout")


@pytest.mark.parametrize("size", [0, 2, 4])
def test_raw_input_wrong_size(cli, hello, tmp_path, size):
    (tmp_path / "x.bin").write_bytes(b"\x01" * size)
    expect(cli("run", hello, "--input", tmp_path / "x.bin"), FAIL,
           r"needs exactly 1 bytes; .* has %d" % size)


# ----------------------------------------------------------- .npy parsing

GOOD = "{'descr': '|i1', 'fortran_order': False, 'shape': (2, 3), }"

BAD_NPY = [
    ("not_npy", b"PK\x03\x04 this is a zip" + b"\0" * 20, r"not a \.npy file"),
    ("short", b"\x93NUM", r"not a \.npy file"),
    ("version", b"\x93NUMPY\x04\x00" + handmade_npy(GOOD, bytes(6))[8:],
     r"unsupported \.npy format version 4\.0"),
    ("header_past_end", b"\x93NUMPY\x01\x00\xff\x7f{'descr'", r"bad \.npy header"),
    ("not_a_dict", handmade_npy("['descr', '|i1']", bytes(6)), r"bad \.npy header"),
    ("missing_key", handmade_npy("{'descr': '|i1', 'shape': (2, 3), }", bytes(6)),
     r"needs the keys"),
    ("extra_key", handmade_npy("{'descr': '|i1', 'fortran_order': False, 'shape': (6,), "
                               "'x': 1}", bytes(6)), r"unexpected or repeated key 'x'"),
    ("repeated_key", handmade_npy("{'descr': '|i1', 'descr': '|i1', 'fortran_order': False, "
                                  "'shape': (6,)}", bytes(6)), r"repeated key 'descr'"),
    ("bad_shape", handmade_npy("{'descr': '|i1', 'fortran_order': False, 'shape': (2, -3), }",
                               bytes(6)), r"'shape'"),
    ("unclosed_shape", handmade_npy("{'descr': '|i1', 'fortran_order': False, 'shape': (2, 3",
                                    bytes(6)), r"bad \.npy header"),
    ("bad_bool", handmade_npy("{'descr': '|i1', 'fortran_order': 0, 'shape': (6,)}", bytes(6)),
     r"fortran_order"),
    ("trailing", handmade_npy(GOOD + " junk", bytes(6)), r"after the closing"),
    ("fortran", npy_bytes(np.asfortranarray(np.arange(6, dtype=np.int8).reshape(2, 3))),
     r"Fortran"),
    ("big_endian", npy_bytes(np.arange(6, dtype=">i4")), r"big-endian"),
    ("complex", npy_bytes(np.zeros(3, dtype=np.complex64)), r"unsupported dtype .*complex"),
    ("strings", npy_bytes(np.array(["a", "b"])), r"unsupported dtype .*string"),
    ("structured", npy_bytes(np.zeros(2, dtype=[("a", "i1"), ("b", "f4")])), r"structured"),
    ("object", handmade_npy("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }",
                            bytes(8)), r"object arrays"),
    ("truncated", handmade_npy(GOOD, bytes(5)), r"truncated: shape \(2, 3\) of int8 needs 6 "
                                                 r"data bytes, the file has 5"),
    ("extra", handmade_npy(GOOD, bytes(8)), r"wrong size: .* needs 6 .* has 8 \(2 extra\)"),
    ("huge_shape", handmade_npy("{'descr': '<f8', 'fortran_order': False, "
                                "'shape': (99999999999, 99999999999, 99999999999), }"),
     r"too large"),
]


@pytest.mark.parametrize("name, data, needle", BAD_NPY, ids=[b[0] for b in BAD_NPY])
def test_bad_npy_inspect(cli, tmp_path, name, data, needle):
    p = tmp_path / (name + ".npy")
    p.write_bytes(data)
    expect(cli("inspect", p), FAIL, re.escape(str(p)), needle)


@pytest.mark.parametrize("name, data, needle", BAD_NPY[:4] + BAD_NPY[-3:-1],
                         ids=[b[0] for b in BAD_NPY[:4] + BAD_NPY[-3:-1]])
def test_bad_npy_as_run_input(cli, hello, tmp_path, name, data, needle):
    p = tmp_path / (name + ".npy")
    p.write_bytes(data)
    expect(cli("run", hello, "--input", p), FAIL, r"input 0", needle)


@pytest.mark.parametrize("dtype", ["i1", "u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f2",
                                   "<f4", "<f8", "?"])
@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
def test_npy_dtypes_and_versions(cli, tmp_path, dtype, version):
    a = (np.arange(24) % 5).astype(dtype).reshape(2, 3, 4)
    p = tmp_path / "a.npy"
    p.write_bytes(npy_bytes(a, version))
    r = cli("inspect", p, "--json")
    expect(r, OK, stream="stdout")
    j = json.loads(r.stdout)
    assert j == {"file": str(p), "npy_version": version[0], "dtype": a.dtype.name,
                 "shape": [2, 3, 4], "count": 24, "bytes": a.nbytes}
    first = ", ".join(str(int(v)) for v in a.ravel()[:6])
    expect(cli("inspect", p), OK, a.dtype.name, r"shape \(2, 3, 4\)", r"values " + first,
           stream="stdout")


@pytest.mark.parametrize("shape", [(), (5,), (0,), (1, 1, 1, 1, 1, 1, 1)])
def test_npy_shapes(cli, tmp_path, shape):
    a = np.ones(shape, dtype=np.int8)
    p = tmp_path / "a.npy"
    np.save(p, a)
    j = json.loads(cli("inspect", p, "--json").stdout)
    assert j["shape"] == list(shape) and j["count"] == a.size


def test_npy_python2_header(cli, tmp_path):
    p = tmp_path / "old.npy"
    p.write_bytes(handmade_npy("{'descr': '<i2', 'fortran_order': False, 'shape': (2L, 3L), }",
                               bytes(12)))
    j = json.loads(cli("inspect", p, "--json").stdout)
    assert j["shape"] == [2, 3] and j["dtype"] == "int16"


# ----------------------------------------------- all-or-nothing outputs


def test_failed_run_leaves_existing_output_alone(cli, hello, tmp_path):
    out = tmp_path / "y.bin"
    out.write_bytes(b"previous")
    np.save(tmp_path / "x.npy", np.array([[0.5]], dtype=np.float32))  # refused input
    expect(cli("run", hello, "--input", tmp_path / "x.npy", "--output", out), FAIL)
    assert out.read_bytes() == b"previous"
    assert tmp_leftovers(tmp_path) == []


def test_output_overwrites_atomically(cli, hello, tmp_path):
    out = tmp_path / "y.npy"
    out.write_bytes(b"previous")
    np.save(tmp_path / "x.npy", np.array([[-87]], dtype=np.int8))
    expect(cli("run", hello, "--input", tmp_path / "x.npy", "--output", out), OK,
           stream="stdout")
    assert np.load(out).tolist() == [[104]]
    assert tmp_leftovers(tmp_path) == []
    mask = os.umask(0)
    os.umask(mask)
    assert os.stat(out).st_mode & 0o777 == 0o666 & ~mask  # as a plain open() would make it


@pytest.mark.parametrize("where", ["missing_dir/y.bin", ".", "dir/"])
def test_unwritable_output(cli, hello, tmp_path, where):
    (tmp_path / "dir").mkdir()
    np.save(tmp_path / "x.npy", np.array([[-87]], dtype=np.int8))
    target = str(tmp_path / where) if where != "dir/" else str(tmp_path / "dir") + "/"
    expect(cli("run", hello, "--input", tmp_path / "x.npy", "--output", target), FAIL,
           r"output 0")
    assert tmp_leftovers(tmp_path) == [] and tmp_leftovers(tmp_path / "dir") == []


# --------------------------------------------------------------- inspect


def test_inspect_text(cli, hello):
    r = cli("inspect", hello)
    expect(r, OK, r"tensors", r"FULLY_CONNECTED", r"systolic|cpu", r"arena\s+\d+ bytes = "
           r"records \d+ \+ activations \d+", r"\bconst\b", r"arena@\d+", r"\bin0\b", r"\bout0\b",
           stream="stdout")


def test_inspect_json(cli, hello):
    r = cli("inspect", hello, "--json")
    expect(r, OK, stream="stdout")
    j = json.loads(r.stdout)
    assert j["arena_bytes"] == j["arena_records"] + j["arena_activations"]
    assert len(j["ops"]) == 3 and len(j["tensors"]) == 10
    assert j["inputs"] == [0] and j["outputs"] == [9]
    t_in = j["tensors"][0]
    assert t_in["type"] == "int8" and t_in["shape"] == [1, 1] and not t_in["const"]
    assert t_in["arena_offset"] is not None and t_in["arena_offset"] >= j["arena_records"]
    for t in j["tensors"]:
        if t["const"]:
            assert t["arena_offset"] is None
        if t["arena_offset"] is not None:
            assert t["arena_offset"] + t["bytes"] <= j["arena_bytes"]
    for k, op in enumerate(j["ops"]):
        assert op["index"] == k and op["name"] == "FULLY_CONNECTED" and op["builtin_code"] == 9
        assert len(op["inputs"]) == 3 and len(op["outputs"]) == 1
    # lifetimes: every planned tensor lives within the op range
    for t in j["tensors"]:
        if t["first_op"] is not None:
            assert 0 <= t["first_op"] <= t["last_op"] <= 2
