#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every source file says its licence in its first lines:

    SPDX-License-Identifier: Apache-2.0

    python3 tools/spdx.py --check     list the files without it; exit 1 if any
    python3 tools/spdx.py --fix       add it where it is missing

Source files: C and C++ (.c .h .inc .cpp .cc .ino .S), Python, shell,
make (Makefile, .mk), CMake (CMakeLists.txt, .cmake, .cmake.in), Kconfig
and pkg-config templates, and any file that starts with a shebang. The
files are git's (tracked, or new and not ignored), so build products are
left alone; test data (tests/fixtures, fuzz corpora) is not source.
The line goes first, or after a shebang, in the file's comment syntax.
"""

import argparse
import os
import re
import subprocess
import sys

LICENSE = "Apache-2.0"
TAG = "SPDX-License-Identifier: " + LICENSE
SEARCH_LINES = 5  # the tag counts only near the top

C_STYLE = (".c", ".h", ".inc", ".cpp", ".cc", ".ino", ".S")
HASH_STYLE = (".py", ".sh", ".mk", ".cmake", ".cmake.in", ".pc.in")
HASH_NAMES = ("Makefile", "CMakeLists.txt", "Kconfig")
SKIP_DIRS = ("tests/fixtures/", "tests/fuzz/corpus/", "fuzz/corpus/")


def comment_style(path, first_line):
    name = os.path.basename(path)
    if path.endswith(C_STYLE):
        return "c"
    if path.endswith(HASH_STYLE) or name in HASH_NAMES or first_line.startswith("#!"):
        return "hash"
    return None


def listed_files(root):
    """git's view of the tree; every file under root when it is not a repository."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             capture_output=True, check=True).stdout
        files = [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, _, names in os.walk(root):
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return sorted(f for f in files if not f.startswith(SKIP_DIRS) and os.path.isfile(os.path.join(root, f)))


def first_line(path):
    try:
        with open(path, "rb") as f:
            return f.readline(200).decode("utf-8", "replace")
    except OSError:
        return ""


def sources(root):
    for rel in listed_files(root):
        path = os.path.join(root, rel)
        style = comment_style(rel, first_line(path))
        if style:
            yield rel, path, style


COMMENT_TAG = re.compile(r"^\s*(?:#|/\*|//|\*)\s*SPDX-License-Identifier: (\S+?)(?:\s*\*/)?\s*$", re.M)


def tag_license(text):
    """The licence a comment line near the top names, or None."""
    m = COMMENT_TAG.search("\n".join(text.splitlines()[:SEARCH_LINES]))
    return m.group(1) if m else None


def with_tag(text, style):
    line = "/* %s */\n" % TAG if style == "c" else "# %s\n" % TAG
    if text.startswith("#!"):
        shebang, _, rest = text.partition("\n")
        return shebang + "\n" + line + rest
    return line + text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--fix", action="store_true")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    a = ap.parse_args()
    missing = []
    for rel, path, style in sources(a.root):
        with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
            text = f.read()
        found = tag_license(text)
        if found == LICENSE:
            continue
        if found:
            print("%s: SPDX says %s, not %s: left as it is" % (rel, found, LICENSE))
            missing.append(rel)
            continue
        missing.append(rel)
        if a.fix:
            with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
                f.write(with_tag(text, style))
            print("added: %s" % rel)
        else:
            print("missing: %s" % rel)
    if a.check:
        print("spdx: %d source files without '%s'" % (len(missing), TAG))
        return 1 if missing else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
