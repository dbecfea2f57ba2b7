"""A store of the real CLI's answers, so a re-check after a reference change is fast.

A ``claude -p --resume`` costs seconds of CPU; a differential run of hundreds of
transcripts costs many minutes. The ``claude-code`` adapter files each answer
under a key made of everything that decides it (the CLI's version, model,
prompt, the exact bytes, the session id and the environment), and reuses it for
the same key. The store is on by default, in ``<rechain cache>/cli-answers``;
``RECHAIN_CLI_ANSWERS=DIR`` moves it, ``RECHAIN_CLI_ANSWERS=off`` turns it off.
Answers still come from the real CLI only; delete the directory to run it again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rechain.cache import cache_dir

ENV = "RECHAIN_CLI_ANSWERS"
OFF = frozenset({"off", "0", "no", "false", "none"})


def store_dir() -> Path | None:
    """The store's directory: the variable's, else ``<cache>/cli-answers``; None when off."""
    configured = os.environ.get(ENV, "").strip()
    if configured.lower() in OFF:
        return None
    return Path(configured).expanduser() if configured else cache_dir() / "cli-answers"


def answer_key(version: str, model: str, prompt: str, data: bytes, session_id: str,
               env: Mapping[str, str], extra: Sequence[str] = ()) -> str:
    """A digest of everything one CLI run's answer depends on (``extra``: how the run
    opened the transcript, for a forked resume at an entry point)."""
    digest = hashlib.sha256()
    head = json.dumps([version, model, prompt, session_id, sorted(env.items()),
                       *([list(extra)] if extra else [])])
    digest.update(head.encode("utf-8", "surrogatepass") + b"\0" + data)
    return digest.hexdigest()


def load(key: str) -> dict[str, Any] | None:
    """The stored answer for ``key``; a missing or unreadable entry is no answer."""
    folder = store_dir()
    if folder is None:
        return None
    try:
        value = json.loads((folder / f"{key}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def save(key: str, answer: Mapping[str, Any]) -> None:
    """File ``answer`` under ``key`` (atomically; a write error only loses the entry)."""
    folder = store_dir()
    if folder is None:
        return
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f".{key}.{os.getpid()}.tmp"
        partial.write_text(json.dumps(dict(answer)), encoding="utf-8")
        partial.replace(folder / f"{key}.json")
