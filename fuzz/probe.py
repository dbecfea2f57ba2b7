"""Checking a ``--target MOD:FN`` before any worker starts.

The target is imported the way ``python -c "import MOD"`` imports it in the user's
directory, with the interpreter that will fuzz it (``--venv``). A module that does
not import, or has no such function, is the user's to fix: one line, exit 2, and no
campaign of workers that each fail to import it. Workers start in a directory of
their own, so a module found only in the user's directory is handed to them through
``PYTHONPATH``.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from rechain import portable
from rechain.errors import UsageError
from rechain.fuzz import groups

PROBE = r"""
import importlib, inspect, json, os, sys
module_name, function_name, allowed = sys.argv[1], sys.argv[2], sys.argv[3:]
try:
    module = importlib.import_module(module_name)
except BaseException as error:
    print(json.dumps({"error": "cannot import %s: %s: %s"
                      % (module_name, type(error).__name__, error)}))
    raise SystemExit(0)
value = module
for part in function_name.split("."):
    value = getattr(value, part, None)
if not callable(value):
    print(json.dumps({"error": "%s has no function %s" % (module_name, function_name)}))
    raise SystemExit(0)
try:
    signature = inspect.signature(value)
except ValueError:  # no signature to read (a builtin): the workers will tell
    signature = None
if signature is not None:
    problem = None
    for arguments in ((b"",), (b"", ""), (b"", "", {})):  # as rechain check's tier 0 calls
        try:
            signature.bind(*arguments)
            problem = None
            break
        except TypeError as error:
            problem = problem or error
    if problem is not None:
        print(json.dumps({"error": "%s cannot take one input (%s): it must accept the input's "
                          "bytes (or its path, with --input path), alone or followed by "
                          "session_id and options as rechain check's python: readers do"
                          % (function_name, problem)}))
        raise SystemExit(0)
for name in allowed:
    holder, _, attr = name.rpartition(".")
    try:
        kind = getattr(importlib.import_module(holder or "builtins"), attr)
    except (ImportError, AttributeError) as error:
        kind = error
    if not (isinstance(kind, type) and issubclass(kind, BaseException)):
        print(json.dumps({"error": "--allow %s is not an exception type (%s)" % (name, kind)}))
        raise SystemExit(0)
top = sys.modules[module_name.split(".")[0]]
where = getattr(top, "__file__", None) or ""
root = os.path.dirname(where)
if os.path.basename(where) == "__init__.py":
    root = os.path.dirname(root)
here = os.path.realpath(root) == os.path.realpath(os.getcwd()) if where else False
print(json.dumps({"from_cwd": here}))
"""
PROBE_TIMEOUT_S = 300  # a module whose import hangs: a safety limit, not a speed claim


@dataclass(frozen=True, slots=True)
class Resolved:
    """Where the target was found: ``path`` must be on the workers' PYTHONPATH (or None)."""

    path: Path | None


def probe(
    spec: str, python: str, env: dict[str, str], cwd: Path, allow: tuple[str, ...] = ()
) -> Resolved:
    """Import ``MOD:FN`` in ``cwd`` with ``python``; UsageError (one line) when it fails,
    when the function cannot take one argument (every input would fail in the harness, not
    in the reader) or when an ``--allow`` name is not an exception type there."""
    module, colon, function = spec.partition(":")
    if not colon or not module or not function:
        raise UsageError(f"--target {spec}: expected MODULE:FUNCTION")
    if module.endswith(".py") or "/" in module:  # rechain check takes a path: say the words
        where = Path(module)
        raise UsageError(f"--target {spec}: a module name, not a file: from "
                         f"{portable.path(str(where.parent), cwd)} run it as --target "
                         f"{where.stem}:{function}")
    try:
        # the import is the target's code: what it starts ends with the probe
        done = groups.run([python, "-c", PROBE, module, function, *allow], PROBE_TIMEOUT_S,
                          env=env, cwd=cwd)
    except subprocess.TimeoutExpired:
        raise UsageError(f"--target {spec}: importing {module} did not finish") from None
    except OSError as error:
        raise UsageError(f"--target {spec}: cannot run {python}: {error.strerror}") from None
    lines = done.stdout.decode("utf-8", "replace").strip().splitlines()
    try:
        answer = json.loads(lines[-1]) if lines else {}
    except ValueError:
        answer = {}
    if not isinstance(answer, dict) or ("error" not in answer and "from_cwd" not in answer):
        last = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = last[-1] if last else f"exit {done.returncode}"
        raise UsageError(f"--target {spec}: cannot import {module}: {why}")
    if "error" in answer:
        raise UsageError(f"--target {spec}: {answer['error']}"[:600])
    return Resolved(cwd.absolute() if answer["from_cwd"] else None)
