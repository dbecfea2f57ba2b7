"""The example property test passes on the toy reader and catches its planted bug, shrunk."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "test_toy_reader.py"


def _pytest(tmp_path: Path, bug: bool) -> subprocess.CompletedProcess[str]:
    """The example as a user runs it: its own pytest process (its Hypothesis database in tmp)."""
    env = {k: v for k, v in os.environ.items() if k != "RECHAIN_TOY_BUG"}
    if bug:
        env["RECHAIN_TOY_BUG"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:xdist", str(EXAMPLE)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900, check=False)


def test_the_example_passes_on_the_toy_reader(tmp_path: Path) -> None:
    run = _pytest(tmp_path, bug=False)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "2 passed" in run.stdout


def test_the_example_catches_the_planted_bug_with_a_shrunk_transcript(tmp_path: Path) -> None:
    run = _pytest(tmp_path, bug=True)
    out = run.stdout
    assert run.returncode == 1, out[-3000:] + run.stderr[-2000:]
    assert "Falsifying example" in out or "Failing test case" in out, out[-3000:]
    shown = re.search(r"^\w+ = (?:Corrupted)?Transcript\(.*?script=\[(.*?)\]\)", out,
                      re.MULTILINE)
    assert shown, out[-3000:]
    script = re.findall(r"\b(Prompt|Reply|Note|Task|Rewind|Compact|Metadata)\(", shown[1])
    # shrunk: a prompt that writes an isMeta row, and at most two operations more
    assert 1 <= len(script) <= 3, shown[1]
    assert re.search(r"Prompt\(kind='(command|meta)'", shown[1]), shown[1]
