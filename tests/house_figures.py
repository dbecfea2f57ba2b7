"""Two figures of the code's shape, re-runnable: the reference's size per profile and
the folder crossings of a ``rechain check`` run.

``python tests/house_figures.py lines`` — per profile, the lines of the reference modules its
stages and views use: the modules defining the profile's stage functions and views, plus every
``rechain.reference`` module they import (statically, imports inside functions included),
transitively. The registry (``rechain.reference`` itself and the module defining ``PROFILES``)
is where the walk stops, since it imports every profile. Modules two or more profiles use are
listed once, under "shared", and counted in each profile's total.

``python tests/house_figures.py crossings [CHECK ARGS]`` — runs ``rechain check`` in this process
(default: ``--examples 6 --seed 0 --no-shrink``) under ``sys.setprofile`` and counts
each distinct (caller module, callee module) pair of a function call whose top-level folders
(``rechain``, ``reference``, ``strategies``, ``conformance``, ``fuzz``, ``corpus``) differ. A call
made from library code (Hypothesis, the standard library) is charged to the nearest project frame
below it. Module bodies run by imports are counted apart (every command imports at start-up).
"""

from __future__ import annotations

import ast
import contextlib
import io
import os
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

# the tree measured: this checkout, or another one (``RECHAIN_TREE``, whose ``reference/`` must
# also be the one imported, e.g. through ``PYTHONPATH``)
ROOT = Path(os.environ.get("RECHAIN_TREE") or Path(__file__).resolve().parent.parent)
FOLDERS = ("rechain", "reference", "strategies", "conformance", "fuzz", "corpus")
STOP = {"rechain.reference", "rechain.reference.profiles"}


def module_path(name: str) -> Path | None:
    """The source file of a ``rechain.reference`` module, without importing it."""
    parts = name.split(".")
    if parts[:2] != ["rechain", "reference"]:
        return None
    base = ROOT.joinpath("reference", *parts[2:])
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def imported(name: str) -> set[str]:
    """The ``rechain.reference`` modules one module imports (names resolved to modules)."""
    path = module_path(name)
    if path is None:
        return set()
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        else:
            continue
        found |= {t for t in targets if module_path(t) is not None}
    return found


def closure(roots: set[str]) -> set[str]:
    """Every reference module reachable from ``roots`` by imports, stopping at the registry.

    A package's ``__init__`` runs (with its own imports) when a module below it is imported.
    """
    seen: set[str] = set()
    todo = [r for r in roots if r not in STOP]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        parts = name.split(".")
        parents = {".".join(parts[:i]) for i in range(3, len(parts))}
        todo += [m for m in imported(name) | parents if m not in seen and m not in STOP]
    return seen


def profile_roots(profile: Any) -> set[str]:
    """The modules that define a profile's stage functions and views."""
    import rechain.reference.pipeline as driver

    roots = {driver.__name__}
    for value in vars(profile).values() if hasattr(profile, "__dict__") else (
            getattr(profile, slot) for slot in profile.__slots__):
        functions = value.values() if isinstance(value, dict) else [value]
        roots |= {f.__module__ for f in functions if callable(f) and hasattr(f, "__module__")}
    return {r for r in roots if r.startswith("rechain.reference")}


def lines_of(name: str) -> int:
    path = module_path(name)
    return len(path.read_text(encoding="utf-8").splitlines()) if path else 0


def line_figures() -> str:
    from rechain.reference import PROFILES

    used = {name: closure(profile_roots(p)) for name, p in PROFILES.items()}
    users: dict[str, list[str]] = defaultdict(list)
    for name, modules in used.items():
        for module in modules:
            users[module].append(name)
    shared = sorted(m for m, who in users.items() if len(who) > 1)
    out = ["profile                  modules  lines  (own lines)"]
    for name, modules in used.items():
        own = sum(lines_of(m) for m in modules if len(users[m]) == 1)
        out.append(f"{name:24} {len(modules):7} {sum(map(lines_of, modules)):6}  ({own})")
    out.append(f"shared by two or more: {len(shared)} modules, "
               f"{sum(map(lines_of, shared))} lines")
    out += [f"  {m} {lines_of(m)} ({', '.join(sorted(users[m]))})" for m in shared]
    everything = set().union(*used.values())
    out.append(f"all profiles together: {len(everything)} modules, "
               f"{sum(map(lines_of, everything))} lines")
    return "\n".join(out)


def folder_of(filename: str) -> str | None:
    """The project's top-level folder a source file is in (``None``: not project code)."""
    try:
        rel = Path(filename).resolve().relative_to(ROOT)
    except ValueError:
        return None
    return rel.parts[0] if rel.parts and rel.parts[0] in FOLDERS else None


def module_of(filename: str) -> str:
    return str(Path(filename).resolve().relative_to(ROOT).with_suffix(""))


def crossing_figures(argv: list[str]) -> str:
    from rechain.cli import main

    edges: set[tuple[str, str]] = set()
    imports: set[tuple[str, str]] = set()
    folder_cache: dict[str, str | None] = {}

    def folder(filename: str) -> str | None:
        if filename not in folder_cache:
            folder_cache[filename] = folder_of(filename)
        return folder_cache[filename]

    def tracer(frame: Any, event: str, arg: Any) -> None:
        if event != "call":
            return
        callee = frame.f_code.co_filename
        to = folder(callee)
        if to is None:
            return
        caller = frame.f_back
        while caller is not None and folder(caller.f_code.co_filename) is None:
            caller = caller.f_back
        if caller is None:
            return
        came_from = folder(caller.f_code.co_filename)
        if came_from != to:
            kind = imports if frame.f_code.co_name == "<module>" else edges
            kind.add((module_of(caller.f_code.co_filename), module_of(callee)))

    sink = io.StringIO()
    run: Callable[[], Any] = lambda: main(["check", *argv])  # noqa: E731
    sys.setprofile(tracer)
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            code = run()
    except SystemExit as stop:
        code = stop.code
    finally:
        sys.setprofile(None)
    pairs = defaultdict(set)
    for a, b in edges:
        pairs[(a.split("/")[0], b.split("/")[0])].add((a, b))
    out = [f"rechain check {' '.join(argv)} -> exit {code}",
           f"folder crossings (distinct caller module -> callee module): {len(edges)}",
           f"folder pairs: {len(pairs)}",
           f"(module bodies run across folders at import time, not counted: {len(imports)})"]
    for (a, b), found in sorted(pairs.items()):
        out.append(f"  {a} -> {b}: {len(found)}")
        out += [f"      {x} -> {y}" for x, y in sorted(found)]
    return "\n".join(out)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    what = sys.argv[1] if len(sys.argv) > 1 else "lines"
    if what == "lines":
        print(line_figures())
    else:
        args = sys.argv[2:] or ["--examples", "6", "--seed", "0", "--no-shrink"]
        print(crossing_figures(args))
