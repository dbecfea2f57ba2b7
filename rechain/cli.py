"""The ``rechain`` command: one subcommand per module in ``rechain.commands``.

Each module there exposes ``register(subparsers)``, which adds its parser and
sets ``handler`` (``args -> exit code``) as a default. Adding a command is
adding a file.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence
from typing import Any

from rechain import __version__, commands, interrupts
from rechain.cache import cache_dir
from rechain.closed_pipe import guarded_stdout
from rechain.errors import UsageError
from rechain.helptext import plain


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as ``rechain: ...`` and exit 2.

    Descriptions and option help may come from docstrings: their RST markup is
    made plain here, so no ``--help`` shows raw markup.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        for key in ("description", "epilog"):
            if isinstance(kwargs.get(key), str):
                kwargs[key] = plain(kwargs[key])
        super().__init__(*args, **kwargs)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        if isinstance(kwargs.get("help"), str):
            kwargs["help"] = plain(kwargs["help"])
        return super().add_argument(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    """The full parser, with every command module registered in name order."""
    parser = _Parser(
        prog="rechain",
        description="Conformance and fuzzing for Claude Code session transcripts.",
    )
    parser.add_argument("--version", action="version", version=f"rechain {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(sub)
    return parser


def command() -> int:
    """The ``rechain`` program: ``main`` with Hypothesis' own files (the constants it
    gathers, any default database) kept in rechain's cache instead of a ``.hypothesis``
    folder in whatever directory the user runs rechain from (unless
    ``HYPOTHESIS_STORAGE_DIRECTORY`` says where)."""
    if not os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        from hypothesis.configuration import set_hypothesis_home_dir

        set_hypothesis_home_dir(cache_dir() / "hypothesis")
    return main()


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; user mistakes become one line on stderr and exit 2."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "handler", None):
            parser.print_help(sys.stderr)
            return 2
        args.argv = list(argv) if argv is not None else sys.argv[1:]
        with interrupts.terminate_as_interrupt(), guarded_stdout():
            return int(args.handler(args))
    except UsageError as error:
        print(f"rechain: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:
        print(f"rechain: {interrupts.said(stop)}", file=sys.stderr)
        return interrupts.exit_code(stop)
    except BrokenPipeError:
        return 0
