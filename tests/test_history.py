"""``rechain history``: each verified release's resume, grouped into ranges of releases."""

from __future__ import annotations

import json

from rechain.cli import main
from rechain.conformance.history import Resumed, first_difference, resume_of, spans, table
from rechain.corpus.cases_io import default_root, load_case
from rechain.reference.profiles.family import same_range, verified_releases

A = Resumed(("u1", "a2"), "a2")
B = Resumed(("u1", "a2", "u3", "a4"), "a4")
FAILED = Resumed((), None, "no-conversation")


def test_equal_answers_of_consecutive_releases_form_one_range() -> None:
    found = spans([("2.1.88", A), ("2.1.91", A), ("2.1.101", B), ("2.1.332", B)])
    assert [(s.first, s.last) for s in found] == [("2.1.88", "2.1.91"), ("2.1.101", "2.1.332")]
    assert found[1].differs_at == 2 and found[0].differs_at is None
    assert found[0].releases == "2.1.88 to 2.1.91"


def test_a_range_never_spans_releases_that_are_not_answered() -> None:
    """2.0.76 and 2.1.39 are answered one by one: alike, they are still two rows."""
    found = spans([("2.0.76", A), ("2.1.39", A), ("2.1.88", A), ("2.1.112", A), ("2.1.269", A)],
                  together=same_range)
    assert [s.releases for s in found] == ["2.0.76", "2.1.39", "2.1.88 to 2.1.112", "2.1.269"]
    data = (b'{"type":"user","uuid":"u1","parentUuid":null,"message":{"content":"hi"}}\n'
            b'{"type":"assistant","uuid":"a2","parentUuid":"u1",'
            b'"message":{"content":[{"type":"text","text":"hello"}]}}\n')
    text = table(found, data, "claude -p --resume <id>")
    assert ('| 2.1.39 | line 2 · assistant · "hello" | 2 | the same; the releases between are '
            'not answered |') in text


def test_an_answer_that_comes_back_is_a_new_range() -> None:
    found = spans([("1", A), ("2", B), ("3", A)])
    assert [s.releases for s in found] == ["1", "2", "3"]


def test_the_first_difference_is_the_first_row_that_parts_or_the_shorter_end() -> None:
    assert first_difference(A, A) is None
    assert first_difference(A, B) == 2
    assert first_difference(Resumed(("x",), "x"), Resumed(("y",), "y")) == 0
    assert first_difference(A, FAILED) == 0


def test_the_table_names_lines_types_and_texts() -> None:
    data = (b'{"type":"user","uuid":"u1","parentUuid":null,"message":{"content":"hi there"}}\n'
            b'{"type":"assistant","uuid":"a2","parentUuid":"u1",'
            b'"message":{"content":[{"type":"text","text":"hello"}]}}\n')
    text = table(spans([("2.1.88", FAILED), ("2.1.332", A)]), data, "claude -p --resume <id>")
    assert "| 2.1.88 | fails: no-conversation | 0 | — |" in text
    assert '| 2.1.332 | line 2 · assistant · "hello" | 2 |' in text


def test_releases_that_find_no_conversation_read_alike() -> None:
    """The 2.1.88 line's profiles and the CLI's name "no conversation" in one wording, so
    the table shows no difference where the releases behave the same."""
    sidechain_only = (b'{"type":"user","uuid":"u1","parentUuid":null,"isSidechain":true,'
                      b'"message":{"content":"hi"}}\n')
    errors = {resume_of(f"claude-code@{v}", sidechain_only, "resume-id").error
              for v in ("2.0.76", "2.1.112", "2.1.120", "2.1.332")}
    assert errors == {"No conversation found"}


def _recorded(case_id: str) -> dict[str, list[str]]:
    case = load_case(default_root() / case_id)
    out = {}
    for e in case.expectations:
        if e.profile in ("claude-code@2.0.76", "claude-code@2.1.39", "claude-code@2.1.88",
                         "claude-code@2.1.101") and (
                e.view, dict(e.options).get("entry")) == ("resumed-chain", "resume-id"):
            out[e.profile.partition("@")[2]] = [m.get("uuid") for m in e.messages]
        if (e.profile, e.view) == ("claude-code@2.1.332", "chain"):
            out["2.1.332"] = [m.get("uuid") for m in e.messages]
    return out


def test_history_of_a_case_follows_what_the_real_releases_recorded(capsys) -> None:
    case_id = "seed-leaf-newest-timestamp-not-leaf"
    recorded = _recorded(case_id)
    path = default_root() / case_id / "transcript.jsonl"
    assert main(["history", str(path), "--format", "json"]) == 0
    ranges = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    releases = [v for v, _ in verified_releases()]
    before = releases[releases.index("2.1.101") - 1]
    # 2.0.76 and 2.1.39 are answered one by one, so each is a row of its own; then one
    # range up to 2.1.100, and a new one from 2.1.101
    assert [(r["first"], r["last"]) for r in ranges[:4]] == [
        ("2.0.76", "2.0.76"), ("2.1.39", "2.1.39"), ("2.1.88", before), ("2.1.101", "2.1.112")]
    assert ranges[-1]["last"] == "2.1.332"
    # from the oldest verified release (2.0.76) up to 2.1.100 the row with the newest
    # timestamp is resumed (u1, then its "No response requested."); from 2.1.101 the
    # last-written row, as each release recorded
    for at, release in ((0, "2.0.76"), (1, "2.1.39"), (2, "2.1.88"), (3, "2.1.101")):
        assert ranges[at]["chain"] == [u for u in recorded[release]
                                       if not u.startswith("synthetic")]
    # 2.1.332 continues from the last-written row, the tip its chain view recorded
    assert ranges[-1]["tip"] == recorded["2.1.332"][0]


def test_an_unreadable_file_is_one_line(tmp_path, capsys) -> None:
    assert main(["history", str(tmp_path / "missing.jsonl")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
