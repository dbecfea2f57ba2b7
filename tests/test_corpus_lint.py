"""The corpus checks itself: every case is valid, the schema is valid, broken cases are named.

Also covers the tools that keep it honest: scenarios reproduce the committed bytes,
recording is driven by an injected reader, and changed inputs lose their expectations.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from rechain.cli import main
from rechain.corpus import PROFILE, lint_cases, load_cases
from rechain.corpus.actions import new_cases
from rechain.corpus.cases_io import DEFAULT_OPTIONS, default_root, dumps_case, load_case
from rechain.corpus.materialise import UNRECORDED, scenario_case
from rechain.corpus.record import record_case
from rechain.corpus.scenarios import build_scenarios
from rechain.schema_files import load_schema

ROOT = Path(str(default_root()))
REPO = Path(__file__).resolve().parents[1]
ISSUE_FEATURES = {
    "out-of-order", "rewind", "timestamps", "leaf-choice", "system", "meta", "parallel-tools",
    "split-message", "thinking", "compaction", "preserved-segment", "preserved-messages", "cycle",
    "dangling-parent", "progress", "sidechain", "blank-line", "non-object", "truncated", "bom",
    "crlf", "lone-cr", "nan", "nbsp", "form-feed", "invalid-utf8", "duplicate-uuid",
    "missing-uuid", "queued-command", "origin", "closes-quiet-turn", "voice-call", "large-file",
    "real",
}  # fmt: skip


@pytest.fixture(scope="module")
def cases():
    return load_cases()


def copy_case(tmp_path: Path, case_id: str, new_id: str | None = None) -> Path:
    target = tmp_path / (new_id or case_id)
    shutil.copytree(ROOT / case_id, target)
    return target


def edit(directory: Path, **changes: object) -> None:
    data = json.loads((directory / "case.json").read_text(encoding="utf-8"))
    data.update(changes)
    (directory / "case.json").write_text(json.dumps(data), encoding="utf-8")


# --- the committed corpus -------------------------------------------------------------


def test_every_case_passes_lint():
    assert [str(p) for p in lint_cases()] == []


def test_schema_is_a_valid_draft_2020_12_schema():
    schema = load_schema("case")
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_ids_are_directory_names_and_unique(cases):
    assert [c.id for c in cases] == sorted(p.name for p in ROOT.iterdir() if p.is_dir())
    assert len({c.id for c in cases}) == len(cases)


def test_enough_hand_written_cases_covering_the_issue_list(cases):
    hand_written = [c for c in cases if c.provenance["source"] == "hand-written"]
    assert len(hand_written) >= 45
    covered = {tag for c in cases for tag in c.tags}
    assert covered >= ISSUE_FEATURES, sorted(ISSUE_FEATURES - covered)
    assert any(len(c.variants) > 1 for c in hand_written)


def test_every_case_is_recorded_by_the_oracle(cases):
    for case in cases:
        assert UNRECORDED not in case.tags, case.id
        expectations = case.expectations_for(PROFILE)
        assert [dict(e.options) for e in expectations] == [dict(v) for v in case.variants]
        for expectation in expectations:
            assert expectation.provenance["oracle"] == "@anthropic-ai/claude-agent-sdk"
            assert expectation.provenance["version"] == PROFILE.split("@")[1]


def test_inputs_keep_their_exact_bytes(cases):
    by_id = {c.id: c for c in cases}
    assert b"\r\n" in by_id["parse-crlf"].input_bytes()
    assert by_id["parse-bom"].input_bytes().startswith(b"\xef\xbb\xbf")
    assert b"\xff" in by_id["parse-invalid-utf8"].input_bytes()
    assert by_id["empty-file"].input_bytes() == b""
    large = by_id["large-file-compact-skip"].input_bytes()
    assert 5 * 1024 * 1024 < len(large) < 6 * 1024 * 1024


def test_gitattributes_marks_inputs_binary():
    rules = (REPO / ".gitattributes").read_text(encoding="utf-8").splitlines()
    assert "corpus/**/*.jsonl -text binary" in rules


def test_scenarios_reproduce_the_committed_cases():
    lines, drift = new_cases(ROOT, None, check=True)
    assert not drift, lines


def test_case_files_round_trip(cases):
    for case in cases:
        assert dumps_case(case.to_json()) == (ROOT / case.id / "case.json").read_bytes(), case.id


# --- broken cases are reported --------------------------------------------------------


def problems_of(root: Path) -> list[str]:
    return [str(p) for p in lint_cases(root)]


def test_broken_cases_are_named_one_line_each(tmp_path):
    edit(copy_case(tmp_path, "linear-two-turns"), id="linear-2")
    edit(copy_case(tmp_path, "cycle-full"), description="The reader should return nothing.")
    edit(copy_case(tmp_path, "cycle-self-loop"), tags=["cycle", "no-such-tag"])
    edit(copy_case(tmp_path, "dangling-parent-root"), expectations=[])
    copy = copy_case(tmp_path, "lines-reversed", "lines-reversed-copy")
    edit(copy, id="lines-reversed-copy")
    copy_case(tmp_path, "lines-reversed")
    (copy_case(tmp_path, "parse-crlf") / "notes.txt").write_text("x")
    (copy_case(tmp_path, "parse-bom") / "case.json").write_text("{not json")
    problems = problems_of(tmp_path)
    expected = [
        "linear-two-turns: id 'linear-2' differs from the directory name",
        "cycle-full: description uses 'should'; say what the input is",
        "dangling-parent-root: no expectation for agent-sdk@0.3.332 (tag it 'unrecorded')",
        "lines-reversed-copy: description repeats the one of lines-reversed",
        "parse-crlf: unexpected file notes.txt",
    ]
    for line in expected:
        assert line in problems
    assert any(p.startswith("cycle-self-loop: schema: tags/1:") for p in problems)
    assert any(p.startswith("parse-bom: case.json is not JSON") for p in problems)
    assert all("\n" not in p for p in problems)


def test_missing_variant_and_unrecorded_tag(tmp_path):
    directory = copy_case(tmp_path, "system-mid-chain")
    data = json.loads((directory / "case.json").read_text(encoding="utf-8"))
    edit(directory, expectations=data["expectations"][:1])
    assert any("is not recorded" in p for p in problems_of(tmp_path))
    edit(directory, tags=[*data["tags"], UNRECORDED])
    assert problems_of(tmp_path) == []


def test_lint_command_exit_codes(tmp_path, capsys):
    copy_case(tmp_path, "linear-two-turns")
    assert main(["corpus", "lint", "--root", str(tmp_path)]) == 0
    edit(tmp_path / "linear-two-turns", session_id="not-a-uuid")
    assert main(["corpus", "lint", "--root", str(tmp_path)]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1].startswith("linear-two-turns: schema: session_id:")
    assert main(["corpus", "lint", "--root", str(tmp_path / "nope")]) == 2


# --- recording and rebuilding cases ---------------------------------------------------


def fake_reader(calls: list):
    def read(data, session_id, options, env):
        calls.append((session_id, dict(options), dict(env)))
        return [{"type": "user", "uuid": f"u-{options['offset']}", "size": len(data)}]

    return read


def test_record_case_uses_the_injected_reader_for_each_variant():
    case = load_case(ROOT / "system-mid-chain")
    bare = replace(case, expectations=(), tags=(*case.tags, UNRECORDED))
    calls: list = []
    recorded = record_case(
        bare, b"abc", fake_reader(calls), profile=PROFILE, oracle="fake", version="0.3.332",
        today="2026-01-02",
    )  # fmt: skip
    assert [c[1] for c in calls] == [dict(v) for v in case.variants]
    assert UNRECORDED not in recorded.tags
    assert [e.messages[0]["uuid"] for e in recorded.expectations] == ["u-0", "u-0", "u-2"]
    again = record_case(
        recorded, b"abc", fake_reader([]), profile=PROFILE, oracle="fake", version="0.3.332",
        today="2030-12-31",
    )  # fmt: skip
    assert again == recorded  # unchanged output keeps its provenance date


def test_changed_scenario_bytes_drop_expectations():
    scenario = build_scenarios(["linear-two-turns"])[0]
    case = load_case(ROOT / "linear-two-turns")
    same = scenario_case(scenario, case, case.input_bytes())
    assert same.expectations == case.expectations and UNRECORDED not in same.tags
    changed = scenario_case(scenario, case, case.input_bytes() + b"\n")
    assert changed.expectations == () and UNRECORDED in changed.tags


def test_default_options_are_the_readers_defaults():
    assert dict(DEFAULT_OPTIONS) == {"include_system_messages": False, "limit": None, "offset": 0}
