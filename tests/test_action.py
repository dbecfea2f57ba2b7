"""``action.yml``: its ``run:`` steps executed as a runner would, offline, with fake
``GITHUB_STEP_SUMMARY`` / ``GITHUB_OUTPUT`` files (``uses:`` steps and the pip install of
rechain itself are left out: this checkout's rechain is on PATH)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml", reason="pyyaml (the test extra)")

REPO = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
EXPRESSION = re.compile(r"\$\{\{\s*([a-z_.-]+)\s*\}\}")
READER = textwrap.dedent('''
    from rechain.reference import Options, rebuild

    RECHAIN_INFO = {"name": "gated", "version": "1"}

    def _messages(data, options):
        result = rebuild(data, "sdk", Options(**options))
        if result.error is not None:
            raise TypeError(result.error)
        return [{k: v for k, v in m.items() if k != "line"} for m in result.messages]

    def right(data, session_id, options):
        return _messages(data, options)

    def drops_last(data, session_id, options):
        messages = _messages(data, options)
        return messages[:-1] if len(messages) >= 3 else messages
''')


class Runner:
    """Runs the action's steps in order, as GitHub does for a composite action."""

    def __init__(self, tmp_path: Path, inputs: dict[str, str], path: str | None = None) -> None:
        self.temp = tmp_path / "runner-temp"
        self.temp.mkdir()
        self.summary = tmp_path / "step-summary.md"
        self.summary.write_text("")
        self.inputs = {name: str(spec.get("default", "")) for name, spec
                       in ACTION["inputs"].items()} | inputs
        self.outputs: dict[str, dict[str, str]] = {}
        self.path = path or f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
        self.cwd = tmp_path

    def value(self, expression: str) -> str:
        scope, _, name = expression.partition(".")
        if scope == "inputs":
            return self.inputs[name]
        if expression == "github.action_path":
            return str(REPO)
        if expression == "runner.temp":
            return str(self.temp)
        step, _, output = name.partition(".outputs.")
        if scope == "steps" and output:
            return self.outputs.get(step, {}).get(output, "")
        raise AssertionError(f"the test does not know ${{{{ {expression} }}}}")

    def expand(self, text: str) -> str:
        return EXPRESSION.sub(lambda match: self.value(match[1]), text)

    def step(self, step_id: str) -> subprocess.CompletedProcess[str]:
        [step] = [s for s in ACTION["runs"]["steps"] if s.get("id") == step_id]
        assert step["shell"] == "bash"
        output = self.cwd / f"output-{step_id}"
        output.write_text("")
        env = {"PATH": self.path, "HOME": os.environ.get("HOME", str(self.cwd)),
               "GITHUB_STEP_SUMMARY": str(self.summary), "GITHUB_OUTPUT": str(output),
               "RECHAIN_CACHE": os.environ.get("RECHAIN_CACHE", ""),
               **{k: self.expand(str(v)) for k, v in step.get("env", {}).items()}}
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                               self.expand(step["run"])], cwd=self.cwd, env=env,
                              capture_output=True, text=True, timeout=1200, check=False)
        self.outputs[step_id] = dict(line.split("=", 1) for line in
                                     output.read_text().splitlines() if "=" in line)
        return done


def test_every_run_step_is_bash_and_reads_inputs_through_env() -> None:
    """Inputs reach scripts as environment variables, never pasted into the script."""
    steps = ACTION["runs"]["steps"]
    runs = [s for s in steps if "run" in s]
    assert {s["id"] for s in runs} == {"install", "oracles", "check", "verdict"}
    for step in runs:
        assert "${{" not in step["run"], step["id"]
    assert any(s.get("uses", "").startswith("actions/upload-artifact@") for s in steps)


def _reader(tmp_path: Path) -> Path:
    module = tmp_path / "gated_reader.py"
    module.write_text(READER)
    return module


@pytest.mark.parametrize(("function", "expected"), [("drops_last", 1), ("right", 0)])
def test_the_check_step_writes_the_summary_reports_and_exit(tmp_path, function, expected) -> None:
    module = _reader(tmp_path)
    runner = Runner(tmp_path, {"impl": f"python:{module}:{function}", "against": "reference",
                               "examples": "8", "seed": "5"})
    done = runner.step("check")
    assert done.returncode == 0, done.stderr[-3000:]  # the verdict step decides, after upload
    outputs = runner.outputs["check"]
    assert outputs["exit-code"] == str(expected), done.stderr[-3000:]
    reports = Path(outputs["reports"])
    names = {p.name for p in reports.iterdir()}
    assert {"report.jsonl", "summary.md", "report.html", "junit.xml", "results.sarif",
            "badge.json"} <= names
    summary = runner.summary.read_text()
    assert summary and summary == (reports / "summary.md").read_text()
    assert ("disagreements" in summary) == (expected == 1)
    badge = json.loads((reports / "badge.json").read_text())
    assert badge["schemaVersion"] == 1
    header = json.loads((reports / "report.jsonl").read_text().splitlines()[0])
    assert header["seed"] == 5 and "--impl" in header["argv"]
    verdict = runner.step("verdict")
    assert verdict.returncode == expected


def test_known_failures_are_strict(tmp_path) -> None:
    """A skip list covering the failures passes; once the reader is fixed it fails the run."""
    module = _reader(tmp_path)
    known = tmp_path / "known-failures.json"
    inputs = {"against": "reference", "examples": "0", "known-failures": str(known)}
    written = subprocess.run(
        [sys.executable, "-m", "rechain", "check", "--impl", f"python:{module}:drops_last",
         "--against", "reference", "--examples", "0", "--no-progress", "--write-skips",
         str(known)], capture_output=True, text=True, check=False, cwd=tmp_path)
    assert written.returncode == 1 and json.loads(known.read_text())["skips"], written.stderr
    for name, function, expected in (("known", "drops_last", "0"), ("fixed", "right", "1")):
        (tmp_path / name).mkdir()
        runner = Runner(tmp_path / name, {"impl": f"python:{module}:{function}", **inputs})
        done = runner.step("check")
        assert runner.outputs["check"]["exit-code"] == expected, done.stderr[-3000:]


def test_the_oracles_step_installs_exactly_the_oracles_named(tmp_path) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    log = tmp_path / "calls"
    (fake / "rechain").write_text(f'#!/bin/sh\necho "$@" >> {log}\n')
    (fake / "rechain").chmod(0o755)
    path = f"{fake}{os.pathsep}{os.environ['PATH']}"
    named = Runner(tmp_path, {"impl": "agent-sdk-py\n  python:x.py:read\n",
                              "against": "claude-code@2.1.88"}, path=path)
    assert named.step("oracles").returncode == 0
    assert log.read_text().splitlines() == ["oracle install agent-sdk-py claude-code@2.1.88"]
    log.unlink()
    (tmp_path / "none").mkdir()
    none = Runner(tmp_path / "none", {"impl": "harness:python my_reader.py"}, path=path)
    done = none.step("oracles")
    assert done.returncode == 0 and "no oracle named" in done.stdout and not log.exists()


def test_the_verdict_step_fails_when_the_check_never_ran(tmp_path) -> None:
    runner = Runner(tmp_path, {"impl": "reference"})
    assert runner.step("verdict").returncode == 2


def test_the_readme_workflows_parse_and_use_only_the_actions_inputs() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## In CI"):]
    section = section[:section.index("\n## ", 1)]
    blocks = [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", section, re.S)]
    assert len(blocks) >= 3

    def steps(node: object) -> list[dict]:
        if isinstance(node, dict):
            found = [node] if "uses" in node else []
            return found + [s for value in node.values() for s in steps(value)]
        if isinstance(node, list):
            return [s for value in node for s in steps(value)]
        return []

    ours = [s for block in blocks for s in steps(block) if "/rechain@" in str(s["uses"])]
    assert len(ours) >= 2
    for step in ours:
        assert set(step.get("with", {})) <= set(ACTION["inputs"]), step
        assert "impl" in step["with"]
    named = {step["id"] for step in ours if "id" in step}
    read = re.findall(r"steps\.([\w-]+)\.outputs\.([\w-]+)", section)
    assert read and all(output in ACTION["outputs"] for step, output in read if step in named)
    assert {step for step, _ in read} <= named  # an output of this action, by its id


def test_a_python_reader_runs_with_its_own_venv(tmp_path) -> None:
    """A reader whose package is only in its own environment: without the venv input it
    cannot import (exit 2); with it, it runs and is judged."""
    import venv

    env = tmp_path / "reader-env"
    venv.EnvBuilder(with_pip=False).create(env)
    [site] = list(env.glob("lib/python*/site-packages"))
    (site / "private_dep.py").write_text("def empty():\n    return []\n")
    module = tmp_path / "needs_dep.py"
    module.write_text("import private_dep\n\ndef read(data):\n    return private_dep.empty()\n")
    for venv_input, expected in (("", "2"), (str(env), "1")):  # 1: it finds no conversation
        place = tmp_path / f"run{expected}"
        place.mkdir()
        runner = Runner(place, {"impl": f"python:{module}:read", "examples": "0",
                                "venv": venv_input})
        done = runner.step("check")
        assert runner.outputs["check"]["exit-code"] == expected, done.stderr[-2000:]
