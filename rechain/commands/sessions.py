"""``rechain sessions``: list sessions from head and tail reads, as a profile's reader does."""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rechain import jsonio
from rechain.errors import UsageError
from rechain.reference.listing import SDK, list_sessions, listing_profile
from rechain.reference.sessions import config_dir


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sessions",
        help="list sessions (64 KiB head and tail reads only) as a reader lists them",
        description=(
            "List a project's sessions with a profile's rules: the TS SDK's listSessions "
            "(default) or Claude Code 2.1.88's /resume list (--profile seed)."
        ),
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--project", metavar="DIR", type=Path, help="project dir (default: cwd)")
    where.add_argument("--all", action="store_true", help="every project in the config dir")
    parser.add_argument("--profile", default=SDK, help="sdk (default) or seed")
    parser.add_argument("--limit", type=int, default=None, help="page size (SDK option)")
    parser.add_argument("--offset", type=int, default=0, help="page start (SDK option)")
    parser.add_argument(
        "--hide-programmatic",
        action="store_true",
        help="leave out SDK/daemon sessions (SDK includeProgrammatic: false)",
    )
    parser.add_argument("--format", choices=("json", "text"), default="text")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    profile = listing_profile(args.profile)
    if (args.limit is not None and args.limit < 0) or args.offset < 0:
        raise UsageError("--limit and --offset must not be negative")
    config = config_dir()
    if not (config / "projects").is_dir():
        raise UsageError(f"no projects dir in {config} (set CLAUDE_CONFIG_DIR?)")
    project = None if args.all else (args.project or Path.cwd())
    if project is not None and not project.is_dir():
        raise UsageError(f"--project {project}: not a directory")
    listed = list_sessions(
        config,
        project,
        profile=profile,
        include_programmatic=not args.hide_programmatic,
        limit=args.limit,
        offset=args.offset,
    )
    if args.format == "json":
        sys.stdout.buffer.write(jsonio.dumps(listed) + b"\n")
    else:
        sys.stdout.write(render(listed))
    sys.stdout.flush()
    return 0


def render(listed: list[dict[str, Any]]) -> str:
    """One line per session: modified time, id, size, branch, summary."""
    if not listed:
        return "no sessions\n"
    out = []
    for info in listed:
        when = datetime.fromtimestamp(info["lastModified"] / 1000, UTC).strftime("%Y-%m-%d %H:%M")
        size = info.get("fileSize")
        branch = f" [{info['gitBranch']}]" if info.get("gitBranch") else ""
        tag = f" #{info['tag']}" if info.get("tag") else ""
        summary = " ".join(str(info.get("summary", "")).split())
        out.append(
            f"{when}  {info['sessionId']}  {_size(size)}{branch}{tag}  {summary[:100]}"
        )
    return "\n".join(out) + "\n"


def _size(size: Any) -> str:
    if not isinstance(size, int):
        return "?"
    value = float(size)
    for unit in ("B", "K", "M"):
        if value < 1024:
            return f"{value:.0f}{unit}"
        value /= 1024
    return f"{value:.0f}G"
