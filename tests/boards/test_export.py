"""`edgeq export --c`: a file as an aligned C array (+ optionally the arena
the model needs), compiled and checked byte for byte by a C program."""

import os
import re
import shutil

import pytest

from boardlib import BUILD, MODELS, run

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
