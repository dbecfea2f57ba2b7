"""Options shared by the commands that look sessions up: where, and which page.

Every such command takes ``--config-dir`` (the same default as Claude Code) and
names the directory it searched when it finds nothing, so a user whose
transcripts live elsewhere sees at once where rechain looked.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from rechain.errors import UsageError
from rechain.reference.sessions import config_dir, project_dir_name

CONFIG_DIR_HELP = (
    "Claude Code's config dir, whose projects/ holds the transcripts "
    "(default: $CLAUDE_CONFIG_DIR, else ~/.claude)"
)


def add_config_dir(parser: argparse.ArgumentParser) -> None:
    """``--config-dir DIR``."""
    parser.add_argument("--config-dir", type=Path, metavar="DIR", default=None,
                        help=CONFIG_DIR_HELP)


def add_paging(parser: argparse.ArgumentParser) -> None:
    """``--limit N`` and ``--offset N`` (the SDK's paging options)."""
    parser.add_argument("--limit", type=int, default=None, metavar="N",
                        help="page size (SDK option; default: no limit)")
    parser.add_argument("--offset", type=int, default=0, metavar="N",
                        help="page start (SDK option; default 0)")


def check_paging(args: argparse.Namespace) -> None:
    """A negative page is a usage error, never silently clamped."""
    if (args.limit is not None and args.limit < 0) or args.offset < 0:
        raise UsageError("--limit and --offset must not be negative")


def chosen_config_dir(args: argparse.Namespace) -> Path:
    """``--config-dir``, else ``$CLAUDE_CONFIG_DIR``, else ``~/.claude`` (absolute)."""
    chosen = config_dir({"CLAUDE_CONFIG_DIR": str(args.config_dir)} if args.config_dir
                        else None)
    return chosen.expanduser().absolute()


def searched(config: Path, project: Path | None) -> str:
    """The directory a lookup searched, for a "not found" message."""
    projects = config / "projects"
    if project is None:
        return f"any project under {projects}"
    return f"{projects / project_dir_name(os.path.realpath(project))} (project {project})"
