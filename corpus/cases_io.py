"""Read and write corpus cases: ``<root>/<id>/case.json`` plus ``transcript.jsonl``.

The case file is data for every language, so this module only maps it to
frozen dataclasses and back; validation lives in :mod:`rechain.corpus.lint`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

CASE_FILE = "case.json"
INPUT_FILE = "transcript.jsonl"
PROFILE = "agent-sdk@0.3.332"
VIEW = "session-messages"
DEFAULT_OPTIONS: Mapping[str, Any] = {"include_system_messages": False, "limit": None, "offset": 0}
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

Json = dict[str, Any]
Root = Path | Traversable


class CaseError(Exception):
    """A case directory that cannot be loaded (missing file, bad JSON, missing key)."""


@dataclass(frozen=True)
class Expectation:
    """One recorded output: which reader, which view, which options, and what it returned.

    ``error`` is set (``{"message", "exit_code"?}``) when the reader failed on the
    input instead of answering; ``messages`` is then empty. A failure is an
    outcome like any other, so it is recorded and checked, not skipped.
    """

    profile: str
    view: str
    options: Mapping[str, Any]
    messages: Sequence[Json]
    provenance: Mapping[str, Any]
    error: Mapping[str, Any] | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Expectation:
        error = data.get("error")
        return cls(
            profile=data["profile"],
            view=data["view"],
            options=dict(data["options"]),
            messages=tuple(data["messages"]),
            provenance=dict(data["provenance"]),
            error=dict(error) if error is not None else None,
        )

    @property
    def failed(self) -> bool:
        """The reader failed on this input (an error outcome)."""
        return self.error is not None

    def to_json(self) -> Json:
        out: Json = {
            "profile": self.profile,
            "view": self.view,
            "options": dict(self.options),
            "messages": list(self.messages),
        }
        if self.error is not None:
            out["error"] = dict(self.error)
        out["provenance"] = dict(self.provenance)
        return out


@dataclass(frozen=True)
class Case:
    """A case as stored; ``directory`` is where its files are (not part of the JSON)."""

    id: str
    description: str
    tags: tuple[str, ...]
    session_id: str
    expectations: tuple[Expectation, ...]
    provenance: Mapping[str, Any]
    env: Mapping[str, str] = field(default_factory=dict)
    variants: tuple[Mapping[str, Any], ...] = (DEFAULT_OPTIONS,)
    directory: Root | None = field(default=None, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any], directory: Root | None = None) -> Case:
        return cls(
            id=data["id"],
            description=data["description"],
            tags=tuple(data["tags"]),
            session_id=data["session_id"],
            expectations=tuple(Expectation.from_json(e) for e in data["expectations"]),
            provenance=dict(data["provenance"]),
            env=dict(data.get("env", {})),
            variants=tuple(dict(v) for v in data.get("variants", [DEFAULT_OPTIONS])),
            directory=directory,
        )

    def to_json(self) -> Json:
        """The case.json object, keys in the documented order; defaults are left out."""
        out: Json = {
            "id": self.id,
            "description": self.description,
            "tags": list(self.tags),
            "session_id": self.session_id,
        }
        if self.env:
            out["env"] = dict(self.env)
        if [dict(v) for v in self.variants] != [dict(DEFAULT_OPTIONS)]:
            out["variants"] = [dict(v) for v in self.variants]
        out["expectations"] = [e.to_json() for e in self.expectations]
        out["provenance"] = dict(self.provenance)
        return out

    def input_bytes(self) -> bytes:
        """The transcript exactly as stored (CRLF, BOM and invalid UTF-8 included)."""
        if self.directory is None:
            raise CaseError(f"{self.id}: case has no directory")
        return self.directory.joinpath(INPUT_FILE).read_bytes()

    def expectations_for(self, profile: str = PROFILE, view: str = VIEW) -> list[Expectation]:
        """The recorded outputs of one reader and view, in file order."""
        return [e for e in self.expectations if e.profile == profile and e.view == view]


def default_root() -> Traversable:
    """The packaged ``corpus/cases`` directory."""
    return files("rechain.corpus").joinpath("cases")


def read_case_json(directory: Root) -> Json:
    """The parsed case.json of one directory, or CaseError saying what is wrong."""
    try:
        text = directory.joinpath(CASE_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CaseError(f"{directory.name}: cannot read {CASE_FILE}: {error}") from None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise CaseError(f"{directory.name}: {CASE_FILE} is not JSON: {error}") from None
    if not isinstance(data, dict):
        raise CaseError(f"{directory.name}: {CASE_FILE} is not a JSON object")
    return data


def load_case(directory: Root) -> Case:
    """One case; the JSON must have the required keys (run the lint for full checks)."""
    data = read_case_json(directory)
    try:
        return Case.from_json(data, directory)
    except (KeyError, TypeError, AttributeError) as error:
        raise CaseError(f"{directory.name}: malformed {CASE_FILE}: {error!r}") from None


def case_dirs(root: Root | None = None) -> list[Traversable | Path]:
    """The case directories under ``root``, sorted by name; hidden entries are skipped."""
    base = default_root() if root is None else root
    if not base.is_dir():
        return []
    return sorted(
        (entry for entry in base.iterdir() if entry.is_dir() and not entry.name.startswith(".")),
        key=lambda entry: entry.name,
    )


def load_cases(root: Root | None = None) -> list[Case]:
    """Every case under ``root`` (default: the packaged corpus), sorted by id."""
    return [load_case(directory) for directory in case_dirs(root)]


def dumps_case(data: Mapping[str, Any]) -> bytes:
    """case.json bytes: 2-space indent, UTF-8, lone surrogates kept as ``\\uXXXX`` escapes."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    text = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return (text + "\n").encode("utf-8")


def write_case(directory: Path, data: Mapping[str, Any], transcript: bytes | None = None) -> None:
    """Write case.json (and the transcript when given) into ``directory``, creating it."""
    directory.mkdir(parents=True, exist_ok=True)
    if transcript is not None:
        (directory / INPUT_FILE).write_bytes(transcript)
    (directory / CASE_FILE).write_bytes(dumps_case(data))
