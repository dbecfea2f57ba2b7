"""A case that holds several findings describes them all, not the first one's message."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from rechain.corpus.cases_io import load_case
from rechain.fuzz.case_notes import NOTES_MAX, notes
from rechain.fuzz.contract import failure_of
from rechain.fuzz.findings import FindingStore, load_findings
from rechain.fuzz.registry import Target
from rechain.fuzz.runner import Settings
from rechain.fuzz.triage import file_findings

TOY = '''
import json

def read(data: bytes) -> int:
    kept = 0
    for line in data.splitlines():
        kept += json.loads(line).get("type") == "user"
    return kept
'''


def _finding(message: str, count: int = 1, where: str = "r.py:read:3") -> dict:
    return {"exception": "AttributeError", "message": message, "count": count,
            "where": where, "signature": f"AttributeError@{where}"}


def test_one_finding_keeps_its_message() -> None:
    assert notes([_finding("'int' object has no attribute 'get'")]) == (
        "AttributeError: 'int' object has no attribute 'get'")


def test_several_say_what_they_share_how_many_and_each_message() -> None:
    said = notes([_finding("'int' object has no attribute 'get'", 5),
                  _finding("'list' object has no attribute 'get'", 2),
                  _finding("'int' object has no attribute 'get'", 1)])
    assert said == ("3 findings, all AttributeError at r.py:read:3; 2 distinct messages: "
                    "\"'int' object has no attribute 'get'\" x6; "
                    "\"'list' object has no attribute 'get'\" x2")


def test_many_messages_stay_within_the_bound_and_say_how_many_are_left() -> None:
    findings = [_finding(f"message number {n} " + "x" * 200, where=f"r.py:read:{n}")
                for n in range(30)]
    said = notes(findings)
    assert len(said) <= NOTES_MAX
    assert said.startswith("30 findings, all AttributeError; 30 distinct messages: ")
    shown = said.count("message number")
    assert said.endswith(f"; … and {30 - shown} more") and shown >= 1


def test_findings_of_one_variant_make_one_case_that_names_both(tmp_path, monkeypatch) -> None:
    """A record filed before its trigger was known (``int`` line) and one filed with it
    (``list`` line) are one variant (``non-object-line``): one case, both messages."""
    (tmp_path / "two_kinds.py").write_text(textwrap.dedent(TOY))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setattr("rechain.fuzz.regressions.regressions_root", lambda: tmp_path / "regs")
    store = FindingStore(tmp_path / "work" / "two_kinds-read" / "findings", "two_kinds:read")
    import two_kinds

    for data, key in ((b"1\n", None), (b"[1]\n", "non-object-line")):
        try:
            two_kinds.read(data)
        except AttributeError as error:
            failure = failure_of(error)
            store.record(failure, data, key=failure.signature + (f"|{key}" if key else ""))
    findings = load_findings(store.directory)
    assert len(findings) == 2
    target = Target("two_kinds-read", "two_kinds:read", user=True)
    settings = Settings(0, work=tmp_path / "work", paths=(tmp_path,))
    [case] = file_findings(target, settings, findings, 5)
    provenance = load_case(case).provenance
    assert provenance["notes"].startswith("2 findings, all AttributeError at ")
    assert "'int' object has no attribute 'get'" in provenance["notes"]
    assert "'list' object has no attribute 'get'" in provenance["notes"]
    assert "(2 findings)" in json.loads((case / "case.json").read_text())["description"]


if sys.platform != "linux":  # pragma: no cover - the shrinking workers need Linux here
    pytestmark = pytest.mark.skip(reason="Linux only")
