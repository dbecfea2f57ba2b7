"""Every row a reader is tested on carries the fields Claude Code stamps on it.

Claude Code writes ``isSidechain``, ``userType``, ``cwd``, ``sessionId`` and
``version`` on every user and assistant row (``format.md`` §2.1, §3.3); real
readers rely on them (a reader that finds no ``cwd`` may show nothing), so a
corpus or smoke row without them tests an input no release writes. Only a case
about missing fields (tagged ``missing-fields``) may leave them out.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rechain.commands.smoke import smoke_cases
from rechain.corpus import lint_cases, load_cases
from rechain.corpus.cases_io import default_root
from rechain.corpus.stamps import MISSING_FIELDS, STAMPS, unstamped_rows

CASES = load_cases()


def rows_without_stamps(data: bytes) -> list[str]:
    """``line N: kind row without field, ...`` for each user/assistant row lacking a stamp."""
    return [str(row) for row in unstamped_rows(data)]


def test_the_stamps_are_the_fields_claude_code_always_writes() -> None:
    assert set(STAMPS) == {"parentUuid", "isSidechain", "userType", "cwd", "sessionId", "version"}


def test_the_corpus_has_user_and_assistant_rows_to_check() -> None:
    rows = sum(
        1 for case in CASES for line in case.input_bytes().split(b"\n")
        if b'"type":"user"' in line or b'"type":"assistant"' in line
    )
    assert len(CASES) >= 100 and rows >= 500


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_corpus_rows_carry_claude_codes_stamps(case) -> None:
    if MISSING_FIELDS in case.tags:
        assert rows_without_stamps(case.input_bytes()), "tagged missing-fields, but all stamped"
        return
    assert rows_without_stamps(case.input_bytes()) == []


@pytest.mark.parametrize("case", smoke_cases(), ids=lambda c: c.name)
def test_smoke_rows_carry_claude_codes_stamps(case) -> None:
    assert rows_without_stamps(case.data) == []


def test_smoke_rows_are_written_like_the_release_they_name() -> None:
    rows = [json.loads(line) for case in smoke_cases() for line in case.data.splitlines()
            if line.startswith(b"{")]
    assert rows and all(row["entrypoint"] == "cli" and row["gitBranch"] for row in rows)


def test_a_row_without_stamps_is_named_by_line_and_field() -> None:
    data = (b'{"type":"summary","summary":"s"}\n'
            b'{"parentUuid":null,"isSidechain":false,"type":"user","sessionId":"s","uuid":"u"}\n'
            b'not json\n'
            b'{"parentUuid":"u","isSidechain":false,"userType":"external","cwd":"/p",'
            b'"sessionId":"s","version":"2.1.332","type":"assistant","uuid":"a"}\n')
    assert [str(row) for row in unstamped_rows(data)] == [
        "line 2: user row without userType, cwd, version"]


def test_a_row_whose_type_is_not_a_string_is_not_a_stamped_row() -> None:
    """Fuzz-shrunk cases hold rows typed by a list or an object: they are nobody's user row."""
    data = b'{"type":["user"]}\n{"type":{"a":1}}\n{"type":null}\n[1]\n'
    assert unstamped_rows(data) == []


def _copy(tmp_path: Path, case_id: str) -> Path:
    shutil.copytree(Path(str(default_root())) / case_id, tmp_path / case_id)
    return tmp_path / case_id


def test_lint_names_a_case_whose_rows_lack_stamps_unless_that_is_its_subject(tmp_path) -> None:
    target = _copy(tmp_path, "cli-empty-text-block-dropped")
    source = target / "transcript.jsonl"
    source.write_bytes(source.read_bytes().replace(b'"cwd":"/work/project",', b""))
    problems = [str(p) for p in lint_cases(tmp_path)]
    assert len(problems) == 1 and "line 1: user row without cwd" in problems[0]
    assert MISSING_FIELDS in problems[0]
    data = json.loads((target / "case.json").read_text(encoding="utf-8"))
    data["tags"].append(MISSING_FIELDS)
    (target / "case.json").write_text(json.dumps(data), encoding="utf-8")
    assert [str(p) for p in lint_cases(tmp_path)] == []
