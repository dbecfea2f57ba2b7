"""``rechain sessions``: list sessions from head and tail reads, as a profile's reader does."""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rechain import jsonio
from rechain.commands._session_options import (
    add_config_dir,
    add_paging,
    check_paging,
    chosen_config_dir,
    searched,
)
from rechain.errors import UsageError
from rechain.reference.listing import SDK, list_sessions, listing_profile


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
    where.add_argument("--project", metavar="DIR", type=Path,
                       help="the project's working directory (default: the current one; it "
                            "need not exist any more: only its name is used)")
    where.add_argument("--all", action="store_true", help="every project in the config dir")
    parser.add_argument("--profile", default=SDK, help="sdk (default) or seed")
    add_config_dir(parser)
    add_paging(parser)
    parser.add_argument(
        "--hide-programmatic",
        action="store_true",
        help="leave out SDK/daemon sessions (SDK includeProgrammatic: false)",
    )
    parser.add_argument("--format", choices=("json", "text"), default="text",
                        help="text (default): one line per session; json: the SDK's SDKSessionInfo "
                             "list")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    profile = listing_profile(args.profile)
    check_paging(args)
    config = chosen_config_dir(args)
    if not (config / "projects").is_dir():
        raise UsageError(f"no projects dir in {config} (give --config-dir or set "
                         "CLAUDE_CONFIG_DIR)")
    project = None if args.all else (args.project or Path.cwd())
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
        sys.stdout.write(render(listed, searched(config, project)))
    sys.stdout.flush()
    return 0


def render(listed: list[dict[str, Any]], where: str) -> str:
    """One line per session: modified time, id, size, branch, summary; or where none were."""
    if not listed:
        return f"no sessions in {where}\n"
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
