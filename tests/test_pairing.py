"""Rows without uuids paired by role and content: a dropped, merged or added row is that,
and only a row paired with the row it shows can differ in its fields."""

from __future__ import annotations

from typing import Any

from rechain.conformance.contracts import Contract, answer, judge_contract
from rechain.conformance.contracts.judge import kind_of, odd_rows
from rechain.conformance.contracts.pairing import Step, align
from rechain.conformance.protocol import Answered
from rechain.strategies import rows as writer

U = "00000000-0000-4000-8000-{:012d}"


def said(role: str, *texts: str) -> dict[str, Any]:
    """A reader's row without uuid, as claude-code-transcripts answers it."""
    return {"type": role, "message": {"role": role,
                                      "content": [{"type": "text", "text": t} for t in texts]}}


def script(got: list[dict[str, Any]], file: list[tuple[str, str]]) -> list[tuple[str, Any, Any]]:
    steps = align(got, [role for role, _ in file], [(text,) if text else () for _, text in file])
    return [(s.op, s.got, s.expected) for s in steps]


FILE = [("user", "first prompt"), ("assistant", "answer one"), ("assistant", "answer two"),
        ("user", "second prompt"), ("assistant", "answer three")]


def test_the_same_rows_pair_one_by_one() -> None:
    got = [said(role, text) for role, text in FILE]
    assert script(got, FILE) == [("pair", k, k) for k in range(5)]


def test_a_dropped_row_among_rows_of_the_same_role_is_lost_and_the_rest_pair() -> None:
    got = [said(role, text) for role, text in FILE]
    del got[1]  # "answer one": by role alone, "answer two" would pair with it
    assert script(got, FILE) == [("pair", 0, 0), ("lost", None, 1), ("pair", 1, 2),
                                 ("pair", 2, 3), ("pair", 3, 4)]


def test_an_inserted_row_is_extra_and_the_rest_pair() -> None:
    got = [said(role, text) for role, text in FILE]
    got.insert(2, said("assistant", "something else"))
    assert script(got, FILE) == [("pair", 0, 0), ("pair", 1, 1), ("extra", 2, None),
                                 ("pair", 3, 2), ("pair", 4, 3), ("pair", 5, 4)]


def test_two_rows_shown_as_one_are_merged() -> None:
    got = [said("user", "first prompt"), said("assistant", "answer one", "answer two"),
           said("user", "second prompt"), said("assistant", "answer three")]
    steps = script(got, FILE)
    assert [op for op, _, _ in steps] == ["pair", "pair", "merged", "pair", "pair"]
    assert steps[2] == ("merged", 1, 2)  # shown inside the reader's second row


def test_a_row_shown_out_of_the_files_order_is_moved_not_lost_and_added() -> None:
    got = [said(role, text) for role, text in FILE]
    got.append(got.pop(3))  # "second prompt" shown last
    assert script(got, FILE) == [("pair", 0, 0), ("pair", 1, 1), ("pair", 2, 2),
                                 ("moved", 4, 3), ("pair", 3, 4)]


def test_a_thinking_row_a_reader_shows_is_known_by_its_thinking() -> None:
    """Thinking is no fragment (a reader need not show it), but a reader that shows it
    shows which row it is: here a result shown after it is out of order, nothing is lost."""
    got = [said("user", "go"), said("assistant", "thought"), {"type": "user",
                                                               "text": "out", "id": "t1"}]
    steps = align(got, ["user", "user", "assistant"], [("go",), ("tool_result:t1",), ()],
                  hints=[(), (), ("thought",)])
    assert [(s.op, s.got, s.expected) for s in steps] == [
        ("pair", 0, 0), ("moved", 2, 1), ("pair", 1, 2)]
    assert [s.op for s in align(got[:2], ["user", "assistant"], [("go",), ()],
                                hints=[(), ("other",)])] == ["pair", "pair"]


def test_a_row_in_place_with_other_content_pairs_there() -> None:
    got = [said(role, text) for role, text in FILE]
    got[2] = said("assistant", "a truncated answ")
    assert script(got, FILE) == [("pair", k, k) for k in range(5)]


def test_a_dropped_row_and_an_added_one_of_other_content_are_not_paired() -> None:
    got = [said(role, text) for role, text in FILE]
    got[2:3] = [said("assistant", "x"), said("assistant", "y")]
    assert script(got, FILE) == [("pair", 0, 0), ("pair", 1, 1), ("lost", None, 2),
                                 ("extra", 2, None), ("extra", 3, None), ("pair", 4, 3),
                                 ("pair", 5, 4)]


def test_a_row_with_nothing_to_show_does_not_take_a_shown_rows_place() -> None:
    file = [("assistant", ""), ("assistant", "text")]
    assert script([said("assistant", "text")], file) == [("lost", None, 0), ("pair", 0, 1)]


def test_identical_rows_in_a_row_pair_in_order() -> None:
    file = [("user", "ok"), ("user", "ok"), ("user", "ok")]
    got = [said("user", "ok"), said("user", "ok")]
    # the third is lost, not merged into the second: that row says "ok" itself
    assert script(got, file) == [("pair", 0, 0), ("pair", 1, 1), ("lost", None, 2)]
    got = [said("assistant", "ok"), said("assistant", "ok")]
    assert script(got, file) == [("lost", None, 0), ("lost", None, 1), ("lost", None, 2),
                                 ("extra", 0, None), ("extra", 1, None)]


def test_a_large_answer_is_paired_in_a_band_then_greedily_and_says_it_is_approximate(
        monkeypatch: Any) -> None:
    from rechain.conformance.contracts import pairing

    file = [("user" if k % 2 else "assistant", f"row {k}") for k in range(600)]
    got = [said(role, text) for role, text in file]
    got[1] = said(file[1][0], "a row of its own")  # the ends differ: the whole middle is
    got[-2] = said(file[-2][0], "another of its own")  # left to the table
    del got[300]
    roles, fragments = [r for r, _ in file], [(t,) for _, t in file]
    whole = align(got, roles, fragments)
    assert not whole.approximate
    monkeypatch.setattr(pairing, "TABLE_CELLS", 10)  # a band of the table the gap needs
    banded = align(got, roles, fragments)
    assert banded == whole and banded.approximate
    monkeypatch.setattr(pairing, "BAND_CELLS", 10)  # and no band: the greedy pairing
    steps = align(got, roles, fragments)
    assert Step("lost", None, 300) in whole
    assert Step("lost", None, 300) in steps and steps.approximate
    assert sum(s.op == "pair" for s in steps) >= 590


ROWS = 3000  # each side: 9 million cells, past the whole alignment table


def _large(roles: list[str], texts: list[str]) -> bytes:
    return b"".join(line(n, roles[n - 1], n - 1 or None, texts[n - 1])
                    for n in range(1, len(roles) + 1))


def test_a_correct_reader_passes_on_rows_too_many_for_the_whole_table() -> None:
    """A reader whose contract ignores content shows every row in its own words, in order:
    it passes however large the file. Greedily, its first answer ('ok, go on') showed all
    of a later row ('ok') and took it, and every row between was lost."""
    roles = ["user" if k % 2 == 0 else "assistant" for k in range(ROWS)]
    texts = ["ok" if k == 11 else f"row {k}" for k in range(ROWS)]
    data = _large(roles, texts)
    terms = Contract("r", "1", scope="file-order", identity="position+role",
                     content="ignored")
    words = {"user": "you asked", "assistant": "ok, go on"}
    got = Answered(tuple(said(role, words[role]) for role in roles))
    assert judge_contract(got, answer(data, terms), terms).status == "pass"
    del roles[1]  # one answer left out: a failure, found on an approximate pairing
    got = Answered(tuple(said(role, words[role]) for role in roles))
    assert judge_contract(got, answer(data, terms), terms).status == "fail"


def test_a_failure_found_on_an_approximate_pairing_says_so() -> None:
    from rechain.conformance.explain import explain

    roles = ["user" if k % 2 == 0 else "assistant" for k in range(ROWS)]
    texts = [f"row {k}" for k in range(ROWS)]
    data = _large(roles, texts)
    terms = Contract("r", "1", scope="file-order", identity="position+role",
                     content="text-equivalent")
    rows = [said(role, text) for role, text in zip(roles, texts, strict=True)]
    rows[1] = said("assistant", "a row of its own")  # the ends differ: no common head
    rows[-2] = said("assistant", "another of its own")  # or tail to trim the table by
    del rows[1500]
    got = Answered(tuple(rows))
    verdict = judge_contract(got, answer(data, terms), terms)
    assert verdict.causes[0] == "lost-row"
    said_of = f"rows paired approximately: {ROWS - 1} of the reader's by {ROWS} of the file"
    assert said_of in verdict.message
    expected = Answered(tuple({"uuid": U.format(n), "type": role, "line": n}
                              for n, role in enumerate(roles, start=1)))
    assert verdict.difference is not None
    why = explain(data, got, expected, verdict.difference.to_json(),
                  target="agent-sdk@0.3.332 file-order", message=verdict.message,
                  causes=verdict.causes)
    assert why["behaviour"] == "lost-row" and said_of in why["sentence"]
    small = [said(role, text) for role, text in zip(roles[:40], texts[:40], strict=True)]
    del small[20]  # the whole table: nothing to say of the pairing
    verdict = judge_contract(Answered(tuple(small)), answer(_large(roles[:40], texts[:40]),
                                                            terms), terms)
    assert verdict.causes == ("lost-row",) and "approximately" not in verdict.message


def line(n: int, role: str, parent: int | None, text: str) -> bytes:
    return writer.line({"type": role, "uuid": U.format(n),
                        "parentUuid": U.format(parent) if parent else None, "sessionId": "s",
                        "timestamp": f"2026-01-01T00:00:{n:02d}.000Z",
                        "message": {"role": role, "content": [{"type": "text", "text": text}]}})


def test_the_judge_names_a_dropped_row_lost_and_no_field_after_it() -> None:
    data = b"".join(line(n, role, n - 1 or None, text)
                    for n, (role, text) in enumerate(FILE, start=1))
    terms = Contract("r", "1", scope="file-order", identity="position+role",
                     content="text-equivalent")
    want = answer(data, terms)
    got = [said(role, text) for role, text in FILE]
    assert judge_contract(Answered(tuple(got)), want, terms).status == "pass"
    del got[1]
    verdict = judge_contract(Answered(tuple(got)), want, terms)
    assert verdict.causes == ("lost-row",)
    # the row it lost is named by the file's row, not by the first row of the file
    assert odd_rows(data, verdict, Answered(tuple(got)), None) == {"lost-row:assistant:text"}
    assert kind_of(data, verdict, Answered(tuple(got)), None) == {
        "cause:lost-row", "row:assistant:text"}
    got = [said("user", "first prompt"), said("assistant", "answer one", "answer two"),
           said("user", "second prompt"), said("assistant", "answer three")]
    assert judge_contract(Answered(tuple(got)), answer(data, terms), terms).causes == (
        "merged-row",)
    got = [said(role, text) for role, text in FILE]
    got.append(got.pop(3))
    moved = judge_contract(Answered(tuple(got)), answer(data, terms), terms)
    assert moved.causes == ("order",)
    assert odd_rows(data, moved, Answered(tuple(got)), None) == {"order:user:text"}
    got = [said(role, text) for role, text in FILE]
    got[4] = said("assistant", "answer 3")
    verdict = judge_contract(Answered(tuple(got)), answer(data, terms), terms)
    assert verdict.causes == ("field",)
    assert verdict.difference is not None and verdict.difference.right == "answer three"


def test_the_explanation_names_the_files_row_a_reader_without_uuids_lost_or_merged() -> None:
    from rechain.conformance.explain import explain

    data = b"".join(line(n, role, n - 1 or None, text)
                    for n, (role, text) in enumerate(FILE, start=1))
    expected = Answered(tuple({"uuid": U.format(n), "type": role, "line": n}
                              for n, (role, _) in enumerate(FILE, start=1)))
    got = [said(role, text) for role, text in FILE]
    del got[1]
    lost = explain(data, Answered(tuple(got)), expected, None,
                   target="agent-sdk@0.3.332 file-order", causes=("lost-row",))
    assert lost["behaviour"] == "lost-row"
    assert lost["sentence"].startswith("message 2, line 2 (assistant, text)")
    assert [row["mark"] for row in lost["rows"]] == ["=", "-", "=", "=", "="]
    merged = [said("user", "first prompt"), said("assistant", "answer one", "answer two"),
              said("user", "second prompt"), said("assistant", "answer three")]
    why = explain(data, Answered(tuple(merged)), expected, None,
                  target="agent-sdk@0.3.332 file-order", causes=("merged-row",))
    assert (why["behaviour"], why["title"]) == ("merged-row", "rows shown as one")
    assert why["sentence"].startswith("yours shows line 3 (assistant, text) inside its row at "
                                      "position 2, together with line 2 (assistant, text)")
    assert [row["mark"] for row in why["rows"]] == ["=", "=", "≠", "=", "="]
    got = [said(role, text) for role, text in FILE]
    got[4] = said("assistant", "answer 3")
    field = explain(data, Answered(tuple(got)), expected, None,
                    target="agent-sdk@0.3.332 file-order", causes=("field",))
    assert field["sentence"].startswith("field `content` of message 5, line 5 (assistant, "
                                        "text), shown at position 5")


def test_a_row_holding_what_orjson_cannot_write_is_still_paired() -> None:
    """A reader's answer may hold an integer past 64 bits or a lone surrogate: the pairing
    reads it as any other row, never raising."""
    from rechain.conformance.contracts.pairing import Shown

    odd = {"type": "user", "text": "hi \ud800", "n": 2**70}
    shown = Shown(odd)
    assert shown.holds("hi") and str(2**70) in shown.blob
    assert Shown({"type": "user", "text": "x"}).holds("\ud800") is False


def test_a_row_nested_past_any_encoder_is_paired_by_role() -> None:
    from rechain.conformance.contracts.pairing import Shown

    deep: object = "x"
    for _ in range(100_000):
        deep = [deep]
    assert Shown({"type": "user", "content": deep}).blob == ""


def test_a_verdict_and_its_explanation_lead_with_the_row_lost_not_a_row_added_above_it(
) -> None:
    """The most harmful cause leads wherever the pairing meets it, and a row of a cause the
    skip list accepts never leads: the verdict's words, its difference and the row the
    explanation marks first are the lost row's (or, that one accepted, the added row's)."""
    from rechain.conformance.explain import explain
    from rechain.conformance.skips import parse

    data = b"".join(line(n, role, n - 1 or None, text)
                    for n, (role, text) in enumerate(FILE, start=1))
    terms = Contract("r", "1", scope="file-order", identity="position+role",
                     content="text-equivalent")
    rows = [said(role, text) for role, text in FILE]
    rows.insert(1, said("assistant", "a note of the reader's own"))  # added, first in order
    del rows[4]  # "second prompt", line 4: lost further down
    got = Answered(tuple(rows))
    verdict = judge_contract(got, answer(data, terms), terms)
    assert verdict.causes == ("lost-row", "extra-row")
    assert verdict.message == "a row in scope missing: line 4"
    assert verdict.difference is not None and verdict.difference.right == "user"
    odd = odd_rows(data, verdict, got, None)

    def skipping(row: str) -> Any:
        listed = parse({"version": 1, "skips": [{
            "implementation": "r@1", "rows": [row], "cases": ["its-own-case"],
            "reason": "known", "link": "docs"}]})
        return listed.apply(verdict, "r@1", "agent-sdk@0.3.332 file-order", "a-case", (), odd)

    extra_known = skipping("extra-row:assistant:text")
    assert extra_known.causes == ("lost-row",)
    assert extra_known.message == "a row in scope missing: line 4 (besides the known extra-row)"
    lost_known = skipping("lost-row:user:text")
    assert lost_known.causes == ("extra-row",)
    assert lost_known.message == ("a row not in scope shown at position 1 (besides the known "
                                  "lost-row)")
    assert lost_known.difference is not None and lost_known.difference.left == "assistant"
    expected = Answered(tuple({"uuid": U.format(n), "type": role, "line": n}
                              for n, (role, _) in enumerate(FILE, start=1)))
    for judged, mark in ((extra_known, "-"), (lost_known, "+")):
        assert judged.difference is not None
        why = explain(data, got, expected, judged.difference.to_json(),
                      target="agent-sdk@0.3.332 file-order", message=judged.message,
                      causes=judged.causes)
        assert why["behaviour"] == judged.causes[0]
        [first] = [row for row in why["rows"] if row.get("first")]
        assert first["mark"] == mark, why["rows"]


def test_an_explanation_shows_the_row_it_is_about_past_many_rows_it_is_not() -> None:
    """Sixty rows of its own before the row a reader lost (accepted by its skip list, the
    verdict's causes say only lost-row): the explanation's rows, at most 40, show the lost
    row marked first and count the added rows they leave out, not as equal rows."""
    from rechain.conformance.explain import ROWS_SHOWN, explain

    roles = ["user" if k % 2 == 0 else "assistant" for k in range(100)]
    texts = [f"row {k}" for k in range(100)]
    data = b"".join(line(n, roles[n - 1], n - 1 or None, texts[n - 1])
                    for n in range(1, 101))
    rows = []
    for k in range(100):
        if k != 90:
            rows.append(said(roles[k], texts[k]))
        if k < 60:
            rows.append(said("assistant", f"a note of its own on {k}"))
    expected = Answered(tuple({"uuid": U.format(n), "type": roles[n - 1], "line": n}
                              for n in range(1, 101)))
    why = explain(data, Answered(tuple(rows)), expected, None,
                  target="agent-sdk@0.3.332 file-order", causes=("lost-row",))
    assert why["sentence"].startswith("message 91, line 91 (")
    assert len(why["rows"]) <= ROWS_SHOWN
    [first] = [row for row in why["rows"] if row.get("first")]
    assert first["mark"] == "-" and first["expected"].startswith("91 ·")
    assert any("differing) …" in row["got"] for row in why["rows"] if row["mark"] == "…")


def call(n: int, parent: int, command: str, *, uuid: bool = True) -> bytes:
    """An assistant row of one Bash call (``uuid=False``: a line written without one)."""
    row = {"type": "assistant", "uuid": U.format(n), "parentUuid": U.format(parent),
           "sessionId": "s", "timestamp": f"2026-01-01T00:00:{n:02d}.000Z",
           "message": {"role": "assistant", "id": f"msg_{n}", "content": [
               {"type": "tool_use", "id": f"toolu_{n}", "name": "Bash",
                "input": {"command": command}}]}}
    return writer.line(row if uuid else {k: v for k, v in row.items() if k != "uuid"})


def shown_call(command: str) -> dict[str, Any]:
    """A call as a terminal viewer renders it: its command, never its id."""
    return {"type": "assistant", "text": f"[Bash: {command}]"}


def test_a_row_written_twice_and_shown_twice_by_a_reader_without_uuids_is_a_copy() -> None:
    """A call written twice with one uuid (the profile reads it once), shown twice by a
    reader that shows no ids: the second is the row again (duplicate-row, as a reader with
    uuids is told), a skip of it names it, and a row the reader adds from a line without a
    uuid beside it is still an added row the skip does not hide."""
    from rechain.conformance.explain import explain
    from rechain.conformance.skips import parse

    terms = Contract("r", "1", scope="file-order", identity="position+role",
                     content="ignored", strictness="types")
    data = line(1, "user", None, "first prompt") + call(2, 1, "echo 2") + call(
        2, 1, "echo DUPLICATE")
    got = Answered((said("user", "first prompt"), shown_call("echo 2"),
                    shown_call("echo DUPLICATE")))
    want = answer(data, terms)
    assert want.uuids == [U.format(1), U.format(2)]
    verdict = judge_contract(got, want, terms)
    assert verdict.causes == ("duplicate-row",)
    assert verdict.message == "the row on line 3 shown twice, again at position 1"
    assert odd_rows(data, verdict, got, None) == {"duplicate-row:assistant:tool_use"}
    expected = Answered(({"uuid": U.format(1), "type": "user", "line": 1},
                         {"uuid": U.format(2), "type": "assistant", "line": 3}))
    why = explain(data, got, expected, None, target="agent-sdk@0.3.332 file-order",
                  causes=verdict.causes, loose=True)
    assert why["behaviour"] == "duplicate-row" and "again at position 2" in why["sentence"]
    listed = parse({"version": 1, "skips": [{
        "implementation": "r@1", "rows": ["duplicate-row:*"], "cases": ["its-own-case"],
        "reason": "a row written twice is shown twice", "link": "docs"}]})
    skipped = listed.apply(verdict, "r@1", "agent-sdk@0.3.332 file-order", "a-case", (),
                           odd_rows(data, verdict, got, None))
    assert skipped.status == "skip"
    # a line without a uuid beside it, shown by the reader: an added row, not a copy
    lone = line(1, "user", None, "first prompt") + call(2, 1, "echo 2") + call(
        3, 2, "echo 3", uuid=False)
    extra = Answered((said("user", "first prompt"), shown_call("echo 2"),
                      shown_call("echo 3")))
    added = judge_contract(extra, answer(lone, terms), terms)
    assert added.causes == ("extra-row",)
    assert listed.apply(added, "r@1", "agent-sdk@0.3.332 file-order", "a-case", (),
                        odd_rows(lone, added, extra, None)).status == "fail"
    # a row written twice, and a row the reader makes up in its other line's place: that
    # row is added, not a copy (a copy is known by the line's words, never its role alone)
    made_up = Answered((said("user", "first prompt"), shown_call("rm -rf build"),
                        shown_call("echo DUPLICATE")))
    assert judge_contract(made_up, want, terms).causes == ("extra-row",)


def test_a_reader_without_uuids_leads_with_a_lost_row_before_a_copy_as_one_with_uuids(
) -> None:
    """A copy shown above a row lost: the verdict leads with the lost row, as a reader with
    uuids is judged (``test_contracts``), the copy kept in ``leads``."""
    terms = Contract("r", "1", scope="file-order", identity="position+role",
                     content="ignored", strictness="types")
    data = (line(1, "user", None, "first prompt") + call(2, 1, "echo 2")
            + call(2, 1, "echo DUPLICATE") + line(3, "user", 2, "second prompt")
            + line(4, "assistant", 3, "the answer"))
    got = Answered((said("user", "first prompt"), shown_call("echo 2"),
                    shown_call("echo DUPLICATE"), said("user", "second prompt")))
    verdict = judge_contract(got, answer(data, terms), terms)
    assert verdict.causes == ("lost-row", "duplicate-row")
    assert verdict.message == "a row in scope missing: line 5"
    assert [lead[0] for lead in verdict.leads] == ["duplicate-row"]
