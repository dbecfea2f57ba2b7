"""A reader's contract: what it declares it shows, as a frozen value read from JSON.

Declared by a harness in its ``start`` reply (``implementation.contract``), by a
``python:`` reader in ``RECHAIN_INFO["contract"]``, by a ``cmd:`` reader in its
spec (``cmd[name=foo,version=1.2,scope=archive,rows=meta+sidechain]:…``) or in a
file (``--contract FILE``). The schema is ``rechain/schemas/contract.json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

from rechain.errors import UsageError

Scope = Literal["chain", "archive", "file-order", "usage"]
Identity = Literal["uuid", "position+role"]
Content = Literal["exact", "text-equivalent", "ignored"]
Strictness = Literal["uuids", "types", "messages"]
Prompts = Literal["each", "merged"]
Results = Literal["as-written", "beside-call", "hidden"]
Blank = Literal["shown", "hidden"]
Bom = Literal["line-dropped", "first-line-read", "every-line-read"]
SCOPES: tuple[Scope, ...] = ("chain", "archive", "file-order", "usage")
STRICTNESS: tuple[Strictness, ...] = ("uuids", "types", "messages")
USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens",
                "cache_read_input_tokens")


@dataclass(frozen=True, slots=True)
class Rows:
    """Which kinds of row a reader shows besides plain user/assistant messages."""

    meta: bool = False
    system: bool = False
    summary: bool = False
    compact_summary: bool = True
    progress: bool = False
    sidechain: bool = False
    command_output: bool = True  # user rows holding a local command's output
    queued_command: bool = True  # prompts queued while a turn ran (attachment rows)

    def shown(self, kind: str) -> bool:
        """Whether a row of ``kind`` (see ``rows.row_kind``) is in scope."""
        return kind == "message" or bool(getattr(self, kind.replace("-", "_"), False))

    def to_json(self) -> dict[str, bool]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True, slots=True)
class Contract:
    """What one reader (name@version) declares it shows of a transcript."""

    name: str
    version: str
    scope: Scope = "chain"
    rows: Rows = field(default_factory=Rows)
    identity: Identity = "uuid"
    content: Content = "exact"
    fields: frozenset[str] | None = None
    strictness: Strictness = "messages"
    prompts: Prompts = "each"  # merged: prompts on adjacent lines shown as one (position+role)
    results: Results = "as-written"  # beside-call: each tool result right after its call
    blank: Blank = "shown"  # hidden: a row with nothing to render (no text, call, result)
    #: a line that starts with a UTF-8 BOM: not JSON, so dropped (the SDKs); the file's first
    #: line read past it (claude-code@2.1.332), or every such line (claude-code@2.1.88)
    bom: Bom = "line-dropped"

    @property
    def slug(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def summary(self) -> str:
        """One line for reports: ``archive, rows meta+sidechain, uuid, text-equivalent``."""
        shown = "+".join(k for k, v in self.rows.to_json().items() if v) or "messages only"
        return (f"{self.scope}, rows {shown}, identity {self.identity}, content {self.content},"
                f" strictness {self.strictness}"
                + (f", prompts {self.prompts}" if self.prompts != "each" else "")
                + (f", results {self.results}" if self.results != "as-written" else "")
                + (f", blank {self.blank}" if self.blank != "shown" else "")
                + (f", bom {self.bom}" if self.bom != "line-dropped" else ""))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "version": self.version, "scope": self.scope,
                               "rows": self.rows.to_json(), "identity": self.identity,
                               "content": self.content, "strictness": self.strictness}
        if self.fields is not None:
            out["fields"] = sorted(self.fields)
        if self.prompts != "each":
            out["prompts"] = self.prompts
        if self.results != "as-written":
            out["results"] = self.results
        if self.blank != "shown":
            out["blank"] = self.blank
        if self.bom != "line-dropped":
            out["bom"] = self.bom
        return out


def problem(document: Any) -> str | None:
    """The first way ``document`` breaks ``contract.json``, as one line, or None."""
    import jsonschema

    from rechain.schema_files import validator

    error = jsonschema.exceptions.best_match(validator("contract").iter_errors(document))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "(root)"
    return f"{where}: {error.message[:200]}"


def from_json(document: Mapping[str, Any], where: str = "contract") -> Contract:
    """A contract from its JSON form; a document that breaks the schema is a usage error."""
    found = problem(document)
    if found is not None:
        raise UsageError(f"{where}: {found}")
    rows = Rows(**document.get("rows", {}))
    fields_ = document.get("fields")
    return Contract(
        name=str(document["name"]), version=str(document["version"]),
        scope=document.get("scope", "chain"), rows=rows,
        identity=document.get("identity", "uuid"), content=document.get("content", "exact"),
        fields=frozenset(fields_) if fields_ is not None else None,
        strictness=document.get("strictness", "messages"),
        prompts=document.get("prompts", "each"),
        results=document.get("results", "as-written"),
        blank=document.get("blank", "shown"),
        bom=document.get("bom", "line-dropped"),
    )


def load(path: str) -> Contract:
    """``--contract FILE``: a contract in a JSON file."""
    import json
    from pathlib import Path

    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise UsageError(f"--contract {path}: {error.strerror}") from None
    except ValueError as error:
        raise UsageError(f"--contract {path}: not JSON ({error})") from None
    if not isinstance(document, dict):
        raise UsageError(f"--contract {path}: expected a JSON object")
    return from_json(document, f"--contract {path}")


def from_spec(text: str) -> dict[str, Any]:
    """The contract keys of a ``cmd[...]`` bracket: ``name=foo,version=1.2,scope=archive,
    rows=meta+sidechain,fields=type+uuid`` (views stay bare words; see ``impls``)."""
    out: dict[str, Any] = {}
    for part in (p.strip() for p in text.split(",") if p.strip()):
        key, equals, value = part.partition("=")
        if not equals:
            continue
        if key == "rows":
            chosen = {name for name in value.split("+") if name}
            known = set(Rows().to_json())
            unknown = chosen - known
            if unknown:
                raise UsageError(f"rows={value}: unknown rows {sorted(unknown)}; "
                                 f"known: {'+'.join(sorted(known))}")
            out["rows"] = {name: name in chosen for name in known}
        elif key == "fields":
            out["fields"] = [name for name in value.split("+") if name]
        else:
            out[key] = value
    return out


def with_strictness(contract: Contract, level: str | None) -> Contract:
    """The contract with ``--fields LEVEL`` applied (None: as declared)."""
    if level is None:
        return contract
    if level not in STRICTNESS:
        raise UsageError(f"--fields {level}: use one of {', '.join(STRICTNESS)}")
    return replace(contract, strictness=level)  # type: ignore[arg-type]
