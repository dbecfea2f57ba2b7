"""Fuzzing for real, a bounded number of executions: each reference harness, and toy
readers via the CLI.

``RECHAIN_FUZZ_RUNS`` sets the executions per harness (default here: 300); CI
can raise it. Skipped when atheris is not installed (``pip install -e '.[fuzz]'``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from processes import outlived

from rechain.fuzz.findings import FindingStore, load_findings
from rechain.fuzz.registry import REFERENCE, Target
from rechain.fuzz.regressions import fuzz_cases, fuzz_meta
from rechain.fuzz.runner import Settings, contract_for, file_artefacts, hang_confirmed
from rechain.fuzz.triage import shrink

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("atheris") is None, reason="atheris is not installed"
)
# a campaign's size is a number of executions, never a time: the same work on a loaded
# machine; the time given with it is only a safety limit, and it ends the campaign well
# before the test gives up on the process (on a machine loaded enough to reach it, the
# campaign stops early with what it executed, and the test still asserts that was > 0)
RUNS = os.environ.get("RECHAIN_FUZZ_RUNS", "300")
SAFETY_S = 420
SAFETY = ["--time", str(SAFETY_S)]
PROCESS_TIMEOUT_S = SAFETY_S + 300
KNOWN_OPEN = {
    (meta["target"], meta["exception"])
    for meta in map(fuzz_meta, fuzz_cases())
    if meta.get("status") == "open"
}
TOY = '''
import json

def read(data: bytes) -> int:
    """Like the third-party readers that crash on non-object lines."""
    kept = 0
    for line in data.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        kept += entry.get("type") == "user"
    return kept
'''


MESSAGE_TOY = '''
import json

def read(data: bytes) -> int:
    """Like agent-history: every entry's ``message`` is taken to be an object."""
    kept = 0
    for line in data.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and "message" in entry:
            kept += entry["message"].get("role") == "user"
    return kept
'''


def _fuzz(args: list[str]) -> tuple[int, list[dict]]:
    command = [sys.executable, "-m", "rechain", "fuzz", *args, "--json"]
    done = subprocess.run(command, capture_output=True, timeout=PROCESS_TIMEOUT_S, check=False)
    assert done.returncode in (0, 1), done.stderr.decode()[-3000:]
    return done.returncode, json.loads(done.stdout)


def _runnable(target: object) -> object:
    """``glance-c`` compares the C glance with the Python one: without the C module built
    (no compiler at install) it has nothing to compare, and skips saying so."""
    from rechain.reference import parse

    if target.name == "glance-c" and parse.native_glance is None:  # type: ignore[attr-defined]
        return pytest.param(target, marks=pytest.mark.skip(reason="the C glance is not built"))
    return target


@pytest.mark.parametrize("target", [_runnable(t) for t in REFERENCE], ids=lambda t: t.name)
def test_reference_harness_fuzzes_clean(target, tmp_path):
    _, [report] = _fuzz([target.name, "--runs", RUNS, *SAFETY, "--work", str(tmp_path)])
    assert report["executions"] > 0
    unknown = {
        f["signature"]
        for f in report["findings"]
        if (target.name, f["exception"]) not in KNOWN_OPEN
    }
    # the failing inputs go into the assertion, so a CI log alone reproduces the finding
    assert _inputs(tmp_path, unknown) == {}


def _inputs(work: Path, signatures: set[str]) -> dict[str, bytes]:
    """The smallest input on record for each signature (its first 400 bytes)."""
    found: dict[str, bytes] = {}
    for record in sorted(work.rglob("findings/*.json")):
        signature = json.loads(record.read_text()).get("signature")
        if signature in signatures:
            data = record.with_suffix(".input")
            found[signature] = data.read_bytes()[:400] if data.exists() else b"?"
    return found | {s: b"?" for s in signatures - set(found)}


def test_cli_finds_and_shrinks_a_toy_readers_crash(tmp_path, monkeypatch):
    (tmp_path / "toy_reader.py").write_text(textwrap.dedent(TOY))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    temporary = tmp_path / "tmp"  # libFuzzer ends its workers with C exit(): nothing they
    temporary.mkdir()             # make may stay behind (the minimiser's launcher script)
    monkeypatch.setenv("TMPDIR", str(temporary))
    work = tmp_path / "work"
    code, [report] = _fuzz(["--target", "toy_reader:read", "--runs", "3000", *SAFETY,
                            "--work", str(work)])
    assert code == 1
    # one finding per trigger at the same site: the plain non-object line is one of them
    [finding] = [f for f in report["findings"] if f["variant"].endswith("|non-object-line")]
    assert finding["exception"] == "AttributeError"
    target = Target("toy_reader-read", "toy_reader:read")
    small = shrink(target, Settings(0, work=work), finding, seconds=900)
    assert small.suffix == ".min"
    assert len(small.read_bytes().strip()) <= 2
    assert list(temporary.iterdir()) == [] and list((work / "tmp").glob("*")) == []


def test_one_site_two_triggers_two_minimal_cases(tmp_path, monkeypatch):
    (tmp_path / "message_toy.py").write_text(textwrap.dedent(MESSAGE_TOY))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    work = tmp_path / "work"
    code, [report] = _fuzz(["--target", "message_toy:read", "--runs", "5000", *SAFETY,
                            "--work", str(work)])
    assert code == 1
    found = {f["variant"].partition("|")[2]: f for f in report["findings"]}
    assert {"message-null", "message-not-object"} <= found.keys()
    assert len({found[k]["signature"] for k in ("message-null", "message-not-object")}) == 1
    target = Target("message_toy-read", "message_toy:read")
    null = shrink(target, Settings(0, work=work), found["message-null"], seconds=900)
    other = shrink(target, Settings(0, work=work), found["message-not-object"], seconds=900)
    assert b"null" in null.read_bytes() and b"null" not in other.read_bytes()
    assert len(null.read_bytes()) < 40 and len(other.read_bytes()) < 40


SLEEPY = '''
import time

def read(data: bytes) -> None:
    """Hangs (for the test's purposes) on inputs that start with ``zz``."""
    if data.startswith(b"zz"):
        time.sleep(6)
'''


def test_a_hang_is_filed_only_if_it_hangs_again_when_replayed(tmp_path, monkeypatch):
    (tmp_path / "sleepy_toy.py").write_text(textwrap.dedent(SLEEPY))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # the replaying worker's
    monkeypatch.syspath_prepend(str(tmp_path))  # the contract's, looked up here
    target = Target("sleepy-toy", "sleepy_toy:read")
    settings = Settings(0, work=tmp_path / "work", timeout_s=2)
    contract = contract_for(target, settings)
    dirs = {"findings": tmp_path / "findings"}
    dirs["findings"].mkdir()
    hang, quick = tmp_path / "timeout-hang", tmp_path / "timeout-quick"
    hang.write_bytes(b"zz")
    quick.write_bytes(b"ok")
    assert hang_confirmed(target, settings, contract, dirs, hang)
    assert not hang_confirmed(target, settings, contract, dirs, quick)


def test_an_unconfirmed_timeout_is_set_aside_not_filed(tmp_path):
    artefacts, findings = tmp_path / "artefacts", tmp_path / "findings"
    artefacts.mkdir()
    findings.mkdir()
    (artefacts / "timeout-slow").write_bytes(b"a")
    (artefacts / "timeout-hung").write_bytes(b"b")
    store = FindingStore(findings, "toy:read")
    new = file_artefacts(artefacts, set(), store, lambda path: path.name.endswith("hung"))
    assert new == ["timeout@toy:read"]
    assert sorted(p.name for p in artefacts.iterdir()) == [
        "timeout-hung",
        "unconfirmed-timeout-slow",
    ]
    assert [f["size"] for f in load_findings(findings)] == [1]


HANGS_ON_A_SEED = '''
def read(data: bytes) -> int:
    while data == b"hang-on-this-seed-7f3a\\n":
        pass
    return len(data)
'''


def test_a_seed_that_hangs_is_set_aside_and_the_campaign_goes_on(tmp_path):
    """A hang ends the worker, and the next one starts by running the seeds again: the
    hanging seed is taken out, so the campaign gets past it instead of ending there
    (``--runs``) or stopping at it on every restart."""
    (tmp_path / "hang_toy.py").write_text(textwrap.dedent(HANGS_ON_A_SEED))
    seeds = tmp_path / "work" / "hang_toy-read" / "seeds"
    seeds.mkdir(parents=True)
    (seeds / "a").write_bytes(b'{"type":"user","uuid":"u1"}\n')
    (seeds / "b").write_bytes(b"hang-on-this-seed-7f3a\n")
    (seeds / "c").write_bytes(b'{"type":"assistant","uuid":"a1","parentUuid":"u1"}\n')
    done = _fuzz_in(tmp_path, ["--target", "hang_toy:read", "--runs", "300", "--timeout", "1",
                               *SAFETY, "--work", "work", "--json"])
    assert done.returncode == 1, done.stderr[-3000:]
    [report] = json.loads(done.stdout)
    assert [f["exception"] for f in report["findings"]] == ["timeout"]
    assert report["executions"] >= 300
    assert sorted(p.name for p in seeds.iterdir()) == ["a", "c"]


EXITS_ON_A_SEED = '''
import os

def read(data: bytes) -> int:
    if data == b"exit-on-this-seed-7f3a\\n":
        os._exit(0)
    return len(data)
'''


def test_a_target_that_ends_the_process_is_a_finding_with_its_input(tmp_path):
    """``os._exit`` in the target ends the worker with no artefact and no statistics: the
    input it was running is filed (a finding, exit 1) and the campaign goes on; before, it
    passed or said it executed nothing."""
    (tmp_path / "exit_toy.py").write_text(textwrap.dedent(EXITS_ON_A_SEED))
    seeds = tmp_path / "work" / "exit_toy-read" / "seeds"
    seeds.mkdir(parents=True)
    (seeds / "a").write_bytes(b'{"type":"user","uuid":"u1"}\n')
    (seeds / "b").write_bytes(b"exit-on-this-seed-7f3a\n")
    done = _fuzz_in(tmp_path, ["--target", "exit_toy:read", "--runs", "300", *SAFETY,
                               "--work", "work", "--json"])
    assert done.returncode == 1, done.stderr[-3000:]
    [report] = json.loads(done.stdout)
    [finding] = report["findings"]
    assert finding["exception"] == "exit"
    assert Path(finding["input_path"]).read_bytes() == b"exit-on-this-seed-7f3a\n"
    assert report["executions"] >= 300
    assert sorted(p.name for p in seeds.iterdir()) == ["a"]


def test_a_hang_says_where_the_target_was_and_is_kept_per_function(tmp_path):
    """The stack the worker dumps at a timeout names the place: the finding says it (not
    only an artefact's hash) and hangs in two functions are two findings."""
    import io

    from rechain.fuzz.runner import Report, _Reader

    dump = (b"INFO: seed corpus: files: 3\n"
            b"Current thread 0x00007f9d4f5f7b80 (most recent call first):\n"
            b'  File "/usr/lib/python3.11/json/decoder.py", line 353 in raw_decode\n'
            b'  File "/home/me/mine/loopy.py", line 17 in parse\n'
            b'  File "/x/rechain/fuzz/target.py", line 53 in __call__\n'
            b"ALARM: working on the last Unit for 3 seconds\n")
    reader = _Reader(io.BytesIO(dump), io.BytesIO(), 0.0, Report("t", "loopy:parse"))
    reader.run()
    assert reader.stuck_at == "mine/loopy.py:parse:17"
    artefacts, findings = tmp_path / "artefacts", tmp_path / "findings"
    artefacts.mkdir()
    store = FindingStore(findings, "loopy:parse")
    (artefacts / "timeout-one").write_bytes(b"a")
    assert file_artefacts(artefacts, set(), store, lambda _: True, reader.stuck_at) == [
        "timeout@mine/loopy.py:parse"]
    (artefacts / "timeout-two").write_bytes(b"b")
    assert file_artefacts(artefacts, {"timeout-one"}, store, lambda _: True,
                          "mine/loopy.py:walk:30") == ["timeout@mine/loopy.py:walk"]
    messages = sorted(f["message"] for f in load_findings(findings))
    assert messages[0].startswith("still running past the time bound at mine/loopy.py:parse:17")


def test_a_campaign_with_another_input_kind_keeps_its_own_findings(tmp_path):
    """A reader that opens files, first fuzzed with bytes by mistake: every input is a
    bad file name. Fuzzed again with ``--input path``, those are not its findings."""
    (tmp_path / "file_reader.py").write_text("def read(path):\n"
                                             "    with open(path, 'rb') as f:\n"
                                             "        return len(f.read())\n")
    common = ["--target", "file_reader:read", "--runs", "50", *SAFETY, "--work", "work",
              "--json"]
    first = _fuzz_in(tmp_path, common)
    assert json.loads(first.stdout)[0]["findings"], first.stderr[-3000:]
    again = _fuzz_in(tmp_path, [*common, "--input", "path"])
    assert again.returncode == 0, again.stderr[-3000:]
    [report] = json.loads(again.stdout)
    assert report["executions"] > 0 and report["findings"] == []


def _fuzz_in(cwd: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    command = [sys.executable, "-m", "rechain", "fuzz", *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=PROCESS_TIMEOUT_S, check=False)


def test_a_target_in_the_current_directory_is_fuzzed(tmp_path):
    (tmp_path / "toy_reader.py").write_text(textwrap.dedent(TOY))
    done = _fuzz_in(tmp_path, ["--target", "toy_reader:read", "--runs", "500", *SAFETY,
                               "--work", "work", "--json"])
    assert done.returncode == 1, done.stderr[-3000:]  # it crashes on non-object lines
    [report] = json.loads(done.stdout)
    assert report["executions"] > 0 and report["findings"]
    assert "Traceback" not in done.stderr


def test_a_campaign_with_findings_says_where_they_are_and_what_makes_them_cases(tmp_path):
    (tmp_path / "toy_reader.py").write_text(textwrap.dedent(TOY))
    done = _fuzz_in(tmp_path, ["--target", "toy_reader:read", "--runs", "500", *SAFETY,
                               "--work", "work"])
    assert done.returncode == 1, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    [where] = [line for line in lines if "findings, each input beside its record: " in line]
    findings = Path(where.split(": ", 1)[1])
    assert findings.is_absolute() and any(findings.glob("*.input"))
    [shrink] = [line.split(": ", 1)[1] for line in lines
                if line.startswith("  shrink them into replayable cases: ")]
    assert shrink.startswith(f"cd {tmp_path} && ") and shrink.endswith(
        f"--target toy_reader:read --time 0 --regressions --work {tmp_path / 'work'}")
    # as printed, from elsewhere, it reads this campaign's findings (here without writing
    # the cases: that part is the shrinking's own tests')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    again = subprocess.run(shrink.replace(" --regressions", ""), shell=True, cwd=elsewhere,
                           capture_output=True, text=True, timeout=PROCESS_TIMEOUT_S,
                           check=False, env={k: v for k, v in os.environ.items()
                                             if k != "PYTHONPATH"})
    assert again.returncode == 0, again.stderr[-3000:]  # nothing new: they are on record
    listed = [line for line in lines if line.startswith("  ") and " x" in line]
    assert [line for line in again.stdout.splitlines() if line in listed] == listed
    # each finding names its input file, and a trigger where it has one
    assert all(line.endswith(".input)") for line in listed)
    assert any(" [non-object-line] x" in line for line in listed)


@pytest.mark.parametrize(("target", "why", "more"), [
    ("no_such_module_here:read", "cannot import no_such_module_here: ModuleNotFoundError", []),
    ("toy_reader:nope", "toy_reader has no function nope", []),
    # every input would fail in the harness' call, never reaching the reader
    ("toy_reader:no_input", "no_input cannot take one input", []),
    ("toy_reader:four_inputs", "four_inputs cannot take one input", []),
    # rechain check takes a path; fuzz imports a module: it says how, from where
    ("toy_reader.py:read", "a module name, not a file: from ", []),
    # every worker would die importing it: a campaign that runs nothing
    ("toy_reader:read", "--allow ValueErr is not an exception type", ["--allow", "ValueErr"]),
    ("toy_reader:read", "--allow no.Error is not an exception type", ["--allow", "no.Error"]),
    ("toy_reader:read", "--allow json.loads is not an exception type", ["--allow", "json.loads"]),
])
def test_a_target_that_cannot_run_is_one_line_before_any_worker(tmp_path, target, why, more):
    signatures = ("\ndef no_input():\n    return 0\n\n"
                  "def four_inputs(data, session_id, options, more):\n    return 0\n")
    (tmp_path / "toy_reader.py").write_text(textwrap.dedent(TOY) + signatures)
    done = _fuzz_in(tmp_path, ["--target", target, "--runs", "10", "--work", "work", *more])
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"rechain: error: --target {target}: {why}")
    assert not (tmp_path / "work").exists()  # no worker started, nothing prepared


def test_a_reader_written_for_check_is_fuzzed_as_it_is(tmp_path):
    """``read(data, session_id, options)``, the function ``rechain check --impl python:``
    calls, is fuzzed without a wrapper (which would leave its module uninstrumented): it
    gets a session id and empty options with each input, and its own crash is found."""
    reader = textwrap.dedent(TOY).replace("def read(data: bytes) -> int:",
                                           "def read(data, session_id, options):\n"
                                           "    assert session_id and options == {}")
    (tmp_path / "toy_reader.py").write_text(reader)
    done = _fuzz_in(tmp_path, ["--target", "toy_reader:read", "--runs", "500", *SAFETY,
                               "--work", "work", "--json"])
    assert done.returncode == 1, done.stderr[-3000:]
    [report] = json.loads(done.stdout)
    assert report["executions"] > 0 and report["findings"]
    found = {f["exception"] for f in report["findings"]}
    assert "AttributeError" in found and "AssertionError" not in found, found


def test_a_target_with_a_documented_exception_is_fuzzed(tmp_path):
    (tmp_path / "toy_reader.py").write_text(textwrap.dedent(TOY))
    done = _fuzz_in(tmp_path, ["--target", "toy_reader:read", "--runs", "50", *SAFETY,
                               "--work", "work", "--allow", "AttributeError", "--json"])
    [report] = json.loads(done.stdout)
    assert report["executions"] > 0, done.stderr[-3000:]
    assert all(f["exception"] != "AttributeError" for f in report["findings"])


@pytest.mark.parametrize("command", [["--target", "toy_reader:read"], ["--replay"]])
def test_a_venv_that_is_not_one_is_one_line(tmp_path, command):
    (tmp_path / "toy_reader.py").write_text(textwrap.dedent(TOY))
    done = _fuzz_in(tmp_path, [*command, "--venv", "no-venv-here", "--work", "work"])
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("rechain: error: --venv no-venv-here: not a venv")


def test_a_campaign_that_executed_nothing_fails_and_says_why(tmp_path):
    (tmp_path / "needs_config.py").write_text(textwrap.dedent('''
        import json
        CONFIG = json.load(open("config.json"))  # found where the user runs, not elsewhere

        def read(data: bytes) -> int:
            return len(data)
    '''))
    (tmp_path / "config.json").write_text("{}")
    done = _fuzz_in(tmp_path, ["--target", "needs_config:read", "--runs", "10", *SAFETY,
                               "--work", "work"])
    assert done.returncode == 1
    assert "needs_config-read executed nothing: FileNotFoundError" in done.stderr


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_a_runner_killed_outright_takes_its_worker_with_it(tmp_path, monkeypatch):
    """A CI step's timeout SIGKILLs ``rechain fuzz``: its worker must not fuzz on, orphaned."""
    (tmp_path / "toy_reader.py").write_text(textwrap.dedent(TOY))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    log = tmp_path / "work" / "toy_reader-read" / "worker.log"
    command = [sys.executable, "-m", "rechain", "fuzz", "--target", "toy_reader:read",
               "--time", "600", "--work", str(tmp_path / "work"), "--json"]
    runner = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # the worker is up once libFuzzer has written to its log
    started = lambda _: log.exists() and log.stat().st_size > 0  # noqa: E731
    assert not outlived(runner, started), "the worker outlived its runner"


def test_findings_are_filed_one_by_one_and_replay_as_printed_from_elsewhere(
        tmp_path, monkeypatch, capsys):
    """``--regressions`` says which finding it is shrinking as it goes (each may take its
    whole budget), and each case's printed replay runs from another directory."""
    from cli_run import run

    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "toy_reader.py").write_text(textwrap.dedent(TOY))
    store = FindingStore(tmp_path / "work" / "toy_reader-read" / "findings", "toy_reader:read")
    for data in (b"[1]\n", b"42\n"):
        try:
            json.loads(data).get("type")
        except AttributeError as error:
            from rechain.fuzz.contract import failure_of
            store.record(failure_of(error), data)
    monkeypatch.setattr("rechain.fuzz.regressions.regressions_root", lambda: tmp_path / "regs")
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.chdir(tmp_path / "mine")
    code, out, err = run(capsys, "fuzz", "--target", "toy_reader:read", "--time", "0",
                         "--regressions", "--work", str(tmp_path / "work"),
                         "--shrink-seconds", "5")
    assert code == 0, err
    said = [line for line in err.splitlines() if line.startswith("rechain: shrinking finding")]
    assert said and said[0].startswith(f"rechain: shrinking finding 1 of {len(said)} (up to 5 s)")
    replays = re.findall(r"\(replay: `(.+)`\)", out)
    assert replays
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    for printed in replays:
        argv = shlex.split(printed)
        code, again, err = run(capsys, *argv[argv.index("fuzz"):])
        assert (code, again.split()[0]) == (0, "reproduced"), again + err
