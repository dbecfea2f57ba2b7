"""Regression cases from fuzzing: valid corpus cases, and each replays as its status says.

``fixed``: the target must now pass. ``open``: the target still fails the
same way (a third-party reader's known crash, or a reference bug not fixed
yet: an expected failure that turns into an error once it passes, so the
case gets flipped to ``fixed``). Third-party cases need the reader's venv
(``rechain fuzz --install NAME``) and are skipped without it.
"""

from __future__ import annotations

import json
import os
import sys

import pytest
from cli_run import run

from rechain.cache import cache_dir
from rechain.corpus.lint import lint_cases
from rechain.fuzz.registry import TARGETS, venv_name
from rechain.fuzz.regressions import (
    fuzz_cases,
    fuzz_meta,
    regressions_root,
    replay_one,
    write_regression,
)
from rechain.fuzz.runner import Settings, environment

CASES = fuzz_cases()


def test_regression_cases_are_valid_corpus_cases():
    if not CASES:
        pytest.skip("no regression cases yet")
    assert [str(p) for p in lint_cases(regressions_root())] == []


def test_regression_cases_carry_their_replay_data():
    for directory in CASES:
        meta = fuzz_meta(directory)
        assert meta["target"] in TARGETS, directory.name
        assert meta["status"] in ("open", "fixed"), directory.name
        assert meta["exception"] and meta["signature"] and meta["version"], directory.name


@pytest.mark.parametrize("directory", CASES, ids=lambda p: p.name)
def test_regression_replays_as_recorded(directory, tmp_path):
    meta = fuzz_meta(directory)
    target = TARGETS[meta["target"]]
    python, env = sys.executable, None
    if target.third_party:
        venv = cache_dir() / "fuzz-venvs" / venv_name(target)
        if not (venv / "bin" / "python").exists():
            pytest.skip(f"no venv for {target.name}: rechain fuzz --install {target.name}")
        python = str(venv / "bin" / "python")
        env = environment(target, Settings(0, venv=venv, work=tmp_path))  # own shim and HOME
    outcome = replay_one(directory, python, env)
    if meta["status"] == "open" and not target.third_party:
        if outcome.verdict == "FIXED":
            pytest.fail(f"{directory.name} passes now: set provenance.fuzz.status to 'fixed'")
        pytest.xfail(f"open reference bug: {meta['exception']} ({outcome.verdict})")
    assert outcome.verdict in ("ok", "reproduced"), outcome


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_every_target_gets_case_ids_the_case_schema_accepts(target: str) -> None:
    """Target names hold dots (``rebuild-claude-code-2.1.88``); case ids are kebab-case."""
    import re

    from rechain.fuzz.regressions import case_id
    from rechain.schema_files import load_schema

    rule = load_schema("case")["properties"]["id"]
    made = case_id(target, "builtins.TypeError", b"{}")
    assert re.fullmatch(rule["pattern"], made) and len(made) <= rule["maxLength"], made


def test_replaying_a_case_that_is_not_there_is_one_line(capsys):
    code, out, err = run(capsys, "fuzz", "--replay", "no-such-case")
    assert code == 2 and out == ""
    [line] = err.strip().splitlines()
    assert line.startswith("rechain: error: --replay: no regression case no-such-case in ")
    assert str(regressions_root()) in line


BOOM = '''
def read(data: bytes) -> int:
    """Fails on the one input the case holds."""
    if data.startswith(b"boom"):
        raise LookupError("boom")
    return len(data)
'''


def test_a_users_case_replays_as_printed_from_another_directory(tmp_path, capsys, monkeypatch):
    """A ``--target`` found in the directory its campaign started in: the printed replay
    command (``rechain fuzz --replay ID``) runs it from anywhere, and once the module is
    gone it says so in a line, not a traceback."""
    (tmp_path / "mine").mkdir()
    module = tmp_path / "mine" / "boom_reader.py"
    module.write_text(BOOM)
    finding = {"exception": "LookupError", "where": "boom_reader.py:read:5", "message": "boom",
               "signature": "LookupError@boom_reader.py:read:5", "target": "boom_reader:read"}
    case = write_regression("boom_reader-read", finding, b"boom\n", "0", root=tmp_path / "regs",
                            paths=(tmp_path / "mine",))
    monkeypatch.setattr("rechain.fuzz.regressions.regressions_root", lambda: tmp_path / "regs")
    monkeypatch.delenv("PYTHONPATH", raising=False)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    printed = fuzz_meta(case)["replay"].split()
    assert printed[:3] == ["rechain", "fuzz", "--replay"]
    code, out, _ = run(capsys, *printed[1:])
    assert (code, out.split()[:2]) == (0, ["reproduced", case.name])
    module.unlink()
    code, out, _ = run(capsys, *printed[1:])
    assert code == 1
    [line] = out.strip().splitlines()
    assert line.startswith(f"ERROR      {case.name}: the replay ran nothing: ")
    assert "boom_reader" in line


def test_cases_are_written_to_the_cache_when_rechain_is_an_installed_package(
        tmp_path, monkeypatch):
    monkeypatch.setenv("RECHAIN_CACHE", str(tmp_path / "cache"))
    checkout = tmp_path / "checkout" / "corpus" / "regressions"
    installed = tmp_path / "lib" / "site-packages" / "rechain" / "corpus" / "regressions"
    locked = tmp_path / "locked" / "regressions"
    for folder in (checkout, installed, locked):
        folder.mkdir(parents=True)
    locked.chmod(0o555)
    try:
        assert regressions_root(checkout) == checkout  # a source checkout: commit them there
        assert regressions_root(installed) == tmp_path / "cache" / "fuzz-regressions"
        if not os.access(locked, os.W_OK):  # (root may write anywhere)
            assert regressions_root(locked) == tmp_path / "cache" / "fuzz-regressions"
    finally:
        locked.chmod(0o755)


def test_a_case_written_again_keeps_the_day_it_was_first_found(tmp_path):
    finding = {"exception": "LookupError", "where": "boom_reader.py:read:5", "message": "boom",
               "signature": "LookupError@boom_reader.py:read:5", "target": "boom_reader:read"}
    case = write_regression("boom_reader-read", finding, b"boom\n", "0", root=tmp_path)
    record = json.loads((case / "case.json").read_text())
    record["provenance"]["fuzz"]["found"] = "2026-01-02"
    (case / "case.json").write_text(json.dumps(record))
    again = write_regression("boom_reader-read", finding, b"boom\n", "1", root=tmp_path)
    assert again == case
    meta = fuzz_meta(case)
    assert (meta["found"], meta["version"]) == ("2026-01-02", "1")


HANG = "def read(data):\n    while True:\n        pass\n"
# bounded, so a replay without a memory cap ends too (and says FIXED, not reproduced)
BLOW_UP = "def read(data):\n    kept = []\n    for _ in range(1500):\n" \
          "        kept.append(bytearray(1 << 20))\n    return len(kept)\n"


EXIT = "import os\n\ndef read(data):\n    os._exit(3)\n"


@pytest.mark.parametrize(("source", "exception", "bounds"), [
    (HANG, "timeout", {"timeout_s": 1}),
    (BLOW_UP, "oom", {"rss_mb": 200}),
    (EXIT, "exit", {}),
], ids=["hang", "blow-up", "exit"])
def test_a_hang_or_blow_up_case_replays_within_its_campaigns_bounds(
        tmp_path, capsys, monkeypatch, source, exception, bounds):
    """A hang or memory blow-up filed by a campaign replays under that campaign's bounds:
    the hang is stopped and reported as one (not a traceback after the safety limit), the
    blow-up meets the memory cap (not the machine's memory)."""
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "runaway.py").write_text(source)
    finding = {"exception": exception, "where": "runaway:read", "message": "libFuzzer artefact",
               "signature": f"{exception}@runaway:read", "target": "runaway:read"}
    case = write_regression("runaway-read", finding, b"{}\n", "0", root=tmp_path / "regs",
                            paths=(tmp_path / "mine",), bounds=bounds)
    monkeypatch.setattr("rechain.fuzz.regressions.regressions_root", lambda: tmp_path / "regs")
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "fuzz", "--replay", case.name)
    assert (code, out.split()[:2]) == (0, ["reproduced", case.name]), out + err
