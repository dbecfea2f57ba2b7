"""Run ``rechain`` in-process for a test: exit code, stdout, stderr."""

from __future__ import annotations

import pytest

from rechain.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err
