"""Check the corpus the way JSON-Schema-Test-Suite checks itself: one line per problem.

Per case: the files exist, case.json is valid against ``rechain/schemas/case.json``,
the id equals the directory name, the description is one short line without
"should", and every option set has an expectation of the main profile unless the
case is tagged ``unrecorded``, and every user and assistant row carries the stamps
Claude Code writes (``rechain.corpus.stamps``) unless the case is tagged
``missing-fields``. Across cases: ids and descriptions are unique.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rechain.corpus.cases_io import (
    CASE_FILE,
    DEFAULT_OPTIONS,
    INPUT_FILE,
    PROFILE,
    VIEW,
    CaseError,
    Root,
    case_dirs,
    default_root,
    read_case_json,
)
from rechain.corpus.materialise import UNRECORDED
from rechain.corpus.stamps import MISSING_FIELDS, unstamped_rows
from rechain.schema_files import validator

MAX_INPUT_BYTES = 6 * 1024 * 1024
_SHOULD = re.compile(r"\bshould\b", re.IGNORECASE)
_ALLOWED_FILES = {CASE_FILE, INPUT_FILE}


@dataclass(frozen=True, order=True)
class Problem:
    """One finding about one case (``case`` is the directory name)."""

    case: str
    message: str

    def __str__(self) -> str:
        return f"{self.case}: {self.message}"


def lint_cases(root: Root | None = None) -> list[Problem]:
    """Every problem in the corpus under ``root`` (default: the packaged corpus), sorted."""
    base = default_root() if root is None else root
    problems: list[Problem] = []
    found: dict[str, dict[str, Any]] = {}
    for directory in case_dirs(base):
        problems.extend(_files(directory))
        try:
            data = read_case_json(directory)
        except CaseError as error:
            problems.append(Problem(directory.name, str(error).split(": ", 1)[-1]))
            continue
        found[directory.name] = data
        problems.extend(lint_case(directory.name, data))
        problems.extend(_stamps(directory, data))
    problems.extend(_across(found))
    if not found and not problems:
        problems.append(Problem("(corpus)", f"no cases under {base}"))
    return sorted(problems)


def lint_case(name: str, data: Mapping[str, Any]) -> list[Problem]:
    """Problems of one parsed case.json stored in the directory ``name``."""
    problems = [Problem(name, _schema_message(error)) for error in _schema_errors(data)]
    if data.get("id") != name:
        problems.append(Problem(name, f"id {data.get('id')!r} differs from the directory name"))
    description = data.get("description")
    if isinstance(description, str) and _SHOULD.search(description):
        problems.append(Problem(name, "description uses 'should'; say what the input is"))
    if isinstance(data.get("expectations"), list) and isinstance(data.get("tags"), list):
        problems.extend(_coverage(name, data))
    provenance = data.get("provenance")
    tags = data.get("tags") if isinstance(data.get("tags"), list) else []
    if isinstance(provenance, dict) and (provenance.get("source") == "real") != ("real" in tags):
        problems.append(Problem(name, "the 'real' tag and provenance source 'real' go together"))
    return problems


def _files(directory: Root) -> list[Problem]:
    """The case directory holds exactly case.json and transcript.jsonl."""
    problems = []
    names = {entry.name for entry in directory.iterdir()}
    if INPUT_FILE not in names:
        problems.append(Problem(directory.name, f"{INPUT_FILE} is missing"))
    for extra in sorted(names - _ALLOWED_FILES):
        problems.append(Problem(directory.name, f"unexpected file {extra}"))
    if INPUT_FILE in names and isinstance(directory, Path):
        size = (directory / INPUT_FILE).stat().st_size
        if size > MAX_INPUT_BYTES:
            problems.append(Problem(directory.name, f"{INPUT_FILE} is {size} bytes (max 6 MiB)"))
    return problems


def _stamps(directory: Root, data: Mapping[str, Any]) -> list[Problem]:
    """The first user or assistant row without Claude Code's stamps, unless that is the subject."""
    tags = data.get("tags") if isinstance(data.get("tags"), list) else []
    provenance = data.get("provenance") if isinstance(data.get("provenance"), dict) else {}
    source = directory / INPUT_FILE
    # a fuzzer's minimal input is the bytes that crashed a reader, not rows Claude Code wrote
    if MISSING_FIELDS in tags or provenance.get("source") == "fuzz" or not source.is_file():
        return []
    rows = unstamped_rows(source.read_bytes())
    if not rows:
        return []
    more = f" ({len(rows)} rows in all)" if len(rows) > 1 else ""
    advice = f"Claude Code writes them (tag the case '{MISSING_FIELDS}' if that is its subject)"
    return [Problem(directory.name, f"{INPUT_FILE} {rows[0]}{more}; {advice}")]


def _schema_errors(data: Mapping[str, Any]) -> Iterable[Any]:
    return sorted(validator("case").iter_errors(data), key=lambda e: list(e.absolute_path))


def _schema_message(error: Any) -> str:
    where = "/".join(str(part) for part in error.absolute_path) or "(root)"
    return f"schema: {where}: {error.message}"


def _coverage(name: str, data: Mapping[str, Any]) -> list[Problem]:
    """Each option set has one expectation of the main profile (unless unrecorded)."""
    problems = []
    tags = data["tags"]
    mine = [
        e.get("options")
        for e in data["expectations"]
        if isinstance(e, dict) and e.get("profile") == PROFILE and e.get("view") == VIEW
    ]
    keyed = Counter(_key(options) for options in mine)
    for key, count in keyed.items():
        if count > 1:
            problems.append(Problem(name, f"{count} expectations for {PROFILE} with options {key}"))
    if UNRECORDED in tags:
        return problems
    if not mine:
        problems.append(Problem(name, f"no expectation for {PROFILE} (tag it '{UNRECORDED}')"))
        return problems
    variants = data.get("variants", [DEFAULT_OPTIONS])
    for options in variants if isinstance(variants, list) else []:
        if _key(options) not in keyed:
            problems.append(Problem(name, f"option set {_key(options)} is not recorded"))
    return problems


def _key(options: Any) -> str:
    if not isinstance(options, Mapping):
        return repr(options)
    return ", ".join(f"{key}={options[key]!r}" for key in sorted(options))


def _across(found: Mapping[str, Mapping[str, Any]]) -> list[Problem]:
    """Ids and descriptions are unique across the corpus."""
    problems = []
    for field in ("id", "description"):
        seen: dict[Any, str] = {}
        for name, data in sorted(found.items()):
            value = data.get(field)
            if not isinstance(value, str):
                continue
            folded = value.casefold()
            if folded in seen:
                problems.append(Problem(name, f"{field} repeats the one of {seen[folded]}"))
            else:
                seen[folded] = name
    return problems
