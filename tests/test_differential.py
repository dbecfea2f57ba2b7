"""Comparison, signatures, Hypothesis-driven generation and shrinking, and frozen cases."""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass

from hypothesis import strategies as st

from rechain.conformance import differential as diff
from rechain.conformance.compare import (
    MISSING,
    Difference,
    canonical,
    first_difference,
    judge,
    normalise,
)
from rechain.conformance.protocol import Answered, Crashed, Raised, Skipped, TimedOut
from rechain.corpus.lint import lint_case

SID = "0b4f6f1e-3c2a-4d5e-9f00-123456789abc"


def msg(uuid: str, **extra: object) -> dict:
    return {"type": "user", "uuid": uuid, "message": {"role": "user", "content": "hi"}, **extra}


# --- comparison -----------------------------------------------------------------------------


def test_numbers_compare_as_javascript_sees_them():
    assert normalise({"a": [1.0, 2**53 + 1, -0.0, float("nan"), float("inf")]}) == {
        "a": [1, 2**53, 0, None, None]}
    assert first_difference(normalise([1.5]), normalise([1.5])) is None
    assert first_difference(normalise([True]), normalise([1])) == Difference("/0", True, 1)


def test_line_is_ignored_and_fields_are_projected():
    got = Answered((msg("u1", line=3, timestamp="t"),))
    want = Answered((msg("u1", line=9),))
    assert judge(got, want).status == "fail"  # timestamp only on one side
    assert judge(got, want, frozenset({"type", "uuid", "message"})).status == "pass"
    assert canonical(got.messages, None) == [msg("u1", timestamp="t")]


def test_first_difference_is_a_json_pointer():
    got = Answered((msg("u1"), msg("u2", message={"content": [{"text": "a/b"}]})))
    want = Answered((msg("u1"), msg("u2", message={"content": [{"text": "a~b"}]})))
    verdict = judge(got, want)
    assert verdict.difference == Difference("/messages/1/message/content/0/text", "a/b", "a~b")
    short = judge(Answered((msg("u1"),)), Answered((msg("u1"), msg("u2"))))
    assert short.message == "different chain"
    assert short.difference == Difference("/messages/1/uuid", MISSING, "u2")


def test_raising_is_an_answer():
    assert judge(Raised("ValueError"), Raised("TypeError")).status == "pass"
    one = judge(Raised("UnicodeDecodeError", "bad byte"), Answered(()))
    assert one.status == "fail" and one.difference is not None
    assert one.difference.path == "/" and "UnicodeDecodeError" in one.difference.left


def test_what_cannot_be_judged():
    assert judge(Crashed("x"), Answered(())).status == "crash"
    assert judge(TimedOut(1), Answered(())).status == "timeout"
    assert judge(Skipped("no"), Answered(())).status == "skip"
    assert judge(Answered(()), Crashed("oracle died")).status == "skip"


def test_leaf_only_comparison_across_views():
    resume = Answered(({"role": "user", "content": "hi"},), leaf="a1")
    assert judge(resume, Answered((msg("u1"), msg("a1"))), leaf_only=True).status == "pass"
    assert judge(resume, Answered((msg("u1"),)), leaf_only=True).status == "fail"
    assert judge(Raised("exit 1"), Answered(()), leaf_only=True).status == "pass"


# --- signatures -----------------------------------------------------------------------------


def line(**entry: object) -> bytes:
    return json.dumps(entry).encode() + b"\n"


def test_entry_features_mark_lines_only_a_lenient_parser_reads():
    data = (line(type="user", uuid="u1", isMeta=True)
            + b"\xc2\xa0" + line(type="assistant", uuid="a1")
            + line(type="attachment", uuid="q1", attachment={"type": "queued_command"})
            + line(type="system", subtype="compact_boundary", uuid="b1"))
    assert diff.entry_features(data) == {
        "u1": "user+meta", "a1": "assistant+lenient", "q1": "attachment:queued_command",
        "b1": "system:compact_boundary"}


def test_signatures_name_the_kind_of_disagreement():
    data = line(type="user", uuid="u1") + line(type="assistant", uuid="a1")
    raised = judge(Raised("UnicodeDecodeError"), Answered(()))
    assert diff.signature(data, raised, Raised("UnicodeDecodeError"), Answered(())) == {
        "raised:left:UnicodeDecodeError"}
    got, want = Answered((msg("u1"),)), Answered((msg("u1"), msg("a1")))
    assert diff.signature(data, judge(got, want), got, want) == {"only-right:assistant"}
    got, want = Answered((msg("u1", message="x"),)), Answered((msg("u1"),))
    assert diff.signature(data, judge(got, want), got, want) == {"field:message"}
    assert diff.signature(data, judge(want, want), want, want) == frozenset()


def test_slug_and_case_id_are_kebab_case():
    found = diff.Disagreement("agent-sdk-py@0.2.189", "agent-sdk-ts@0.3.332",
                              frozenset({"raised:left:UnicodeDecodeError", "tail:user"}),
                              b"x\n", SID, Raised("UnicodeDecodeError"), Answered(()), 3, 0, 10)
    assert diff.case_id(found) == f"diff-py-vs-ts-raises-l-unicodedecodeerror-{found.digest}"
    assert diff.tags_for({"raised:left:UnicodeDecodeError"}) == ["invalid-utf8", "parse"]
    assert "leaf-choice" in diff.tags_for(found.signature)


# --- generation and shrinking -----------------------------------------------------------------


@dataclass(frozen=True)
class Numbers:
    """A stand-in for a transcript: a value with bytes."""

    values: tuple[int, ...]

    def to_bytes(self) -> bytes:
        return json.dumps(self.values).encode()


NUMBERS = st.lists(st.integers(0, 1000), max_size=20).map(lambda v: Numbers(tuple(v)))


def test_generation_is_a_function_of_the_seed():
    first = [v.to_bytes() for v in diff.generate(NUMBERS, 50, seed=11)]
    again = [v.to_bytes() for v in diff.generate(NUMBERS, 50, seed=11)]
    other = [v.to_bytes() for v in diff.generate(NUMBERS, 50, seed=12)]
    assert first == again and first != other and len(first) == 50


def test_shrink_skips_ahead_then_minimises():
    values = diff.generate(NUMBERS, 200, seed=3)

    def fails(value: Numbers) -> bool:
        return sum(value.values) > 500

    start = next(i for i, v in enumerate(values) if fails(v))
    found = diff.shrink(NUMBERS, 200, 3, start, fails, values[start].to_bytes())
    assert found is not None
    value, calls = found
    assert value.values == (501,)
    assert 0 < calls < 2000
    assert diff.shrink(NUMBERS, 50, 3, 0, lambda _: False) is None


@dataclass(frozen=True)
class Long:
    text: str

    def to_bytes(self) -> bytes:
        return self.text.encode()


def test_shrinking_a_long_transcript_prints_no_hypothesis_warning(recwarn):
    """The minimal case of a long transcript is written as a case file; Hypothesis'
    warning about wording it as a long repr is noise on the user's stderr."""
    warnings.simplefilter("always")
    found = diff.shrink(st.builds(Long, st.just("x" * 60_000)), 5, 1, 0, lambda _: True)
    assert found is not None and found[0].text == "x" * 60_000
    assert [str(w.message) for w in recwarn if "repr" in str(w.message)] == []


# --- frozen cases -----------------------------------------------------------------------------


def test_case_document_is_a_valid_corpus_case():
    found = diff.Disagreement("agent-sdk-py@0.2.189", "agent-sdk-ts@0.3.332",
                              frozenset({"only-right:attachment:queued_command"}), b"{}\n", SID,
                              Answered((msg("u1"),)), Answered((msg("u1"), msg("q1"))), 4, 17, 99)
    identifier = diff.case_id(found)
    document = diff.case_document(
        found, identifier=identifier,
        recorded={"agent-sdk@0.3.332": ("agent-sdk-ts@0.3.332", found.expected)},
        options={"include_system_messages": False, "limit": None, "offset": 0}, seed=7,
        kind="generated", replay="rechain check --case x", today="2026-11-29",
        rechain_version="0.1.0")
    assert lint_case(identifier, document) == []
    assert document["tags"] == ["queued-command", "attachment"]
    assert document["provenance"]["seed"] == 7
    assert document["provenance"]["differential"]["against"] == "agent-sdk-ts@0.3.332"
    profiles = {e["profile"]: e["provenance"]["oracle"] for e in document["expectations"]}
    assert profiles == {"agent-sdk@0.3.332": "@anthropic-ai/claude-agent-sdk"}  # reference profiles
    answers = document["provenance"]["differential"]["answers"]
    assert answers == {"agent-sdk-py@0.2.189": {"uuids": ["u1"]},
                       "agent-sdk-ts@0.3.332": {"uuids": ["u1", "q1"]}}


def test_a_case_without_the_main_expectation_is_tagged_unrecorded():
    found = diff.Disagreement("reference@0.1.0", "intended", frozenset({"order"}), b"{}\n", SID,
                              Answered(()), Answered(()), 1, 0, 1)
    document = diff.case_document(
        found, identifier=diff.case_id(found), recorded={},
        options={"include_system_messages": False, "limit": None, "offset": 0}, seed=1,
        kind="corrupted", replay="r", today="2026-11-29", rechain_version="0.1.0")
    assert "unrecorded" in document["tags"]
    assert lint_case(document["id"], document) == []
