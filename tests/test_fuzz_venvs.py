"""Campaigns against a reader in two venvs keep their findings apart, and say whose."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from rechain.fuzz.findings import load_findings
from rechain.fuzz.registry import Target
from rechain.fuzz.runner import Settings, campaign_name

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("atheris") is None or sys.prefix == sys.base_prefix,
    reason="needs atheris, installed in a venv (the test makes two venvs of it)")
READER = '''
import os, sys

def read(data: bytes) -> int:
    if data[:1] == b"{":
        raise ValueError(f"reader in {os.path.basename(sys.prefix)}")
    return len(data)
'''


def _venv(where: Path) -> Path:
    """A venv that is this one's packages under another prefix (``python -m venv`` and
    installing atheris again would take minutes): its interpreter, its pyvenv.cfg, and
    its site-packages a link to this venv's."""
    (where / "bin").mkdir(parents=True)
    (where / "bin" / "python").symlink_to(os.path.realpath(sys.executable))
    (where / "pyvenv.cfg").write_text((Path(sys.prefix) / "pyvenv.cfg").read_text())
    packages = Path(sysconfig.get_paths()["purelib"])
    linked = where / packages.relative_to(sys.prefix)
    linked.parent.mkdir(parents=True)
    linked.symlink_to(packages)
    return where


def _fuzz(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    command = [sys.executable, "-m", "rechain", "fuzz", "--target", "which_reader:read",
               "--work", "work", *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=720, check=False)


def test_each_venvs_campaign_has_its_own_findings(tmp_path: Path) -> None:
    (tmp_path / "which_reader.py").write_text(textwrap.dedent(READER))
    first, second = _venv(tmp_path / "venv-one"), _venv(tmp_path / "venv-two")
    reports = {}
    for venv in (first, second):
        done = _fuzz(tmp_path, "--venv", str(venv), "--runs", "600", "--time", "420",
                     "--json")
        assert done.returncode == 1, done.stderr[-3000:]  # each finds its own: new
        [reports[venv.name]] = json.loads(done.stdout)
    for name, report in reports.items():
        assert {f["message"] for f in report["findings"]} == {f"reader in {name}"}
        assert {f["reader"] for f in report["findings"]} == {str(tmp_path / name)}
        assert report["venv"] == str(tmp_path / name) and report["new_findings"]
    target = Target("which_reader-read", "which_reader:read", user=True)
    names = {campaign_name(target, Settings(0, venv=venv)) for venv in (first, second)}
    assert len(names) == 2 and all(n.startswith("which_reader-read@venv-") for n in names)
    # the report says which reader it ran, and the shrink command keeps it
    done = _fuzz(tmp_path, "--venv", str(second), "--time", "0")
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"which_reader-read (reader: venv {second}): ")
    assert "reader in venv-two" in lines[1] and "[reader" not in lines[1]


def test_a_shared_store_of_before_stays_readable_and_says_it_does_not_know(
        tmp_path: Path) -> None:
    """A store campaigns in several venvs shared has records that name no reader: the
    plain store still lists them, marked; a venv's campaign points at them."""
    (tmp_path / "which_reader.py").write_text(textwrap.dedent(READER))
    plain = tmp_path / "work" / "which_reader-read" / "findings"
    plain.mkdir(parents=True)
    record = {"signature": "ValueError@x/which_reader.py:read:6", "exception": "ValueError",
              "message": "reader in venv-old", "where": "x/which_reader.py:read:6",
              "target": "which_reader:read", "variant": "ValueError@x/which_reader.py:read:6",
              "size": 2, "count": 7}
    (plain / "0123456789ab.json").write_text(json.dumps(record))
    (plain / "0123456789ab.input").write_bytes(b"{}")
    [old] = load_findings(plain)
    assert old["count"] == 7 and "reader" not in old
    listed = _fuzz(tmp_path, "--time", "0")
    assert listed.returncode == 0, listed.stderr[-3000:]
    assert "reader in venv-old (0123456789ab.input) [reader not recorded]" in listed.stdout
    venv = _venv(tmp_path / "venv-new")
    pointed = _fuzz(tmp_path, "--venv", str(venv), "--time", "0")
    assert f"  1 findings in {plain} do not say which reader they are from" in pointed.stdout
    assert "venv-old" not in pointed.stdout.splitlines()[0]
