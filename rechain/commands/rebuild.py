"""``rechain rebuild``: one transcript, rebuilt as a profile's reader does."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import Any

from rechain import jsonio, textview, viewtext
from rechain.commands import _subagent_hint as subagent_hint
from rechain.commands._session_options import (
    add_config_dir,
    add_paging,
    check_paging,
    chosen_config_dir,
    searched,
)
from rechain.errors import UsageError
from rechain.reference import DEFAULT_PROFILE, Options, Profile, Rebuild, get_profile, rebuild
from rechain.reference.js.values import as_stringified
from rechain.reference.profiles.claude_code_2_1_332.options import switches_from_env
from rechain.reference.profiles.family import in_seed_line
from rechain.reference.sessions import find_session, is_session_id, subagent_transcripts


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rebuild",
        help="rebuild one transcript's conversation as a reader does",
        description="Rebuild a transcript (a path, or --session ID) with a profile's rules.",
    )
    parser.add_argument("path", nargs="?", type=Path,
                        help="a transcript .jsonl file (- reads it from standard input)")
    parser.add_argument("--session", metavar="ID", help="find the session by id instead of a path")
    parser.add_argument(
        "--project",
        metavar="DIR",
        type=Path,
        help="with --session: the project's working directory (it need not exist any more: "
             "only its name is used)",
    )
    add_config_dir(parser)
    parser.add_argument(
        "--agent",
        metavar="AGENT_ID",
        help="with --session: rebuild that session's subagent transcript instead",
    )
    parser.add_argument("--profile", default=DEFAULT_PROFILE, help="reader profile (default: sdk)")
    parser.add_argument("--system", action="store_true", help="include system rows (SDK option)")
    add_paging(parser)
    parser.add_argument(
        "--view",
        default="messages",
        help="messages (default), or a view the profile offers (e.g. chain, api)",
    )
    parser.add_argument("--entry", help="entry point, for profiles with several")
    parser.add_argument(
        "--model", help="the request's model, for views that depend on it (cli: api)"
    )
    parser.add_argument(
        "--resume-interrupted-turn", action="store_true",
        help="cli: as with CLAUDE_CODE_RESUME_INTERRUPTED_TURN=1 (also read from the "
             "environment): an interrupted turn is redone before the new prompt",
    )
    parser.add_argument("--format", choices=("json", "text"), default="json",
                        help="json (default): the reader's answer; text: for people to read")
    parser.set_defaults(handler=run)


def _transcript(args: argparse.Namespace) -> Path:
    if args.path is not None and args.session is not None:
        raise UsageError("give a PATH or --session ID, not both")
    if args.session is not None:
        if not is_session_id(args.session):
            raise UsageError(f"--session {args.session!r} is not a session id (a UUID)")
        config = chosen_config_dir(args)
        found = find_session(args.session, args.project, {"CLAUDE_CONFIG_DIR": str(config)})
        if found is None:
            where = searched(config, args.project)
            raise UsageError(f"no transcript for session {args.session} in {where}")
        return found
    if args.path is None:
        raise UsageError("give a transcript PATH or --session ID")
    return args.path


def _read(path: Path) -> bytes:
    if str(path) == "-":  # a pipe: the whole of standard input, as bytes
        return sys.stdin.buffer.read()
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a directory, not a transcript") from None
    except OSError as error:
        raise UsageError(f"{path}: cannot read: {error.strerror}") from None


def run(args: argparse.Namespace) -> int:
    check_paging(args)
    if args.agent is not None:
        return _run_agent(args)
    profile = get_profile(args.profile)
    if args.entry is not None and not in_seed_line(profile.name):
        # every other profile has one entry point and would ignore it: a mistake said, not
        # an answer that looks like the one asked for
        raise UsageError(f"--entry {args.entry}: profile {profile.name} has one entry point; "
                         "entry points are the 2.1.88 loader's (--profile seed, or "
                         "claude-code@X for a release it answers)")
    path = _transcript(args)
    data = _read(path)
    options = Options(
        include_system_messages=args.system,
        limit=args.limit,
        offset=args.offset,
        disable_precompact_skip=bool(os.environ.get("CLAUDE_CODE_DISABLE_PRECOMPACT_SKIP")),
        entry=args.entry,
        model=args.model,
        resume_interrupted_turn=args.resume_interrupted_turn
        or switches_from_env(os.environ)["resume_interrupted_turn"],
    )
    stem = path.name.removesuffix(".jsonl")
    if args.view != "messages":
        return _print_view(profile, args.view, data, options, stem, args.format)
    result = rebuild(data, profile, options, session_id=stem if is_session_id(stem) else None)
    note = subagent_hint.hint(path, data, result, text=args.format == "text")
    if args.format == "json":
        _write_json(result if note is None else
                    dataclasses.replace(result, diagnostics=(*result.diagnostics, note)))
    else:
        _write_bytes(textview.render_bytes(result))
    sys.stdout.flush()
    if note is not None and args.format == "text":
        print(f"note: {note.detail}", file=sys.stderr)
    return 0


def _print_view(
    profile: Profile, view: str, data: bytes, options: Options, stem: str, form: str
) -> int:
    """A profile's extra view as JSON, or as text when the view has a text rendering."""
    if view not in profile.views:
        offered = ", ".join(["messages", *profile.views])
        raise UsageError(f"profile {profile.name} has no view {view!r}; it offers: {offered}")
    if form == "text" and view not in viewtext.RENDERERS:
        raise UsageError(f"view {view!r} has no text rendering; use --format json")
    session_id = stem if is_session_id(stem) else None
    rebuilt = rebuild(data, profile, options, session_id=session_id)
    shown = as_stringified(rebuilt.view(view))
    if form == "json":
        sys.stdout.buffer.write(jsonio.dumps(shown) + b"\n")
    else:
        _write_bytes((viewtext.render(view, shown) or "").encode("utf-8", "backslashreplace"))
    sys.stdout.flush()
    return 0


def _run_agent(args: argparse.Namespace) -> int:
    """``--session ID --agent AGENT_ID``: the subagent transcript, by the profile's rules."""
    from rechain.reference.subagents import (
        SEED_PROFILE,
        sdk_subagent_messages,
        seed_agent_transcript,
    )

    seed_names = (SEED_PROFILE, "seed", "claude-code-2.1.88")
    profile = SEED_PROFILE if args.profile in seed_names else get_profile(args.profile).name
    if profile not in (SEED_PROFILE, DEFAULT_PROFILE):
        raise UsageError(f"profile {profile} has no subagent reader; use sdk or seed")
    if args.session is None or args.path is not None:
        raise UsageError("--agent needs --session ID (and no PATH)")
    if not args.agent or "/" in args.agent or "\\" in args.agent:
        raise UsageError(f"--agent {args.agent!r} is not an agent id")
    session = _transcript(args)
    found = subagent_transcripts(session).get(args.agent)
    if found is None:
        known = ", ".join(sorted(subagent_transcripts(session))) or "none"
        raise UsageError(f"session {args.session} has no agent {args.agent} (agents: {known})")
    data = _read(found)
    options = Options(
        limit=args.limit,
        offset=args.offset,
        disable_precompact_skip=bool(os.environ.get("CLAUDE_CODE_DISABLE_PRECOMPACT_SKIP")),
    )
    if profile == SEED_PROFILE:
        result = seed_agent_transcript(data, args.agent, options)
    else:
        meta = found.with_name(found.name.removesuffix(".jsonl") + ".meta.json")
        try:
            meta_text: str | None = meta.read_bytes().decode("utf-8", "replace")
        except OSError:
            meta_text = None
        result = sdk_subagent_messages(data, meta_text, options)
    if args.format == "json":
        _write_json(result)
    else:
        _write_bytes(textview.render_bytes(result))
    sys.stdout.flush()
    return 0


_CHUNK = 1 << 20


def _write_json(result: Rebuild) -> None:
    """``result.to_json()`` as one line of JSON, written a message at a time: messages may be
    built only as they are read (``Rebuild.messages``), so a long conversation is never
    held whole, neither as objects nor as its output. Numbers are written as
    ``JSON.stringify`` writes them, so the output equals the SDK's JSON."""
    out = sys.stdout.buffer
    whole = result.to_json()
    del whole["messages"]

    def part(value: Any) -> bytes:
        return jsonio.dumps(as_stringified(value))

    pending = [b'{"profile":', part(whole["profile"]), b',"session_id":',
               part(whole["session_id"]), b',"leaf":', part(whole["leaf"]), b',"messages":[']
    size = 0
    for at, message in enumerate(result.messages):
        written = part(message)
        pending.append(b"," + written if at else written)
        size += len(written)
        if size >= _CHUNK:
            out.write(b"".join(pending))
            pending, size = [], 0
    pending += [b'],"diagnostics":', part(whole["diagnostics"]), b',"error":',
                part(whole["error"]), b"}\n"]
    out.write(b"".join(pending))


def _write_bytes(data: bytes) -> None:
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
