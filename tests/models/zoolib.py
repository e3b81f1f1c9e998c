# SPDX-License-Identifier: Apache-2.0
"""Helpers for the zoo's tests: a module name of its own (every test folder
has a conftest.py, so `from conftest import` could get another folder's)."""

import importlib.util
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


zoo = _load("zoo", os.path.join(REPO, "models", "zoo.py"))
data = _load("zoo_data", os.path.join(REPO, "models", "data.py"))


def make_cmd():
    """make, with models/models.mk added when the top Makefile does not include it yet."""
    with open(os.path.join(REPO, "Makefile")) as f:
        included = "models/models.mk" in f.read()
    return ["make", "--no-print-directory"] + ([] if included else ["-f", "Makefile", "-f", "models/models.mk"])
