"""The library's public modules: every name in ``__all__`` exists, is typed and documented,
and the distribution ships the ``py.typed`` marker for each package folder."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ("rechain.testing", "rechain.strategies", "rechain.reference",
          "rechain.conformance.invariants")


def _functions(module_name: str) -> list[tuple[str, object]]:
    module = importlib.import_module(module_name)
    return [(name, getattr(module, name)) for name in module.__all__]


@pytest.mark.parametrize("module_name", PUBLIC)
def test_every_public_name_exists_and_has_a_docstring(module_name: str) -> None:
    module = importlib.import_module(module_name)
    assert module.__doc__
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert missing == []
    undocumented = [n for n, value in _functions(module_name)
                    if (inspect.isfunction(value) or inspect.isclass(value))
                    and not inspect.getdoc(value)]
    assert undocumented == []


@pytest.mark.parametrize("module_name", PUBLIC)
def test_every_public_function_is_fully_annotated(module_name: str) -> None:
    untyped = []
    for name, value in _functions(module_name):
        if not inspect.isfunction(value):
            continue
        signature = inspect.signature(value)
        params = [p for p in signature.parameters.values()
                  if p.annotation is inspect.Parameter.empty]
        if params or signature.return_annotation is inspect.Signature.empty:
            untyped.append(name)
    assert untyped == []


def test_the_testing_module_gathers_the_strategies_and_invariants_without_copies() -> None:
    testing = importlib.import_module("rechain.testing")
    invariants = importlib.import_module("rechain.conformance.invariants")
    strategies = importlib.import_module("rechain.strategies")
    for name in testing.__all__:
        value = getattr(testing, name)
        for home in (invariants, strategies):
            if hasattr(home, name):
                assert getattr(home, name) is value, name


def test_every_package_folder_ships_its_py_typed_marker() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    tops = {name: folder for name, folder in config["package-dir"].items()
            if name.count(".") <= 1}
    assert len(tops) == 6, tops
    for package, folder in tops.items():
        assert (ROOT / folder / "py.typed").is_file(), folder
        assert "py.typed" in config["package-data"].get(package, []), package


def test_rechain_version_prints_the_installed_distribution_version() -> None:
    run = subprocess.run([sys.executable, "-m", "rechain", "--version"], capture_output=True,
                         text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"rechain {version('rechain')}"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert version("rechain") == project["version"]
