"""claude-conversation-extractor and agent-chat-reader, two text readers without uuids, on
small files: their contracts (`results: hidden`, `blank: hidden`, sidechains shown or not)
are what the installed programs show, and the line handling each was probed for holds (a
torn last line, a BOM, a line that is not an object, invalid UTF-8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from real_readers import LIMITS, UNHURRIED
from test_contracts import row

from rechain.conformance.contracts import answer, judge_contract
from rechain.conformance.contracts.model import from_json
from rechain.conformance.impls import connect
from rechain.conformance.matrix import adapters
from rechain.conformance.protocol import Answered, CaseInput

READERS = ("claude-conversation-extractor", "agent-chat-reader")

# a prompt, a reply of thinking only, a call, its result, a meta row, a sidechain prompt,
# a reply, a blank prompt
FILE = b"".join([
    row(1, "user", None, "Prompt 1"),
    row(2, "assistant", 1, [{"type": "thinking", "thinking": "hmm"}]),
    row(3, "assistant", 2, [{"type": "tool_use", "id": "t1", "name": "Bash",
                             "input": {"command": "ls"}}]),
    row(4, "user", 3, [{"type": "tool_result", "tool_use_id": "t1", "content": "out 1"}]),
    row(5, "user", 4, "Hook feedback 5", isMeta=True),
    row(6, "user", None, "Side prompt 6", isSidechain=True),
    row(7, "assistant", 5, [{"type": "text", "text": "Answer 7"}]),
    row(8, "user", 7, " "),
])


def _reader(name: str) -> adapters.Adapter:
    reader = next(a for a in adapters.shipped() if a.name == name)
    if not reader.installed():
        pytest.skip(f"{name} is not installed (rechain matrix --install --reader {name})")
    return reader


def _shown(name: str, data: bytes) -> list[tuple[str, str]]:
    got = connect(f"adapter:{name}", LIMITS).run(CaseInput("x", data, "s"))
    assert isinstance(got, Answered), got
    return [(m["type"], " ".join(str(m.get("text", "")).split())) for m in got.messages]


@pytest.mark.parametrize("name", READERS)
def test_a_text_reader_shows_what_its_contract_asks_and_passes_its_judge(name: str) -> None:
    reader = _reader(name)
    declared = from_json({"name": reader.name, "version": reader.version, **reader.contract})
    want = answer(FILE, declared)
    shown = _shown(name, FILE)
    assert [role for role, _ in shown] == [r.role for r in want.rows]
    texts = [text for _, text in shown]
    assert texts[0] == "Prompt 1" and "Answer 7" in texts[-1] and "out 1" not in " ".join(texts)
    assert ("Side prompt 6" in texts) is declared.rows.sidechain
    got = connect(f"adapter:{name}", LIMITS).run(CaseInput("x", FILE, "s"))
    assert judge_contract(got, want, declared).status == "pass"


@pytest.mark.parametrize("name", READERS)
def test_a_torn_last_line_and_a_line_that_is_not_an_object_are_skipped(name: str) -> None:
    _reader(name)
    before = _shown(name, FILE)
    assert _shown(name, b"null\n[1]\n" + FILE + b'{"type":"user","mess') == before


def test_only_agent_chat_reader_keeps_a_first_line_behind_a_bom() -> None:
    """Claude Code reads a first line that starts with a UTF-8 BOM; agent-chat-reader reads
    bytes and keeps it, claude-conversation-extractor decodes text and loses it."""
    for name, kept in (("agent-chat-reader", True), ("claude-conversation-extractor", False)):
        _reader(name)
        shown = _shown(name, b"\xef\xbb\xbf" + FILE)
        assert (shown[:1] == [("user", "Prompt 1")]) is kept, name


def test_invalid_utf8_loses_one_row_in_agent_chat_reader_and_every_row_in_the_extractor(
        ) -> None:
    """Their listed bugs, on a file whose third row holds a byte that is not UTF-8."""
    bad = FILE.replace(b"Hook feedback 5", b"Hook \xff feedback 5")
    _reader("agent-chat-reader")
    assert _shown("agent-chat-reader", bad) == [
        r for r in _shown("agent-chat-reader", FILE) if "Hook" not in r[1]]
    _reader("claude-conversation-extractor")
    assert _shown("claude-conversation-extractor", bad) == []


@pytest.mark.parametrize("name", READERS)
def test_a_row_written_twice_then_more_turns_is_one_copy_and_the_rest_pair(
        tmp_path: Path, name: str) -> None:
    """Their listed copy (a parallel call's row written again), grown by two turns: the copy
    is the one row shown twice (duplicate-row, as a reader with uuids is told), paired with
    the line that writes it again, every other row pairs with its own row, so the known bug
    does not spill over the turns after it, and the reader's skip list accepts it."""
    from test_pairing_real import _turns

    from rechain.cli import main

    _reader(name)
    found = "diff-agent-chat-reader-vs-agent-sdk-cause-extra-row-row-assistant-96aaa8b6"
    origin = adapters.ROOT / "found" / found
    text = (origin / "transcript.jsonl").read_text()
    last = json.loads(text.splitlines()[-1])["uuid"]
    text += "".join(json.dumps(line) + "\n" for line in _turns(10, last))
    case = tmp_path / "cases" / "copy-then-turns"
    case.mkdir(parents=True)
    (case / "transcript.jsonl").write_text(text)
    document = json.loads((origin / "case.json").read_text())
    document.update(id="copy-then-turns", expectations=[],
                    provenance={"source": "hand-written", "notes": f"{found}, grown"})
    (case / "case.json").write_text(json.dumps(document))
    report = tmp_path / "r.jsonl"
    main(["check", "--no-progress", *UNHURRIED, "--impl", f"adapter:{name}", "--corpus",
          str(case.parent), "--no-shrink", "--examples", "0", "--report", str(report),
          "--no-skips"])
    line = next(line for line in map(json.loads, report.read_text().splitlines())
                if line["kind"] == "case")
    assert (line["status"], line["causes"]) == ("fail", ["duplicate-row"]), line
    why = line["explanation"]
    assert why["sentence"].startswith("yours shows line 5 (assistant, tool_use Bash) again at "
                                      "position 3: the file writes it more than once")
    assert "field" not in why["sentence"]
    assert [row["mark"] for row in why["rows"]] == ["=", "=", "+", "=", "=", "=", "="]
    main(["check", "--no-progress", *UNHURRIED, "--impl", f"adapter:{name}", "--corpus",
          str(case.parent), "--no-shrink", "--examples", "0", "--report", str(report)])
    line = next(line for line in map(json.loads, report.read_text().splitlines())
                if line["kind"] == "case")
    assert (line["status"], line["causes"]) == ("skip", ["duplicate-row"]), line
