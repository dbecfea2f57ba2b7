"""The pytest plugin: corpus cases as items of a reader's own test run."""

from __future__ import annotations

import subprocess
import textwrap
from importlib.metadata import entry_points

import pytest

from rechain.cache import cache_dir

pytest_plugins = ["pytester"]
PLUGIN = "rechain.conformance.pytest_plugin"
# Once installed with its pytest11 entry point the plugin loads by itself; -p again would
# register it twice.
AUTOLOADED = any(ep.value == PLUGIN for ep in entry_points(group="pytest11"))

READERS = textwrap.dedent('''
    from rechain.reference import Options, rebuild

    def right(data, session_id, options):
        return [{k: v for k, v in m.items() if k != "line"}
                for m in rebuild(data, "sdk", Options(**options)).messages]

    def empty(data):
        return []

    def hangs(data):
        while True:
            pass

    def hoards(data):
        hoard = []
        while True:
            hoard.append(b"x" * (1 << 20))
''')


@pytest.fixture
def readers(pytester: pytest.Pytester) -> str:
    pytester.makepyfile(plugin_readers=READERS)
    pytester.makepyfile(test_own="def test_own():\n    assert True\n")
    return str(pytester.path / "plugin_readers.py")


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    load = [] if AUTOLOADED else ["-p", PLUGIN]
    return pytester.runpytest_subprocess(*load, "-p", "no:cacheprovider", *args)


def test_inert_without_the_option(pytester: pytest.Pytester, readers: str):
    result = run(pytester)
    result.assert_outcomes(passed=1)


def test_a_right_reader_passes_every_case(pytester: pytest.Pytester, readers: str):
    result = run(pytester, f"--rechain-impl=python:{readers}:right", "--rechain-case=cycle-*",
                 "-v")
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] >= 4 and "failed" not in outcomes
    result.stdout.fnmatch_lines(["*rechain::cycle-*PASSED*"])


def test_a_wrong_reader_fails_with_the_difference_and_replay(pytester: pytest.Pytester,
                                                             readers: str):
    junit = pytester.path / "junit.xml"
    result = run(pytester, f"--rechain-impl=python:{readers}:empty", "--rechain-case=cycle-*",
                 f"--junitxml={junit}", "-k", "not own")
    assert result.ret == 1
    result.stdout.fnmatch_lines([
        "*FAIL*cycle-*vs agent-sdk-ts@0.3.332: different chain at /messages/0/uuid*",
        "why: *",
        "input (* lines, all):",
        "*replay: *rechain check --impl python:*:empty --case cycle-*",
    ])
    xml = junit.read_text()
    assert 'classname="rechain" name="cycle-' in xml and "<failure" in xml


@pytest.mark.parametrize(("reader", "why"), [("hangs", "*no answer within 2 s*"),
                                             ("hoards", "*memory limit of 200 MiB*")])
def test_a_runaway_reader_fails_its_cases_and_the_run_ends(pytester: pytest.Pytester,
                                                           readers: str, reader: str, why: str):
    result = run(pytester, f"--rechain-impl=python:{readers}:{reader}",
                 "--rechain-case=cycle-full", "--rechain-case=cycle-self-loop",
                 "--rechain-timeout=2", "--rechain-memory-mb=200")
    result.assert_outcomes(passed=1, failed=2)  # the suite's own test still passes
    result.stdout.fnmatch_lines([why])
    # the replay runs the case under the same limits, so it fails the same way again
    result.stdout.fnmatch_lines(["*replay:*--timeout 2 --memory-mb 200*"])


def test_the_plugins_limits_default_to_checks() -> None:
    """A replay names a limit only when it differs from the plugin's default, so the
    defaults must be rechain check's."""
    from rechain.cli import build_parser
    from rechain.conformance.pytest_plugin import MEMORY_MB, TIMEOUT_S

    check = build_parser().parse_args(["check", "--impl", "reference:sdk"])
    assert (check.timeout, check.memory_mb) == (TIMEOUT_S, MEMORY_MB)


@pytest.mark.parametrize(("args", "why"), [
    (["--rechain-impl=python:missing_reader.py:read"], "*cannot import missing_reader.py*"),
    (["--rechain-impl=python:{readers}:right", "--rechain-profile=sdkk"],
     "*unknown profile 'sdkk'*"),
    (["--rechain-impl=python:{readers}:right", "--rechain-against=nope"],
     "*unknown implementation 'nope'*"),
    (["--rechain-impl=python:{readers}:right", "--rechain-corpus=no-such-dir"],
     "*--rechain-corpus no-such-dir: not a directory*"),
    (["--rechain-impl=python:{readers}:right", "--rechain-timeout=0"],
     "--rechain-timeout and --rechain-memory-mb must be positive"),
    (["--rechain-impl=python:{readers}:right", "--rechain-memory-mb=0"],
     "--rechain-timeout and --rechain-memory-mb must be positive"),
])
def test_a_mistaken_option_is_a_usage_error_not_a_traceback(pytester: pytest.Pytester,
                                                            readers: str, args: list[str],
                                                            why: str):
    result = run(pytester, *(arg.format(readers=readers) for arg in args))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: rechain: {why}"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_a_folder_that_is_no_corpus_is_a_usage_error(pytester: pytest.Pytester, readers: str):
    (pytester.path / "cases" / "not-a-case").mkdir(parents=True)
    result = run(pytester, f"--rechain-impl=python:{readers}:right", "--rechain-corpus=cases")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: rechain: corpus: not-a-case: cannot read case.json*"])


def test_your_known_failures_are_skipped_strictly(pytester: pytest.Pytester, readers: str):
    """--rechain-skips FILE (relative to where pytest runs): a listed failure is a skip, a
    listed case that passes fails the session."""
    pytester.path.joinpath("known.json").write_text(
        '{"version": 1, "skips": [{"implementation": "*", "cases": ["compaction-plain*"], '
        '"reason": "finds no conversation", "link": "https://example.invalid/1"}]}')
    known = run(pytester, f"--rechain-impl=python:{readers}:empty",
                "--rechain-case=compaction-plain", "--rechain-skips=known.json", "-k", "rechain")
    known.assert_outcomes(skipped=2)  # compaction-plain and [system]
    assert known.ret == 1  # every rechain case skipped: nothing was compared
    fixed = run(pytester, f"--rechain-impl=python:{readers}:right",
                "--rechain-case=compaction-plain", "--rechain-skips=known.json")
    fixed.assert_outcomes(passed=1, failed=2)  # test_own, and both listed cases
    fixed.stdout.fnmatch_lines(["*skipped case now passes: remove its skip*"])
    # the replay judges by the same list, so it fails as the item did, from anywhere
    replay = next(line.split("replay: ", 1)[1] for line in fixed.outlines
                  if line.startswith("replay: "))
    assert f"--skips {pytester.path / 'known.json'}" in replay
    elsewhere = pytester.path / "elsewhere"
    elsewhere.mkdir()
    again = subprocess.run(replay, shell=True, cwd=elsewhere, capture_output=True, text=True)
    assert again.returncode == 1 and "skipped case now passes" in again.stdout, again.stderr


#: the cache the real readers are installed in (pytester moves HOME for each test)
REAL_CACHE = cache_dir()


def test_a_shipped_adapter_is_judged_by_its_own_known_bugs(pytester: pytest.Pytester,
                                                         monkeypatch: pytest.MonkeyPatch):
    """--rechain-impl=adapter:NAME without --rechain-skips reads the adapter's skips.json,
    as rechain check does: its listed minimal case is a skip, not a failure."""
    from rechain.conformance.matrix import adapters

    monkeypatch.setenv("RECHAIN_CACHE", str(REAL_CACHE))

    history = next(a for a in adapters.shipped() if a.name == "agent-history")
    if not history.installed():
        pytest.skip("agent-history is not installed (rechain matrix --install)")
    case = "diff-agent-history-vs-agent-sdk-cause-lost-row-row-assistant-text-6ecebd09"
    result = run(pytester, "--rechain-impl=adapter:agent-history",
                 f"--rechain-corpus={adapters.ROOT / 'found'}", f"--rechain-case={case}",
                 "-k", "rechain")
    result.assert_outcomes(skipped=1)


def test_a_resume_profile_judges_the_resume_views(pytester: pytest.Pytester, readers: str):
    """--rechain-profile cli asks what the CLI resumes (api and chain), as rechain check
    does: every case was skipped, no expectation being recorded as session messages."""
    right = run(pytester, "--rechain-impl=reference:cli", "--rechain-profile=cli",
                "--rechain-case=cli-*", "-k", "rechain")
    outcomes = right.parseoutcomes()
    assert outcomes.get("passed", 0) >= 50 and "failed" not in outcomes, outcomes
    pytester.makepyfile(api_reader='''
        RECHAIN_INFO = {"name": "api-reader", "version": "1", "views": ["api", "chain"]}

        def read(data):
            return {"messages": [], "leaf": None}
    ''')
    wrong = run(pytester, f"--rechain-impl=python:{pytester.path / 'api_reader.py'}:read",
                "--rechain-profile=cli", "--rechain-case=cli-compact-boundary-starts-chain")
    wrong.assert_outcomes(passed=1, failed=1)  # test_own, and the case
    replay = next(line.split("replay: ", 1)[1] for line in wrong.outlines
                  if line.startswith("replay: "))
    assert "--profile cli" in replay
    again = subprocess.run(replay, shell=True, cwd=pytester.path, capture_output=True,
                           text=True)
    assert again.returncode == 1 and "disagreements found" in again.stdout, again.stderr
