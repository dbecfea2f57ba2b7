"""Why a case failed, in words: one explanation per failing record, rendered by every report.

An explanation is plain JSON (stored in the run report's case line), computed
once from the input bytes, both answers, the first difference, the case's tags
and the reference's diagnostics for the same bytes. It holds

- ``input``: the lines that matter (all of a small case, else the lines the
  difference names), each ``line · type · label · short text``;
- ``rows``: both answers aligned message by message, the first difference marked;
- ``behaviour`` and ``sentence``: what went wrong, named from the diagnostic the
  reference gives the lines involved (``recovered``, ``hidden``, ``relinked``,
  ``invalid-json``...), from the shape of the two chains (which leaf each side
  continued from, the rows one loses from a chain it otherwise shows, parents that form
  a cycle and how each side broke it), from the page asked for (``--limit``/``--offset``:
  which messages of the chain the profile reads unpaged each side shows) and from the
  tags (a leaf on another branch after a rewind); the cause the verdict leads with leads
  the explanation too (an invariant in the verdict's own words, ``Verdict.leads``).

Nothing here knows a case by name: the words come from the diagnostics' kinds and
details, and from facts read off the input lines.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import orjson

from rechain.conformance.contracts.pairing import (
    Script,
    Shown,
    Step,
    align,
    approximately,
    content_of,
    copies_in,
    rows_content,
    shown_kind,
    written_again,
)
from rechain.conformance.protocol import Answered, Crashed, Outcome, Raised, TimedOut
from rechain.conformance.report_bounds import clip
from rechain.conformance.skips import NOW_PASSES
from rechain.wording import counted

Json = dict[str, Any]
#: a small case is shown whole; a larger one by the lines the difference names
SHOWN_WHOLE = 24
#: rows of the two answers, and input lines, an explanation lists at most (a reader may
#: answer 50,000 messages: the rest is counted in a last ``…`` row or line)
ROWS_SHOWN = 40
#: characters of a sentence; of a row's or a line's type and label
SENTENCE_KEPT = 600
LABEL_WIDTH = 60
TEXT_WIDTH = 44
_LEADING = bytes(range(0x21)) + b"\xef\xbb\xbf"  # what JSON readers skip around a line
#: diagnostic kinds meaning "this line is no entry to the reader" (its parse reason follows)
_SKIPPED = frozenset({"blank", "invalid-json", "not-an-object", "missing-uuid", "ignored-type",
                      "unusable-message", "before-compact-boundary", "attribution-snapshot",
                      "load-aborted", "snipped"})
#: behaviour token -> the words a report titles it with
TITLES = {
    "crash": "crash", "timeout": "timeout", "raised": "yours raised",
    "expected-raised": "the real reader raised", "field": "field difference",
    "hidden-row": "row the real reader hides", "skipped-line": "skipped line",
    "orphaned-parallel-result": "orphaned parallel result",
    "compaction-relink": "compaction relink", "leaf-choice": "leaf choice",
    "cycle": "parents in a cycle",
    "branch-after-rewind": "branch after a rewind", "walk-stopped": "walk stopped early",
    "off-chain": "row off the chain", "order": "message order", "chain": "different chain",
    "paging": "paging (--limit/--offset)", "lost-row": "row missing", "extra-row": "extra row",
    "merged-row": "rows shown as one", "duplicate-row": "row shown twice",
    "skip-now-passes": "known failure now passes",
    "invariant:unchanged-by-invalid-line": "answer changed by one torn line",
    "invariant:unchanged-by-formatting": "answer changed by reformatting",
    "invariant:parents-first": "child shown before its parent",
    "invariant:sidechains-apart": "sidechain row shown",
    "invariant:contained-error": "raised on one bad line",
}


@dataclass(frozen=True, slots=True)
class Line:
    """One input line as a report shows it."""

    number: int
    type: str
    label: str
    text: str
    uuid: str | None = None
    parent: str | None = None
    timestamp: str | None = None
    entry: bool = False  # parses as an object with a string uuid

    def shown(self) -> str:
        return " · ".join([str(self.number), _short(self.type, LABEL_WIDTH),
                           _short(self.label, LABEL_WIDTH), self.text])


# --- reading the input ------------------------------------------------------------------------


def _parse(raw: bytes) -> tuple[Any, bool]:
    """(value, strict): strict JSON first, then Python's lenient reading (NaN, bad UTF-8)."""
    body = raw.strip(_LEADING)
    try:
        return orjson.loads(body), True
    except orjson.JSONDecodeError:
        pass
    try:  # control characters inside strings too: JSON.parse-like readers vary there
        return json.loads(body.decode("utf-8", "replace"), strict=False), False
    except ValueError:
        return None, False


def _short(text: Any, width: int = TEXT_WIDTH) -> str:
    """One line of at most ``width`` characters; a lone surrogate shows as ``\\udXXX`` (a
    report line must stay strict JSON)."""
    flat = " ".join(str(text).encode("utf-8", "backslashreplace").decode("utf-8").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            for key in ("text", "thinking", "content"):
                if isinstance(block.get(key), str):
                    return str(block[key])
            if isinstance(block.get("input"), dict):
                found = block["input"].get("description") or block["input"].get("command")
                if found:
                    return str(found)
    return ""


def _blocks_of(entry: Any) -> list[dict[str, Any]]:
    """The content blocks (objects) of a row's ``message``; none for any other shape."""
    message = entry.get("message") if isinstance(entry, Mapping) else None
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _label(entry: Mapping[str, Any]) -> str:
    """What a row is, in a word or two: ``prompt``, ``tool_result``, ``tool_use Bash``..."""
    kind = entry.get("type")
    blocks = _blocks_of(entry)
    if kind == "user":
        if entry.get("isCompactSummary"):
            word = "compact summary"
        elif any(b.get("type") == "tool_result" for b in blocks):
            word = "tool_result"
        elif entry.get("isMeta"):
            word = "meta"
        else:
            word = "prompt"
    elif kind == "assistant":
        names = [f"tool_use {b.get('name')}" if b.get("type") == "tool_use" else str(b.get("type"))
                 for b in blocks]
        word = ", ".join(names) or "message"
    elif isinstance(entry.get("attachment"), dict):
        word = str(entry["attachment"].get("type"))
    elif isinstance(entry.get("subtype"), str):
        word = entry["subtype"]
    elif isinstance(entry.get("data"), dict) and isinstance(entry["data"].get("type"), str):
        word = entry["data"]["type"]
    else:
        word = "-"
    flags = [name for key, name in (("isSidechain", "sidechain"), ("isMeta", "meta"))
             if entry.get(key) and name not in word]
    return " ".join([word, *(f"+{f}" for f in flags)])


def _text(entry: Mapping[str, Any]) -> str:
    message = entry.get("message")
    if isinstance(message, dict):
        return _content_text(message.get("content"))
    for key in ("content", "summary", "customTitle"):
        if isinstance(entry.get(key), str):
            return str(entry[key])
    attachment = entry.get("attachment")
    if isinstance(attachment, dict):
        return _content_text(attachment.get("prompt") or attachment.get("content"))
    return ""


def read_lines(data: bytes, diagnostics: Sequence[Json] = ()) -> list[Line]:
    """Every line of the input as a report shows it; non-entries say why (the diagnostic)."""
    why = {d["line"]: d for d in diagnostics if d.get("line") is not None
           and d.get("kind") in _SKIPPED}
    out = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if number > 1 and not raw and number == data.count(b"\n") + 1:
            break  # the empty piece after the final newline is no line
        value, strict = _parse(raw)
        diagnostic = why.get(number)
        if isinstance(value, dict):
            uuid = value.get("uuid") if isinstance(value.get("uuid"), str) else None
            parent = value.get("parentUuid") if isinstance(value.get("parentUuid"), str) else None
            stamp = value.get("timestamp") if isinstance(value.get("timestamp"), str) else None
            label = _label(value)
            if not strict:
                label += " +lenient"
            if diagnostic is not None:
                label = diagnostic["kind"] if label == "-" else f"{label} [{diagnostic['kind']}]"
            out.append(Line(number, str(value.get("type", "?")), label, _short(_text(value)),
                            uuid, parent, stamp, uuid is not None))
        else:
            kind = diagnostic["kind"] if diagnostic else ("not JSON" if value is None
                                                          else f"JSON {type(value).__name__}")
            detail = diagnostic["detail"] if diagnostic else raw[:TEXT_WIDTH].decode(
                "utf-8", "replace")
            out.append(Line(number, "-", kind, _short(detail)))
    return out


# --- the explanation ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sides:
    """Both answers' uuids, the input lines and the reference's diagnostics for them, indexed
    by uuid and by line (a runaway reader's 50,000 rows each look their line up once)."""

    got: list[str]
    expected: list[str]
    lines: list[Line]
    diagnostics: list[Json]
    tags: frozenset[str]
    who: str
    raw: tuple[bytes, ...] = ()  # the file's lines as bytes, to find a uuid no entry holds
    by_uuid: dict[str, Line] = field(init=False, repr=False, compare=False)
    by_line: dict[int, list[Json]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_line: dict[int, list[Json]] = {}
        for diagnostic in self.diagnostics:
            by_line.setdefault(diagnostic.get("line"), []).append(diagnostic)  # type: ignore[arg-type]
        object.__setattr__(self, "by_line", by_line)
        object.__setattr__(self, "by_uuid", {line.uuid: line for line in self.lines
                                             if line.entry and line.uuid is not None})

    def line_of(self, uuid: str) -> Line | None:
        """The last entry line with this uuid."""
        return self.by_uuid.get(uuid)

    def number(self, uuid: str) -> int | None:
        line = self.line_of(uuid)
        return line.number if line else None

    def diagnosed(self, uuid: str, kinds: Iterable[str]) -> Json | None:
        number = self.number(uuid)
        if number is None:
            return None
        wanted = set(kinds)
        return next((d for d in self.by_line.get(number, ()) if d.get("kind") in wanted), None)

    def describe(self, uuid: str) -> str:
        line = self.line_of(uuid)
        return (f"line {line.number} ({_short(line.type, LABEL_WIDTH)}, "
                f"{_short(line.label, LABEL_WIDTH)})" if line else f"uuid {_short(uuid, 80)}")

    def lined(self, text: str) -> str:
        """A diagnostic's words with every uuid of the file replaced by its line number."""
        for line in self.lines:
            if line.uuid and line.entry and line.uuid in text:
                whole = re.compile(rf"'?(?<![\w-]){re.escape(line.uuid)}(?![\w-])'?")
                text = whole.sub(f"line {line.number}", text)  # never inside another word
                text = text.replace(f"line {line.number} at line {line.number}",
                                    f"line {line.number}").replace(
                    f"line {line.number} (line {line.number})", f"line {line.number}")
        return text


def _lines_list(numbers: Sequence[int | None]) -> str:
    shown = [str(n) for n in numbers if n is not None]
    if not shown:
        return "rows not in the file"
    return ("line " if len(shown) == 1 else "lines ") + ", ".join(shown)


def _ancestors(sides: Sides, uuid: str) -> list[str]:
    by_uuid = {line.uuid: line for line in sides.lines if line.entry}
    chain, seen = [], set()
    current = by_uuid.get(uuid)
    while current is not None and current.uuid not in seen:
        seen.add(current.uuid)
        chain.append(str(current.uuid))
        current = by_uuid.get(current.parent) if current.parent else None
    return chain


def _traits(sides: Sides, uuid: str) -> list[str]:
    """Facts about a row a leaf rule may rest on, most specific first."""
    line = sides.line_of(uuid)
    if line is None:
        return []
    entries = [x for x in sides.lines if x.entry]
    messages = [x for x in entries if x.type in ("user", "assistant")]
    continued = {x.parent for x in entries if x.parent}
    found = []
    if "sidechain" in line.label:
        found.append("a sidechain row")
    if "meta" in line.label:
        found.append("a meta row")
    terminals = [x for x in entries if x.uuid not in continued]
    if terminals and terminals[-1].number == line.number:
        found.append("the last-written row that nothing continues")
    main = [x for x in terminals if "sidechain" not in x.label]
    if main and main[-1].number == line.number:
        found.append("the last-written row outside sidechains that nothing continues")
    if messages and messages[-1].number == line.number:
        found.append("the last-written message")
    stamps = [x.timestamp for x in messages if x.timestamp]
    if line.timestamp and stamps and line.timestamp == max(stamps):
        found.append("the newest timestamp")
    if uuid in continued:
        found.append("a row that something continues")
    return found


def _hidden_tip(sides: Sides, uuid: str) -> tuple[str, str] | None:
    """The last-written row below ``uuid`` that the reader walked from but hides (a meta
    row at the tip), with why it is hidden: the leaf it really continued from."""
    found = None
    for diagnostic in sides.diagnostics:
        if diagnostic.get("kind") != "hidden":
            continue
        line = next((x for x in sides.lines if x.number == diagnostic.get("line") and x.entry),
                    None)
        if line is not None and line.uuid != uuid and uuid in _ancestors(sides, str(line.uuid)):
            reason = str(diagnostic.get("detail", "")).split(": ", 1)[-1]
            if found is None or line.number > found[2]:
                found = (str(line.uuid), reason, line.number)
    return (found[0], found[1]) if found else None


def _skipped_line(sides: Sides, uuid: str, who: str) -> tuple[str, str] | None:
    """The clause for a row the reader under test kept from a line ``who`` skips (or whose
    uuid a later line took over), or None."""
    skipped = sides.diagnosed(uuid, _SKIPPED | {"duplicate-uuid"})
    if not skipped:
        return None
    return ("skipped-line", f"{who} skips {sides.describe(uuid)}: {skipped['kind']}, "
                            f"{skipped['detail']}; yours kept it")


def _which(sides: Sides, uuid: str, other: str) -> str:
    """The first trait of ``uuid`` that ``other`` lacks: why one side chose it (a row with no
    trait of its own is named by its line, type and label)."""
    theirs = set(_traits(sides, other))
    mine = _traits(sides, uuid)
    if not mine:
        return sides.describe(uuid)
    trait = next((t for t in mine if t not in theirs), mine[0])
    number = sides.number(uuid)
    return f"{trait} (line {number})" if number is not None else trait


def _clauses(sides: Sides) -> list[tuple[str, str]]:
    """(behaviour, sentence) for every rule the two chains break, the root cause first."""
    got, expected, who = sides.got, sides.expected, sides.who
    theirs, mine = set(expected), set(got)
    only_got = [u for u in got if u not in theirs]
    only_expected = [u for u in expected if u not in mine]
    found: list[tuple[str, str]] = []
    for uuid in only_got:
        hidden = sides.diagnosed(uuid, ("hidden",))
        if hidden:
            reason = str(hidden["detail"]).split(": ", 1)[-1]
            found.append(("hidden-row", f"{sides.describe(uuid)} is on the chain but {who} does "
                          f"not show it ({reason}); yours shows it"))
        paged = sides.diagnosed(uuid, ("paged-out",))
        if paged:
            found.append(("paging", f"{who} leaves {sides.describe(uuid)} out of the page "
                          f"({paged['detail']}); yours shows it"))
    for uuid in only_got:
        skipped = _skipped_line(sides, uuid, who)
        if skipped:
            found.append(skipped)
    recovered = [u for u in only_expected if sides.diagnosed(u, ("recovered",))]
    if recovered:
        detail = sides.lined(str(sides.diagnosed(recovered[0], ("recovered",))["detail"]))  # type: ignore[index]
        anchor = (detail.split(" after ", 1)[1].split(" by ", 1)[0] if " after " in detail
                  else "its anchor")
        found.append(("orphaned-parallel-result",
                      f"{who} puts back {_lines_list([sides.number(u) for u in recovered])} "
                      f"(off the walked path: results and calls of a parallel tool use) after "
                      f"{anchor} by orphan recovery; yours leaves "
                      f"{'it' if len(recovered) == 1 else 'them'} out"))
    involved = {sides.number(u) for u in [*only_got, *only_expected, *expected]}
    relinked = [d for d in sides.diagnostics if d.get("kind") == "relinked"
                and d.get("line") in involved]
    if relinked and (only_got or only_expected):
        first = relinked[0]
        found.append(("compaction-relink", f"{who} re-parents line {first['line']}: "
                      f"{sides.lined(str(first['detail']))}; yours follows the parentUuid as "
                      f"written"))
    for uuid in only_expected:
        number = sides.number(uuid)
        read = next((d for d in sides.diagnostics if d.get("line") == number
                     and d.get("kind") in ("invalid-utf8",)), None)
        line = sides.line_of(uuid)
        if read or (line is not None and "+lenient" in line.label):
            reason = read["detail"] if read else "a line that not every JSON parser accepts"
            found.append(("skipped-line", f"yours skipped {sides.describe(uuid)}, which {who} "
                          f"reads ({reason})"))
    lost = [] if found else _lost_rows(sides, only_expected)
    if lost:  # the same chain less some rows no diagnostic explains: no leaf or walk to blame
        return [_lost_clause(sides, lost), *_repeated(sides)]
    cycle = _cycle_clause(sides)
    if cycle is not None:  # the leaf and the walk follow from how each side breaks it
        return [*found, cycle, *_repeated(sides)]
    leaf_got, leaf_expected = (got[-1] if got else None), (expected[-1] if expected else None)
    if leaf_got != leaf_expected and leaf_got is not None and leaf_expected is not None:
        apart = (leaf_got not in _ancestors(sides, leaf_expected)
                 and leaf_expected not in _ancestors(sides, leaf_got))
        behaviour = "branch-after-rewind" if apart and "rewind" in sides.tags else "leaf-choice"
        tip = _hidden_tip(sides, leaf_expected)  # the leaf may be a row it does not show
        theirs = (f"{_which(sides, tip[0], leaf_got)}, which it does not show ({tip[1]})"
                  if tip else _which(sides, leaf_expected, leaf_got))
        found.append((behaviour, f"{who} continued from {theirs}; "
                      f"yours from {_which(sides, leaf_got, leaf_expected)}"))
    elif (leaf_got is None) != (leaf_expected is None):
        found.append(("leaf-choice", f"{who} continued from {sides.describe(leaf_expected)}"
                      if leaf_expected else f"{who} found no conversation; yours continued "
                      f"from {sides.describe(str(leaf_got))}"))
    if got and expected and got[0] != expected[0] and got[0] in expected:
        first = sides.line_of(got[0])
        parent = sides.line_of(first.parent) if first and first.parent else None
        if parent is not None:
            found.append(("walk-stopped", f"yours stops at line {first.number}: its parent, "  # type: ignore[union-attr]
                          f"line {parent.number} ({parent.type}, {parent.label}), is a row "
                          f"{who} walks through"))
    for uuid in only_got:
        if sides.diagnosed(uuid, ("off-chain",)):
            found.append(("off-chain", f"{sides.describe(uuid)} is not on the chain {who} "
                          f"walks from its leaf; yours includes it"))
    found += _repeated(sides)
    if not found and sorted(got) == sorted(expected):
        found.append(("order", f"both have the same rows in another order; {who} puts "
                      f"{sides.describe(expected[_first(got, expected)])} first where yours "
                      f"has {sides.describe(got[_first(got, expected)])}"))
    if not found:
        where = _first(got, expected)
        mine = sides.describe(got[where]) if where < len(got) else "nothing"
        theirs = sides.describe(expected[where]) if where < len(expected) else "nothing"
        found.append(("chain", f"message {where + 1}: {who} has {theirs}, yours {mine}"))
    return found


def _cycles(sides: Sides) -> list[list[Line]]:
    """Each cycle the file's parentUuids form, as its lines from the last-written one,
    each followed by its parent (a row that is its own parent is a cycle of one)."""
    found: list[list[Line]] = []
    done: set[str] = set()
    for start in sorted(sides.by_uuid.values(), key=lambda x: x.number, reverse=True):
        path: list[Line] = []
        at: dict[str, int] = {}
        current: Line | None = start
        while current is not None and current.uuid not in done and current.uuid not in at:
            at[str(current.uuid)] = len(path)
            path.append(current)
            current = sides.line_of(current.parent) if current.parent else None
        if current is not None and current.uuid in at:
            ring = path[at[str(current.uuid)]:]
            top = max(range(len(ring)), key=lambda i: ring[i].number)
            found.append(ring[top:] + ring[:top])
        done.update(at)
    return found


def _walked(sides: Sides, chain: Sequence[str], side: str, other: Sequence[str],
            ring: Sequence[Line], whole: bool = True) -> str:
    """What one side did with the rows: no conversation, or the leaf it continued from
    (and the trait that sets it apart from ``other``'s) and, for a ``whole`` chain, the row
    its walk ended on: where the cycle closed on it, or that it left the cycle out."""
    if not chain:
        return f"{side} found no conversation"
    leaf = chain[-1]
    said = f"{side} continued from {_which(sides, leaf, other[-1] if other else leaf)}"
    root = sides.line_of(chain[0])
    if not whole or root is None:
        return said
    parent = sides.line_of(root.parent) if root.parent else None
    if parent is not None and parent.uuid in set(chain):
        why = f", whose parent, line {parent.number}, it had already shown"
    elif not {x.uuid for x in ring} & set(chain):
        why = ", showing no row of the cycle"
    else:
        why = ""
    if root.uuid == leaf and not why:
        return said
    return f"{said} and walked up to line {root.number}{why}"


def _cycle_clause(sides: Sides, leaf_only: bool = False) -> tuple[str, str] | None:
    """The parents form a cycle that a row either answer shows (or the answer that found
    none) is on: the cycle, how the real reader broke it and how yours did (``leaf_only``:
    the answers are the entries each continued from)."""
    cycles = _cycles(sides)
    if not cycles:
        return None
    shown = {sides.number(u) for u in [*sides.got, *sides.expected]}
    on = {line.number for ring in cycles for line in ring}
    entries = [x for x in sides.lines if x.entry]
    whole = len(on) == len(entries)
    if not shown & on and not whole:
        return None
    ring = next((r for r in cycles if shown & {x.number for x in r}), cycles[0])
    if len(ring) == 1:
        what = f"line {ring[0].number} is its own parent"
    else:
        path = " → ".join(str(x.number) for x in [*ring, ring[0]])
        what = f"the parents form a cycle, lines {path} (each line's parent the next)"
    if whole:
        what += ": every row is on a cycle, so no row is a leaf that nothing continues"
    theirs = _walked(sides, sides.expected, sides.who, sides.got, ring, not leaf_only)
    mine = _walked(sides, sides.got, "yours", sides.expected, ring, not leaf_only)
    return ("cycle", f"{what}; {theirs}; {mine}")


def _lost_rows(sides: Sides, missing: Sequence[str]) -> list[str]:
    """The rows of the expected chain yours loses while showing the rest of it, in order
    and adding none: any row between its first and last, and a tool result at either end
    (a chain that merely ends or starts elsewhere is a leaf choice or a walk stopped early).
    Empty when the answers differ otherwise."""
    got, expected = sides.got, sides.expected
    if not got or not missing or set(got) - set(expected):
        return []
    gone = set(missing)
    kept = [u for u in expected if u not in gone]
    if kept != got:
        return []
    inner = set(expected[expected.index(got[0]):expected.index(got[-1]) + 1])
    lost = [u for u in missing if u in inner or _results_of(sides, u)]
    return lost if len(lost) == len(missing) else []


def _results_of(sides: Sides, uuid: str) -> list[str]:
    """The tool_use ids the tool_result blocks of ``uuid``'s line answer."""
    number = sides.number(uuid)
    if number is None or number > len(sides.raw):
        return []
    return [str(b.get("tool_use_id")) for b in _blocks_of(_parse(sides.raw[number - 1])[0])
            if b.get("type") == "tool_result"]


def _call_of(sides: Sides, tool_id: str) -> str:
    """``tool_use Bash, line 6``: the call a tool result answers, as the file writes it."""
    needle = json.dumps(tool_id).encode()
    for number, raw in enumerate(sides.raw, start=1):
        if needle not in raw or b'"tool_use"' not in raw:
            continue
        for block in _blocks_of(_parse(raw)[0]):
            if block.get("type") == "tool_use" and block.get("id") == tool_id:
                return f"tool_use {block.get('name')}, line {number}"
    return "a call not in the file"


def _blocks(sides: Sides, uuid: str) -> str:
    """``, the tool_result block answering toolu_1 (tool_use Bash, line 2)`` for a row
    holding tool results, else nothing: what a reader that lost the row lost."""
    blocks = _results_of(sides, uuid)
    if not blocks:
        return ""
    calls = "; ".join(f"{_short(b, 40)} ({_call_of(sides, b)})" for b in blocks)
    return f", the tool_result block{'s' if len(blocks) > 1 else ''} answering {calls}"


def _lost_clause(sides: Sides, lost: Sequence[str]) -> tuple[str, str]:
    """The first row yours loses from a chain it otherwise shows as it is: its line, role
    and, for a tool result, the block and the call it answers; where the leaf stands."""
    first, rest = lost[0], lost[1:]
    what = _blocks(sides, first)
    numbers = [sides.number(u) for u in rest]
    more = f"; and {counted(len(rest), 'more row')} ({_lines_list(numbers)})" if rest else ""
    leaf = sides.expected[-1]
    where = (f"; both continue from the same leaf, {sides.describe(leaf)}"
             if sides.got[-1] == leaf else "; yours shows every row before it")
    tail = " as the last row of its chain" if leaf == first else ""
    return ("lost-row", f"yours leaves out {sides.describe(first)}{what}, which {sides.who} "
            f"shows{tail}{more}{where}")


#: what a chain reader's own rules decide, which a page cut from the chain decides instead
#: (a page starts and ends mid-chain: its ends are no leaf choice or walk stopped early)
_PAGE_DECIDES = frozenset({"leaf-choice", "branch-after-rewind", "walk-stopped", "paging",
                           "chain", "lost-row", "order"})


def _spans(numbers: Sequence[int | None]) -> str:
    """``lines 4, 6..11``: line numbers with runs written as ranges."""
    shown = sorted({n for n in numbers if n is not None})
    if not shown:
        return "rows not in the file"
    runs: list[list[int]] = []
    for n in shown:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    words = [f"{r[0]}" if len(r) == 1 else f"{r[0]}..{r[-1]}" for r in runs]
    return ("line " if len(shown) == 1 else "lines ") + ", ".join(words)


def _messages_span(first: int, last: int) -> str:
    return f"message {first}" if first == last else f"messages {first}..{last}"


def _page_clause(sides: Sides, full: Sequence[str], limit: int | None,
                 offset: int) -> tuple[str, str] | None:
    """The page each side shows of the chain the profile reads (``full``, unpaged): which
    messages of it, on which lines, and where yours' page starts when its rows are on that
    chain. None when the real reader's page is not that chain's slice."""
    stop = offset + limit if limit else None
    if offset < 0 or list(full[offset:stop]) != sides.expected:
        return None
    if sides.got and sides.expected and (sides.got[0], sides.got[-1]) == (
            sides.expected[0], sides.expected[-1]):
        return None  # the page's ends agree: what differs lies inside it, no paging
    asked = " ".join(f"--{name} {value}" for name, value in (("limit", limit),
                                                              ("offset", offset)) if value)
    total = counted(len(full), "message")
    if sides.expected:
        theirs = (f"{sides.who} shows {_messages_span(offset + 1, offset + len(sides.expected))}"
                  f" of its chain of {total} "
                  f"({_spans([sides.number(u) for u in sides.expected])})")
    else:
        theirs = f"{sides.who} shows no message: its chain has {total}"
    at = {uuid: i for i, uuid in enumerate(full)}
    got = sides.got
    if not got:
        mine = "yours shows no message"
    elif any(u not in at for u in got):
        off = [u for u in got if u not in at]
        mine = (f"yours shows {_spans([sides.number(u) for u in off])}, not on that chain")
    else:
        places = [at[u] for u in got]
        lines = _spans([sides.number(u) for u in got])
        if places == list(range(places[0], places[0] + len(places))):
            mine = f"yours shows {_messages_span(places[0] + 1, places[-1] + 1)} of it ({lines})"
            start = places[0] - offset
            if start > 0 and sides.expected and places[0] != offset:
                mine += (f": what {asked} gives on a chain that starts at message {start + 1}, "
                         f"{sides.describe(full[start])}")
            elif places[0] == offset:
                mine += (f": the same start, {counted(len(got), 'message')} where --limit "
                         f"{limit} shows {len(sides.expected)}" if limit else ": the same start")
        else:
            mine = f"yours shows {lines}, messages {', '.join(str(p + 1) for p in places)} of it"
    return ("paging", f"the page {asked}: {theirs}; {mine}")


#: the causes of a verdict each behaviour shows: a row yours lacks, a row it adds, both
_EITHER = ("lost-row", "extra-row", "wrong-branch")
SHOWS = {"lost-row": ("lost-row",), "walk-stopped": ("lost-row",),
         "orphaned-parallel-result": ("lost-row",), "extra-row": ("extra-row",),
         "hidden-row": ("extra-row",), "off-chain": ("extra-row",),
         "skipped-line": ("extra-row",), "order": ("order",),
         "duplicate-row": ("duplicate-row",), "paging": _EITHER, "leaf-choice": _EITHER,
         "branch-after-rewind": _EITHER, "cycle": _EITHER, "compaction-relink": _EITHER,
         "chain": _EITHER}


def _rank(clause: tuple[str, str], causes: Sequence[str]) -> int:
    """Where the most harmful cause a clause shows stands among the verdict's ``causes``
    (most harmful first), so the explanation leads with what the verdict leads with."""
    behaviour, sentence = clause
    shows = ("lost-row",) if behaviour == "skipped-line" and sentence.startswith(
        "yours skipped") else SHOWS.get(behaviour, ())
    return min((causes.index(c) for c in shows if c in causes), default=len(causes))
#: contract scopes whose answer is every row the profile reads, in an order of their own:
#: the chain's rules (leaf, walk, orphan recovery, relinks) do not decide what they hold
ROW_SCOPES = {"file-order": "in file order", "archive": "parents before children"}


def _scope_clauses(sides: Sides, scope: str) -> list[tuple[str, str]]:
    """(behaviour, sentence) for two answers of a row scope: which rows of the file one
    side lacks or adds, else the order; a line the profile's parser skips is named so."""
    got, expected, who = sides.got, sides.expected, sides.who
    only_got = [u for u in got if u not in set(expected)]
    only_expected = [u for u in expected if u not in set(got)]
    found: list[tuple[str, str]] = []
    if only_expected:
        first, rest = only_expected[0], only_expected[1:]
        more = (f", and {counted(len(rest), 'more row')} "
                f"({_lines_list([sides.number(u) for u in rest])})" if rest else "")
        found.append(("lost-row", f"yours leaves out {sides.describe(first)}{more}, which "
                      f"{who} has"))
    for uuid in only_got:
        clause = _skipped_line(sides, uuid, who)
        if clause:
            found.append(clause)
        elif sides.line_of(uuid) is None:
            held = next((n for n, raw in enumerate(sides.raw, start=1)
                         if uuid.encode("utf-8", "surrogatepass") in raw), None)
            skipped = next((x for x in sides.lines if x.number == held), None)
            where = (f"; it is in line {held}, which the profile's parser skips "
                     f"({skipped.label}: {skipped.text})" if skipped is not None else "")
            found.append(("extra-row", f"yours shows a row with uuid {uuid}, which no line of "
                          f"the file holds as the profile's JSON parser reads it{where}"))
        else:
            found.append(("extra-row", f"yours shows {sides.describe(uuid)}, which {who} "
                          f"leaves out (a kind of row the contract does not show)"))
    found += _repeated(sides)
    if not found:
        where = _first(got, expected)
        found.append(("order", f"both have the same rows in another order; {who} puts "
                      f"{sides.describe(expected[where])} first where yours has "
                      f"{sides.describe(got[where])}"))
        early = _child_first(sides) if scope == "archive" else None
        if early is not None:
            found.insert(0, ("order", f"yours shows {sides.describe(early[0])} before its "
                             f"parent, {sides.describe(early[1])}; {who} has parents first"))
    return found


def _repeated(sides: Sides) -> list[tuple[str, str]]:
    """The first row yours shows twice or more, more often than the other side (which may
    not show it at all): a uuid written on two lines shown from each."""
    counts = Counter(sides.got)
    theirs = Counter(sides.expected)
    uuid = next((u for u in counts if counts[u] > max(theirs[u], 1)), None)
    if uuid is None:
        return []
    once = ("has it once" if theirs[uuid] == 1 else f"has it {theirs[uuid]} times"
            if theirs[uuid] else "does not show it")
    return [("duplicate-row", f"yours shows {sides.describe(uuid)} {counts[uuid]} times; "
             f"{sides.who} {once}")]


def _child_first(sides: Sides) -> tuple[str, str] | None:
    """The first row of ``got`` shown before its parent (which it also shows), if any."""
    shown = set(sides.got)
    seen: set[str] = set()
    for uuid in sides.got:
        line = sides.line_of(uuid)
        if line is not None and line.parent in shown and line.parent not in seen:
            return uuid, line.parent
        seen.add(uuid)
    return None


def _first(got: Sequence[str], expected: Sequence[str]) -> int:
    return next((i for i, (a, b) in enumerate(zip(got, expected, strict=False)) if a != b),
                min(len(got), len(expected)))


def _leaf_clause(difference: Mapping[str, Any], sides: Sides) -> tuple[str, str]:
    """The entry each side continues from, when only that was compared (readers of
    different views, or the ``chain`` view): never a field named ``leaf``."""
    def said(value: Any) -> str:
        return (f"continued from {sides.describe(value)}" if isinstance(value, str)
                else "found no conversation")

    return ("leaf-choice", f"{sides.who} {said(difference.get('right'))}; yours "
            f"{said(difference.get('left'))}")


def _broken(difference: Mapping[str, Any]) -> bool:
    """A difference that is an invariant the reader breaks, not a field: the answers agree
    and the verdict's message says what reading the file again changed."""
    return difference.get("path") == "/" and str(difference.get("left")).startswith(
        "invariant:")


def _value(value: Any, width: int = 60) -> str:
    if isinstance(value, dict) and value.get("$missing"):
        return "nothing"
    return _short(json.dumps(value, ensure_ascii=False, default=str), width)


def _field_clause(difference: Mapping[str, Any], sides: Sides,
                  counts: tuple[int | None, int | None] = (None, None)) -> tuple[str, str]:
    """The first difference of two answers compared message by message. One that lies past
    the end of an answer is a row that answer lacks (``lost-row``, ``extra-row``), not a
    field: readers whose rows carry no uuid are compared by position."""
    parts = str(difference.get("path", "")).strip("/").split("/")
    index = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
    field = "/".join(parts[2:]) or parts[0] or "/"
    row = ""
    if index is not None and index < len(sides.expected):
        row = f", {sides.describe(sides.expected[index])}"
    where = f" of message {index + 1}{row}" if row else ""
    mine, theirs = counts
    if index is not None and mine is not None and theirs is not None:
        if mine <= index < theirs:
            return ("lost-row", f"message {index + 1}{row}: {sides.who} has it, yours ends "
                                f"after {counted(mine, 'message')}")
        if theirs <= index < mine:
            return ("extra-row", f"message {index + 1}: yours has it, {sides.who} ends after "
                                 f"{counted(theirs, 'message')}")
    return ("field", f"field `{field}`{where}: {sides.who} has {_value(difference.get('right'))}, "
                     f"yours {_value(difference.get('left'))}")


def _position_steps(got: Answered, expected: Answered, sides: Sides, merged: bool,
                    loose: bool, file_order: bool = False) -> Script | None:
    """The judge's pairing of a reader without uuids with the expected rows, by role and
    the content the file's rows hold (prompts on adjacent lines as one when the reader
    merges them, ``merged``; role pairs where content cannot decide, ``loose``), each
    step's ``expected`` an index of ``expected.messages``; ``file_order`` when the rows are
    the file's in its order, so a row written on several lines is aligned at each (a reader
    showing each line shows it again). None for readers with uuids."""
    theirs = expected.messages
    if not got.messages or not theirs or any(
            isinstance(m.get("uuid"), str) for m in got.messages) or not all(
            isinstance(m.get("uuid"), str) for m in theirs):
        return None
    heads = _run_heads(theirs, sides) if merged else list(range(len(theirs)))
    content = rows_content(b"\n".join(sides.raw), [str(m["uuid"]) for m in theirs])
    runs = list(zip(heads, [*heads[1:], len(theirs)], strict=True))
    fragments, hints = ([tuple(f for k in range(head, end)
                               for f in content.get(str(theirs[k]["uuid"]), ((), ()))[part])
                         for head, end in runs] for part in (0, 1))
    written = copies_in(b"\n".join(sides.raw), [str(m["uuid"]) for m in theirs])
    copies = written_again([sides.number(str(theirs[end - 1]["uuid"])) or 0
                            for _, end in runs],
                           [written.get(str(theirs[h]["uuid"]), ()) for h in heads]
                           ) if file_order else ()
    steps = align(got.messages, [_role(theirs[h]) for h in heads], fragments, loose=loose,
                  hints=hints, copies=copies)
    out = Script(Step(s.op, s.got, heads[s.expected] if s.expected is not None else None)
                 for s in steps)
    out.approximate = steps.approximate
    return out


#: where in the file a row only the reader shows comes from (``pairing.shown_kind``)
_SOURCES = {"duplicate": "; it shows a copy of a row written twice with one uuid",
            "missing-uuid": "; it shows a line without a uuid",
            "unparsed": "; it shows a line that is not strict JSON"}


def _position_clause(got: Answered, expected: Answered, sides: Sides, causes: Iterable[str],
                     steps: Sequence[Step], counts: int) -> tuple[tuple[str, str], int] | None:
    """The first row a reader without uuids lost, added or merged, or the first row paired
    with its row of the file that lacks a text, call or result of it, as the judge pairs
    them; the cause the verdict leads with decides which (a row of a cause the skip list
    accepted, or a less harmful one, is not what the explanation leads with). With the
    index of its step. None for another cause."""
    first = next(iter(causes), None)
    op = {"lost-row": "lost", "extra-row": "extra", "merged-row": "merged", "field": "pair",
          "order": "moved", "duplicate-row": "copy"}.get(str(first))
    for at, step in enumerate(steps):
        if step.op == op:
            said = _step_clause(got, expected, sides, steps, step, counts)
            if said is not None:
                return said, at
    return None


def _step_clause(got: Answered, expected: Answered, sides: Sides, steps: Sequence[Step],
                 step: Step, counts: int) -> tuple[str, str] | None:
    """What one step of the pairing says (None: a pair whose row shows all of its own)."""
    op = step.op
    mine, theirs = got.messages, expected.messages
    tally = f"(yours shows {counted(len(mine), 'message')}, it has {counted(counts, 'row')})"
    uuid = str(theirs[step.expected]["uuid"]) if step.expected is not None else ""
    if op == "lost":
        rest = sum(s.op == "lost" for s in steps) - 1
        more = f" and {counted(rest, 'more row')} yours lacks" if rest > 0 else ""
        return ("lost-row", f"message {step.expected + 1}, {sides.describe(uuid)}"  # type: ignore[operator]
                f"{_blocks(sides, uuid)}: "
                f"{sides.who} has it{more}, yours shows no row with its content {tally}")
    if op == "extra" and step.got is not None:
        role = _role(mine[step.got])
        text = _short(_message_line(mine[step.got], sides).split(" · ")[-1])
        text = f" ({text})" if text else ""
        source = shown_kind(b"\n".join(sides.raw), mine[step.got]).partition("+")[2]
        whence = _SOURCES.get(source, "")
        return ("extra-row", f"yours shows {'an' if role[:1] in 'aeio' else 'a'} {role} "
                f"row at position {step.got + 1}{text} that {sides.who} does not "
                f"have{whence} {tally}")
    if op == "copy" and step.got is not None:
        return ("duplicate-row", f"yours shows {sides.describe(uuid)} again at position "
                f"{step.got + 1}: the file writes it more than once with one uuid, "
                f"{sides.who} has it once {tally}")
    if op == "moved" and step.got is not None:
        return ("order", f"yours shows {sides.describe(uuid)} at position {step.got + 1}, "
                f"out of the file's order: {sides.who} has it as message "
                f"{step.expected + 1} {tally}")  # type: ignore[operator]
    if op == "merged" and step.got is not None:
        beside = next((str(theirs[s.expected]["uuid"]) for s in steps if s.op == "pair"
                       and s.got == step.got and s.expected is not None), None)
        with_ = f", together with {sides.describe(beside)}" if beside else ""
        return ("merged-row", f"yours shows {sides.describe(uuid)} inside its row at "
                f"position {step.got + 1}{with_}: {sides.who} has them as separate rows")
    if op == "pair" and step.got is not None and step.expected is not None:
        lacking = Shown(mine[step.got]).missing(
            content_of(b"\n".join(sides.raw), [uuid]).get(uuid, ()))
        if lacking is not None:
            return ("field", f"field `content` of message {step.expected + 1}, "
                    f"{sides.describe(uuid)}, shown at position {step.got + 1}: "
                    f"{sides.who} has {_value(lacking)}, yours lacks it")
    return None


def _merged(messages: Sequence[Mapping[str, Any]], sides: Sides) -> list[Mapping[str, Any]]:
    """Prompt rows written on adjacent lines as one (the first stands for the run)."""
    return [messages[i] for i in _run_heads(messages, sides)]


def _run_heads(messages: Sequence[Mapping[str, Any]], sides: Sides) -> list[int]:
    """The indices of ``messages`` left when prompts on adjacent lines count as one."""
    out: list[int] = []
    last_line = None
    for index, message in enumerate(messages):
        line = sides.line_of(str(message.get("uuid")))
        prompt = (message.get("type") in ("user", "attachment") and line is not None
                  and "tool_result" not in line.label)
        if prompt and out and last_line is not None and line is not None and (
                line.number == last_line + 1):
            last_line = line.number
            continue
        out.append(index)
        last_line = line.number if prompt and line is not None else None
    return out


def _role(message: Mapping[str, Any]) -> str:
    kind = str(message.get("type", message.get("role")))
    return "user" if kind == "attachment" else kind


def _message_count(outcome: Outcome | None) -> int | None:
    return len(outcome.messages) if isinstance(outcome, Answered) else None


def _messages(answer: Answered) -> str:
    """``1 message``, ``3 messages``."""
    return counted(len(answer.messages), "message")


def _outcome_clause(got: Outcome, expected: Outcome | None, who: str,
                    diagnostics: Sequence[Json]) -> tuple[str, str] | None:
    count = _messages(expected) if isinstance(expected, Answered) else "an answer"
    if isinstance(got, Crashed):
        said = [line.strip() for line in got.stderr.splitlines() if line.strip()]
        words = f"; its last words on stderr: {_short(said[-1], 120)}" if said else ""
        return "crash", (f"yours crashed: {_short(got.message, 120)}{words} "
                         f"({who} returned {count})")
    if isinstance(got, TimedOut):
        return "timeout", f"yours did not answer within {got.seconds:g} s ({who} returned {count})"
    if isinstance(got, Raised) and not isinstance(expected, Raised):
        return "raised", (f"yours raised {got.type}: {_short(got.message, 100)}; "
                          f"{who} returned {count}")
    if isinstance(expected, Raised) and not isinstance(got, Raised):
        why = next((d for d in diagnostics if d.get("kind") in ("reader-error", "first-prompt",
                                                                "load-aborted")), None)
        reason = f" ({why['kind']}: {_short(why['detail'], 100)})" if why else ""
        mine = _messages(got) if isinstance(got, Answered) else "no answer"
        return ("expected-raised", f"{who} raised {expected.type}: "
                f"{_short(expected.message, 100)}{reason}; yours returned {mine}")
    return None


def _uuids(outcome: Outcome | None) -> list[str] | None:
    if not isinstance(outcome, Answered):
        return None
    found = [m.get("uuid") for m in outcome.messages]
    return [str(u) for u in found] if all(isinstance(u, str) for u in found) else None


def _message_line(message: Mapping[str, Any], sides: Sides) -> str:
    uuid = message.get("uuid")
    line = sides.line_of(uuid) if isinstance(uuid, str) else None
    if line is not None:
        return line.shown()
    role = _short(message.get("type") or message.get("role") or "?")
    inner = message.get("message")  # a reader's answer: any JSON value may stand here
    content = message.get("content") or (inner.get("content") if isinstance(inner, dict)
                                         else None)
    text = _content_text(content) or message.get("text")  # a reader's own row: its text
    return " · ".join(["-", role, _short(_label({"type": role, **message}), LABEL_WIDTH),
                       _short(text if isinstance(text, str) else "")])


def aligned(got: Sequence[Mapping[str, Any]], expected: Sequence[Mapping[str, Any]],
            field_at: int | None = None, heads: Sequence[int] | None = None,
            steps: Sequence[Step] | None = None, lead: int | None = None) -> list[Json]:
    """Both answers row by row: ``=`` same, ``≠`` differ, ``+`` only yours, ``-`` only theirs.

    Rows pair by uuid (difflib's alignment) when both sides have uuids, else by position;
    ``field_at`` marks the message whose fields differ. The first differing row gets
    ``first: true``. A row holds the messages' indices (``got``, ``expected``; None for no
    message): only the rows an explanation shows are written out (``_written``). Answers
    whose rows carry no uuid pair with the expected rows as the contract's judge pairs them
    (``steps``, by role and content; a row shown inside another is ``≠`` beside it), else
    by role over ``heads`` of them (merged prompts: the first row of each run); ``lead``,
    the step the explanation's sentence is about, is the one marked ``first`` then.
    """
    if steps is not None:
        rows = [{"mark": _STEP_MARKS[s.op] if s.op != "pair" or field_at != s.got else "≠",
                 "got": s.got if s.op != "lost" else None, "expected": s.expected}
                for s in steps]
        if lead is not None and rows[lead]["mark"] != "=":
            rows[lead]["first"] = True
            return rows
        return _first_marked(rows)
    pick = list(range(len(expected)))
    if got and expected and not any(isinstance(m.get("uuid"), str) for m in got) and all(
            isinstance(m.get("uuid"), str) for m in expected):
        pick = list(heads) if heads is not None else pick
        key_got = [_role(m) for m in got]
        key_expected = [_role(expected[j]) for j in pick]
    else:
        key_got = [str(m.get("uuid", i)) for i, m in enumerate(got)]
        key_expected = [str(m.get("uuid", i)) for i, m in enumerate(expected)]
    rows: list[Json] = []
    matcher = difflib.SequenceMatcher(None, key_got, key_expected, autojunk=False)
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal":
            rows += [{"mark": "≠" if field_at == pick[j] else "=", "got": i,
                      "expected": pick[j]}
                     for i, j in zip(range(a0, a1), range(b0, b1), strict=True)]
            continue
        for n in range(max(a1 - a0, b1 - b0)):
            mine = a0 + n if n < a1 - a0 else None
            theirs = pick[b0 + n] if n < b1 - b0 else None
            mark = "≠" if mine is not None and theirs is not None else (
                "+" if mine is not None else "-")
            rows.append({"mark": mark, "got": mine, "expected": theirs})
    return _first_marked(rows)


#: how ``aligned`` marks each step of the pairing of a reader without uuids
_STEP_MARKS = {"pair": "=", "lost": "-", "extra": "+", "merged": "≠", "moved": "≠",
               "copy": "+"}


def _first_marked(rows: list[Json]) -> list[Json]:
    """The rows with the first that differs marked ``first``."""
    first = next((i for i, row in enumerate(rows) if row["mark"] != "="), None)
    if first is not None:
        rows[first]["first"] = True
    return rows


def _written(row: Json, got: Sequence[Mapping[str, Any]],
             expected: Sequence[Mapping[str, Any]], sides: Sides) -> Json:
    """A row of ``aligned`` with each message's line as text (a ``…`` row is text already)."""
    if row["mark"] == "…":
        return row
    mine, theirs = row["got"], row["expected"]
    return {**row, "got": _message_line(got[mine], sides) if mine is not None else "",
            "expected": _message_line(expected[theirs], sides) if theirs is not None else ""}


def _row_lines(rows: Sequence[Json], got: Sequence[Mapping[str, Any]],
               expected: Sequence[Mapping[str, Any]], sides: Sides) -> set[int]:
    """The input lines of the messages in rows that differ."""
    uuids = [side[row[key]].get("uuid") for row in rows if row["mark"] != "="
             for key, side in (("got", got), ("expected", expected)) if row[key] is not None]
    return {n for n in (sides.number(u) for u in uuids if isinstance(u, str)) if n is not None}


def _shown_rows(rows: list[Json], keep: int = 3) -> list[Json]:
    """Long runs of equal rows folded to ``… N equal …`` (a large case stays readable), and
    at most ``ROWS_SHOWN`` rows: the row marked ``first`` (the one the sentence is about)
    among them, with the differences before it as many as leave it room (the others folded
    and counted), then the rest counted."""
    if len(rows) <= SHOWN_WHOLE:
        return rows
    lead = next((i for i, row in enumerate(rows) if row.get("first")), None)
    wanted = set() if lead is None else set(range(max(lead - keep, 0), lead + keep + 1))
    for n in (i for i, row in enumerate(rows) if row["mark"] != "="):
        around = set(range(max(n - keep, 0), n + keep + 1))
        if lead is None or n > lead or _cost(wanted | around) < ROWS_SHOWN - 1:
            wanted |= around
    out: list[Json] = []
    folded: list[Json] = []
    for i, row in enumerate(rows):
        if i in wanted:
            if len(out) + bool(folded) >= ROWS_SHOWN - 1:
                return [*out, _rest(rows[i - len(folded):])]
            if folded:
                out.append(_fold(folded))
                folded = []
            out.append(row)
        else:
            folded.append(row)
    if folded:
        out.append(_fold(folded))
    return out


def _cost(shown: set[int]) -> int:
    """The rows an explanation writes for ``shown``: each, and a ``…`` row before each run
    of them and after the last."""
    return len(shown) + sum(i - 1 not in shown for i in shown) + 1


def _fold(rows: Sequence[Json]) -> Json:
    """The ``…`` row that stands for rows left out between shown ones."""
    differing = sum(row["mark"] != "=" for row in rows)
    if not differing:
        return {"mark": "…", "got": f"… {len(rows)} equal rows …", "expected": ""}
    return {"mark": "…", "got": f"… {counted(len(rows), 'row')} ({differing} differing) …",
            "expected": ""}


def _rest(rows: Sequence[Json]) -> Json:
    """The ``…`` row that counts the rows an explanation leaves out."""
    differing = sum(row["mark"] != "=" for row in rows)
    return {"mark": "…", "got": f"… {counted(len(rows), 'more row')} "
                                f"({differing} differing) …", "expected": "", "more": len(rows)}


def _shown_input(lines: list[Line], sides: Sides, differing: set[int]) -> list[Json]:
    """All lines of a small case; of a large one the lines the differing rows and the
    leaves name, with their parents: at most ``ROWS_SHOWN``, the rest counted."""
    if len(lines) <= SHOWN_WHOLE:
        chosen = {line.number for line in lines}
    else:
        named: set[str] = set()
        for uuid in [*sides.got[-1:], *sides.expected[-1:],
                     *set(sides.got).symmetric_difference(sides.expected)]:
            named.add(uuid)
            line = sides.line_of(uuid)
            if line is not None and line.parent:
                named.add(line.parent)
        chosen = {n for n in (sides.number(u) for u in named) if n is not None} | differing
    by_number = {line.number: line for line in lines}
    out = []
    for number in sorted(chosen):
        line = by_number.get(number)
        if line is None:
            continue
        parent = sides.number(line.parent) if line.parent else None
        out.append({"line": number, "text": line.shown()
                    + (f" (parent: line {parent})" if parent is not None else
                       " (parent: not in the file)" if line.parent else "")})
    if len(out) <= ROWS_SHOWN:
        return out
    more = len(out) - ROWS_SHOWN + 1
    return [*out[:ROWS_SHOWN - 1], {"line": out[ROWS_SHOWN - 1]["line"], "more": more,
                                    "text": f"… {counted(more, 'more line')} that matter …"}]


def scope_of(target: str) -> str | None:
    """The contract scope a target label reads the profile in (``agent-sdk@0.3.332
    file-order``), when it is one of rows rather than the chain."""
    words = target.split(" ")
    return words[-1] if len(words) > 1 and words[-1] in ROW_SCOPES else None


def who_for(target: str) -> str:
    """How a sentence names the side a reader is compared with: a row scope's answer is
    the contract's, built from the rows the profile reads, not what that reader returns."""
    if target == "intended":
        return "the intended chain"
    name = target.removeprefix("recorded:").split(" ", 1)[0]
    scope = scope_of(target)
    if scope is not None:
        return f"the {scope} answer (the rows {name} reads, {ROW_SCOPES[scope]})"
    return f"the real reader ({name})"


def explain(data: bytes, got: Outcome, expected: Outcome | None,
            difference: Mapping[str, Any] | None, *, target: str, profile: str = "sdk",
            tags: Iterable[str] = (), message: str = "", causes: Iterable[str] = (),
            options: Mapping[str, Any] | None = None,
            leads: Sequence[tuple[str, str, Any]] = (), merged: bool = False,
            loose: bool = False) -> Json:
    """The explanation of one failing comparison (JSON, stored in the report's case line).

    ``message`` is the verdict's own words, the sentence when the answers themselves agree
    (a skipped case that now passes); ``causes`` the verdict's causes left after the skip
    list, whose behaviour leads (a known lost row beside a new extra row names the extra);
    ``options`` the case's reader options (``include_system_messages``, ``limit``,
    ``offset``), so the diagnostics are those of the page the readers were asked for;
    ``leads`` the verdict's words for each cause its message does not tell (an invariant
    that outranks the rows its message names leads the explanation as it leads the verdict);
    ``merged`` when the reader declares prompts on adjacent lines shown as one, ``loose``
    when its contract compares no content (a reader without uuids is paired as the judge
    pairs it, ``contracts.pairing``).
    """
    chosen = options or {}
    causes = tuple(causes)
    diagnostics = _diagnostics(data, profile, (
        bool(chosen.get("include_system_messages")), chosen.get("limit"),
        int(chosen.get("offset") or 0)))
    who = who_for(target)
    lines = read_lines(data, diagnostics)
    got_uuids, expected_uuids = _uuids(got), _uuids(expected)
    sides = Sides(got_uuids or [], expected_uuids or [], lines, diagnostics, frozenset(tags), who,
                  tuple(data.split(b"\n")))
    clauses: list[tuple[str, str]] = []
    lead: int | None = None  # the step of the pairing the explanation leads with
    steps = (_position_steps(got, expected, sides, merged, loose,
                             scope_of(target) == "file-order")
             if isinstance(got, Answered) and isinstance(expected, Answered) else None)
    early = _outcome_clause(got, expected, who, diagnostics)
    if early is not None:
        clauses.append(early)
    elif difference is not None and difference.get("path") == "/leaf":
        leaves = Sides(*([str(difference[k])] if isinstance(difference.get(k), str) else []
                         for k in ("left", "right")), lines, diagnostics, frozenset(tags), who,
                       tuple(data.split(b"\n")))
        clauses.append(_cycle_clause(leaves, leaf_only=True) or _leaf_clause(difference, sides))
    elif got_uuids is not None and expected_uuids is not None and got_uuids != expected_uuids:
        scope = scope_of(target)
        clauses = _clauses(sides) if scope is None else _scope_clauses(sides, scope)
        limit, offset = chosen.get("limit"), int(chosen.get("offset") or 0)
        paged = (_page_clause(sides, _full_chain(data, profile, bool(
            chosen.get("include_system_messages"))), limit, offset)
            if scope is None and (limit or offset) else None)
        if paged is not None:
            clauses = [paged, *(c for c in clauses if c[0] not in _PAGE_DECIDES)]
        clauses.sort(key=lambda clause: _rank(clause, causes))
    elif (isinstance(got, Answered) and isinstance(expected, Answered) and steps is not None
          and (found := _position_clause(got, expected, sides, causes, steps, len(
              _run_heads(expected.messages, sides) if merged else expected.messages)))
          is not None):
        behaviour, sentence = found[0]
        if steps.approximate:
            sentence = f"{sentence}; {approximately(len(got.messages), len(expected.messages))}"
        clauses.append((behaviour, sentence))
        lead = found[1]
    elif difference is not None and _broken(difference):
        clauses.append((str(difference["left"]), sides.lined(message) if message else
                        f"yours breaks {difference['left']}"))
    elif difference is not None:
        clauses.append(_field_clause(difference, sides,
                                     (_message_count(got), _message_count(expected))))
    else:
        words = message or f"the answers differ from {who}'s"
        token = ("skip-now-passes" if words.startswith(NOW_PASSES)
                 else "-".join(words.lower().split()[:6]))
        clauses.append((token, words))
    first = next(iter(causes), None)
    words = next((w for cause, w, _ in leads if cause == first), None)
    if first is not None and first.startswith("invariant:") and words is not None and (
            clauses[0][0] != first):
        clauses.insert(0, (first, sides.lined(words)))  # the header's cause leads
    field_at = None
    if clauses[0][0] == "field" and difference is not None:
        parts = str(difference.get("path", "")).strip("/").split("/")
        field_at = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
    mine = got.messages if isinstance(got, Answered) else ()
    theirs = expected.messages if isinstance(expected, Answered) else ()
    rows = aligned(mine, theirs, field_at, _run_heads(theirs, sides) if merged else None, steps,
                   lead)
    said = [clip(text, SENTENCE_KEPT) for _, text in clauses]  # a reader's values in words
    behaviour, sentence = clip(clauses[0][0], LABEL_WIDTH), said[0]
    seen = {sentence}
    also = [text for text in said[1:] if not (text in seen or seen.add(text))][:2]
    return _strict({
        "behaviour": behaviour,
        "title": TITLES.get(behaviour, sentence),
        "sentence": sentence,
        "also": also,
        "input": _shown_input(lines, sides, _row_lines(rows, mine, theirs, sides)),
        "input_lines": len(lines),
        "rows": [_written(row, mine, theirs, sides) for row in _shown_rows(rows)],
        "profile": profile,
    })


def _strict(value: Any) -> Any:
    """Every string made valid UTF-8 (a lone surrogate from a lenient parse shown escaped)."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {key: _strict(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_strict(item) for item in value]
    return value


def profile_for(target: str, default: str) -> str:
    """The reference profile whose diagnostics explain a comparison with ``target``: the
    recorded profile, the profile an oracle is recorded under, else the run's."""
    from rechain.conformance.differential import RECORDED_PROFILES
    from rechain.errors import UsageError
    from rechain.reference import get_profile

    name = target.removeprefix("recorded:").split(" ", 1)[0]
    for candidate in (name, RECORDED_PROFILES.get(name.split("@", 1)[0], ""), default):
        try:
            return get_profile(candidate).name
        except UsageError:
            continue
    return "sdk"


@lru_cache(maxsize=8)
def _full_chain(data: bytes, profile: str, system: bool) -> list[str]:
    """The uuids of the chain the profile reads, unpaged: what a page is cut from."""
    from rechain.reference import Options, rebuild

    try:
        found = rebuild(data, profile, Options(include_system_messages=system)).messages
        return [str(m.get("uuid")) for m in found]
    except Exception:  # the reference never raises on bytes; an explanation must not either
        return []


@lru_cache(maxsize=8)
def _diagnostics(data: bytes, profile: str,
                 options: tuple[bool, int | None, int] = (False, None, 0)) -> list[Json]:
    """The reference's diagnostics for the bytes read with the case's options (system rows,
    limit, offset): a page's rows left out are ``paged-out``, not a leaf choice (a case's
    comparisons share one rebuild)."""
    from rechain.reference import Options, rebuild

    system, limit, offset = options
    try:
        chosen = Options(include_system_messages=system, limit=limit, offset=offset)
        return [d.to_json() for d in rebuild(data, profile, chosen).diagnostics]
    except Exception:  # the reference never raises on bytes; an explanation must not either
        return []


# --- as text ------------------------------------------------------------------------------


def lines_that_matter(shown: Sequence[Mapping[str, Any]]) -> int:
    """How many input lines an explanation's ``input`` stands for (a last ``…`` line counts
    those it leaves out)."""
    return sum(int(item.get("more", 1)) for item in shown)


def as_text(explanation: Mapping[str, Any], *, got: str = "yours",
            expected: str = "expected", width: int = 0) -> list[str]:
    """The explanation as plain lines (terminal, Markdown code block, JUnit failure text)."""
    title, sentence = str(explanation["title"]), str(explanation["sentence"])
    out = [f"why: {sentence}" if sentence.startswith(title) else f"why: {title}: {sentence}"]
    out += [f"     also: {text}" for text in explanation.get("also", ())]
    shown = explanation.get("input", [])
    total = explanation.get("input_lines", len(shown))
    matter = lines_that_matter(shown)
    which = "all" if matter == total else f"{matter} that matter"
    out.append(f"input ({counted(total, 'line')}, {which}):")
    out += [f"  {item['text']}" for item in shown]
    rows = explanation.get("rows", [])
    if rows:
        left = max([len(expected), *(len(r.get("expected", "")) for r in rows)])
        left = min(left, width or left)
        out.append(f"    {expected.ljust(left)} | {got}")
        for row in rows:
            pointer = ">" if row.get("first") else " "
            theirs = str(row.get("expected", ""))
            if width and len(theirs) > left:
                theirs = theirs[: left - 1] + "…"
            out.append(f"  {pointer}{row['mark']} {theirs.ljust(left)} | {row.get('got', '')}")
    return out
