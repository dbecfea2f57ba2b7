"""Compare the seed ``chain`` view with what Claude Code 2.1.88 wrote for a forked resume.

With ``--fork-session`` the CLI writes the whole deserialised conversation to a
new session file (uuids kept, attachments and progress not written) and then
the prompt; that is the observable form of the chain. Synthetic messages get
random uuids, so they are compared by their text.
"""

from __future__ import annotations

from typing import Any

from rechain.reference.js import UNDEFINED, prop
from rechain.reference.model import Json
from rechain.reference.seed.resume import CONTINUE_TEXT, NO_RESPONSE_TEXT

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
        if uuid not in known:
            text = _text(row.get("message"))
            marker = {CONTINUE_TEXT: "continue", NO_RESPONSE_TEXT: "no-response"}.get(
                text or "", f"new:{text!r}")
            out.append((kind, marker))
        else:
            out.append((kind, uuid, _comparable(row)))
    return out


def expected(messages: list[Json]) -> list[tuple[Any, ...]]:
    """The seed chain view's messages as the fork would write them."""
    out: list[tuple[Any, ...]] = []
    for message in messages:
        kind = message.get("type")
        if kind not in WRITTEN_TYPES:
            continue
        if "synthetic" in message:
            out.append((kind, message["synthetic"]))
        elif type(message.get("uuid")) is not str:  # written under a fresh uuid
            out.append((kind, f"new:{_text(message.get('message'))!r}"))
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
    for at, (a, b) in enumerate(zip(mine, theirs, strict=False)):
        if a != b:
            return f"at {at}: seed {_short(a)} vs 2.1.88 {_short(b)}"
    if len(mine) != len(theirs):
        return f"length: seed {len(mine)} vs 2.1.88 {len(theirs)}"
    return None


def _short(item: tuple[Any, ...]) -> str:
    return repr(item[:2]) + ("" if len(item) < 3 else f" {repr(item[2])[:120]}")


HARNESS_PREFIX = "<system-reminder>"


def api_observed(messages: list[Json]) -> list[Json]:
    """A request's ``messages`` without the harness's own text (system-reminder blocks).

    2.1.88 prepends a context reminder to the first user message and, when the
    resumed chain starts with an assistant, sends a user message holding only
    that reminder; both are dropped here, as is a user message left empty.
    """
    out: list[Json] = []
    for message in messages:
        content = message.get("content")
        if message.get("role") == "user" and type(content) is str and content.startswith(
            HARNESS_PREFIX
        ):
            continue
        if message.get("role") == "user" and type(content) is list:
            content = [b for b in content if not (
                prop(b, "type") == "text" and str(prop(b, "text")).startswith(HARNESS_PREFIX))]
            if not content:
                continue
        out.append({"role": message.get("role"), "content": content})
    return out


def api_difference(mine: list[Json], theirs: list[Json]) -> str | None:
    """The first request message that differs (strings and one-text-block lists are equal)."""
    left = [(m["role"], _blocks(m["content"])) for m in mine]
    right = [(m["role"], _blocks(m["content"])) for m in theirs]
    for at, (a, b) in enumerate(zip(left, right, strict=False)):
        if a != b:
            return f"api at {at}: seed {repr(a)[:160]} vs 2.1.88 {repr(b)[:160]}"
    if len(left) != len(right):
        return f"api length: seed {len(left)} vs 2.1.88 {len(right)}"
    return None


def _blocks(content: Any) -> Any:
    """Content as blocks with only type, text, id, tool_use_id (what identifies a block)."""
    if type(content) is str:
        return (("text", content),)
    if type(content) is not list:
        return content
    keys = ("type", "text", "id", "tool_use_id", "thinking")
    return tuple(tuple(prop(b, k) for k in keys if prop(b, k) is not UNDEFINED)
                 for b in content)


RESTORED_FIELDS = (("custom-title", "customTitle", "customTitle"), ("tag", "tag", "tag"))


def state_difference(state: Json, forked: list[Json]) -> str | None:
    """Title and tag the CLI re-appended to the forked session vs the seed ``state`` view.

    Only set values are written back (``currentSessionTitle`` and friends), so
    a missing row means "none restored".
    """
    for kind, field, mine_key in RESTORED_FIELDS:
        written = next((row.get(field) for row in forked if row.get("type") == kind), None)
        mine = state.get(mine_key)
        mine = mine if type(mine) is str and mine else None
        if written != mine:
            return f"state {mine_key}: seed {mine!r} vs 2.1.88 {written!r}"
    return None


def with_prompt_remainder(
    messages: list[Json], prompt_turn: Json | None, prompt: str
) -> list[Json]:
    """The request's messages plus what the prompt turn carried besides the prompt.

    A resumed conversation that ends on a user message (a tool result whose
    assistant fragment merged back, say) is merged into the prompt's turn, so
    that part of the last request message belongs to the resumed conversation.
    """
    if prompt_turn is None:
        return messages
    content = prompt_turn.get("content")
    if type(content) is not list:
        return messages
    rest = [b for b in content if not (prop(b, "type") == "text" and prop(b, "text") == prompt)]
    if rest and prop(rest[-1], "type") == "text" and str(prop(rest[-1], "text")).endswith("\n"):
        # the merge with the prompt added that newline at the text-text seam
        rest[-1] = {**rest[-1], "text": rest[-1]["text"][:-1]}
    return [*messages, {"role": prompt_turn.get("role"), "content": rest}] if rest else messages
