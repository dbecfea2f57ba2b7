"""A rebuilt conversation as text people read: roles, tool calls beside their results."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from rechain import jsonio
from rechain.reference.model import Rebuild
from rechain.wording import counted

_WIDTH = 100


def _clip(text: str, limit: int = 400) -> str:
    text = text.replace("\r", "")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def short(value: Any, limit: int = 400) -> str:
    """Any parsed value as one clipped line; never recursive (values can nest very deep)."""
    if isinstance(value, str):
        return _clip(value, limit)
    return _clip(jsonio.dumps(value)[: limit * 8].decode("utf-8", "replace"), limit)


def block_lines(block: Any, results: dict[str, str],
                calls: frozenset[str] | None = None) -> list[str]:
    """One content block as lines; a tool call is followed by its result, and a result
    whose call is not in ``calls`` (the rebuilt conversation's calls) is shown in place."""
    if not isinstance(block, dict):
        return [short(block)]
    kind = block.get("type")
    if kind == "text":
        return [short(block.get("text", ""))]
    if kind == "thinking":
        return [f"(thinking) {short(block.get('thinking', ''), 200)}"]
    if kind == "tool_use":
        name, call = short(block.get("name", "?"), 80), short(block.get("id", "?"), 80)
        lines = [f"→ {name} [{call}] {short(block.get('input', ''), 200)}"]
        if call in results:
            lines.append(f"  ← {results[call]}")
        else:
            lines.append("  ← (no result in the rebuilt conversation)")
        return lines
    if kind == "tool_result":
        call = short(block.get("tool_use_id", "?"), 80)
        if calls is None or call in calls:
            return [f"← result for [{call}] (shown with its call)"]
        return [f"← result for [{call}], whose call is not in the rebuilt conversation: "
                f"{results.get(call, '')}"]
    return [f"({short(kind, 80)})"]


def _results(messages: tuple[dict[str, Any], ...]) -> dict[str, str]:
    return results_of(
        (message.get("message") or {}).get("content")
        if isinstance(message.get("message"), dict)
        else None
        for message in messages
    )


def _calls(messages: tuple[dict[str, Any], ...]) -> frozenset[str]:
    """The tool-use ids the messages call (as ``block_lines`` keys them)."""
    found = set()
    for message in messages:
        body = message.get("message")
        content = body.get("content") if isinstance(body, dict) else None
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_use":
                found.add(short(block.get("id", "?"), 80))
    return frozenset(found)


def results_of(contents: Iterable[Any]) -> dict[str, str]:
    """Tool-use id → its result, clipped, from messages' contents (non-lists are passed over)."""
    found: dict[str, str] = {}
    for content in contents:
        if not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                body = block.get("content")
                if isinstance(body, list):
                    body = " ".join(short(b.get("text", "")) for b in body if isinstance(b, dict))
                error = " (error)" if block.get("is_error") else ""
                found[short(block.get("tool_use_id"), 80)] = short(body, 200) + error
    return found


def render(result: Rebuild) -> str:
    """The conversation, then a summary of what was skipped or left off the chain."""
    results = _results(result.messages)
    calls = _calls(result.messages)
    out = [
        f"profile {result.profile} · leaf {result.leaf or '(none)'} · "
        f"{counted(len(result.messages), 'message')}"
    ]
    for message in result.messages:
        body = message.get("message")
        role = short(
            body.get("role", message["type"]) if isinstance(body, dict) else message["type"], 40
        )
        flags = [f for f in ("is_meta", "isCompactSummary", "isQueuedCommand") if message.get(f)]
        header = f"── {role} · line {message['line']} · {message['uuid']}"
        if flags:
            header += " · " + ", ".join(flags)
        out.append(header[:_WIDTH])
        content = body.get("content") if isinstance(body, dict) else body
        if isinstance(content, list):
            lines = [line for block in content for line in block_lines(block, results, calls)]
            only_results = all(
                isinstance(b, dict) and b.get("type") == "tool_result"
                and short(b.get("tool_use_id", "?"), 80) in calls for b in content
            )
            if only_results and content:
                lines = ["(tool results, shown with their calls)"]
        else:
            lines = [short(content)]
        out.extend("   " + line for line in lines)
    if result.error:
        out.append(f"reader error: {result.error}")
    counts = Counter(d.kind for d in result.diagnostics)
    if counts:
        out.append(
            "── left out or repaired: " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items()))
        )
        for d in result.diagnostics:
            if d.kind in ("recovered", "relinked"):
                continue
            where = f"line {d.line}" if d.line is not None else "file"
            out.append(f"   {where}: {d.kind}: {d.detail}")
    return "\n".join(out) + "\n"


def render_bytes(result: Rebuild) -> bytes:
    """``render`` as UTF-8; lone surrogates from a transcript are escaped, never fatal."""
    return render(result).encode("utf-8", "backslashreplace")
