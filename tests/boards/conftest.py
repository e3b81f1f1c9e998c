# SPDX-License-Identifier: Apache-2.0
"""Fixtures for the board tests (helpers in boardlib.py: a module name of
its own, so it never clashes with another test folder's conftest)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import boardlib  # noqa: E402


@pytest.fixture(scope="session")
def host_build():
    """build/host: classify, the host firmware and the test tools."""
    return boardlib.host_board()
