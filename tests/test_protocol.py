"""The reader protocol: value classes, schemas, and the three tiers driven by fake readers.

Fake readers ("fauxmplementations", after Bowtie) misbehave on purpose, one way
each, so every path of the runner (answer, raise, skip, crash, hang, garbage,
memory) is shown to be recorded for that case while the run goes on.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from rechain.cli import main
from rechain.conformance.impls import Validating, connect, nearest_message
from rechain.conformance.protocol import (
    Answered,
    CaseInput,
    Crashed,
    ImplementationInfo,
    ProtocolError,
    Raised,
    Skipped,
    TimedOut,
    outcome_from_result,
    parse_run_reply,
    parse_start_reply,
    run_request,
    schema_problem,
)
from rechain.conformance.protocol_process import Harness, Limits, OneShot
from rechain.errors import UsageError
from rechain.strategies import rows

SID = "0b4f6f1e-3c2a-4d5e-9f00-123456789abc"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def row(kind: str, uuid: str, parent: str | None) -> bytes:
    message = rows.user_message("hi") if kind == "user" else rows.assistant_message(
        [rows.text("ok")])
    return rows.line({"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": SID,
                      "message": message})


EXCHANGE = row("user", "u1", None) + row("assistant", "a1", "u1")
CASE = CaseInput("c1", EXCHANGE, SID)

# One tier-2 harness whose misbehaviour is chosen by argv[1]; each case id picks a
# behaviour of that case: "ok", "hang", "die", "garbage", "wrong-seq", "skip",
# "errored", "hog" (allocates memory until stopped), "flood" (writes a reply line without
# end, then stderr likewise), "no-uuid".
HARNESS = textwrap.dedent('''
    import base64, json, os, sys, time
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    def out(obj):
        print(json.dumps(obj), flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        if req["cmd"] == "start":
            if mode == "bad-start":
                out({"version": 99})
            else:
                out({"version": 1, "implementation": {"name": "faux", "version": "1",
                     "language": "python", "options": ["limit"]}})
            continue
        if req["cmd"] == "stop":
            break
        case = req["case"]
        what = case["id"]
        env_leak = sorted(k for k in os.environ if k.startswith(("CLAUDE", "ANTHROPIC")))
        data = base64.b64decode(case["transcript_b64"])
        msgs = [{"type": "user", "uuid": "u1", "session_id": case["session_id"],
                 "leak": env_leak, "size": len(data)}]
        if what == "hang":
            time.sleep(60)
        elif what == "die":
            sys.exit(3)
        elif what == "garbage":
            print("this is not json", flush=True)
        elif what == "wrong-seq":
            out({"seq": req["seq"] + 100, "result": {"messages": []}})
        elif what == "skip":
            out({"seq": req["seq"], "skipped": True, "message": "not mine",
                 "issue_url": "https://example.invalid/1"})
        elif what == "errored":
            out({"seq": req["seq"], "errored": True, "context": {"message": "boom"}})
        elif what == "hog":
            hog = []
            while True:
                hog.append(bytearray(50 * 1024 * 1024))
                time.sleep(0.01)
        elif what == "flood":
            sys.stderr.write("flooding stdout\\n")
            sys.stderr.flush()
            while True:
                sys.stdout.write("y" * 65536)
                sys.stdout.flush()
        elif what == "no-uuid":
            out({"seq": req["seq"], "result": {"messages": [{"type": "user"}]}})
        else:
            out({"seq": req["seq"], "result": {"messages": msgs}})
''')


@pytest.fixture
def harness_script(tmp_path: Path) -> Path:
    path = tmp_path / "faux_harness.py"
    path.write_text(HARNESS)
    return path


def harness(script: Path, mode: str = "ok", **limits: float) -> Harness:
    return Harness([sys.executable, str(script), mode], Limits(**limits))  # type: ignore[arg-type]


# --- value classes and schemas --------------------------------------------------------------


def test_info_round_trips_through_json():
    info = ImplementationInfo("x", "1.2", "go", views=("api", "chain"), fields=frozenset({"uuid"}),
                              options=frozenset({"limit"}), env=frozenset({"A"}),
                              choices={"leaf": "last row"})
    again = ImplementationInfo.from_json(info.to_json())
    assert again == info
    assert schema_problem(info.to_json(), "implementation") is None


def test_info_declines_options_and_env_it_does_not_claim():
    info = ImplementationInfo("x", "1", "go", options=frozenset({"limit"}))
    assert info.unsupported(CASE) is None
    system = CaseInput("c", b"", SID, {"include_system_messages": True, "limit": None, "offset": 0})
    assert "include_system_messages" in str(info.unsupported(system))
    env = CaseInput("c", b"", SID, env={"CLAUDE_CODE_DISABLE_PRECOMPACT_SKIP": "1"})
    assert "CLAUDE_CODE_DISABLE_PRECOMPACT_SKIP" in str(info.unsupported(env))
    paged = CaseInput("c", b"", SID, {"include_system_messages": False, "limit": 1, "offset": 0})
    assert info.unsupported(paged) is None


def test_run_request_is_valid_and_keeps_bytes_exact():
    data = b"\xff\xfe\r\n\x00{}"
    request = run_request(7, CaseInput("c", data, SID))
    assert schema_problem(request, "run_request") is None
    import base64

    assert base64.b64decode(request["case"]["transcript_b64"]) == data


def test_results_of_every_shape():
    assert outcome_from_result([{"type": "user", "uuid": "u"}]) == Answered(
        ({"type": "user", "uuid": "u"},))
    assert outcome_from_result({"raised": {"type": "KeyError", "message": "x"}}) == Raised(
        "KeyError", "x")
    assert isinstance(outcome_from_result({"raised": "oops"}), Crashed)
    assert isinstance(outcome_from_result({"messages": "nope"}), Crashed)
    assert isinstance(outcome_from_result(42), Crashed)
    strict = outcome_from_result({"messages": [{"type": "user"}]}, strict=True)
    assert isinstance(strict, Crashed) and "result.json" in strict.message


def test_run_replies_of_every_shape():
    assert parse_run_reply({"seq": 1, "skipped": True, "message": "m"}, 1) == Skipped("m")
    errored = parse_run_reply({"seq": 1, "errored": True, "context": {"message": "b"}}, 1)
    assert isinstance(errored, Crashed) and errored.caught
    assert isinstance(parse_run_reply({"seq": 2, "result": []}, 1), Crashed)
    assert isinstance(parse_run_reply({"seq": 1}, 1), Crashed)
    assert isinstance(parse_run_reply({"seq": 1, "result": [], "x": 1}, 1), Answered)


def test_start_reply_with_unknown_version_is_refused():
    with pytest.raises(ProtocolError, match="version"):
        parse_start_reply({"version": 2, "implementation": {"name": "a", "version": "1",
                                                            "language": "c"}})


# --- tier 2 ---------------------------------------------------------------------------------


def test_harness_answers_and_sees_the_case(harness_script, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", "/should/not/leak")
    reader = harness(harness_script)
    try:
        assert reader.info.slug == "faux@1"
        outcome = reader.run(CASE)
        assert isinstance(outcome, Answered)
        message = outcome.messages[0]
        assert message["session_id"] == SID and message["size"] == len(EXCHANGE)
        assert message["leak"] == []
    finally:
        reader.close()


@pytest.mark.parametrize(("case_id", "kind", "caught"), [
    ("die", Crashed, False),
    ("garbage", Crashed, False),
    ("wrong-seq", Crashed, False),
    ("errored", Crashed, True),
])
def test_harness_failures_are_recorded_and_the_next_case_runs(harness_script, case_id, kind,
                                                             caught):
    reader = harness(harness_script)
    try:
        outcome = reader.run(CaseInput(case_id, EXCHANGE, SID))
        assert isinstance(outcome, kind)
        assert outcome.caught is caught
        assert isinstance(reader.run(CASE), Answered)
        assert reader.restarts == (0 if caught else 1)
    finally:
        reader.close()


def test_a_harness_hang_times_out_and_the_next_case_runs(harness_script):
    reader = harness(harness_script, timeout=5.0)
    try:
        assert isinstance(reader.run(CaseInput("hang", EXCHANGE, SID)), TimedOut)
        assert isinstance(reader.run(CASE), Answered)
    finally:
        reader.close()


def test_harness_over_the_memory_limit_is_killed(harness_script):
    reader = Harness([sys.executable, str(harness_script)],
                     Limits(timeout=30.0, memory_mb=300))
    try:
        outcome = reader.run(CaseInput("hog", EXCHANGE, SID))
        assert isinstance(outcome, Crashed) and "memory limit" in outcome.message
        assert isinstance(reader.run(CASE), Answered)
    finally:
        reader.close()


def test_a_harness_reply_line_without_end_is_a_crash_at_the_memory_limit(harness_script):
    """A reply line is held by rechain while it is read: past the reader's memory limit it
    is a crash of that case, not a timeout after gigabytes (and the next case runs)."""
    reader = Harness([sys.executable, str(harness_script)], Limits(timeout=60.0, memory_mb=64))
    try:
        outcome = reader.run(CaseInput("flood", EXCHANGE, SID))
        assert isinstance(outcome, Crashed), outcome
        assert outcome.message == "reply line past the memory limit of 64 MiB"
        assert "flooding stdout" in outcome.stderr
        assert isinstance(reader.run(CASE), Answered)
    finally:
        reader.close()


def test_harness_skip_is_passed_on(harness_script):
    reader = harness(harness_script)
    try:
        assert reader.run(CaseInput("skip", EXCHANGE, SID)) == Skipped(
            "not mine", "https://example.invalid/1")
    finally:
        reader.close()


def test_harness_with_a_bad_start_is_a_usage_error(harness_script):
    with pytest.raises(UsageError, match="start reply breaks the protocol"):
        connect(f"harness:{sys.executable} {harness_script} bad-start")


def test_validating_turns_schema_breaks_into_crashes(harness_script):
    reader = Validating(harness(harness_script))
    try:
        outcome = reader.run(CaseInput("no-uuid", EXCHANGE, SID))
        assert isinstance(outcome, Crashed) and "result.json" in outcome.message
    finally:
        reader.close()


# --- tier 1 and tier 0 ------------------------------------------------------------------------


def oneshot(tmp_path: Path, body: str, *args: str, **limits: float) -> OneShot:
    script = tmp_path / "oneshot.py"
    script.write_text(textwrap.dedent(body))
    info = ImplementationInfo("one", "1", "python")
    return OneShot([sys.executable, str(script), *args], info, Limits(**limits))  # type: ignore[arg-type]


def test_oneshot_reads_stdin_or_path_and_gets_the_options(tmp_path):
    body = """
        import json, os, sys
        data = open(sys.argv[1], "rb").read() if len(sys.argv) > 1 else sys.stdin.buffer.read()
        case = json.loads(os.environ["RECHAIN_CASE"])
        print(json.dumps([{"type": "user", "uuid": str(len(data)),
                           "limit": case["options"]["limit"]}]))
    """
    paged = CaseInput("c", EXCHANGE, SID, {"include_system_messages": False, "limit": 3,
                                          "offset": 0})
    for reader in (oneshot(tmp_path, body), oneshot(tmp_path, body, "{path}")):
        outcome = reader.run(paged)
        assert isinstance(outcome, Answered)
        assert outcome.messages[0] == {"type": "user", "uuid": str(len(EXCHANGE)), "limit": 3}


def test_oneshot_exit_codes_timeouts_and_garbage(tmp_path):
    rejects = oneshot(tmp_path, "import sys; sys.stderr.write('bad file\\n'); sys.exit(4)")
    assert rejects.run(CASE) == Raised("exit 4", "bad file")
    garbage = oneshot(tmp_path, "print('hello')")
    assert isinstance(garbage.run(CASE), Crashed)
    slow = oneshot(tmp_path, "import time; time.sleep(30)", timeout=0.5)
    assert isinstance(slow.run(CASE), TimedOut)
    killed = oneshot(tmp_path, "import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    outcome = killed.run(CASE)
    assert isinstance(outcome, Crashed) and "signal 9" in outcome.message


def test_oneshot_output_without_end_is_bounded_in_memory_and_in_time(tmp_path):
    """A reader that prints without end (``yes``) is a crash once its stdout passes the
    memory limit, and one that floods stderr while it hangs times out on time: rechain
    keeps neither whole (before, ``cmd:yes`` grew rechain by gigabytes, past the limit)."""
    endless = "import sys\nwhile True: sys.stdout.buffer.write(b'y' * 65536)\n"
    outcome = oneshot(tmp_path, endless, timeout=60.0, memory_mb=64).run(CASE)
    assert isinstance(outcome, Crashed)
    assert outcome.message == "stdout past the memory limit of 64 MiB"
    noisy = "import sys\nwhile True: sys.stderr.buffer.write(b'e' * 65536 + b'\\n')\n"
    outcome = oneshot(tmp_path, noisy, timeout=1.0, memory_mb=64).run(CASE)
    assert outcome == TimedOut(1.0)


def test_oneshot_answer_is_kept_when_a_child_it_left_holds_the_pipes(tmp_path):
    """A reader that answers and exits, leaving a child running with its stdout and stderr
    (a daemon it started), is judged on what it wrote: it did answer in time."""
    body = """
        import json, subprocess, sys
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        print(json.dumps([{"type": "user", "uuid": "u1"}]), flush=True)
    """
    outcome = oneshot(tmp_path, body, timeout=20.0).run(CASE)
    assert outcome == Answered(({"type": "user", "uuid": "u1"},)), outcome


SIGNATURES = textwrap.dedent("""
    def _answer(data, session_id, options):
        return [{"type": "user", "uuid": session_id, "limit": options.get("limit")}]
    def keywords(data, **kwargs): return _answer(data, "one", {})
    def keyword_only(data, *, strict=False): return _answer(data, "one", {})
    def star(*args): return _answer(*args)
    def defaults(data, session_id=None, options=None): return _answer(data, session_id, options)
    class Reader:
        def read(self, data, session_id, options): return _answer(data, session_id, options)
    bound = Reader().read
    def four(data, session_id, options, more): return []
    def nothing(): return []
    def needs_a_keyword(data, *, mode): return []
""")


@pytest.mark.parametrize(("function", "uuid"), [
    ("keywords", "one"), ("keyword_only", "one"), ("star", SID), ("defaults", SID),
    ("bound", SID),
])
def test_a_python_reader_is_called_with_what_its_signature_takes(tmp_path, function, uuid):
    """``**kwargs`` and keyword-only parameters take no positional argument: a reader
    ``read(data, **kw)`` gets the bytes alone, not a TypeError on every case."""
    (tmp_path / "signatures.py").write_text(SIGNATURES)
    reader = connect(f"python:{tmp_path / 'signatures.py'}:{function}")
    try:
        outcome = reader.run(CASE)
    finally:
        reader.close()
    assert isinstance(outcome, Answered), outcome
    assert [m["uuid"] for m in outcome.messages] == [uuid]


@pytest.mark.parametrize("function", ["four", "nothing", "needs_a_keyword"])
def test_a_python_reader_that_cannot_take_the_arguments_is_a_usage_error(tmp_path, function):
    (tmp_path / "signatures.py").write_text(SIGNATURES)
    with pytest.raises(UsageError, match=rf"signatures\.{function} must take \(data, "
                                         r"session_id, options\).*; it takes \("):
        connect(f"python:{tmp_path / 'signatures.py'}:{function}")


def test_python_callable_raising_is_an_answer(tmp_path):
    module = tmp_path / "faux_tier0.py"
    module.write_text(textwrap.dedent("""
        RECHAIN_INFO = {"name": "tier0", "version": "2", "options": ["limit", "offset"]}
        def read(data, session_id, options):
            if b"boom" in data:
                raise ValueError("boom")
            return [{"type": "user", "uuid": session_id}]
        def slow(data):
            import time
            time.sleep(5)
            return []
    """))
    reader = connect(f"python:{module}:read", Limits())
    try:
        assert reader.info.slug == "tier0@2"
        assert reader.info.options == frozenset({"limit", "offset"})
        assert reader.run(CASE) == Answered(({"type": "user", "uuid": SID},))
        assert reader.run(CaseInput("c", b"boom", SID)) == Raised("ValueError", "boom")
    finally:
        reader.close()
    slow = connect(f"python:{module}:slow", Limits(timeout=0.2))
    try:
        assert isinstance(slow.run(CASE), TimedOut)
    finally:
        slow.close()


def test_unknown_specs_are_usage_errors():
    with pytest.raises(UsageError, match="unknown implementation"):
        connect("nonsense")
    with pytest.raises(UsageError, match="MODULE:FUNCTION"):
        connect("python:justamodule")
    with pytest.raises(UsageError, match="cannot import"):
        connect("python:no_such_module_here:f")


@pytest.mark.parametrize(("command", "why"), [
    ("./no-such-reader --json", "cannot start ./no-such-reader: No such file or directory"),
    ("no-such-reader-on-path", "cannot start no-such-reader-on-path: not found on PATH"),
    ("{here}", "cannot start {here}: not an executable file"),
])
def test_a_one_shot_reader_that_cannot_start_is_a_usage_error(tmp_path, monkeypatch, command,
                                                              why):
    """Said once before the run, as for a harness, not as a crash of every case."""
    monkeypatch.chdir(tmp_path)
    for kind in ("cmd", "cmd[api,chain]"):
        spec = f"{kind}:{command.format(here=tmp_path)}"
        with pytest.raises(UsageError) as raised:
            connect(spec)
        assert str(raised.value) == f"{spec}: {why.format(here=tmp_path)}"


def test_a_one_shot_reader_started_by_an_interpreter_or_per_case_path_connects(tmp_path):
    reader = tmp_path / "reader.py"
    reader.write_text("import sys; sys.stdin.buffer.read(); print('[]')\n")
    for spec in (f"cmd:{sys.executable} {reader}", "cmd:{path}"):
        connect(spec).close()


def test_reference_reports_reader_errors_as_raised():
    reference = connect("reference")
    boundary = json.dumps({"type": "system", "subtype": "compact_boundary", "uuid": "b",
                           "parentUuid": None, "compactMetadata": {"preservedMessages": {
                               "anchorUuid": "u1"}}}).encode() + b"\n"
    outcome = reference.run(CaseInput("c", EXCHANGE + boundary, SID))
    assert isinstance(outcome, Raised) and outcome.type == "TypeError"


def test_nearest_message_walks_up_from_a_system_row():
    data = EXCHANGE + json.dumps({"type": "system", "uuid": "s1", "parentUuid": "a1"}).encode()
    assert nearest_message(data, "s1") == "a1"
    assert nearest_message(data, "u1") == "u1"
    assert nearest_message(data, None) is None


# --- the shipped examples ---------------------------------------------------------------------


@pytest.mark.parametrize("spec", [
    f"harness:{sys.executable} {EXAMPLES / 'naive_reader.py'}",
    f"cmd:{sys.executable} {EXAMPLES / 'oneshot_reader.py'}",
])
def test_the_examples_pass_smoke(spec, capsys):
    assert main(["smoke", "--impl", spec]) == 0
    assert "the harness works" in capsys.readouterr().out


def test_smoke_fails_a_broken_harness(tmp_path, capsys):
    script = tmp_path / "broken.py"
    script.write_text("import sys, json\nprint(json.dumps({'messages': 'x'}))\n")
    assert main(["smoke", "--impl", f"cmd:{sys.executable} {script}"]) == 1
    assert "broken harness or host" in capsys.readouterr().out


def test_naive_example_is_about_fifty_lines():
    lines = (EXAMPLES / "naive_reader.py").read_text().splitlines()
    assert len(lines) <= 60
