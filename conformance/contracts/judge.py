"""A reader's answer judged against its contract's answer: a verdict with its causes.

Every difference that remains after the contract is applied gets a cause, the one
a report shows first: ``crash``, ``timeout``, ``raised``, ``lost-row``,
``duplicate-row``, ``wrong-branch``, ``order``, ``usage``, ``merged-row`` (a reader
without uuids shows two rows of the file as one), ``extra-row``, ``field``
(``CAUSE_ORDER``). Causes are listed most harmful first, and a verdict's words and
difference are its most harmful cause's first row, for readers with uuids and without
alike, so data loss is what a person (and the shrinker) sees before a cosmetic
difference in the same case.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from rechain.conformance.compare import MISSING, Difference, Verdict, first_difference, normalise
from rechain.conformance.contracts.answers import Answer, Row
from rechain.conformance.contracts.model import Contract
from rechain.conformance.contracts.pairing import (
    Shown,
    Step,
    align,
    approximately,
    hints,
    role_of,
    written_again,
)
from rechain.conformance.protocol import Answered, Crashed, Raised, Skipped, TimedOut

Json = dict[str, Any]
#: most harmful first: the order causes are listed (and shrunk) in
CAUSE_ORDER = ("crash", "timeout", "raised", "invariant:contained-error", "lost-row",
               "duplicate-row", "wrong-branch", "order", "invariant:parents-first",
               "invariant:sidechains-apart", "invariant:unchanged-by-invalid-line",
               "invariant:unchanged-by-formatting", "usage", "merged-row", "extra-row", "field")


def rank(cause: str) -> int:
    """Where a cause stands in ``CAUSE_ORDER`` (unknown causes last)."""
    return CAUSE_ORDER.index(cause) if cause in CAUSE_ORDER else len(CAUSE_ORDER)


def ordered(causes: Sequence[str]) -> tuple[str, ...]:
    """Causes without repeats, most harmful first."""
    return tuple(sorted(dict.fromkeys(causes), key=rank))


def kind_of(data: bytes, verdict: Verdict, got: Any, wanted: Any) -> frozenset[str]:
    """The kind of a failure, for grouping and shrinking: ``cause:<cause>``, the exception
    a reader raised (``raised:<type>``) and, when rows are lost or extra,
    ``row:<what the first such row is>`` (``user:tool_result``, ``assistant:text``,
    ``user+compact-summary``), so one cause on different rows is shrunk as different
    kinds. Empty when it did not fail."""
    if verdict.status not in ("fail", "crash", "timeout"):
        return frozenset()
    tokens = {f"cause:{verdict.cause}"}
    if isinstance(got, Raised):  # each exception its own kind (one bad line, one bad byte)
        tokens.add(f"raised:{got.type}")
    if verdict.rows:  # a reader without uuids: the rows its judge paired say which
        kinds = _paired_kinds(data, verdict, got)
        first = next((k for k in kinds if k.startswith(f"{verdict.cause}:")), None)
        if first is not None and verdict.cause in ROW_CAUSES:
            tokens.add(f"row:{first.removeprefix(f'{verdict.cause}:')}")
        return frozenset(tokens)
    odd = _odd_uuids(verdict.cause, got, wanted)[:1]
    if odd and isinstance(odd[0], str):
        tokens.add(f"row:{_row_kind(data, odd[0])}")
    return frozenset(tokens)


def odd_rows(data: bytes, verdict: Verdict, got: Any, wanted: Any) -> frozenset[str]:
    """Every row a failure is about, as ``<cause>:<row kind>`` (``lost-row:assistant:text``)
    for each of its row causes: what a skip of one kind of row must not hide (a case that
    loses a tool result and a text is not covered by a skip of the lost tool result)."""
    if verdict.status not in ("fail", "crash", "timeout"):
        return frozenset()
    if verdict.rows:
        return frozenset(_paired_kinds(data, verdict, got))
    return frozenset(f"{cause}:{_row_kind(data, uuid)}" for cause in verdict.causes
                     for uuid in _odd_uuids(cause, got, wanted) if isinstance(uuid, str))


#: the causes a kind names its first row for
ROW_CAUSES = ("lost-row", "extra-row", "duplicate-row", "merged-row")


def _paired_kinds(data: bytes, verdict: Verdict, got: Any) -> list[str]:
    """``<cause>:<row kind>`` of each row the judge of a reader without uuids could not
    pair or found different, in its order: a row of the file by its uuid, a row only the
    reader shows by its own type and first block, and where in the file it comes from."""
    from rechain.conformance.contracts.pairing import shown_kind

    messages = got.messages if isinstance(got, Answered) else ()
    return [f"{cause}:{_row_kind(data, uuid)}" if uuid is not None else
            f"{cause}:{shown_kind(data, messages[index])}"
            for cause, uuid, index in verdict.rows
            if uuid is not None or (index is not None and index < len(messages))]


def _odd_uuids(cause: str | None, got: Any, wanted: Any) -> list[Any]:
    """The rows (uuids, in order) a row cause is about: lost, extra or shown twice."""
    if cause not in ("lost-row", "extra-row", "duplicate-row") or not (
            isinstance(got, Answered) and isinstance(wanted, Answered)):
        return []
    # only a row named by a string uuid can be looked up in the file; a reader may answer
    # any JSON value there (an object is unhashable), and that must not stop the run
    mine = [u for u in (m.get("uuid") for m in got.messages) if isinstance(u, str)]
    theirs = [u for u in (m.get("uuid") for m in wanted.messages) if isinstance(u, str)]
    if cause == "lost-row":
        odd = [u for u in theirs if u not in set(mine)]
    elif cause == "extra-row":
        odd = [u for u in mine if u not in set(theirs)]
    else:
        odd = [u for u in mine if mine.count(u) > 1]
    return list(dict.fromkeys(odd))


def _row_kind(data: bytes, uuid: str) -> str:
    """``type[:first block type][+flag]`` of the last row written with ``uuid``."""
    import orjson

    from rechain.conformance.contracts.answers import row_kind

    found = "none"
    needle = uuid.encode("utf-8", "surrogatepass")  # a reader's uuid may hold lone surrogates
    for line in data.split(b"\n"):
        if needle not in line:
            continue
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(row, dict) or row.get("uuid") != uuid:
            continue
        message = row.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        block = content[0].get("type") if isinstance(content, list) and content and isinstance(
            content[0], dict) else None
        kind = row_kind(row)
        found = f"{row.get('type')}{':' + str(block) if block else ''}" + (
            f"+{kind}" if kind not in ("message", "other") else "")
    return found


def judge_contract(got: Any, want: Answer, contract: Contract) -> Verdict:
    """The verdict on ``got`` (an ``Outcome``) against the contract's answer."""
    if isinstance(got, Skipped):
        return Verdict("skip", got.message)
    if isinstance(got, Crashed):
        return Verdict("crash", got.message, causes=("crash",))
    if isinstance(got, TimedOut):
        return Verdict("timeout", f"no answer within {got.seconds:g} s", causes=("timeout",))
    if isinstance(got, Raised):
        return Verdict("fail", f"raised {got.type}: {got.message[:200]}",
                       Difference("/", f"raised {got.type}", _size(want)), ("raised",))
    assert isinstance(got, Answered)
    if contract.scope == "usage":
        return _judge_usage(got.usage or {}, want.usage)
    if contract.identity == "uuid":
        return _judge_by_uuid(got.messages, want, contract)
    return _judge_by_position(got.messages, want, contract)


def _size(want: Answer) -> str:
    return f"usage {want.usage}" if want.usage else f"{len(want.rows)} rows"


def _judge_usage(got: Mapping[str, Any], want: Mapping[str, int]) -> Verdict:
    for name, expected in want.items():
        value = got.get(name, MISSING)
        if value != expected:
            cause = ("lost-row" if isinstance(value, int) and value < expected else
                     "duplicate-row" if isinstance(value, int) else "usage")
            return Verdict("fail", f"{name}: counted {value!r}, the responses hold {expected}",
                           Difference(f"/usage/{name}", value, expected), (cause,))
    return Verdict("pass")


def _judge_by_uuid(messages: Sequence[Json], want: Answer, contract: Contract) -> Verdict:
    """Readers with uuids: rows named by uuid. The verdict leads with the first row of its
    most harmful cause, as a reader without uuids is judged (``_judge_by_position``): a
    row lost is told before a row shown twice, wherever each is."""
    got = [_ident(m.get("uuid")) for m in messages]
    expected = want.uuids
    #: per cause, the words and difference of its first row
    firsts: dict[str, tuple[str, Difference]] = {}
    counts = Counter(got)
    twice = [u for u in got if counts[u] > 1]
    if twice:
        firsts["duplicate-row"] = ("row shown twice", Difference(
            f"/messages/{got.index(twice[0]) + 1}/uuid", twice[0], MISSING))
    lost = [u for u in expected if u not in counts]
    extra = [u for u in dict.fromkeys(got) if u not in set(expected)]
    if lost and extra and contract.scope == "chain" and all(
            u in want.entries and u not in want.live and u not in want.sidechain
            for u in extra):
        firsts["wrong-branch"] = ("shows another branch", _where(got, expected))
    else:
        if lost:
            firsts["lost-row"] = (f"{len(lost)} row(s) in scope missing, first on line "
                                  f"{_line(want, lost[0])}", _where(got, expected))
        if extra:
            firsts["extra-row"] = (f"{len(extra)} row(s) not in scope shown",
                                   _where(got, expected))
    if not firsts and _out_of_order(got, want, contract):
        firsts["order"] = ("rows in another order", _where(got, expected))
    if contract.strictness != "uuids":
        by_uuid = {_ident(m.get("uuid")): (i, m) for i, m in enumerate(messages)}
        for row in want.rows:
            if row.uuid not in by_uuid:
                continue
            index, message = by_uuid[row.uuid]
            found = _row_difference(index, message, row, want, contract)
            if found is not None:
                firsts["field"] = ("a shown row differs", found)
                break
    if not firsts:
        return Verdict("pass")
    causes = ordered(list(firsts))
    words, difference = firsts[causes[0]]
    return Verdict("fail", words, difference, causes,
                   leads=tuple((c, *firsts[c]) for c in causes[1:]))


def _ident(uuid: Any) -> str:
    """A shown row's uuid as a key (a reader may echo a non-string uuid it read)."""
    return uuid if isinstance(uuid, str) else repr(uuid)


def _line(want: Answer, uuid: str) -> int:
    return next((row.line for row in want.rows if row.uuid == uuid), 0)


def _where(got: Sequence[Any], expected: Sequence[str]) -> Difference:
    at = next((i for i, (a, b) in enumerate(zip(got, expected, strict=False)) if a != b),
              min(len(got), len(expected)))
    return Difference(f"/messages/{at}/uuid", got[at] if at < len(got) else MISSING,
                      expected[at] if at < len(expected) else MISSING)


def _out_of_order(got: Sequence[Any], want: Answer, contract: Contract) -> bool:
    """Same rows, but not in the order the scope asks (archive: only parents first)."""
    if contract.scope != "archive":
        return list(dict.fromkeys(got)) != want.uuids
    position = {u: i for i, u in enumerate(got)}
    return any(row.parent is not None and row.parent in position
               and position[row.parent] > position[row.uuid]
               and _acyclic(row, want) for row in want.rows)


def _acyclic(row: Row, want: Answer) -> bool:
    parents = {r.uuid: r.parent for r in want.rows}
    seen: set[str] = set()
    current = row.parent
    while current is not None and current not in seen:
        if current == row.uuid:
            return False
        seen.add(current)
        current = parents.get(current)
    return True


def _row_difference(index: int, message: Json, row: Row, want: Answer,
                    contract: Contract) -> Difference | None:
    kind = message.get("type", message.get("role"))
    if kind != row.role and not (row.role == "attachment" and kind == "user"):
        return Difference(f"/messages/{index}/type", kind, row.role)
    if contract.strictness == "types" or contract.content == "ignored":
        return None
    if contract.content == "text-equivalent":
        return _fragments_missing(index, message, row)
    entry = want.entries.get(row.uuid, {})
    mine = {k: v for k, v in message.items() if k != "line" and (
        contract.fields is None or k in contract.fields)}
    theirs = want.presented.get(row.uuid) or {
        "type": entry.get("type"), "uuid": row.uuid, "message": entry.get("message")}
    shared = {k: theirs[k] for k in theirs if k in mine}
    return first_difference(normalise({k: mine[k] for k in shared}), normalise(shared),
                            f"/messages/{index}")


def _fragments_missing(index: int, message: Json, row: Row) -> Difference | None:
    """The first text, tool call or tool result of ``row`` that the shown row lacks."""
    lacking = Shown(message).missing(row.fragments)
    return None if lacking is None else Difference(f"/messages/{index}/content", MISSING,
                                                   lacking[:200])


def _judge_by_position(messages: Sequence[Json], want: Answer, contract: Contract) -> Verdict:
    """Readers without uuids: rows paired by role and content (``pairing.align``), so a row
    dropped, merged or added is that, and only rows paired with the row they show can
    differ in their fields."""
    rows = merged_prompts(want.rows) if contract.prompts == "merged" else want.rows
    steps = align(messages, [row.role for row in rows], [row.fragments for row in rows],
                  loose=contract.content == "ignored" or contract.strictness != "messages",
                  hints=[hints(want.entries.get(row.uuid, {})) for row in rows],
                  copies=written_again([row.line for row in rows], [
                      want.copies.get(row.uuid, ()) for row in rows])
                  if contract.scope == "file-order" else ())
    odd: list[tuple[str, str | None, int | None]] = []
    #: per cause, the words and difference of its first row (the script's order)
    firsts: dict[str, tuple[str, Difference]] = {}
    for step in steps:
        if step.op == "pair":
            continue
        cause = STEP_CAUSES[step.op]
        odd.append((cause, None if step.expected is None else rows[step.expected].uuid,
                    step.got))
        if cause not in firsts:
            firsts[cause] = _step_difference(step, messages, rows)
    if contract.strictness == "messages" and contract.content == "text-equivalent":
        for step in steps:
            if step.op != "pair" or step.got is None or step.expected is None:
                continue
            lacking = Shown(messages[step.got]).missing(rows[step.expected].fragments)
            if lacking is not None:
                odd.append(("field", rows[step.expected].uuid, step.got))
                firsts.setdefault("field", ("a shown row lacks a fragment", Difference(
                    f"/messages/{step.got}/content", MISSING, lacking[:200])))
    if not firsts:
        return Verdict("pass")
    # the verdict leads with the most harmful cause's first row, wherever the script has
    # it: a row lost further down comes before a row added above it
    causes = ordered(list(firsts))
    if steps.approximate:  # a correct reader pairs in place; a failure says it may be off
        note = f" ({approximately(len(messages), len(want.rows))})"
        firsts = {c: (f"{said}{note}", where) for c, (said, where) in firsts.items()}
    words, difference = firsts[causes[0]]
    return Verdict("fail", words, difference, causes, tuple(odd),
                   tuple((c, *firsts[c]) for c in causes[1:]))


#: what each step of the pairing that is no pair makes of a case
STEP_CAUSES = {"lost": "lost-row", "extra": "extra-row", "merged": "merged-row",
               "moved": "order", "copy": "duplicate-row"}


def _step_difference(step: Step, messages: Sequence[Json], rows: Sequence[Row]) -> tuple[
        str, Difference]:
    """The verdict's words and difference for the first row the pairing could not pair."""
    if step.op == "extra" and step.got is not None:
        return (f"a row not in scope shown at position {step.got}", Difference(
            f"/messages/{step.got}/type", role_of(messages[step.got]), MISSING))
    assert step.expected is not None
    row = rows[step.expected]
    if step.op == "moved" and step.got is not None:
        return (f"the row on line {row.line} shown at position {step.got}, out of order",
                Difference(f"/messages/{step.got}", f"line {row.line}", f"position "
                           f"{step.expected}"))
    if step.op == "copy" and step.got is not None:
        return (f"the row on line {row.line} shown twice, again at position {step.got}",
                Difference(f"/messages/{step.got}", "copy", f"line {row.line}"))
    if step.op == "merged" and step.got is not None:
        return (f"the row on line {row.line} shown inside the row at position {step.got}",
                Difference(f"/messages/{step.got}", "merged", f"line {row.line}"))
    return (f"a row in scope missing: line {row.line}", Difference(
        f"/messages/{step.expected}/type", MISSING, row.role))


def merged_prompts(rows: Sequence[Row]) -> tuple[Row, ...]:
    """Prompt rows written on adjacent lines as one row holding all their fragments (a
    prompt: a user row that is not only tool results), for readers that show turns."""
    out: list[Row] = []
    for row in rows:
        last = out[-1] if out else None
        if last is not None and _prompt(last) and _prompt(row) and row.line == last.line + 1:
            out[-1] = replace(last, line=row.line, fragments=last.fragments + row.fragments)
        else:
            out.append(row)
    return tuple(out)


def _prompt(row: Row) -> bool:
    return row.role in ("user", "attachment") and not (
        row.fragments and all(f.startswith("tool_result:") for f in row.fragments))
