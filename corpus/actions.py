"""The file-touching side of ``rechain corpus``: write scenarios, record, add a skeleton.

Each function reads and writes case directories and returns lines to print;
the decisions are made by the pure helpers in ``materialise``, ``record`` and
``anonymise``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rechain.corpus.anonymise import anonymise
from rechain.corpus.build import stable_uuid
from rechain.corpus.cases_io import (
    CASE_FILE,
    INPUT_FILE,
    Case,
    CaseError,
    case_dirs,
    default_root,
    dumps_case,
    load_case,
    write_case,
)
from rechain.corpus.materialise import UNRECORDED, scenario_case
from rechain.corpus.record import Reader, record_case
from rechain.corpus.scenarios import build_scenarios
from rechain.errors import UsageError

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_SESSION_ID = re.compile(rb'"sessionId":"([0-9a-fA-F-]{36})"')


def writable_root(root: Path | None) -> Path:
    """Where cases are written: ``root`` or the packaged corpus (in a source checkout)."""
    return root if root is not None else Path(str(default_root()))


def command(argv: Sequence[str], root: Path) -> str:
    """A ``rechain corpus`` command (``argv`` after ``rechain``) to print for the person at
    the terminal: started by the words that run this rechain, ``--root`` (absolute) unless
    the packaged one."""
    from rechain.portable import rechain

    chosen = root.expanduser().absolute()
    default = Path(str(default_root())).absolute()
    return rechain([*argv, *([] if chosen == default else ["--root", str(chosen)])])


def _existing(directory: Path) -> tuple[Case | None, bytes | None]:
    if not (directory / CASE_FILE).is_file():
        return None, None
    try:
        case = load_case(directory)
    except CaseError:
        return None, None
    data = (directory / INPUT_FILE).read_bytes() if (directory / INPUT_FILE).is_file() else None
    return case, data


def new_cases(root: Path, ids: Sequence[str] | None, *, check: bool) -> tuple[list[str], bool]:
    """Write (or with ``check`` compare) the scenario cases; returns report lines and drift."""
    try:
        scenarios = build_scenarios(ids or None)
    except KeyError as error:
        raise UsageError(f"no scenario with id {error.args[0]!r}") from None
    lines: list[str] = []
    drift = False
    for scenario in scenarios:
        directory = root / scenario.id
        old, old_bytes = _existing(directory)
        case = scenario_case(scenario, old, old_bytes)
        same_json = old is not None and (directory / CASE_FILE).read_bytes() == dumps_case(
            case.to_json()
        )
        if old_bytes == scenario.data and same_json:
            continue
        drift = True
        state = "new" if old is None else "changed"
        if check:
            again = command(["corpus", "new", "--case", scenario.id], root)
            lines.append(f"{scenario.id}: {state} (run `{again}`)")
            continue
        write_case(directory, case.to_json(), scenario.data)
        note = " (unrecorded)" if UNRECORDED in case.tags else ""
        lines.append(f"{scenario.id}: {state}{note}")
    return lines, drift


def record_cases(
    root: Path,
    ids: Sequence[str] | None,
    read: Reader,
    *,
    profile: str,
    oracle: str,
    version: str,
    only_unrecorded: bool = False,
) -> list[str]:
    """Record every chosen case with ``read``; returns one line per case that changed."""
    directories = {d.name: d for d in case_dirs(root)}
    unknown = [i for i in ids or () if i not in directories]
    if unknown:
        raise UsageError(f"no case with id {unknown[0]!r} under {root}")
    today = datetime.now(UTC).date().isoformat()
    lines = []
    for name in ids or sorted(directories):
        directory = Path(str(directories[name]))
        case = load_case(directory)
        if only_unrecorded and UNRECORDED not in case.tags:
            continue
        updated = record_case(
            case,
            case.input_bytes(),
            read,
            profile=profile,
            oracle=oracle,
            version=version,
            today=today,
        )
        data = dumps_case(updated.to_json())
        if data != (directory / CASE_FILE).read_bytes():
            (directory / CASE_FILE).write_bytes(data)
            counts = "/".join(str(len(e.messages)) for e in updated.expectations_for(profile))
            lines.append(f"{name}: recorded ({counts} messages)")
    return lines


def guess_session_id(path: Path, data: bytes, case_id: str) -> str:
    """The file's own id when its name is a uuid, else the first sessionId, else a stable one."""
    if _UUID.fullmatch(path.stem):
        return path.stem.lower()
    found = _SESSION_ID.search(data)
    return found.group(1).decode() if found else stable_uuid(case_id, "session")


def anonymise_case(
    source: Path,
    root: Path,
    *,
    case_id: str,
    description: str,
    tags: Iterable[str],
    provenance: Mapping[str, Any],
    session_id: str | None = None,
    force: bool = False,
) -> Path:
    """Write ``root/<case_id>/`` holding the skeleton of ``source`` (tagged unrecorded)."""
    try:
        original = source.read_bytes()
    except OSError as error:
        raise UsageError(f"{source}: cannot read: {error.strerror or error}") from None
    directory = root / case_id
    if directory.exists() and not force:
        raise UsageError(f"{directory} exists (use --force to replace it)")
    all_tags = list(dict.fromkeys([*tags, UNRECORDED]))
    if provenance.get("source") == "real" and "real" not in all_tags:
        all_tags.insert(0, "real")
    case = Case(
        id=case_id,
        description=description,
        tags=tuple(all_tags),
        session_id=session_id or guess_session_id(source, original, case_id),
        expectations=(),
        provenance={
            **provenance,
            "original_sha256": hashlib.sha256(original).hexdigest(),
            "anonymised_by": "rechain corpus anonymise",
        },
    )
    problems = _anonymise_problems(case.to_json())
    if problems:  # said before anything is written: a case lint would refuse is no case
        raise UsageError(f"{source}: not added: {'; '.join(problems)}")
    write_case(directory, case.to_json(), anonymise(original))
    return directory


def _anonymise_problems(data: Mapping[str, Any]) -> list[str]:
    """What keeps ``data`` from being a case ``rechain corpus lint`` accepts, in terms of
    ``rechain corpus anonymise``'s options."""
    from rechain.schema_files import validator

    problems, needed = [], []
    for error in sorted(validator("case").iter_errors(data), key=lambda e: str(e.message)):
        where = [str(part) for part in error.absolute_path]
        missing = re.match(r"'(\w+)' is a required property", error.message)
        if where == ["provenance"] and missing:
            needed.append(f"--{missing.group(1).replace('_', '-')}")
        elif where[:1] == ["tags"]:
            problems.append(f"--tag {error.instance!r} is not a corpus tag "
                            f"(see rechain/schemas/case.json)")
        elif where[:1] in (["id"], ["description"], ["session_id"]):
            option = {"id": "--id", "session_id": "--session-id"}.get(where[0], "--description")
            problems.append(f"{option}: {error.message}")
        else:
            problems.append(f"{'/'.join(where) or 'case'}: {error.message}")
    if needed:
        problems.insert(0, f"--source {data['provenance'].get('source')} needs "
                           f"{', '.join(needed)}")
    if not [tag for tag in data.get("tags", ()) if tag != UNRECORDED]:
        problems.append("give at least one --tag (what the transcript shows), or --source real")
    return problems
