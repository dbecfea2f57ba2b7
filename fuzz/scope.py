"""Instrumenting only the code under test: named modules, patched function by function.

``atheris.instrument_imports`` instruments a whole top-level package, so a
harness of ``rechain.reference.parse`` also pays for every branch of the
harness, the contract checks and every other reference module it imports.
Each branch probe is a Python-level call, which is most of an instrumented
input's cost; a harness that names its scope gets probes only where coverage
means something. Functions are patched in place (``__code__``), so references
taken at import time see the instrumented code too. Standard library and
atheris only.
"""

from __future__ import annotations

import importlib
import types
from collections.abc import Iterable
from typing import Any


def _functions(module: types.ModuleType) -> list[types.FunctionType]:
    """Functions defined in ``module``: top level and methods of its classes (no recursion)."""
    found: list[types.FunctionType] = []
    pending: list[Any] = list(vars(module).values())
    seen: set[int] = set()
    while pending:
        item = pending.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, (staticmethod, classmethod)):
            item = item.__func__
        if isinstance(item, property):
            pending.extend(f for f in (item.fget, item.fset, item.fdel) if f is not None)
        elif isinstance(item, type) and item.__module__ == module.__name__:
            pending.extend(vars(item).values())
        elif isinstance(item, types.FunctionType) and item.__module__ == module.__name__:
            found.append(item)
    return found


def instrument_modules(names: Iterable[str], dataflow: bool = True) -> int:
    """Import each module and instrument its functions; returns how many were patched."""
    from atheris.instrument_bytecode import patch_code

    count = 0
    for name in names:
        for function in _functions(importlib.import_module(name)):
            function.__code__ = patch_code(function.__code__, dataflow)
            count += 1
    return count
