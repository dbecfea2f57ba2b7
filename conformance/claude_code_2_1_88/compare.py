"""Compare the seed ``chain`` view with what Claude Code 2.1.88 wrote for a forked resume.

With ``--fork-session`` the CLI writes the whole deserialised conversation to a
new session file (uuids kept, attachments and progress not written) and then
the prompt; that is the observable form of the chain. Synthetic messages get
random uuids, so they are compared by their text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rechain.reference.js.values import prop
from rechain.reference.model import Json
from rechain.reference.profiles.claude_code_2_1_88.resume import CONTINUE_TEXT, NO_RESPONSE_TEXT

WRITTEN_TYPES = ("user", "assistant", "system")


def _text(message: Any) -> str | None:
    content = prop(message, "content")
    if type(content) is str:
        return content
    if type(content) is list and len(content) == 1:
        text = prop(content[0], "text")
        return text if type(text) is str else None
    return None


def observed(forked: list[Json], known: set[str], prompt: str) -> list[tuple[Any, ...]]:
    """The forked file's conversation rows before the prompt, as comparable tuples."""
    out: list[tuple[Any, ...]] = []
    for row in forked:
        kind = row.get("type")
        if kind not in WRITTEN_TYPES:
            continue
        if kind == "user" and not row.get("isMeta") and _text(row.get("message")) == prompt:
            break
        uuid = row.get("uuid")
        # a row with a non-string uuid came from the file too (later releases resume them)
        if uuid is None or (type(uuid) is str and uuid not in known):
            out.append((kind, _fresh(row)))
        else:
            out.append((kind, uuid, _comparable(row)))
    return out


def _fresh(row: Json) -> str:
    """The marker of a row written under a uuid the input did not have: its text (the two
    synthetic texts by name, as a release may write a copy of one under a fresh uuid)."""
    text = _text(row.get("message"))
    return {CONTINUE_TEXT: "continue", NO_RESPONSE_TEXT: "no-response"}.get(
        text or "", f"new:{text!r}")


def wrote_prompt(forked: list[Json], prompt: str) -> bool:
    """The fork got as far as writing the prompt (so the resumed rows before it are whole),
    even when the request failed afterwards."""
    return any(row.get("type") == "user" and not row.get("isMeta")
               and _text(row.get("message")) == prompt for row in forked)


def expected(messages: list[Json]) -> list[tuple[Any, ...]]:
    """The seed chain view's messages as the fork would write them."""
    out: list[tuple[Any, ...]] = []
    for message in messages:
        kind = message.get("type")
        if kind not in WRITTEN_TYPES:
            continue
        if "synthetic" in message:
            out.append((kind, message["synthetic"]))
        elif message.get("uuid") is None:  # written under a fresh uuid
            out.append((kind, _fresh(message)))
        else:
            out.append((kind, message.get("uuid"), _comparable(message)))
    return out


def _comparable(row: Json) -> Any:
    """What must match in a written row: its message content (system rows: nothing)."""
    if row.get("type") == "system":
        return None
    return prop(row.get("message"), "content")


def first_difference(mine: list[tuple[Any, ...]], theirs: list[tuple[Any, ...]]) -> str | None:
    """A short description of the first position where the two lists differ."""
    return _first_mismatch(mine, theirs, lambda a, b: f"{_short(a)} vs 2.1.88 {_short(b)}")


def _first_mismatch(mine: list[Any], theirs: list[Any], describe: Callable[[Any, Any], str],
                    prefix: str = "") -> str | None:
    """``<prefix>at N: seed <describe>`` at the first unequal pair, else a length mismatch."""
    for at, (a, b) in enumerate(zip(mine, theirs, strict=False)):
        if a != b:
            return f"{prefix}at {at}: seed {describe(a, b)}"
    if len(mine) != len(theirs):
        return f"{prefix}length: seed {len(mine)} vs 2.1.88 {len(theirs)}"
    return None


def _short(item: tuple[Any, ...]) -> str:
    return repr(item[:2]) + ("" if len(item) < 3 else f" {repr(item[2])[:120]}")


def observed_request(messages: list[Json], prompt_turn: Json | None, prompt: str) -> list[Json]:
    """The transcript's part of a real request: harness blocks and the prompt taken out."""
    from rechain.reference.profiles.claude_code_2_1_88.api import harness_free

    return harness_free([*messages, *([prompt_turn] if prompt_turn is not None else [])],
                        prompt)


def comparable_content(content: Any) -> Any:
    """A string is one text block; ``cache_control`` (placed by the client) is not content."""
    blocks = [{"type": "text", "text": content}] if type(content) is str else content
    if type(blocks) is not list:
        return blocks
    return [{k: v for k, v in b.items() if k != "cache_control"} if type(b) is dict else b
            for b in blocks]


def api_difference(mine: list[Json], theirs: list[Json]) -> str | None:
    """The first request message that differs (whole content compared)."""
    left = [(m["role"], comparable_content(m["content"])) for m in mine]
    right = [(m["role"], comparable_content(m["content"])) for m in theirs]
    return _first_mismatch(left, right, _delta, "api ")


def _delta(a: tuple[Any, Any], b: tuple[Any, Any]) -> str:
    """Where two (role, blocks) items first differ, shortly."""
    if a[0] != b[0] or type(a[1]) is not list or type(b[1]) is not list:
        return f"{repr(a)[:160]} vs 2.1.88 {repr(b)[:160]}"
    for at, (x, y) in enumerate(zip(a[1], b[1], strict=False)):
        if x != y:
            return f"block {at} {repr(x)[:200]} vs 2.1.88 {repr(y)[:200]}"
    return (f"{len(a[1])} blocks vs 2.1.88 {len(b[1])}: "
            f"{repr(a[1][-1:])[:160]} / {repr(b[1][-1:])[:160]}")


RESTORED_FIELDS = (("custom-title", "customTitle"), ("tag", "tag"), ("agent-name", "agentName"),
                   ("agent-color", "agentColor"), ("agent-setting", "agentSetting"),
                   ("mode", "mode"))
PR_FIELDS = ("prNumber", "prUrl", "prRepository")


def state_difference(state: Json, forked: list[Json]) -> str | None:
    """The metadata the CLI re-appended to the forked session vs the seed ``state`` view.

    A resume writes back what it restored (title, tag, agent name, colour and
    setting, mode, PR link; only set values), so a missing row means "none
    restored". A fork does not adopt the worktree, so ``worktreeSession`` is
    not compared here; summary, todos, file history and skills are never written.
    """
    for kind, field in RESTORED_FIELDS:
        written = next((row.get(field) for row in forked if row.get("type") == kind), None)
        mine = state.get(field)
        mine = mine if type(mine) is str and mine else None
        if written != mine:
            return f"state {field}: seed {mine!r} vs 2.1.88 {written!r}"
    row = next((r for r in forked if r.get("type") == "pr-link"), None)
    written_pr = None if row is None else {k: row.get(k) for k in PR_FIELDS}
    link = state.get("prLink")
    mine_pr = {k: link.get(k) for k in PR_FIELDS} if type(link) is dict and any(
        link.get(k) is not None for k in PR_FIELDS) else None
    if written_pr != mine_pr:
        return f"state prLink: seed {mine_pr!r} vs 2.1.88 {written_pr!r}"
    return None
