"""Where a batch's transcripts lie for the TS SDK: written by rechain where the SDK reads.

``getSessionMessages(id, {dir})`` reads ``<CLAUDE_CONFIG_DIR>/projects/<dir, every
character other than A-Z, a-z, 0-9 as "->/<id>.jsonl``. Each transcript of a batch is
written straight to that place by the Python side and removed once the batch is
answered, so the bridge only calls the SDK: no temp dir, rename or recursive removal per
batch on its side (measured: those were about half of the bridge's own CPU a case). The
directories are made once per worker under ``<scratch>/lay``: a config dir per env (the
SDK memoizes per config dir, and the env is process-wide, so cases with another env never
share one), and in it as many project cwds as one batch repeats a session id (the file
name is the id, compared case-insensitively for file systems that fold case). Reusing
the config dirs also keeps the SDK's memo at one entry per env instead of one per batch.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from rechain.conformance.oracles.calls import MessagesCall

#: a session id the bridge accepts as a file name (the same rule as its ``checkSessionId``)
USABLE_ID = re.compile(r"[^/\\\x00]{1,200}")
PROJECT_NAME = re.compile(r"[^A-Za-z0-9]")


@dataclass(frozen=True)
class Place:
    """Where one call's transcript lies: the config dir and project cwd the SDK is given,
    and the file (None when the id cannot be a file name: the bridge refuses the call)."""

    config_dir: str
    cwd: str
    file: str | None


def usable_id(session_id: str) -> bool:
    """Whether ``session_id`` names a file inside its project dir."""
    return USABLE_ID.fullmatch(session_id) is not None and session_id not in (".", "..")


class BatchFiles:
    """The layout under one worker's ``root`` (``<scratch>/lay``); not thread-safe."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._envs: dict[str, str] = {}  # env as sorted JSON -> its dir under root
        self._made: set[str] = set()  # project dirs (and their cwds) already made

    def places(self, calls: Sequence[MessagesCall]) -> list[Place]:
        """Each call's place, its directories made: the k-th call of a batch with one id
        (case-insensitively) and env goes to that env's k-th project."""
        seen: dict[tuple[str, str], int] = {}
        placed: list[Place] = []
        for call in calls:
            key = json.dumps(dict(call.env or {}), sort_keys=True)
            base = self._envs.get(key)
            if base is None:
                base = self._envs[key] = f"{self.root}{os.sep}e{len(self._envs)}"
            number = seen.get((key, call.session_id.lower()), 0)
            seen[(key, call.session_id.lower())] = number + 1
            config, cwd = f"{base}{os.sep}cfg", f"{base}{os.sep}cwd{number}"
            project = f"{config}{os.sep}projects{os.sep}{PROJECT_NAME.sub('-', cwd)}"
            if project not in self._made:
                Path(project).mkdir(parents=True, exist_ok=True)
                Path(cwd).mkdir(exist_ok=True)
                self._made.add(project)
            usable = usable_id(call.session_id)
            placed.append(Place(config, cwd, f"{project}{os.sep}{call.session_id}.jsonl"
                                if usable else None))
        return placed

    @contextmanager
    def written(self, calls: Sequence[MessagesCall]) -> Iterator[list[Place | OSError]]:
        """Each call's transcript written at its place for the ``with`` body, removed
        afterwards; a transcript that could not be written gives its ``OSError`` instead
        (a name the file system refuses, say), and that call is not made."""
        places: list[Place | OSError] = []
        try:
            for call, place in zip(calls, self.places(calls), strict=True):
                places.append(_write(place, call.data))
            yield places
        finally:
            for place in places:
                if isinstance(place, Place) and place.file is not None:
                    Path(place.file).unlink(missing_ok=True)


def _write(place: Place, data: bytes) -> Place | OSError:
    """The transcript's bytes in ``place.file``, exactly; the error if that failed."""
    if place.file is None:
        return place
    try:
        handle = os.open(place.file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    except OSError as error:
        return error
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(handle, view):]
    except OSError as error:
        os.close(handle)
        Path(place.file).unlink(missing_ok=True)
        return error
    os.close(handle)
    return place
