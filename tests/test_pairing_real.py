"""claude-code-transcripts, a real reader whose rows keep no uuid, on its own minimal case
grown by a few turns: the row it adds is an extra row, named by where it comes from, and
the rows after it pair with their own rows (no field difference); its row-level skip
accepts the duplicate it shows and no other extra row."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from real_readers import UNHURRIED

from rechain.conformance.matrix import adapters

FOUND = "diff-claude-code-transcripts-vs-agent-sdk-cause-extra-row-92a48458"


def _reader() -> adapters.Adapter:
    reader = next(a for a in adapters.shipped() if a.name == "claude-code-transcripts")
    if not reader.installed():
        pytest.skip("claude-code-transcripts is not installed "
                    "(rechain matrix --install --reader claude-code-transcripts)")
    return reader


def _grown(tmp: Path, new_id: str, lines: list[dict[str, Any]], copies: int = 2) -> None:
    """The minimal case (a prompt written twice with one uuid; ``copies=1``: once) and
    ``lines`` after it."""
    origin = adapters.ROOT / "found" / FOUND
    text = "".join((origin / "transcript.jsonl").read_text().splitlines(keepends=True)[
        :1 + copies])
    text += "".join(json.dumps(line) + "\n" for line in lines)
    (tmp / new_id).mkdir()
    (tmp / new_id / "transcript.jsonl").write_text(text)
    case = json.loads((origin / "case.json").read_text())
    case.update(id=new_id, expectations=[],
                provenance={"source": "hand-written", "notes": f"{FOUND}, grown"})
    (tmp / new_id / "case.json").write_text(json.dumps(case))


def _turns(first: int, parent: str) -> list[dict[str, Any]]:
    """Two more turns chained to ``parent``: an answer, a prompt, an answer."""
    out: list[dict[str, Any]] = []
    for n, role in enumerate(("assistant", "user", "assistant"), start=first):
        uuid = f"00000000-0000-4000-8000-{n:012d}"
        content: Any = ([{"type": "text", "text": f"Answer {n}"}] if role == "assistant"
                        else f"Prompt {n}")
        out.append({"parentUuid": parent, "isSidechain": False, "type": role, "uuid": uuid,
                    "message": {"role": role, "content": content},
                    "timestamp": f"2026-01-01T00:00:{n:02d}.000Z",
                    "sessionId": "5185a38c-81d1-40b8-b738-6cf5edbd9bec"})
        parent = uuid
    return out


def test_a_row_shown_twice_then_more_turns_is_one_copy_and_no_field(
        tmp_path: Path) -> None:
    from rechain.cli import main

    reader = _reader()
    corpus = tmp_path / "cases"
    corpus.mkdir()
    first = "8b6e7405-4ba4-451c-96e6-d96537eac7e3"
    _grown(corpus, "duplicate-then-turns", _turns(10, first))
    unkeyed = _turns(20, first)
    del unkeyed[0]["uuid"]  # a row Claude Code skips (no uuid), which this reader shows
    unkeyed[1]["parentUuid"] = first
    _grown(corpus, "a-row-without-uuid-then-turns", unkeyed, copies=1)
    report = tmp_path / "r.jsonl"
    main(["check", "--no-progress", *UNHURRIED,
          "--impl", "adapter:claude-code-transcripts", "--corpus",
          str(corpus), "--no-shrink", "--examples", "0", "--report", str(report),
          "--skips", str(reader.folder / "skips.json")])
    lines = {line["id"]: line for line in map(json.loads, report.read_text().splitlines())
             if line["kind"] == "case"}
    duplicate = lines["duplicate-then-turns"]
    # by role alone the first copy paired with the row Claude Code shows: a false field;
    # it is the row shown again, paired with the line that writes it again
    assert (duplicate["status"], duplicate["causes"]) == ("skip", ["duplicate-row"]), duplicate
    assert duplicate["signature"] == ["cause:duplicate-row", "row:user"], duplicate["signature"]
    other = lines["a-row-without-uuid-then-turns"]
    assert (other["status"], other["causes"]) == ("fail", ["extra-row"]), other
    assert "row:assistant:text+missing-uuid" in other["signature"]
    why = other["explanation"]
    assert why["behaviour"] == "extra-row" and "field" not in why["sentence"]
    assert why["sentence"].startswith("yours shows an assistant row at position 2 (Answer 20)")
    assert [row["mark"] for row in why["rows"]] == ["=", "+", "=", "="]  # the rest paired
