# SPDX-License-Identifier: Apache-2.0
"""Licence headers: every source file of the repository (C, headers,
Python, shell, make, CMake, Kconfig; tools/spdx.py lists the kinds) says
`SPDX-License-Identifier: Apache-2.0` in its first lines, and the tool
that checks it finds and fixes what is missing."""

import os
import subprocess
import sys

from shiplib import REPO

SPDX = os.path.join(REPO, "tools", "spdx.py")
TAG = "SPDX-License-Identifier: Apache-2.0"


def spdx(*args):
    return subprocess.run([sys.executable, SPDX] + list(args), capture_output=True, text=True, timeout=120)


def test_every_source_file_has_the_licence():
    r = spdx("--check")
    assert r.returncode == 0, "run `python3 tools/spdx.py --fix`:\n" + r.stdout[-4000:]


def test_check_and_fix(tmp_path):
    files = {
        "a.c": "int a;\n",
        "tool": "#!/usr/bin/env python3\nprint(1)\n",
        "b.py": '"""doc: SPDX-License-Identifier: Apache-2.0 in a docstring is not a header"""\n',
        "Makefile": "all:\n",
        "x.cmake": "set(A 1)\n",
        "ok.h": "/* %s */\nint ok;\n" % TAG,
        "mit.c": "// SPDX-License-Identifier: MIT\nint m;\n",
        "notes.txt": "not a source file\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    r = spdx("--check", "--root", str(tmp_path))
    assert r.returncode == 1
    for name in ("a.c", "tool", "b.py", "Makefile", "x.cmake"):
        assert "missing: " + name in r.stdout, r.stdout
    assert "mit.c: SPDX says MIT" in r.stdout
    assert "ok.h" not in r.stdout and "notes.txt" not in r.stdout

    assert spdx("--fix", "--root", str(tmp_path)).returncode == 0
    assert (tmp_path / "a.c").read_text() == "/* %s */\nint a;\n" % TAG
    assert (tmp_path / "tool").read_text() == "#!/usr/bin/env python3\n# %s\nprint(1)\n" % TAG
    assert (tmp_path / "Makefile").read_text().startswith("# " + TAG)
    assert (tmp_path / "mit.c").read_text() == files["mit.c"]  # another licence is left alone
    assert (tmp_path / "notes.txt").read_text() == files["notes.txt"]
    r = spdx("--check", "--root", str(tmp_path))
    assert r.returncode == 1 and r.stdout.count("missing: ") == 0 and "mit.c" in r.stdout
