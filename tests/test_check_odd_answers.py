"""A reader may answer anything JSON allows where a uuid belongs (an object, a list, a
number): rechain judges that answer, it never stops the run on it."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from rechain.cli import main

VERBATIM = textwrap.dedent('''
    """Every user or assistant row of the file, as written: uuids of any JSON type."""
    import json

    def read(data, session_id, options):
        rows = []
        for line in data.splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict) and row.get("type") in ("user", "assistant"):
                rows.append(row)
        return rows

    def odd(data, session_id, options):
        return [{"type": "user", "uuid": {"id": "x"}}, {"type": "user", "uuid": ["x"]},
                {"type": "user", "uuid": {"id": "x"}}]
''')
# corpus cases whose rows carry an object, a number and null as their uuid
CASES = ["parse-type-and-uuid-variants", "missing-and-odd-uuids", "cycle-full"]


@pytest.mark.parametrize("function", ["read", "odd"])
def test_odd_uuids_in_an_answer_are_judged_not_a_crash(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str],
                                                       function: str) -> None:
    (tmp_path / "verbatim.py").write_text(VERBATIM)
    skips, report = tmp_path / "known.json", tmp_path / "run.jsonl"
    argv = ["check", "--impl", f"python:{tmp_path / 'verbatim.py'}:{function}",
            "--examples", "0", "--report", str(report), "--write-skips", str(skips)]
    for case in CASES:
        argv += ["--case", case]
    assert main(argv) == 1
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    judged = {line["id"]: line["status"] for line in lines if line.get("kind") == "case"}
    assert judged == dict.fromkeys(CASES, "fail")
    listed = json.loads(skips.read_text())["skips"]
    assert sorted(case for entry in listed for case in entry["cases"]) == sorted(CASES)


def test_counts_in_the_summary_read_as_written(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """One failure is ``1 comparison, 1 kind``, never ``1 comparisons, 1 kinds``."""
    (tmp_path / "verbatim.py").write_text(VERBATIM)
    assert main(["check", "--impl", f"python:{tmp_path / 'verbatim.py'}:odd", "--examples", "0",
                 "--no-progress", "--case", "cycle-full"]) == 1
    out = capsys.readouterr().out
    assert "not passing: 1 comparison, 1 kind of behaviour" in out
    assert "returned 1 messages" not in out and "returned 3 messages" not in out
