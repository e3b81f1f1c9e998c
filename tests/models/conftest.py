# SPDX-License-Identifier: Apache-2.0
"""Fixtures for the model zoo's tests (models/, models/README.md)."""

import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zoolib  # noqa: E402


@pytest.fixture(scope="session")
def zoo_tools():
    """build/edgeq, build/host/classify and build/models/batch_run, built if missing or stale."""
    zoo = zoolib.zoo
    rel = lambda p: os.path.relpath(p, zoolib.REPO)  # noqa: E731
    r = subprocess.run(zoolib.make_cmd() + [rel(zoo.EDGEQ), rel(zoo.CLASSIFY), rel(zoo.RUNNER)],
                       cwd=zoolib.REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return zoo
