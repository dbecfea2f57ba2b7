"""One Node process answering JSON line by JSON line, for the tests that hold
``reference/js`` to what Node does (keys, ``JSON.stringify``, ``Date.parse``)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

NODE = shutil.which("node")


@contextmanager
def node_answering(script: str, env: dict[str, str] | None = None
                   ) -> Iterator[subprocess.Popen[str]]:
    """A Node process running ``script`` (reading lines from stdin, writing one line each),
    closed and waited for at the end."""
    assert NODE is not None
    proc = subprocess.Popen([NODE, "-e", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env={"PATH": "/usr/bin:/bin", **(env or {})})
    try:
        yield proc
    finally:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.close()
        proc.wait(timeout=10)
        proc.stdout.close()


def ask(proc: subprocess.Popen[str], value: Any) -> Any:
    """Node's answer for ``value``, sent as one JSON line (ASCII: lone surrogates escaped)."""
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(value) + "\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())
