"""Values a reader answered, abbreviated for a run report: every report line stays small.

A report line (and so the terminal summary, Markdown, HTML, JUnit and SARIF rendered from
it) must stay usable whatever a reader under test answers: a runaway reader answering
50,000 messages, a 1 MB uuid or a value nested a thousand levels deep. The comparison and
its verdict are computed on the full values before anything here runs; a report keeps what
a person needs to see the failure, and says plainly what it left out
(``… (M more characters)``, ``… (K more items)``). The shrunk case file and its replay
command reproduce the whole answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rechain.wording import counted

#: characters of one long string a report keeps
TEXT_KEPT = 300
#: a string at most this much longer than what is kept is kept whole (no marker longer
#: than what it replaces)
SLACK = 32
#: characters of one abbreviated JSON value, about (strings, keys and markers counted)
VALUE_BUDGET = 1200
#: nesting levels of a value a report keeps
DEPTH_KEPT = 8
#: items of a list a report keeps (a reader's uuids, a list inside a value)
ITEMS_KEPT = 20
#: what one report line may take at most, in bytes (``report.dumps_line``'s output): the
#: tests hold every line of a run against a runaway reader to it
LINE_LIMIT = 64 * 1024
MARK = "…"


def clip(text: str, kept: int = TEXT_KEPT) -> str:
    """``text``'s first ``kept`` characters and how many more there were."""
    if len(text) <= kept + SLACK:
        return text
    return f"{text[:kept]}{MARK} ({counted(len(text) - kept, 'more character')})"


def clip_start(text: str, kept: int = TEXT_KEPT) -> str:
    """``text``'s last ``kept`` characters and how many came before (the end of a stderr
    says why a process died)."""
    if len(text) <= kept + SLACK:
        return text
    return f"({counted(len(text) - kept, 'earlier character')}) {MARK}{text[-kept:]}"


def more_items(count: int) -> str:
    """The marker that stands for the items of a list a report leaves out."""
    return f"{MARK} ({counted(count, 'more item')})"


def head(items: Sequence[Any], kept: int = ITEMS_KEPT) -> list[Any]:
    """The first ``kept`` items, each abbreviated, then a marker for the rest."""
    if len(items) <= kept + 1:
        return [shorten(item) for item in items]
    return [*(shorten(item) for item in items[:kept]), more_items(len(items) - kept)]


def shorten(value: Any, budget: int = VALUE_BUDGET, text: int = TEXT_KEPT,
            depth: int = DEPTH_KEPT) -> Any:
    """A JSON value of the same shape, abbreviated: long strings clipped, lists cut after
    ``ITEMS_KEPT`` items, lists and objects cut where ``budget`` characters run out, levels
    below ``depth`` summarised. The recursion is bounded by ``depth``, so any nesting is
    safe."""
    left = [budget]
    return _shorten(value, left, text, depth)


def _shorten(value: Any, left: list[int], text: int, depth: int) -> Any:
    if isinstance(value, str):
        kept = clip(value, max(1, min(text, left[0])))
        left[0] -= len(kept) + 2
        return kept
    if isinstance(value, Mapping):
        if depth <= 0:
            left[0] -= 24
            return f"{MARK} (an object of {counted(len(value), 'key')})"
        out: dict[str, Any] = {}
        for index, (key, item) in enumerate(value.items()):
            if left[0] <= 0:
                out[MARK] = f"({counted(len(value) - index, 'more key')})"
                break
            name = clip(str(key), max(1, min(text, left[0])))
            left[0] -= len(name) + 3
            out[name] = _shorten(item, left, text, depth - 1)
        return out
    if isinstance(value, list | tuple):
        if depth <= 0:
            left[0] -= 24
            return f"{MARK} (a list of {counted(len(value), 'item')})"
        items: list[Any] = []
        for index, item in enumerate(value):
            if left[0] <= 0 or (index >= ITEMS_KEPT and len(value) > ITEMS_KEPT + 1):
                items.append(more_items(len(value) - index))
                break
            items.append(_shorten(item, left, text, depth - 1))
            left[0] -= 1
        return items
    left[0] -= len(str(value)) + 1
    return value


#: characters kept before the first character where two long strings part
CONTEXT = 40


def parted(left: str, right: str, kept: int = TEXT_KEPT) -> tuple[str, str]:
    """Two strings that differ, each abbreviated to show where they part: from a little
    before their first differing character when that lies beyond what ``clip`` keeps."""
    same = next((i for i, (a, b) in enumerate(zip(left, right, strict=False)) if a != b),
                min(len(left), len(right)))
    start = same - CONTEXT if same > kept - CONTEXT else 0
    return _window(left, start, kept), _window(right, start, kept)


def _window(text: str, start: int, kept: int) -> str:
    if start <= 0 or len(text) <= kept + SLACK:
        return clip(text, kept)
    return f"({counted(start, 'earlier character')}) {MARK}{clip(text[start:], kept)}"


def declared(value: Any, budget: int = LINE_LIMIT // 4) -> Any:
    """What a reader declared about itself, whole unless it runs away (longer than
    ``budget`` characters as JSON), then abbreviated like an answer."""
    from rechain.jsonio import dumps

    return value if len(dumps(value)) <= budget else shorten(value, budget // 2)
