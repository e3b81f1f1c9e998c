# SPDX-License-Identifier: Apache-2.0
"""Every C snippet in README.md and docs/*.md compiles (-std=c99 -pedantic
-Werror, the engine's public headers only) and links against libedge with
the arrays `edgeq export --c` writes; the ones that classify (README's
`classify()`, engine-api's `model_load()` + `model_run()`) are called on
the zoo's MNIST CNN with its sample 7 and must answer 7."""

import glob
import os
import re

import pytest

from shiplib import BUILD, MNIST, MNIST_LABEL, REPO, built, mnist_input, run

DOCS = [os.path.join(REPO, "README.md")] + sorted(glob.glob(os.path.join(REPO, "docs", "*.md")))

HARNESS = r"""
#include <stdio.h>
#include <stdlib.h>
#include "edge/edge.h"
%(decls)s
int main(int argc, char **argv) {
    static int8_t input[1 << 16];
    FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
    size_t n = f ? fread(input, 1, sizeof input, f) : 0;
    if (f) fclose(f);
    (void)n;
%(body)s
    return 0;
}
"""


def snippets():
    out = []
    for path in DOCS:
        text = open(path).read()
        for i, m in enumerate(re.finditer(r"^```c\n(.*?)^```", text, re.S | re.M)):
            out.append(pytest.param(path, m.group(1), id="%s-%d" % (os.path.relpath(path, REPO), i)))
    return out


def harness_for(code):
    if re.search(r"\bint classify\(const int8_t \*\w+\)", code):
        return HARNESS % {"decls": "int classify(const int8_t *pixels);",
                          "body": '    printf("top: %d\\n", classify(input));'}
    if "edge_tensor model_run(" in code and "int model_load(void)" in code:
        return HARNESS % {
            "decls": "int model_load(void);\nedge_tensor model_run(const void *input, size_t len);",
            "body": "    if (model_load() != 0) return 1;\n"
                    "    edge_tensor out = model_run(input, n);\n"
                    "    int best = 0;\n"
                    "    for (int i = 1; i < (int)out.bytes; i++)\n"
                    "        if (((int8_t *)out.data)[i] > ((int8_t *)out.data)[best]) best = i;\n"
                    '    printf("top: %d\\n", best);'}
    return None


@pytest.fixture(scope="module")
def model_arrays(tmp_path_factory):
    d = tmp_path_factory.mktemp("arrays")
    run([os.path.join(BUILD, "edgeq"), "export", "--c", MNIST, "-o", str(d / "model_data.c")])
    return str(d / "model_data.c"), mnist_input(d)


def test_there_are_snippets():
    assert any("README.md-" in p.id for p in snippets())


@pytest.mark.parametrize("path,code", snippets())
def test_snippet_compiles_links_and_runs(path, code, model_arrays, tmp_path):
    src = tmp_path / "snippet.c"
    src.write_text(code)
    inc = ["-I", os.path.join(REPO, "engine", "include")]
    run(["cc", "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror"] + inc +
        ["-c", str(src), "-o", str(tmp_path / "snippet.o")])
    harness = harness_for(code) or "int main(void) { return 0; }\n"
    (tmp_path / "main.c").write_text(harness)
    exe = str(tmp_path / "prog")
    run(["cc", "-std=c99"] + inc + [str(tmp_path / "main.c"), str(tmp_path / "snippet.o"), model_arrays[0],
                                    built(os.path.join(BUILD, "libedge.a")), "-lm", "-o", exe])
    r = run([exe, model_arrays[1]])
    if harness_for(code):
        assert "top: %d" % MNIST_LABEL in r.stdout, r.stdout
