# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures for the conformance tests.

Binaries: $EDGEQ (default build/edgeq) must exist: it is built by `make`
before `make test` runs pytest, so a missing one is a failure, not a skip.
$EDGEQ_ASAN (default build/asan/edgeq, from `make asan`) is optional: tests
parametrized over it skip, saying so, when it was not built.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402

BINARY_KINDS = ("edgeq", "asan")


def _check_binary(kind):
    if kind == "edgeq":
        p = oracle.edgeq_path()
        if not (os.path.isfile(p) and os.access(p, os.X_OK)):
            pytest.fail("engine CLI %s not found or not executable: build it first (`make`), "
                        "or point $EDGEQ at it" % p, pytrace=False)
        return p
    p = oracle.asan_path()
    if not (os.path.isfile(p) and os.access(p, os.X_OK)):
        pytest.skip("ASan+UBSan build %s not built (`make asan`): sanitizer variant skipped" % p)
    return p


@pytest.fixture(scope="session")
def edgeq():
    """Path of the engine CLI under test (fails when it was not built)."""
    return _check_binary("edgeq")


@pytest.fixture(params=BINARY_KINDS)
def any_edgeq(request):
    """Each available build of the CLI: the normal one and the ASan+UBSan one."""
    return _check_binary(request.param)


@pytest.fixture(scope="session")
def asan_edgeq():
    """The ASan+UBSan build (skips, saying so, when it was not built)."""
    return _check_binary("asan")
