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
