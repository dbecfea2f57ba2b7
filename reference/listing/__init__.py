"""Session listing from head and tail reads: the TS SDK's ``listSessions`` and 2.1.88's list.

``list_sessions(config, project=...)`` returns what a profile's reader lists,
as ``SDKSessionInfo``-shaped dicts (the SDK's field names; absent fields are
left out, as ``JSON.stringify`` leaves out ``undefined``). The rules live in
pure modules (``sdk``, ``seed``); ``disk`` is the only place that reads files,
and it reads 64 KiB at each end of a transcript, never the whole file.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rechain.reference.js.text import date_parse, try_json
from rechain.reference.listing import agent_sdk_0_3_332 as sdk_rules
from rechain.reference.listing import claude_code_2_1_88 as cli_rules
from rechain.reference.listing import disk
from rechain.reference.listing.agent_sdk_0_3_332 import Lite
from rechain.reference.listing.scan import last_line_field
from rechain.reference.model import UsageError

SDK = "agent-sdk@0.3.332"
SEED = "claude-code@2.1.88"
LISTING_PROFILES = {
    SDK: (SDK, "sdk", "agent-sdk", "agent-sdk-ts"),
    SEED: (SEED, "seed", "claude-code-2.1.88"),
}

__all__ = ["LISTING_PROFILES", "SDK", "SEED", "Lite", "list_sessions", "listing_profile"]


def listing_profile(name: str) -> str:
    """The canonical listing profile for a name or alias; unknown names are a usage error."""
    for canonical, aliases in LISTING_PROFILES.items():
        if name in aliases:
            return canonical
    known = ", ".join(f"{c} ({', '.join(a[1:])})" for c, a in LISTING_PROFILES.items())
    raise UsageError(f"unknown listing profile {name!r}; known: {known}")


def _archived(session_dir: Path, lite: Lite) -> bool | None:
    """The ``archived.json`` flag, cleared by a later human prompt."""
    text = disk.read_text(session_dir / "archived.json", disk.SIDECAR_ARCHIVED_BYTES)
    if text is None:
        return None
    ok, value = try_json(text)
    if not ok or type(value) is not dict or type(value.get("archived")) is not bool:
        return None
    at = value.get("at")
    at_ms = date_parse(at) if type(at) is str else None
    if type(at) is not str or at_ms is None:
        return None
    if not value["archived"]:
        return False
    later = _prompted_after(lite.tail, at_ms) or (
        lite.head is not lite.tail and _prompted_after(lite.head, at_ms)
    )
    return not later


def _prompted_after(text: str, at_ms: int) -> bool:
    """A human user prompt written after ``at_ms`` (simplified)."""
    for line in text.split("\n"):
        if '"user"' not in line or '"tool_result"' in line:
            continue
        ok, entry = try_json(line)
        if not ok or type(entry) is not dict or entry.get("type") != "user":
            continue
        origin = entry.get("origin")
        if origin is not None and (type(origin) is not dict or origin.get("kind") != "human"):
            continue
        stamp = entry.get("timestamp")
        when = date_parse(stamp) if type(stamp) is str else None
        if when is not None and when > at_ms and sdk_rules.prompt_of(entry, [""]) is not None:
            return True
    return False


def _sdk_info(
    candidate: disk.Candidate, include_programmatic: bool, check_guards: bool = True
) -> dict[str, Any] | None:
    """One candidate through the SDK's read, its filters and its info builder."""
    read = disk.read_lite(candidate.path)
    if read is None:
        return None
    lite = read[0]
    if check_guards:
        if not include_programmatic and sdk_rules.is_programmatic(lite.head, lite.tail):
            return None
        target = sdk_rules.continued_in(lite.tail)
        if target is not None and disk.has_chain_entries(candidate.path.parent / f"{target}.jsonl"):
            return None
    session_dir = candidate.path.parent / candidate.session_id
    title = None
    if last_line_field(lite.tail, "customTitle", "custom-title", "older") is None:
        title = sdk_rules.sidecar_title(disk.read_text(session_dir / "custom-title.json"))
    info = sdk_rules.session_info(
        candidate.session_id, lite, candidate.project_path, title, _archived(session_dir, lite)
    )
    if info is None or not check_guards:
        return info
    cwd = sdk_rules.relocated_or_first_cwd(lite)
    project = candidate.project_path
    if cwd is not None and project is not None and disk.cwd_collides(cwd, project):
        return None
    return info


def _seed_info(candidate: disk.Candidate) -> dict[str, Any] | None:
    read = disk.read_lite(candidate.path)
    if read is None:
        return None
    return cli_rules.session_info(
        candidate.session_id, read[0], candidate.project_path, disk.birth_ms(candidate.path)
    )


def _candidates(config: Path, project: Path | None) -> list[disk.Candidate]:
    projects = config / "projects"
    if project is not None:
        real, directories = disk.project_dirs(projects, project)
        return [c for d in directories for c in disk.candidates(d, real)]
    return [c for d in disk.all_project_dirs(projects) for c in disk.candidates(d, None)]


def _newest_per_session(infos: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Duplicates (the same id in several project dirs) keep the newest; first wins ties."""
    kept: dict[str, dict[str, Any]] = {}
    for info in infos:
        seen = kept.get(info["sessionId"])
        if seen is None or info["lastModified"] > seen["lastModified"]:
            kept[info["sessionId"]] = info
    return list(kept.values())


def list_sessions(
    config: Path,
    project: Path | None = None,
    *,
    profile: str = SDK,
    include_programmatic: bool = True,
    limit: int | None = None,
    offset: int = 0,
) -> list[dict[str, Any]]:
    """The sessions a profile lists for ``project`` (every project when None), newest first."""
    chosen = listing_profile(profile)
    found = _candidates(config, project)
    if chosen == SDK:
        infos = [i for c in found if (i := _sdk_info(c, include_programmatic)) is not None]
        ordered = sorted(_newest_per_session(infos), key=sdk_rules.sort_key, reverse=True)
    else:
        infos = [i for c in found if (i := _seed_info(c)) is not None]
        ordered = sorted(_newest_per_session(infos), key=cli_rules.sort_key, reverse=True)
    start = max(offset, 0)
    if limit is not None and limit > 0:
        return ordered[start : start + limit]
    return ordered[start:]


def session_info(
    config: Path, session_id: str, project: Path | None = None, *, profile: str = SDK
) -> dict[str, Any] | None:
    """[``getSessionInfo``] one session's entry, without the list's hiding filters."""
    chosen = listing_profile(profile)
    for candidate in _candidates(config, project):
        if candidate.session_id != session_id:
            continue
        if chosen == SDK:
            return _sdk_info(candidate, True, check_guards=False)
        return _seed_info(candidate)
    return None
