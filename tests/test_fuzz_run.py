"""Fuzzing for real, for a bounded time: each reference harness, and a toy reader via the CLI.

``RECHAIN_FUZZ_SECONDS`` sets the time per harness (default here: 3 s); CI
can raise it. Skipped when atheris is not installed (``pip install -e '.[fuzz]'``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import pytest

from rechain.fuzz.registry import REFERENCE, Target
from rechain.fuzz.regressions import fuzz_cases, fuzz_meta
from rechain.fuzz.runner import Settings
from rechain.fuzz.triage import shrink

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("atheris") is None, reason="atheris is not installed"
)
SECONDS = os.environ.get("RECHAIN_FUZZ_SECONDS", "3")
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


def _fuzz(args: list[str]) -> tuple[int, list[dict]]:
    command = [sys.executable, "-m", "rechain", "fuzz", *args, "--json"]
    done = subprocess.run(command, capture_output=True, timeout=600, check=False)
    assert done.returncode in (0, 1), done.stderr.decode()[-3000:]
    return done.returncode, json.loads(done.stdout)


@pytest.mark.parametrize("target", REFERENCE, ids=lambda t: t.name)
def test_reference_harness_fuzzes_clean(target, tmp_path):
    _, [report] = _fuzz([target.name, "--time", SECONDS, "--work", str(tmp_path)])
    assert report["executions"] > 0
    unknown = [
        f["signature"]
        for f in report["findings"]
        if (target.name, f["exception"]) not in KNOWN_OPEN
    ]
    assert unknown == []


def test_cli_finds_and_shrinks_a_toy_readers_crash(tmp_path, monkeypatch):
    (tmp_path / "toy_reader.py").write_text(textwrap.dedent(TOY))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    work = tmp_path / "work"
    code, [report] = _fuzz(["--target", "toy_reader:read", "--time", "20", "--work", str(work)])
    assert code == 1
    [finding] = [f for f in report["findings"] if f["exception"] == "AttributeError"]
    target = Target("toy_reader-read", "toy_reader:read")
    small = shrink(target, Settings(0, work=work), finding, seconds=30)
    assert small.suffix == ".min"
    assert len(small.read_bytes().strip()) <= 2
