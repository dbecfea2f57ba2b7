"""Every source package in the tree is in the distribution (a wheel would drop it otherwise)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOP = ("rechain", "reference", "strategies", "conformance", "fuzz", "corpus")


def test_every_package_directory_is_listed_and_mapped() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapped = {Path(path): name for name, path in config["package-dir"].items()}
    found = set()
    for top in TOP:
        for init in (ROOT / top).rglob("__init__.py"):
            folder = init.parent.relative_to(ROOT)
            if "cases" in folder.parts:
                continue
            parent = next(p for p in [folder, *folder.parents] if p in mapped)
            rest = folder.relative_to(parent).parts
            found.add(".".join([mapped[parent], *rest]))
    assert found <= set(config["packages"]), found - set(config["packages"])


def test_the_reference_runs_no_program_and_needs_no_other_part() -> None:
    """``rechain.reference`` is pure: no process, no socket, no oracle, corpus or fuzz code."""
    import ast

    banned = ("subprocess", "socket", "rechain.conformance", "rechain.fuzz", "rechain.corpus",
              "rechain.strategies")
    offenders = []
    for path in (ROOT / "reference").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{path.relative_to(ROOT)}: {name}" for name in names
                          if name.startswith(banned)]
    assert offenders == []
