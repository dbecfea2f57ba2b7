"""A profile's extra views (chain, api, state) as text people read, one renderer per view.

``rechain rebuild --view V --format text`` prints these; a view without a
renderer here is refused rather than printed as JSON under a text flag.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rechain.textview import block_lines, results_of, short
from rechain.wording import counted

Json = Mapping[str, Any]
# the keys a view's document may carry that say what was resumed, shown on the first line
_HEADER_KEYS = ("profile", "view", "entry", "model", "leaf", "tip", "interruption")


def _header(view: str, shown: Json) -> str:
    parts = [f"{key} {short(shown[key], 80)}" for key in _HEADER_KEYS
             if key in shown and shown[key] is not None and key != "view"]
    return f"view {view} · " + " · ".join(parts)


def _chain(shown: Json) -> list[str]:
    """The resumed chain, root first: line, type and uuid of each entry."""
    chain = shown.get("chain") or []
    lines = shown.get("lines") or []
    out = [f"{counted(len(chain), 'entry', 'entries')} on the chain, root first"]
    for index, entry in enumerate(chain):
        if isinstance(entry, Mapping):
            line, kind, uuid = entry.get("line"), entry.get("type"), entry.get("uuid")
        else:
            line = lines[index] if index < len(lines) else None
            kind, uuid = None, entry
        where = f"line {line}" if line is not None else "line ?"
        kind_part = f" · {short(kind, 20)}" if kind is not None else ""
        out.append(f"   {where:>10}{kind_part} · {short(uuid, 80)}")
    return out


def _api(shown: Json) -> list[str]:
    """The messages sent to the model: role, then each block, tool calls beside results."""
    messages: Sequence[Any] = shown.get("messages") or []
    contents = [m.get("content") for m in messages if isinstance(m, Mapping)]
    results = results_of(contents)
    out = [f"{counted(len(messages), 'message')} sent to the model"]
    for message in messages:
        if not isinstance(message, Mapping):
            out.append(f"── {short(message, 80)}")
            continue
        out.append(f"── {short(message.get('role', '?'), 40)}")
        content = message.get("content")
        if isinstance(content, list):
            body = [line for block in content for line in block_lines(block, results)]
        else:
            body = [short(content)]
        out.extend("   " + line for line in body)
    return out


def _state(shown: Json) -> list[str]:
    """The session state restored with the chain: one line per field."""
    state = shown.get("state") or {}
    if not isinstance(state, Mapping):
        return [f"state: {short(state)}"]
    width = max((len(str(key)) for key in state), default=0)
    return [f"   {str(key).ljust(width)}  {_field(value)}" for key, value in state.items()]


def _field(value: Any) -> str:
    if value is None or value == []:
        return "(none)"
    return short(value, 200)


def _footer(shown: Json) -> list[str]:
    out = []
    if shown.get("error"):
        out.append(f"reader error: {short(shown['error'])}")
    for diagnostic in shown.get("diagnostics") or []:
        if isinstance(diagnostic, Mapping):
            line = diagnostic.get("line")
            where = f"line {line}" if line is not None else "file"
            out.append(f"   {where}: {diagnostic.get('kind')}: {short(diagnostic.get('detail'))}")
    return out


RENDERERS: Mapping[str, Callable[[Json], list[str]]] = {
    "chain": _chain,
    "api": _api,
    "state": _state,
}


def render(view: str, shown: Json) -> str | None:
    """The view as text, or None when it has no text rendering."""
    renderer = RENDERERS.get(view)
    if renderer is None:
        return None
    return "\n".join([_header(view, shown), *renderer(shown), *_footer(shown)]) + "\n"
