"""Loading a ``module:function`` target and feeding it one input as it expects.

A target takes the input's bytes, or (``path`` mode) the path of a file that
holds them, as most readers only open files. The file lives in a private
temporary directory and is rewritten for each input. Standard library only.
"""

from __future__ import annotations

import importlib
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rechain.fuzz.contract import Contract, contract_of


def resolve(spec: str) -> tuple[str, str]:
    """Split ``module:function``; a usage mistake raises ValueError with the reason."""
    module, sep, name = spec.partition(":")
    if not sep or not module or not name:
        raise ValueError(f"target {spec!r} is not module:function")
    return module, name


def load(spec: str) -> tuple[Callable[..., Any], Contract]:
    """Import the target (the caller decides what is instrumented) and read its contract."""
    module_name, name = resolve(spec)
    module = importlib.import_module(module_name)
    function: Any = module
    for part in name.split("."):
        function = getattr(function, part)
    if not callable(function):
        raise ValueError(f"target {spec!r} is not callable")
    return function, contract_of(function, module_name)


class Feeder:
    """Calls the target with bytes, or with a path to a file holding them."""

    def __init__(self, function: Callable[..., Any], contract: Contract) -> None:
        self.function = function
        self.mode = contract.input
        self._dir: tempfile.TemporaryDirectory[str] | None = None
        self.path: Path | None = None
        if self.mode == "path":
            self._dir = tempfile.TemporaryDirectory(prefix="rechain-fuzz-")
            self.path = Path(self._dir.name) / contract.file_name

    def __call__(self, data: bytes) -> Any:
        if self.path is None:
            return self.function(data)
        self.path.write_bytes(data)
        return self.function(self.path)
