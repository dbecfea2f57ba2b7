"""Commands rechain prints, made to work as printed from any directory.

A reader spec or a corpus path the user typed may be relative to where the run
started (``python:myreader.py:read``, ``cmd:./reader``, ``--corpus cases``). A
printed replay command is copied into another shell, a CI log, an issue: so
every path in it is made absolute, and a module found only because the run
started in its directory is reached through ``PYTHONPATH``. The command's first
words (``program``) are ``rechain`` only when that name, looked up on ``PATH``, is
this installation; otherwise they name it in full (its console script, or this
interpreter with ``-m rechain``), so a rechain run from an unactivated venv prints
commands that still run it, not "command not found" or another rechain.
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
import shutil
import sys
import sysconfig
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# the spec kinds whose rest is a command line (``cmd[api,chain]:...`` declares views)
_COMMAND_KIND = re.compile(r"cmd(\[[a-z,-]*\])?|harness")


@dataclass(frozen=True, slots=True)
class Portable:
    """A spec (or argument) rewritten with absolute paths, and the environment it needs."""

    text: str
    env: Mapping[str, str] = field(default_factory=dict)


def path(value: str | Path, cwd: Path) -> str:
    """An absolute form of a path given relative to ``cwd``."""
    return os.path.normpath(cwd / Path(value).expanduser())


def _module_in(name: str, cwd: Path) -> bool:
    """Whether ``import name`` would find its top-level package in ``cwd``."""
    top = name.split(".", 1)[0]
    return bool(top) and ((cwd / f"{top}.py").is_file() or (cwd / top).is_dir())


def _python(rest: str, cwd: Path) -> Portable:
    module, colon, function = rest.rpartition(":")
    if not colon or not module:
        return Portable(f"python:{rest}")
    if module.endswith(".py") or "/" in module or os.sep in module:
        return Portable(f"python:{path(module, cwd)}:{function}")
    if _module_in(module, cwd):
        return Portable(f"python:{rest}", {"PYTHONPATH": str(cwd)})
    return Portable(f"python:{rest}")


def _token(token: str, first: bool, cwd: Path) -> str:
    """A relative path that exists under ``cwd`` becomes absolute; a bare program name stays."""
    if Path(token).is_absolute() or token.startswith("-") or (first and "/" not in token):
        return token
    return path(token, cwd) if (cwd / token).exists() else token


def _command(kind: str, rest: str, cwd: Path) -> Portable:
    try:
        argv = shlex.split(rest)
    except ValueError:
        return Portable(f"{kind}:{rest}")
    tokens = [_token(t, i == 0, cwd) for i, t in enumerate(argv)]
    env: dict[str, str] = {}
    for flag, module in itertools.pairwise(argv):
        if flag == "-m" and _module_in(module, cwd):
            env["PYTHONPATH"] = str(cwd)
    if tokens == argv:
        return Portable(f"{kind}:{rest}", env)
    return Portable(f"{kind}:{shlex.join(tokens)}", env)


def spec(text: str, cwd: Path) -> Portable:
    """A reader spec (``rechain check --impl``) that means the same from any directory."""
    kind, colon, rest = text.partition(":")
    if not colon:
        return Portable(text)
    if kind == "python":
        return _python(rest, cwd)
    if _COMMAND_KIND.fullmatch(kind):
        return _command(kind, rest, cwd)
    return Portable(text)


def command(argv: Sequence[str], env: Mapping[str, str] | None = None) -> str:
    """One shell line: ``NAME=VALUE ... argv`` with POSIX quoting."""
    assignments = [f"{name}={shlex.quote(value)}" for name, value in sorted((env or {}).items())]
    return " ".join([*assignments, *(shlex.quote(part) for part in argv)])


#: the words a command stored in a file that travels starts with (a case's provenance,
#: committed docs): whoever reads it later runs the rechain they have on ``PATH``
PORTABLE: tuple[str, ...] = ("rechain",)


def _scripts_rechain() -> Path:
    """The console script this interpreter's installation has (it may not exist)."""
    return Path(sysconfig.get_path("scripts")) / ("rechain.exe" if os.name == "nt" else "rechain")


def _running() -> tuple[tuple[str, ...], Path | None]:
    """How to start this very rechain from any directory, and the console script that is
    this installation (None when there is none to compare a ``PATH`` lookup with)."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    python = sys.executable or "python3"
    script = _scripts_rechain()
    if spec is not None and spec.name in ("rechain", "rechain.__main__"):  # python -m rechain
        return (python, "-m", "rechain"), script
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.stem == "rechain" and argv0.is_file():  # the console script
        own = Path(os.path.normpath(argv0.absolute()))
        return (str(own),), own
    if script.is_file():  # in-process (the pytest plugin, a library call): this install's script
        return (str(script),), script
    return (python, "-m", "rechain"), None


def _same(found: str, own: Path) -> bool:
    try:
        return own.samefile(found)
    except OSError:
        return False


def program() -> tuple[str, ...]:
    """The words that start a command printed for a person to run now: ``rechain`` when
    ``PATH`` finds this installation under that name (absolutely, so from any directory),
    else this installation's console script by absolute path, or ``PYTHON -m rechain``
    when it runs as a module."""
    words, own = _running()
    found = shutil.which("rechain")
    if own is not None and found is not None and Path(found).is_absolute() and _same(found, own):
        return PORTABLE
    return words


def rechain(argv: Sequence[str], env: Mapping[str, str] | None = None) -> str:
    """The shell line that runs this rechain with ``argv`` (``program`` first), for a
    person to copy now: terminal output, a report read after the run, an annotation."""
    return command([*program(), *argv], env)
