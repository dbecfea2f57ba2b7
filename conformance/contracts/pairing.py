"""Rows of a reader that keeps no uuid paired with the rows of the file they stand for.

Such a reader's rows can only be told apart by role and content. Pairing them by role
alone goes wrong at the first row it drops, merges or adds: every later row meets the
wrong row of the file and looks like a field difference. So the two sequences are
aligned as an edit script that maximises the content they share: a row of the reader
pairs with a row of the file of the same role only when it shows some of that row's
texts, tool calls or results (a row with none pairs on its role, with less weight). Between
two such pairs, rows left over on both sides pair in place when they are as many and of
the same roles (the reader shows the row, with other content: a field difference);
otherwise they are lost or extra. A row the reader left out whose every fragment is shown
inside the reader's row beside it was merged into that row; one shown whole by a row the
reader adds elsewhere was moved there (the order differs, nothing is lost).

A row the file writes on several lines with one uuid (the profile reads it once) is
aligned at each of its other lines too, where a reader that shows every line shows it
again: a reader row there, of its role, showing some of that line (its texts, or the
command of a call: ``evidence``, never a role alone) is the row again (``copy``), told as
a reader with uuids is told it shows a uuid twice; without the line's words a row there
is an added row, as a row made up or read from a line without a uuid is.

Past a million cells of the alignment table the rows are aligned within a band around
its diagonal (past four million, greedily): a reader that shows the file's rows in order
still pairs in place, and a failure found on such a pairing says it is approximate
(``Script.approximate``).

Content is compared as the ``text-equivalent`` contract compares it (``Shown.holds``):
a fragment is shown when its words appear in the row's text or its JSON, so the judge's
field check and the pairing agree on what a row shows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import orjson

#: cells of the alignment table (reader rows by file rows, left between the common ends);
#: beyond it the table is a band around the diagonal (``BAND`` rows either side at least)
TABLE_CELLS = 1_000_000
#: the least half-width of the band: how far from the diagonal a pair may lie
BAND = 64
#: cells of the band past which the middle is paired greedily, each reader row with the
#: next row it shows (linear time for answers of tens of thousands of rows)
BAND_CELLS = 4 * TABLE_CELLS
#: how far ahead of the last pair the greedy pairing looks for a reader row's file row
LOOKAHEAD = 64
#: the weight of a row of the file with nothing to show (no text, call or result):
#: below one whose content is shown, so it never takes such a row's place
EMPTY = 0.5
#: the weight of a row of the same role with nothing in common, for a reader whose contract
#: ignores content (it may show a row in words of its own): content still decides first
LOOSE = 0.25

Op = Literal["pair", "lost", "extra", "merged", "moved", "copy"]


class Script(list["Step"]):
    """An edit script; ``approximate`` when the rows were too many for the whole alignment
    table (a band of it, or the greedy pairing): a failure found on it is stated as such,
    since the best alignment may pair rows this one does not."""

    approximate: bool = False


def approximately(got: int, expected: int) -> str:
    """What a failure found on an approximate pairing says of it."""
    return (f"rows paired approximately: {got} of the reader's by {expected} of the file "
            "are past the whole alignment table, so a row told lost or added may be paired "
            "by a better alignment")


@dataclass(frozen=True, slots=True)
class Step:
    """One step of the edit script: ``pair`` (``got`` shows ``expected``), ``lost`` (no row
    of the reader shows ``expected``), ``extra`` (``got`` stands for no row of the file),
    ``merged`` (``expected`` is shown inside ``got``, which is paired with another row),
    ``moved`` (``got`` shows ``expected`` whole, out of the file's order), ``copy``
    (``got`` shows ``expected`` again, a row the file writes twice, beside the reader's
    row of it)."""

    op: Op
    got: int | None
    expected: int | None


class Shown:
    """What one row of a reader shows, for finding fragments in it (computed once)."""

    __slots__ = ("blob", "plain")

    def __init__(self, message: Mapping[str, Any]) -> None:
        self.blob = " ".join(_dumped(message).split())
        self.plain = " ".join(str(message.get("text", "")).split())

    def holds(self, fragment: str) -> bool:
        """Whether the row shows ``fragment``: a text's words, a tool call's or result's id."""
        kind, _, ident = fragment.partition(":")
        needle = ident if kind in ("tool_use", "tool_result") and ident else fragment
        words = " ".join(needle.split())
        escaped = " ".join(_dumped(needle)[1:-1].split())
        return words in self.plain or words in self.blob or escaped in self.blob

    def missing(self, fragments: Sequence[str]) -> str | None:
        """The first of ``fragments`` the row does not show, else None."""
        return next((f for f in fragments if not self.holds(f)), None)


def _dumped(value: Any) -> str:
    """``value`` as compact JSON text. A reader's answer may hold what orjson will not write
    (an integer past 64 bits, a lone surrogate, nesting past 254): the standard encoder
    writes those; nesting past Python's own limit leaves no text to find anything in."""
    try:
        return orjson.dumps(value, default=str).decode("utf-8", "replace")
    except TypeError:  # orjson.JSONEncodeError is one
        pass
    try:
        return json.dumps(value, default=str, ensure_ascii=False, separators=(",", ":"))
    except RecursionError:
        return ""


def role_of(message: Mapping[str, Any]) -> str:
    """A row's role as the judge compares it (an attachment is shown as a user row)."""
    kind = str(message.get("type", message.get("role")))
    return "user" if kind == "attachment" else kind


#: a line that writes a row of the file again: (the row, the row it comes before, what it
#: shows, ``evidence``)
Copy = tuple[int, int, tuple[str, ...]]


def align(got: Sequence[Mapping[str, Any]], roles: Sequence[str],
          fragments: Sequence[Sequence[str]], *, loose: bool = False,
          hints: Sequence[Sequence[str]] = (), copies: Sequence[Copy] = ()) -> Script:
    """The edit script from the file's rows (``roles`` and ``fragments``, one per row) to
    the reader's rows ``got``, in order of both; ``loose`` when the reader's contract
    ignores content, so a row of the same role pairs (last) without content in common;
    ``hints`` per row, texts a reader need not show (thinking) that identify a row of no
    fragments when it does; ``copies``, the other lines that write a row the file writes
    more than once (``written_again``): a reader row in such a line's place that shows
    some of it is the row again (``copy``), and none there is nothing lost."""
    hints = [tuple(h) for h in hints] or [()] * len(roles)
    slots: dict[int, int] = {}  # an index of the extended rows -> the row it copies
    origin: list[int] = []
    ext_roles: list[str] = []
    ext_fragments: list[tuple[str, ...]] = []
    ext_hints: list[tuple[str, ...]] = []
    placed = sorted(copies, key=lambda c: c[1])
    k = 0
    for j in range(len(roles) + 1):
        while k < len(placed) and placed[k][1] <= j:
            row, _, shown = placed[k]
            slots[len(origin)] = row
            origin.append(row)
            ext_roles.append(roles[row])
            ext_fragments.append(tuple(shown))
            ext_hints.append(())
            k += 1
        if j < len(roles):
            origin.append(j)
            ext_roles.append(roles[j])
            ext_fragments.append(tuple(fragments[j]))
            ext_hints.append(hints[j])
    table = _Scores(got, ext_roles, ext_fragments, LOOSE if loose else 0.0, ext_hints,
                    frozenset(slots))
    n, m = len(got), len(ext_roles)
    head = 0
    while head < min(n, m) and table.full(head, head):
        head += 1
    tail = 0
    while tail < min(n, m) - head and table.full(n - 1 - tail, m - 1 - tail):
        tail += 1
    middle, approximate = _middle(table, head, n - tail, head, m - tail)
    pairs = ([(k, k) for k in range(head)] + middle
             + [(n - tail + k, m - tail + k) for k in range(tail)])
    steps = _steps(pairs, ext_roles, table.roles, n, m, frozenset(slots))
    if slots:
        table = _Scores(got, roles, fragments, LOOSE if loose else 0.0, hints)
        steps = _unslotted(steps, slots, origin)
    script = Script(_moved(table, _merged(table, steps)))
    script.approximate = approximate
    return script


def _unslotted(steps: list[Step], slots: Mapping[int, int], origin: Sequence[int]) -> list[
        Step]:
    """The steps over the file's own rows: a reader row paired with another line of a row
    is a ``copy`` of it, a line of it no row shows is dropped; a row the reader shows only
    in another of its lines is shown there, out of the file's order (``moved``)."""
    out: list[Step] = []
    for step in steps:
        if step.expected is not None and step.expected in slots:
            if step.op == "pair":
                out.append(Step("copy", step.got, slots[step.expected]))
            continue
        out.append(Step(step.op, step.got, None if step.expected is None
                        else origin[step.expected]))
    lost = {s.expected for s in out if s.op == "lost"}
    moved: set[int] = set()
    final: list[Step] = []
    for step in out:
        if step.op == "copy" and step.expected in lost and step.expected not in moved:
            moved.add(step.expected)
            continue
        final.append(step)
    return [Step("moved", next(s.got for s in out if s.op == "copy"
                               and s.expected == step.expected), step.expected)
            if step.op == "lost" and step.expected in moved else step for step in final]


class _Scores:
    """How much of each file row each reader row shows (0: none, or not the same role)."""

    def __init__(self, got: Sequence[Mapping[str, Any]], roles: Sequence[str],
                 fragments: Sequence[Sequence[str]], floor: float = 0.0,
                 hints: Sequence[Sequence[str]] = (), copies: frozenset[int] = frozenset()
                 ) -> None:
        self.floor = floor
        #: rows that are another line of a row: paired only on content they show
        self.copies = copies
        self.hints = [tuple(h) for h in hints] or [()] * len(roles)
        self.roles = [role_of(m) for m in got]
        self.expected = [("user" if r == "attachment" else r) for r in roles]
        self.fragments = [tuple(f) for f in fragments]
        self.got = got
        self._shown: dict[int, Shown] = {}
        self._cache: dict[tuple[int, int], float] = {}

    def shown(self, i: int) -> Shown:
        if i not in self._shown:
            self._shown[i] = Shown(self.got[i])
        return self._shown[i]

    def score(self, i: int, j: int) -> float:
        """The share of row ``j``'s fragments row ``i`` shows; ``EMPTY`` for a row with none."""
        if self.roles[i] != self.expected[j]:
            return 0.0
        key = (i, j)
        if key not in self._cache:
            wanted, hints = self.fragments[j], self.hints[j]
            if j in self.copies:
                self._cache[key] = sum(self.shown(i).holds(f) for f in wanted) / len(
                    wanted) if wanted else 0.0
            elif wanted:
                self._cache[key] = max(self.floor, sum(
                    self.shown(i).holds(f) for f in wanted) / len(wanted))
            else:  # a hint shown names the row; one not shown says nothing against it
                self._cache[key] = 1.0 if hints and self.shown(i).missing(hints) is None \
                    else EMPTY
        return self._cache[key]

    def full(self, i: int, j: int) -> bool:
        """Row ``i`` shows every fragment of row ``j``, which has some (or its hints)."""
        return bool(self.fragments[j] or self.hints[j]) and self.score(i, j) == 1.0


def _middle(table: _Scores, a0: int, a1: int, b0: int, b1: int) -> tuple[
        list[tuple[int, int]], bool]:
    """The pairs of the rows between the common ends, and whether they are approximate: the
    best alignment when the table is small enough, else the best within a band around the
    diagonal (a reader that shows the file's rows in order, as many, pairs in place as the
    whole table pairs it), else greedy."""
    n, m = a1 - a0, b1 - b0
    if n == 0 or m == 0:
        return [], False
    if n * m <= TABLE_CELLS:
        return _best(table, a0, b0, m, [(0, m)] * n), False
    width = max(TABLE_CELLS // (2 * n), BAND)
    if n * (2 * width + 1) > BAND_CELLS:
        return _greedy(table, a0, a1, b0, b1), True
    spans = [(max(0, i * m // n - width), min(m, i * m // n + width + 1)) for i in range(n)]
    return _best(table, a0, b0, m, spans), True


def _best(table: _Scores, a0: int, b0: int, m: int, spans: Sequence[tuple[int, int]]) -> list[
        tuple[int, int]]:
    """The alignment of most weight of reader rows ``a0 + i`` with file rows ``b0 + j``
    (``j < m``), each reader row paired only within its span (the whole table, or a band)."""
    n = len(spans)
    # best[i][j - lo]: the most weight pairing got[a0+i:] with expected[b0+j:] (j in
    # lo..hi of row i; past the band, none); a pair weighs one plus its score, so more
    # pairs first, then more content in common
    bounds = [*spans, (0, m)]
    best: list[list[float]] = [[] for _ in range(n)] + [[0.0] * (m + 1)]
    for i in range(n - 1, -1, -1):
        lo, hi = bounds[i]
        blo, bhi = bounds[i + 1]
        below = best[i + 1]
        row = [NONE] * (hi - lo + 1)
        row[hi - lo] = 0.0 if hi == m else NONE
        for j in range(hi - 1, lo - 1, -1):
            value = row[j + 1 - lo]
            if blo <= j <= bhi and below[j - blo] > value:
                value = below[j - blo]
            score = table.score(a0 + i, b0 + j)
            if score > 0 and blo <= j + 1 <= bhi and below[j + 1 - blo] + 1 + score > value:
                value = below[j + 1 - blo] + 1 + score
            row[j - lo] = value
        best[i] = row

    def at(i: int, j: int) -> float:
        lo, hi = bounds[i]
        return best[i][j - lo] if lo <= j <= hi else NONE

    pairs, i, j = [], 0, 0
    while i < n and j < m:  # on a tie, a file row is left out before a reader row (as
        score = table.score(a0 + i, b0 + j)  # difflib does: the reader's row meets a later one)
        if score > 0 and at(i, j) == at(i + 1, j + 1) + 1 + score:
            pairs.append((a0 + i, b0 + j))
            i, j = i + 1, j + 1
        elif at(i, j) == at(i, j + 1):
            j += 1
        else:
            i += 1
    return pairs


#: a cell past the band: no alignment goes through it
NONE = float("-inf")


def _greedy(table: _Scores, a0: int, a1: int, b0: int, b1: int) -> list[tuple[int, int]]:
    """Each reader row with the first file row ahead (within ``LOOKAHEAD``) it shows whole,
    else the first it shows anything of: linear time for answers too large for the table."""
    pairs: list[tuple[int, int]] = []
    j = b0
    for i in range(a0, a1):
        ahead = range(j, min(b1, j + LOOKAHEAD))
        found = next((k for k in ahead if table.full(i, k)), None)
        if found is None:
            found = next((k for k in ahead if table.score(i, k) > 0), None)
        if found is not None:
            pairs.append((i, found))
            j = found + 1
    return pairs


def _steps(pairs: Sequence[tuple[int, int]], roles: Sequence[str], got_roles: Sequence[str],
           n: int, m: int, optional: frozenset[int] = frozenset()) -> list[Step]:
    """The script around the content pairs: a gap of as many rows of the same roles on
    both sides pairs in place, any other gap is lost and extra rows (``optional`` rows,
    another line of a row, left out of a gap: no reader row need show them)."""
    steps: list[Step] = []
    i = j = 0
    expected = [("user" if r == "attachment" else r) for r in roles]
    for a, b in [*pairs, (n, m)]:
        mine = list(range(i, a))
        theirs = [k for k in range(j, b) if k not in optional]
        if mine and [got_roles[k] for k in mine] == [expected[k] for k in theirs]:
            steps += [Step("pair", x, y) for x, y in zip(mine, theirs, strict=True)]
        else:
            steps += [Step("lost", None, y) for y in theirs]
            steps += [Step("extra", x, None) for x in mine]
        if a < n and b < m:
            steps.append(Step("pair", a, b))
        i, j = a + 1, b + 1
    return steps


def _merged(table: _Scores, steps: list[Step]) -> list[Step]:
    """A lost row whose every fragment the reader row paired next to it shows was merged
    into that row, unless the row it is paired with holds those words itself (two rows
    saying the same: one of them is lost)."""
    out = list(steps)
    for index, step in enumerate(steps):
        if step.op != "lost" or step.expected is None:
            continue
        for near in (_pair_near(steps, index, -1), _pair_near(steps, index, 1)):
            if near is not None and table.full(near[0], step.expected) and not _echoes(
                    table.fragments[step.expected], table.fragments[near[1]]):
                out[index] = Step("merged", near[0], step.expected)
                break
    return out


def _moved(table: _Scores, steps: list[Step]) -> list[Step]:
    """A lost row shown whole by a row only the reader has (the first such, each once) is
    that row, out of order: one ``moved`` step where the file has it, no extra step."""
    taken: set[int] = set()
    out: list[Step] = []
    extra = [s.got for s in steps if s.op == "extra" and s.got is not None]
    for step in steps:
        if step.op == "lost" and step.expected is not None:
            found = next((i for i in extra if i not in taken
                          and table.full(i, step.expected)), None)
            if found is not None:
                taken.add(found)
                out.append(Step("moved", found, step.expected))
                continue
        out.append(step)
    return [s for s in out if not (s.op == "extra" and s.got in taken)]


def evidence(entry: Mapping[str, Any]) -> tuple[str, ...]:
    """What a reader showing a row in its own words may show of it: its fragments and the
    strings its tool calls take and its results hold (a viewer renders a call as its
    command, never its id)."""
    found = list(_fragments(entry))
    message = entry.get("message")
    content = message.get("content") if isinstance(message, Mapping) else None
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, Mapping):
            continue
        value = block.get("input") if block.get("type") == "tool_use" else (
            block.get("content") if block.get("type") == "tool_result" else None)
        found += [s for s in _strings(value) if s.strip()]
    return tuple(dict.fromkeys(found))


def _strings(value: Any) -> list[str]:
    """The strings in a JSON value, depth first (a call's input, a result's content)."""
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, Mapping) else value if isinstance(
        value, list) else ()
    out: list[str] = []
    stack = list(items)[::-1]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, Mapping):
            stack.extend(list(item.values())[::-1])
        elif isinstance(item, list):
            stack.extend(item[::-1])
    return out


def copies_of(rows: Iterable[Mapping[str, Any]], lines: Iterable[int],
              uuids: Iterable[str]) -> dict[str, tuple[tuple[int, tuple[str, ...]], ...]]:
    """(line, ``evidence``) of each row of ``rows`` (a profile's parsed rows, in file order,
    on ``lines``) written with one of ``uuids``, for each uuid written more than once: a
    reader that shows each line shows such a row again."""
    wanted = set(uuids)
    read = list(zip(rows, lines, strict=False))
    seen: set[str] = set()
    twice: set[str] = set()  # what each line shows is worked out for these rows only
    for row, _ in read:
        uuid = row.get("uuid")
        if isinstance(uuid, str) and uuid in wanted:
            (twice if uuid in seen else seen).add(uuid)
    found: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
    for row, line in read if twice else ():
        uuid = row.get("uuid")
        if isinstance(uuid, str) and uuid in twice:
            found.setdefault(uuid, []).append((line, evidence(row)))
    return {uuid: tuple(written) for uuid, written in found.items()}


def copies_in(data: bytes, uuids: Iterable[str]) -> dict[
        str, tuple[tuple[int, tuple[str, ...]], ...]]:
    """``copies_of`` the lines strict JSON reads in ``data``: what an explanation pairs
    with when it has the file rather than the contract's answer."""
    read = [(row, line) for line, (row, strict) in _numbered_rows(data) if strict]
    return copies_of([r for r, _ in read], [n for _, n in read], uuids)


def written_again(lines: Sequence[int], copies: Sequence[Sequence[tuple[int, Sequence[str]]]]
                  ) -> list[Copy]:
    """The ``Copy`` of each line that writes a row of the file (on ``lines``, in the
    reader's order) again, other than the line the row is read from: placed before the
    first row written after it."""
    out: list[Copy] = []
    for row, written in enumerate(copies):
        for line, shown in written:
            if line != lines[row]:
                before = next((k for k, at in enumerate(lines) if at > line), len(lines))
                out.append((row, before, tuple(shown)))
    return out


def hints(entry: Mapping[str, Any]) -> tuple[str, ...]:
    """The thinking texts of a row: a reader need not show them, but one that does shows
    which row it stands for."""
    message = entry.get("message")
    content = message.get("content") if isinstance(message, Mapping) else None
    return tuple(str(b["thinking"]) for b in content if isinstance(b, Mapping)
                 and b.get("type") == "thinking" and isinstance(b.get("thinking"), str)
                 and b["thinking"].strip()) if isinstance(content, list) else ()


def _echoes(lost: Sequence[str], paired: Sequence[str]) -> bool:
    """Every fragment of ``lost`` is words of ``paired`` already."""
    said = [" ".join(f.split()) for f in paired]
    return all(any(" ".join(f.split()) in g for g in said) for f in lost)


def _pair_near(steps: Sequence[Step], index: int, direction: int) -> tuple[int, int] | None:
    """The nearest pair (reader row, file row) before (-1) or after (1) ``index``, across
    lost rows only."""
    k = index + direction
    while 0 <= k < len(steps):
        found = steps[k]
        if found.op == "pair" and found.got is not None and found.expected is not None:
            return found.got, found.expected
        if found.op not in ("lost", "merged"):
            return None
        k += direction
    return None


def content_of(data: bytes, uuids: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """The fragments of the last row written with each of ``uuids`` in ``data``: what an
    explanation pairs with when it has the file rather than the contract's answer."""
    return {uuid: fragments for uuid, (fragments, _) in rows_content(data, uuids).items()}


def rows_content(data: bytes, uuids: Sequence[str]) -> dict[str, tuple[tuple[str, ...],
                                                                      tuple[str, ...]]]:
    """(fragments, hints) of the last row written with each of ``uuids`` in ``data``."""
    wanted = set(uuids)
    found: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
    for row, _ in _rows_of(data):  # NaN, control characters: lines JSON.parse may take
        if isinstance(row.get("uuid"), str) and row["uuid"] in wanted:
            found[row["uuid"]] = (_fragments(row), hints(row))
    return found


def shown_kind(data: bytes, message: Mapping[str, Any]) -> str:
    """``type[:first block type][+source]`` of a row only the reader shows: ``source`` is
    where in the file it comes from, a line whose role and content it shows: one without
    a uuid (``missing-uuid``), one strict JSON does not read (``unparsed``), or a later
    copy of a uuid (``duplicate``); nothing when no line, or another line, explains it."""
    role = role_of(message)
    inner = message.get("message")
    content = inner.get("content") if isinstance(inner, dict) else message.get("content")
    block = content[0].get("type") if isinstance(content, list) and content and isinstance(
        content[0], dict) else None
    kind = f"{role}{':' + str(block) if block else ''}"
    shown = Shown(message)
    flags: set[str] = set()
    seen: dict[str, int] = {}
    for row, strict in _rows_of(data):
        uuid = row.get("uuid")
        if isinstance(uuid, str):
            seen[uuid] = seen.get(uuid, 0) + 1
        wanted = _fragments(row)
        if not wanted or role_of(row) != role or shown.missing(wanted) is not None:
            continue
        flags.add("missing-uuid" if not isinstance(uuid, str) else
                  "unparsed" if not strict else f"copy:{uuid}")
    for flag in ("missing-uuid", "unparsed"):
        if flag in flags:
            return f"{kind}+{flag}"
    if any(seen.get(f.removeprefix("copy:"), 0) > 1 for f in flags):
        return f"{kind}+duplicate"
    return kind


def _fragments(row: Mapping[str, Any]) -> tuple[str, ...]:
    from rechain.conformance.contracts.answers import fragments

    return fragments(dict(row))


def _rows_of(data: bytes) -> list[tuple[dict[str, Any], bool]]:
    """Each line that is a JSON object, and whether strict JSON reads it (else Python's
    lenient reading did: NaN, control characters)."""
    return [found for _, found in _numbered_rows(data)]


def _numbered_rows(data: bytes) -> list[tuple[int, tuple[dict[str, Any], bool]]]:
    """``_rows_of`` with each line's 1-based number."""
    out = []
    for number, line in enumerate(data.split(b"\n"), start=1):
        try:
            row, strict = orjson.loads(line), True
        except orjson.JSONDecodeError:
            try:
                row, strict = json.loads(line.decode("utf-8", "replace"), strict=False), False
            except ValueError:
                continue
        if isinstance(row, dict):
            out.append((number, (row, strict)))
    return out
