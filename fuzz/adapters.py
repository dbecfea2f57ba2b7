"""Small drivers for third-party readers whose interesting code is behind more than one call.

These run inside the reader's own venv (the worker imports them there), so
they import only the standard library and the reader. Each takes the path of
a transcript and goes as far as the reader would for a user: load, then
build the tree or render the pages. Output goes to a private temp dir.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path
from typing import Any


def claude_code_log(path: Path) -> Any:
    """claude-code-log: ``load_transcript`` then ``build_dag_from_entries`` (its DAG view)."""
    from claude_code_log.converter import load_transcript
    from claude_code_log.dag import build_dag_from_entries

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        entries = load_transcript(path, silent=True)
        return build_dag_from_entries(entries)


def claude_code_transcripts_html(path: Path) -> None:
    """claude-code-transcripts: ``generate_html`` (parse, then render every page)."""
    from claude_code_transcripts import generate_html

    with (
        tempfile.TemporaryDirectory(prefix="rechain-fuzz-html-") as out,
        contextlib.redirect_stdout(io.StringIO()),
    ):
        generate_html(path, Path(out) / "html")
