"""Loading a ``module:function`` target and feeding it one input as it expects.

A target takes the input's bytes, or (``path`` mode) the path of a file that
holds them, as most readers only open files. The file lives in a private
temporary directory and is rewritten for each input. Standard library only.
"""

from __future__ import annotations

import importlib
import inspect
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


#: the session id a reader written for ``rechain check``'s tier 0 is given with each input
SESSION_ID = "00000000-0000-4000-8000-00000000f022"


def arity(function: Callable[..., Any]) -> int:
    """How many of ``input, session_id, options`` to pass: one for a fuzz target, two or
    three for a reader written for ``rechain check --impl python:`` (its required
    positional parameters), so the same function is checked and fuzzed."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return 1
    required = [p for p in parameters if p.default is p.empty
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return min(max(len(required), 1), 3)


class Feeder:
    """Calls the target with bytes, or with a path to a file holding them (then a session
    id and empty options, when it asks for them)."""

    def __init__(self, function: Callable[..., Any], contract: Contract) -> None:
        self.function = function
        self.arity = arity(function)
        self.mode = contract.input
        self._dir: tempfile.TemporaryDirectory[str] | None = None
        self.path: Path | None = None
        if self.mode == "path":
            self._dir = tempfile.TemporaryDirectory(prefix="rechain-fuzz-")
            self.path = Path(self._dir.name) / contract.file_name

    def __call__(self, data: bytes) -> Any:
        more = (SESSION_ID, {})[:self.arity - 1]  # fresh options: a reader may change them
        if self.path is None:
            return self.function(data, *more)
        self.path.write_bytes(data)
        return self.function(self.path, *more)
