"""Explanations: the behaviour behind a failure named in words, from the reference's
diagnostics and the input's lines, with both answers aligned."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rechain.conformance.compare import judge
from rechain.conformance.explain import SHOWN_WHOLE, as_text, explain
from rechain.conformance.protocol import Answered, Crashed, Raised, TimedOut
from rechain.conformance.runner import corpus_items
from rechain.corpus.cases_io import load_cases

TARGET = "recorded:agent-sdk@0.3.332"


def naive(data: bytes) -> Answered:
    """The example reader's rule: the last user/assistant line is the leaf, parents walked up."""
    entries: dict[Any, dict[str, Any]] = {}
    last = None
    for raw in data.split(b"\n"):
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("type") in ("user", "assistant") and isinstance(
                entry.get("uuid"), str):
            entries[entry.get("uuid")] = entry
            last = entry.get("uuid")
    chain, seen = [], set()
    while last in entries and last not in seen:
        seen.add(last)
        chain.append({"uuid": last})
        last = entries[last].get("parentUuid")
    return Answered(tuple(reversed(chain)))


@pytest.fixture(scope="module")
def corpus() -> dict[str, Any]:
    items = corpus_items(load_cases(None), "agent-sdk@0.3.332")
    return {item.case.id: item for item in items}


def explained(item: Any) -> dict[str, Any]:
    got = naive(item.case.data)
    verdict = judge(got, item.recorded, frozenset({"uuid"}))
    assert verdict.status == "fail"
    difference = verdict.difference.to_json() if verdict.difference else None
    return explain(item.case.data, got, item.recorded, difference, target=TARGET,
                   tags=item.source.tags)


@pytest.mark.parametrize(("case", "behaviour", "words"), [
    ("cli-calls-after-other-blocks", "orphaned-parallel-result",
     ["puts back lines 7, 8, 9", "after line 6", "orphan recovery"]),
    ("compaction-preserved-messages", "compaction-relink",
     ["re-parents line 3", "parent line 2 replaced by line 6", "compact boundary line 5"]),
    ("cli-meta-and-summary-sent", "hidden-row", ["line 2 (user, meta)", "isMeta"]),
    ("cli-cycle-bridged", "cycle",
     ["lines 4 → 3 → 4", "continued from the last-written row that nothing continues (line 2)",
      "showing no row of the cycle", "yours continued from the last-written message (line 4)"]),
    ("cli-parse-nbsp-prefix", "skipped-line", ["skips line 3", "invalid-json", "not JSON"]),
    ("cli-hook-context-sent", "walk-stopped",
     ["yours stops at line 6", "line 5 (attachment, hook_additional_context)"]),
])
def test_the_behaviour_is_named_from_the_diagnostics(corpus, case, behaviour, words):
    explanation = explained(corpus[case])
    assert explanation["behaviour"] == behaviour, explanation["sentence"]
    for word in words:
        assert word in explanation["sentence"], explanation["sentence"]


def test_almost_every_naive_failure_on_the_corpus_gets_a_named_behaviour(corpus):
    named = unnamed = 0
    for item in corpus.values():
        if not isinstance(item.recorded, Answered):
            continue
        if judge(naive(item.case.data), item.recorded, frozenset({"uuid"})).status != "fail":
            continue
        if explained(item)["behaviour"] in ("chain", "order"):
            unnamed += 1
        else:
            named += 1
    assert named >= 50 and unnamed <= named // 20, (named, unnamed)


def test_both_sides_are_aligned_and_the_first_difference_marked(corpus):
    explanation = explained(corpus["cli-calls-after-other-blocks"])
    rows = explanation["rows"]
    firsts = [i for i, row in enumerate(rows) if row.get("first")]
    assert len(firsts) == 1
    first = rows[firsts[0]]
    assert first["mark"] == "-" and first["expected"].startswith("7 · ") and first["got"] == ""
    assert all(row["mark"] == "=" for row in rows[:firsts[0]])
    assert all(row["got"] == row["expected"] for row in rows if row["mark"] == "=")
    text = "\n".join(as_text(explanation, got="naive", expected="real"))
    assert ">- 7 · " in text and "why: orphaned parallel result:" in text


def test_a_small_input_is_shown_whole_a_large_one_by_the_lines_that_matter():
    lines = [{"type": "user", "uuid": f"u{i}", "parentUuid": f"u{i - 1}" if i else None,
              "message": {"role": "user", "content": f"prompt {i}"}} for i in range(60)]
    data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    got = Answered(tuple({"uuid": f"u{i}"} for i in range(59)))
    expected = Answered(tuple({"uuid": f"u{i}"} for i in range(60)))
    explanation = explain(data, got, expected, None, target=TARGET)
    assert explanation["input_lines"] == 60
    shown = [item["line"] for item in explanation["input"]]
    assert 60 in shown and 59 in shown and len(shown) < SHOWN_WHOLE
    assert "60 · user · prompt · prompt 59 (parent: line 59)" in [
        item["text"] for item in explanation["input"]]
    assert any(row["mark"] == "…" for row in explanation["rows"])
    small = explain(data[: data.index(b"u3") - 30], Answered(()), expected, None, target=TARGET)
    assert [item["line"] for item in small["input"]] == list(range(1, small["input_lines"] + 1))


def test_a_field_difference_names_the_field_and_both_values():
    data = (b'{"type":"user","uuid":"a","parentUuid":null,"message":{"role":"user",'
            b'"content":"hi"},"timestamp":"2026-01-01T00:00:00.000Z"}\n')
    got = Answered(({"uuid": "a"},))
    expected = Answered(({"uuid": "a", "timestamp": "2026-01-01T00:00:00.000Z"},))
    difference = judge(got, expected).difference
    assert difference is not None
    explanation = explain(data, got, expected, difference.to_json(), target="intended")
    assert explanation["behaviour"] == "field"
    sentence = explanation["sentence"]
    assert "`timestamp`" in sentence and "message 1, line 1 (user, prompt)" in sentence
    assert '"2026-01-01T00:00:00.000Z"' in sentence and "yours nothing" in sentence
    assert [row["mark"] for row in explanation["rows"]] == ["≠"]


@pytest.mark.parametrize(("got", "behaviour", "word"), [
    (Crashed("exit 3", "Traceback"), "crash", "yours crashed: exit 3"),
    (TimedOut(2.0), "timeout", "within 2 s"),
    (Raised("KeyError", "'uuid'"), "raised", "yours raised KeyError: 'uuid'"),
])
def test_a_reader_that_does_not_answer_is_named(got, behaviour, word):
    explanation = explain(b"{}\n", got, Answered(({"uuid": "a"},)), None, target=TARGET)
    assert explanation["behaviour"] == behaviour and word in explanation["sentence"]
    assert "returned 1 message" in explanation["sentence"]
    assert "1 messages" not in explanation["sentence"]


def test_a_crash_quotes_the_readers_last_words():
    """Why a reader died is in its stderr (a tier-0 reader's prints too): the sentence
    quotes its last line, not only the exit status."""
    got = Crashed("the reader's process exited (exit 3)", "loading\nValueError: no sessionId\n\n")
    sentence = explain(b"{}\n", got, Answered(({"uuid": "a"},)), None, target=TARGET)["sentence"]
    assert ("yours crashed: the reader's process exited (exit 3); its last words on stderr: "
            "ValueError: no sessionId (") in sentence
    quiet = explain(b"{}\n", Crashed("exit 3"), Answered(()), None, target=TARGET)["sentence"]
    assert "last words" not in quiet


def newest_timestamp(data: bytes) -> Answered:
    """A reader that takes the message with the newest timestamp as the leaf."""
    entries: dict[str, dict[str, Any]] = {}
    for raw in data.split(b"\n"):
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("type") in ("user", "assistant") and isinstance(
                entry.get("uuid"), str):
            entries[entry["uuid"]] = entry
    leaf: Any = max(entries.values(), key=lambda e: str(e.get("timestamp", "")))["uuid"]
    chain, seen = [], set()
    while leaf in entries and leaf not in seen:
        seen.add(leaf)
        chain.append({"uuid": leaf})
        leaf = entries[leaf].get("parentUuid")
    return Answered(tuple(reversed(chain)))


def test_a_leaf_on_another_branch_after_a_rewind_is_named_with_each_sides_rule(corpus):
    item = corpus["rewind-newer-branch-written-earlier"]
    got = newest_timestamp(item.case.data)
    verdict = judge(got, item.recorded, frozenset({"uuid"}))
    explanation = explain(item.case.data, got, item.recorded, verdict.difference.to_json(),
                          target=TARGET, tags=item.source.tags)
    assert explanation["behaviour"] == "branch-after-rewind"
    assert explanation["sentence"] == (
        "the real reader (agent-sdk@0.3.332) continued from the last-written row that nothing "
        "continues (line 6); yours from the newest timestamp (line 4)")
    untagged = explain(item.case.data, got, item.recorded, verdict.difference.to_json(),
                       target=TARGET)
    assert untagged["behaviour"] == "leaf-choice"  # the rewind comes from the case's tags


def test_a_sidechain_leaf_is_named_as_one(corpus):
    explanation = explained(corpus["sidechain-in-main-file"])
    assert explanation["behaviour"] == "leaf-choice"
    assert explanation["sentence"].endswith("yours from a sidechain row (line 8)")
    assert "the last-written row outside sidechains that nothing continues (line 6)" in (
        explanation["sentence"])


@given(st.data())
@settings(max_examples=40)
def test_any_pair_of_answers_on_any_damaged_file_gets_an_explanation(data):
    from rechain.conformance import differential as diff
    from rechain.reference import rebuild

    value = data.draw(diff.strategy_for("corrupted"))
    raw = value.to_bytes()
    expected = Answered(tuple({k: v for k, v in m.items() if k != "line"}
                              for m in rebuild(raw).messages))
    pool = [m["uuid"] for m in expected.messages] + ["not-in-the-file"]
    picked = data.draw(st.lists(st.sampled_from(pool), unique=True, max_size=8))
    got = Answered(tuple({"uuid": u} for u in picked))
    verdict = judge(got, expected, frozenset({"uuid"}))
    difference = verdict.difference.to_json() if verdict.difference else None
    explanation = explain(raw, got, expected, difference, target=TARGET,
                          message=verdict.message or "agree")
    assert explanation["sentence"] and explanation["behaviour"]
    rows = explanation["rows"]
    if len(rows) < SHOWN_WHOLE and not any(row["mark"] == "…" for row in rows):
        assert sum(1 for row in rows if row["got"]) == len(picked)
        assert sum(1 for row in rows if row["expected"]) == len(expected.messages)
    json.dumps(explanation, allow_nan=False).encode("utf-8")  # strict JSON, valid UTF-8


def test_answers_without_uuids_are_aligned_by_position():
    got = Answered(({"role": "user", "content": "hi"}, {"role": "assistant", "content": "a"}))
    expected = Answered(({"role": "user", "content": "hi"},
                         {"role": "assistant", "content": "b"}))
    difference = judge(got, expected).difference
    assert difference is not None
    explanation = explain(b"", got, expected, difference.to_json(), target="claude-code@2.1.332")
    assert explanation["behaviour"] == "field" and "`content`" in explanation["sentence"]
    assert [row["mark"] for row in explanation["rows"]] == ["=", "≠"]


def test_an_answer_that_ends_early_is_a_row_missing_not_a_field():
    """Position-aligned answers (rows without uuids): the first difference past the end of
    one answer names the row it lacks."""
    data = (b'{"type":"user","uuid":"a","parentUuid":null,"message":{"role":"user",'
            b'"content":"hi"}}\n{"type":"assistant","uuid":"b","parentUuid":"a","message":'
            b'{"role":"assistant","content":[{"type":"text","text":"yes"}]}}\n')
    expected = Answered(({"uuid": "a", "type": "user"}, {"uuid": "b", "type": "assistant"}))
    short = Answered(({"type": "user"},))
    # compared on the fields the reader declares (no uuid), as a position contract does
    difference = judge(short, Answered(({"type": "user"}, {"type": "assistant"}))).difference
    assert difference is not None and difference.path.startswith("/messages/1/")
    lost = explain(data, short, expected, difference.to_json(), target=TARGET)
    assert (lost["behaviour"], lost["title"]) == ("lost-row", "row missing")
    assert lost["sentence"].startswith("message 2, line 2 (assistant, text): ")
    assert lost["sentence"].endswith("yours ends after 1 message")
    longer = Answered(({"type": "user"}, {"type": "assistant"}, {"type": "user"}))
    extra = explain(data, longer, Answered(({"type": "user"}, {"type": "assistant"})),
                    judge(longer, Answered(({"type": "user"}, {"type": "assistant"})))
                    .difference.to_json(), target=TARGET)  # type: ignore[union-attr]
    assert (extra["behaviour"], extra["title"]) == ("extra-row", "extra row")
    assert extra["sentence"].endswith("ends after 2 messages")


def _rows(*names: str) -> bytes:
    """User rows each parented on the one before (``a`` first), one per line."""
    out, parent = [], None
    for name in names:
        out.append(json.dumps({"type": "user", "uuid": name, "parentUuid": parent,
                               "message": {"role": "user", "content": f"say {name}"}}))
        parent = name
    return "\n".join(out).encode() + b"\n"


def _shown(*names: str) -> Answered:
    return Answered(tuple({"uuid": name, "type": "user"} for name in names))


def test_a_row_scope_is_explained_by_rows_of_the_file_not_by_the_chains_rules():
    """A contract of scope file-order or archive is judged against every row the profile
    reads: a row left out is named as such, never as orphan recovery, a leaf or a walk."""
    data = _rows("a", "b", "c", "d")
    lost = explain(data, _shown("a", "b", "c"), _shown("a", "b", "c", "d"), None,
                   target="agent-sdk@0.3.332 file-order")
    assert (lost["behaviour"], lost["title"]) == ("lost-row", "row missing")
    assert lost["sentence"] == ("yours leaves out line 4 (user, prompt), which the file-order "
                                "answer (the rows agent-sdk@0.3.332 reads, in file order) has")
    chain = explain(data, _shown("a", "b", "c"), _shown("a", "b", "c", "d"), None,
                    target="agent-sdk@0.3.332")
    assert chain["behaviour"] == "leaf-choice"  # the same answers judged as a chain
    order = explain(data, _shown("b", "a", "c", "d"), _shown("a", "b", "c", "d"), None,
                    target="agent-sdk@0.3.332 archive")
    assert order["behaviour"] == "order"
    assert order["sentence"].startswith("yours shows line 2 (user, prompt) before its parent, "
                                        "line 1 (user, prompt)")


def test_a_row_scope_names_a_row_shown_twice_and_never_raises_on_it():
    """A file-order reader that shows a row twice (a uuid written on two lines) has every
    row of the answer and no other: the explanation names the repeated row, where the
    order's sentence indexed past the shorter answer and stopped the run."""
    data = _rows("a", "b") + _rows("b")
    for got in (_shown("a", "b", "b"), _shown("b", "a", "b")):
        twice = explain(data, got, _shown("a", "b"), None,
                        target="agent-sdk@0.3.332 file-order", causes=("duplicate-row",))
        assert (twice["behaviour"], twice["title"]) == ("duplicate-row", "row shown twice")
        assert twice["sentence"] == ("yours shows line 3 (user, prompt) 2 times; the file-order "
                                     "answer (the rows agent-sdk@0.3.332 reads, in file order) "
                                     "has it once")
    for got in (_shown("a", "b", "b"), _shown("a", "b", "a")):  # a chain, no contract
        chain = explain(data, got, _shown("a", "b"), None, target="agent-sdk@0.3.332",
                        causes=("duplicate-row",))
        assert chain["behaviour"] == "duplicate-row", chain["sentence"]


def test_readers_compared_by_their_leaf_are_told_which_entry_each_continues_from():
    """A session reader checked against the CLI profile is compared by the entry each
    continues from: the sentence names both, not a field `leaf` of value 'nothing'."""
    data = _rows("a", "b")
    cli = Answered(({"role": "user", "content": "say a"},), leaf="b")
    for mine, words in ((Answered(()), "yours found no conversation"),
                        (_shown("a"), "yours continued from line 1 (user, prompt)")):
        difference = {"path": "/leaf", "left": mine.messages[-1]["uuid"] if mine.messages
                      else {"$missing": True}, "right": "b"}
        said = explain(data, mine, cli, difference, target="claude-code@2.1.332",
                       causes=("wrong-branch",))
        assert said["behaviour"] == "leaf-choice"
        assert said["sentence"] == ("the real reader (claude-code@2.1.332) continued from "
                                    f"line 2 (user, prompt); {words}")


def test_the_cause_left_after_the_skip_list_leads_and_a_row_from_a_skipped_line_is_located():
    """A known lost row beside a new extra row: the explanation leads with the extra row,
    and names the line it came from, which the profile's parser skips."""
    data = _rows("a", "b") + b'{"type":"user","uuid":"x"}\r{"type":"user","uuid":"y"}\n'
    got, expected = _shown("a", "x"), _shown("a", "b")
    explanation = explain(data, got, expected, None, target="agent-sdk@0.3.332 file-order",
                          causes=("extra-row",))
    assert explanation["behaviour"] == "extra-row"
    assert "uuid x, which no line of the file holds" in explanation["sentence"]
    assert "it is in line 3, which the profile's parser skips (invalid-json" in (
        explanation["sentence"])
    assert explanation["also"][0].startswith("yours leaves out line 2 (user, prompt)")
    first = explain(data, got, expected, None, target="agent-sdk@0.3.332 file-order")
    assert first["behaviour"] == "lost-row"


def test_a_reader_matched_by_position_is_told_which_row_of_the_file_it_lost_or_added():
    """Readers whose rows keep no uuid are aligned by role as the contract's judge aligns
    them (adjacent prompts as one when they merge them): the explanation names the file's
    row they lack, never 'field type: user vs user'."""
    rows = [("a", "user", "hi"), ("b", "user", "/status"), ("c", "assistant", None),
            ("d", "user", "result"), ("e", "assistant", None)]
    data = b""
    for uuid, kind, text in rows:
        content: Any = text if kind == "user" and text != "result" else (
            [{"type": "tool_result", "tool_use_id": "t", "content": "out"}] if text else
            [{"type": "text", "text": "ok"}])
        data += json.dumps({"type": kind, "uuid": uuid, "parentUuid": None,
                            "message": {"role": kind, "content": content}}).encode() + b"\n"
    expected = Answered(tuple({"uuid": u, "type": k} for u, k, _ in rows))
    got = Answered(({"type": "user"}, {"type": "assistant"}, {"type": "assistant"}))
    difference = {"path": "/messages/2/type", "left": "assistant", "right": "user"}
    lost = explain(data, got, expected, difference, target="agent-sdk@0.3.332 file-order",
                   causes=("lost-row",), merged=True, loose=True)  # rows without content
    assert (lost["behaviour"], lost["title"]) == ("lost-row", "row missing")
    assert lost["sentence"].startswith("message 4, line 4 (user, tool_result), the tool_result "
                                       "block answering t (a call not in the file): the "
                                       "file-order answer")
    assert lost["sentence"].endswith("yours shows no row with its content (yours shows 3 "
                                     "messages, it has 4 rows)")
    assert [row["mark"] for row in lost["rows"]] == ["=", "=", "-", "="]  # paired by role
    assert lost["rows"][2]["expected"].startswith("4 · user · tool_result")
    more = Answered(({"type": "user"}, {"type": "user"}, {"type": "assistant"},
                     {"type": "assistant"}, {"type": "user"}, {"type": "assistant"}))
    extra = explain(data, more, expected, difference, target="agent-sdk@0.3.332 file-order",
                    causes=("extra-row",), loose=True)
    assert extra["behaviour"] == "extra-row"
    assert extra["sentence"].startswith("yours shows an assistant row at position 4 that the "
                                        "file-order answer")


def test_a_leaf_with_no_trait_of_its_own_is_named_by_its_line():
    """'yours from line 1 (user, prompt)', never 'yours from the row (line 1)'; a leaf the
    real reader hides is the one named, not the last row it shows."""
    data = (b'{"type":"user","uuid":"u","parentUuid":null,"message":{"role":"user",'
            b'"content":"Prompt 1"},"timestamp":"2026-01-01T00:00:00Z"}\n'
            b'{"type":"assistant","uuid":"a","parentUuid":null,"message":{"role":"assistant",'
            b'"content":[{"type":"text","text":"hi"}]},"timestamp":"2026-01-01T00:00:01Z"}\n'
            b'{"type":"user","uuid":"m","parentUuid":"a","isMeta":true,"message":{"role":'
            b'"user","content":"hook"},"timestamp":"2026-01-01T00:00:02Z"}\n')
    explanation = explain(data, Answered(({"uuid": "u"},)), Answered(({"uuid": "a"},)), None,
                          target="agent-sdk@0.3.332 chain")
    assert "yours from line 1 (user, prompt)" in explanation["sentence"]
    # the real reader's leaf is the meta row it walks from but does not show
    assert explanation["sentence"].startswith(
        "the real reader (agent-sdk@0.3.332) continued from a meta row (line 3), which it "
        "does not show (isMeta)")


def _tool_turn(last: str = "") -> bytes:
    """A prompt, a Bash call, its result, an answer (and ``last``, a prompt after it)."""
    rows: list[dict[str, Any]] = [
        {"type": "user", "uuid": "p", "message": {"role": "user", "content": "list"}},
        {"type": "assistant", "uuid": "c", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}]}},
        {"type": "user", "uuid": "r", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"}]}},
        {"type": "assistant", "uuid": "t", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "one file"}]}}]
    if last:
        rows.append({"type": "user", "uuid": last, "message": {"role": "user",
                                                              "content": "thanks"}})
    parent = None
    for row in rows:
        row["parentUuid"], parent = parent, row["uuid"]
    return b"".join(json.dumps(row).encode() + b"\n" for row in rows)


def test_a_lost_tool_result_is_named_by_its_line_role_and_block_not_as_a_leaf_choice():
    """A chain reader that drops one tool result, otherwise exact, is told which row it lost
    (its line, role, the call its block answers) and that the leaf is the same; never
    'leaf choice' or 'walk stopped early', which blame rules it got right."""
    data = _tool_turn()
    middle = explain(data, _shown("p", "c", "t"), _shown("p", "c", "r", "t"), None,
                     target=TARGET, causes=("lost-row",))
    assert (middle["behaviour"], middle["title"]) == ("lost-row", "row missing")
    assert middle["sentence"] == (
        "yours leaves out line 3 (user, tool_result), the tool_result block answering toolu_1 "
        "(tool_use Bash, line 2), which the real reader (agent-sdk@0.3.332) shows; both "
        "continue from the same leaf, line 4 (assistant, text)")
    tip = _tool_turn()[: _tool_turn().rindex(b'{"type": "assistant", "uuid": "t"')]
    last = explain(tip, _shown("p", "c"), _shown("p", "c", "r"), None, target=TARGET,
                   causes=("lost-row",))
    assert last["behaviour"] == "lost-row", last["sentence"]
    assert last["sentence"].endswith("which the real reader (agent-sdk@0.3.332) shows as the "
                                     "last row of its chain; yours shows every row before it")
    assert not any("continued from" in also for also in last["also"])
    # a chain that merely ends earlier on a row that is no tool result is still a leaf choice
    shorter = explain(_tool_turn("q"), _shown("p", "c", "r", "t"),
                      _shown("p", "c", "r", "t", "q"), None, target=TARGET)
    assert shorter["behaviour"] == "leaf-choice"


def test_parents_in_a_full_cycle_are_named_with_how_each_reader_breaks_it(corpus):
    """Every row on one parent cycle: the explanation names the cycle, what the real reader
    did (its recorded answer: no conversation; the CLI's recorded chain view: the entry it
    continued from) and where yours stopped, never 'leaf choice'."""
    item = corpus["cycle-full"]
    said = explained(item)
    assert (said["behaviour"], said["title"]) == ("cycle", "parents in a cycle")
    assert said["sentence"] == (
        "the parents form a cycle, lines 4 → 3 → 2 → 1 → 4 (each line's parent the next): "
        "every row is on a cycle, so no row is a leaf that nothing continues; the real reader "
        "(agent-sdk@0.3.332) found no conversation; yours continued from the last-written "
        "message (line 4) and walked up to line 1, whose parent, line 4, it had already shown")
    case = next(c for c in load_cases(None) if c.id == "cycle-full")
    cli = next(e for e in case.expectations
               if e.profile == "claude-code@2.1.332" and e.view == "chain")
    leaf = cli.messages[-1]["uuid"]  # type: ignore[index]
    by_leaf = explain(item.case.data, Answered(()), Answered(({"uuid": leaf},), leaf=leaf),
                      {"path": "/leaf", "left": {"$missing": True}, "right": leaf},
                      target="claude-code@2.1.332", causes=("wrong-branch",))
    assert by_leaf["behaviour"] == "cycle"
    assert by_leaf["sentence"].endswith(
        "the real reader (claude-code@2.1.332) continued from the last-written message "
        "(line 4); yours found no conversation")


def test_a_page_is_explained_as_messages_of_the_full_chain_not_as_a_walk_stopped_early(corpus):
    """With --limit/--offset the real reader's answer is a page of its chain: the sentence
    says which messages of that chain each side shows, on which lines, and where yours'
    page would start; never 'yours stops at line 9' or a leaf choice, which a page's ends
    are not."""
    for name, first in (("options-paging[offset=3]", "the page --offset 3:"),
                        ("options-paging[limit=2,offset=3]", "the page --limit 2 --offset 3:")):
        item = corpus[name]
        options = item.case.options
        whole = naive(item.case.data).messages  # its walk stops at the system row, line 5
        start = int(options.get("offset") or 0)
        got = Answered(whole[start:start + options["limit"]] if options.get("limit")
                       else whole[start:])
        verdict = judge(got, item.recorded, frozenset({"uuid"}))
        difference = verdict.difference.to_json() if verdict.difference else None
        said = explain(item.case.data, got, item.recorded, difference, target=TARGET,
                       options=options, causes=verdict.causes)
        assert (said["behaviour"], said["title"]) == ("paging", "paging (--limit/--offset)")
        assert said["sentence"].startswith(first)
        assert "of its chain of 10 messages (lines 4, 6" in said["sentence"]
        assert said["sentence"].endswith("gives on a chain that starts at message 5, line 6 "
                                         "(user, prompt)")
        assert not any(word in text for text in [said["sentence"], *said["also"]]
                       for word in ("stops at", "continued from"))
    offset = explain(corpus["options-paging[offset=3]"].case.data,
                     Answered(naive(corpus["options-paging"].case.data).messages[3:]),
                     corpus["options-paging[offset=3]"].recorded, None, target=TARGET,
                     options={"offset": 3, "limit": None})
    assert "shows messages 4..10 of its chain of 10 messages (lines 4, 6..11); yours shows " \
           "messages 8..10 of it (lines 9..11)" in offset["sentence"]


class _TornDropsLast:
    """Shows every row with a uuid (a meta row its contract does not show too) and loses
    the last row when the file ends in a line it cannot parse."""

    from rechain.conformance.protocol import ImplementationInfo

    info = ImplementationInfo("torn", "1", "python")

    def run(self, case: Any) -> Answered:
        rows, torn = [], False
        for line in case.data.splitlines():
            try:
                rows.append(json.loads(line))
                torn = False
            except ValueError:
                torn = True
        shown = tuple({"uuid": r["uuid"], "type": r["type"]} for r in rows)
        return Answered(shown[:-1] if torn else shown)

    def close(self) -> None:
        """Nothing to stop."""


def test_the_cause_a_contract_verdict_leads_with_leads_its_explanation_in_its_own_words():
    """A shrunk case whose reader shows an extra row and changes its answer when a torn
    line is appended heads 'cause: invariant:unchanged-by-invalid-line' (the more harmful):
    the explanation leads with that invariant in its words (uuids as lines), the extra row
    after it, never 'extra row' under an invariant's header."""
    from rechain.conformance.contracts import Contract
    from rechain.conformance.contracts.target import ContractTarget
    from rechain.conformance.protocol import CaseInput
    from rechain.conformance.runner import Item

    data = (_rows("a") + b'{"type":"user","uuid":"meta-row","parentUuid":"a","isMeta":true,'
            b'"message":{"role":"user","content":"hook"}}\n')
    reader = _TornDropsLast()
    target = ContractTarget(reader, Contract("torn", "1", scope="file-order"), every=1)
    item = Item(CaseInput("c", data, "s"), "real")  # a case file: every invariant runs
    expected = target.expect(item)
    got = reader.run(item.case)
    verdict = target.judge(item, got, 0)
    assert verdict.causes == ("invariant:unchanged-by-invalid-line", "extra-row")
    said = explain(data, got, expected, verdict.difference.to_json() if verdict.difference
                   else None, target=target.label, message=verdict.message,
                   causes=verdict.causes, leads=verdict.leads)
    assert (said["behaviour"], said["title"]) == (verdict.cause,
                                                  "answer changed by one torn line")
    assert said["sentence"].startswith("appending one torn line changed the answer: (line 1, "
                                       "line 2) became (line 1,)")
    assert said["also"][0].startswith("yours shows line 2 (user, meta)")


def test_a_row_lost_inside_a_page_whose_ends_agree_is_a_lost_row_not_paging():
    """The page's first and last rows agree: the reader paged right and lost a row inside
    the page, which is named (line, role, block), not told as 'messages 2, 4 of it'."""
    data = _tool_turn("q")
    said = explain(data, _shown("c", "t"), _shown("c", "r", "t"), None, target=TARGET,
                   options={"limit": 3, "offset": 1}, causes=("lost-row",))
    assert said["behaviour"] == "lost-row"
    assert said["sentence"].startswith("yours leaves out line 3 (user, tool_result), the "
                                       "tool_result block answering toolu_1")


def test_the_explanation_leads_with_the_cause_the_verdict_leads_with():
    """A chain reader that shows a hidden meta row (extra) and leaves out a result orphan
    recovery puts back (lost): its verdict leads with lost-row, most harmful, and so does
    the explanation, the hidden row after it; a row shown twice that the answer does not
    show at all is a duplicate-row, told so."""
    def row(uuid: str, parent: str | None, kind: str, content: Any, **extra: Any) -> str:
        return json.dumps({"type": kind, "uuid": uuid, "parentUuid": parent,
                           "message": {"role": kind, "content": content}, **extra})

    def call(uuid: str, parent: str, tool: str) -> str:
        return json.dumps({"type": "assistant", "uuid": uuid, "parentUuid": parent,
                           "requestId": "req_1", "message": {"role": "assistant", "id": "msg_1",
                           "content": [{"type": "tool_use", "id": tool, "name": "Bash",
                                        "input": {"command": "ls"}}]}})

    data = "\n".join([
        row("a", None, "user", "go"), row("m", "a", "user", "hook", isMeta=True),
        call("c1", "m", "t1"), call("c2", "c1", "t2"),
        row("r1", "c1", "user", [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]),
        row("r2", "c2", "user", [{"type": "tool_result", "tool_use_id": "t2", "content": "y"}]),
        row("z", "r2", "assistant", [{"type": "text", "text": "ok"}])]).encode() + b"\n"
    # the SDK hides meta rows and puts back the result of a parallel call off the walk
    real, mine = _shown("a", "c1", "c2", "r1", "r2", "z"), _shown("a", "m", "c1", "c2", "r2", "z")
    verdict = judge(mine, real, frozenset({"uuid"}))
    causes = ("lost-row", "extra-row")
    said = explain(data, mine, real, verdict.difference.to_json() if verdict.difference
                   else None, target=TARGET, causes=causes)
    assert said["behaviour"] == "orphaned-parallel-result", said["sentence"]
    assert said["also"][0].startswith("line 2 (user, meta) is on the chain but")
    twice = explain(_rows("a", "b"), _shown("a", "b", "b"), _shown("a"), None,
                    target="agent-sdk@0.3.332 file-order", causes=("duplicate-row", "extra-row"))
    assert twice["behaviour"] == "duplicate-row"
    assert twice["sentence"] == ("yours shows line 2 (user, prompt) 2 times; the file-order "
                                 "answer (the rows agent-sdk@0.3.332 reads, in file order) does "
                                 "not show it")
