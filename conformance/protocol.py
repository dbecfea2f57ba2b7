"""The reader protocol, version 1: what rechain sends a reader and what it accepts back.

Schemas are data (``rechain/schemas/protocol.json`` and ``result.json``); this
module holds the value classes and the pure encode/decode functions every tier
shares. Tier 0 calls a Python function, tier 1 runs a command per case, tier 2
talks JSON lines to one long-lived process (``protocol_process``). Whatever the
tier, an answer becomes one ``Outcome``: the reader's messages, the error it
raised (an answer, not a failure), a skip, a crash or a timeout.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType
from typing import Any, Literal

import jsonschema
import referencing

from rechain.conformance.report_bounds import clip, clip_start, head
from rechain.schema_files import load_schema

PROTOCOL_VERSION = 1
View = Literal["session-messages", "api", "chain", "resume", "archive", "resumed-chain"]
VIEWS: tuple[View, ...] = ("session-messages", "api", "chain", "resume", "archive",
                           "resumed-chain")
# What the CLI reports on resume: ``api`` = the model request's messages before the new
# prompt's turn, ``chain`` = the entry the new prompt is chained to (the answer's ``leaf``).
# ``resume`` is the protocol's first name for ``api``; it is read as ``api``.
RESUME_VIEWS: frozenset[str] = frozenset({"api", "chain"})
# What 2.1.88 is judged by per entry point: ``resumed-chain`` = the rows a forked resume wrote
# before the prompt, with ``api`` (one answer: ``claude_code_2_1_88.answers``).
FORKED_VIEWS: tuple[View, ...] = ("resumed-chain", "api")
LEGACY_VIEWS: Mapping[str, View] = MappingProxyType({"resume": "api"})
OPTION_NAMES = ("include_system_messages", "limit", "offset")
DEFAULT_OPTIONS: Mapping[str, Any] = MappingProxyType(
    {"include_system_messages": False, "limit": None, "offset": 0}
)
Json = dict[str, Any]


class ProtocolError(ValueError):
    """A reply that breaks the protocol: recorded as a crash of that case, never raised on."""


@dataclass(frozen=True, slots=True)
class ImplementationInfo:
    """Who a reader is and what it claims to do (the ``start`` reply's ``implementation``)."""

    name: str
    version: str
    language: str
    homepage: str = ""
    issues: str = ""
    source: str = ""
    views: tuple[View, ...] = ("session-messages",)
    fields: frozenset[str] | None = None  # None: every SessionMessage key
    options: frozenset[str] = frozenset(OPTION_NAMES)
    env: frozenset[str] = frozenset()
    choices: Mapping[str, str] = field(default_factory=dict)
    contract: Mapping[str, Any] | None = None  # what it declares it shows (contract.json)

    @property
    def slug(self) -> str:
        """``name@version``, how reports and case provenance name a reader."""
        return f"{self.name}@{self.version}"

    def to_json(self) -> Json:
        out: Json = {
            "name": self.name,
            "version": self.version,
            "language": self.language,
            "views": list(self.views),
            "options": sorted(self.options),
            "env": sorted(self.env),
            "choices": dict(self.choices),
        }
        if self.contract is not None:
            out["contract"] = dict(self.contract)
        out.update({k: v for k in ("homepage", "issues", "source") if (v := getattr(self, k))})
        if self.fields is not None:
            out["fields"] = sorted(self.fields)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ImplementationInfo:
        """Build from a validated ``implementation`` object (defaults as the schema says)."""
        fields = data.get("fields")
        return cls(
            name=str(data["name"]),
            version=str(data["version"]),
            language=str(data["language"]),
            homepage=str(data.get("homepage", "")),
            issues=str(data.get("issues", "")),
            source=str(data.get("source", "")),
            views=tuple(dict.fromkeys(LEGACY_VIEWS.get(v, v)
                                      for v in data.get("views", ("session-messages",)))),
            fields=frozenset(fields) if fields is not None else None,
            options=frozenset(data.get("options", OPTION_NAMES)),
            env=frozenset(data.get("env", ())),
            choices=MappingProxyType(dict(data.get("choices", {}))),
            contract=_contract_of(data),
        )

    def unsupported(self, case: CaseInput) -> str | None:
        """Why this reader cannot answer ``case`` as asked, or None (Bowtie's dialect check).

        A view it does not claim is no reason: it answers in its own view and is
        compared on what both views share (see ``runner.judge_pair``).
        """
        for name in OPTION_NAMES:
            if case.options.get(name, DEFAULT_OPTIONS[name]) != DEFAULT_OPTIONS[name] and (
                name not in self.options
            ):
                return f"{self.name} has no {name} option"
        for name, value in case.env.items():
            if value and name not in self.env:
                return f"{self.name} does not honour {name}"
        return None


def _contract_of(data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """A declared contract with the reader's name and version filled in (contract.json)."""
    declared = data.get("contract")
    if not isinstance(declared, Mapping):
        return None
    return MappingProxyType({"name": str(data["name"]), "version": str(data["version"]),
                             **declared})


@dataclass(frozen=True, slots=True)
class CaseInput:
    """One transcript as a reader receives it; the expected answer is never part of it."""

    id: str
    data: bytes
    session_id: str
    options: Mapping[str, Any] = field(default_factory=lambda: dict(DEFAULT_OPTIONS))
    env: Mapping[str, str] = field(default_factory=dict)
    view: View = "session-messages"

    def option(self, name: str) -> Any:
        """An option's value, the reader default when the case does not set it."""
        return self.options.get(name, DEFAULT_OPTIONS[name])

    def to_json(self) -> Json:
        """The ``case`` object of a ``run`` request."""
        return {
            "id": self.id,
            "session_id": self.session_id,
            "transcript_b64": base64.b64encode(self.data).decode("ascii"),
            "view": self.view,
            "options": {name: self.option(name) for name in OPTION_NAMES},
            "env": dict(self.env),
        }


@dataclass(frozen=True, slots=True)
class Answered:
    """The reader returned these messages (``line`` keys allowed, ignored when comparing)."""

    messages: tuple[Json, ...]
    leaf: str | None = None
    status: Literal["answered"] = "answered"
    usage: Mapping[str, Any] | None = None  # token totals (readers of contract scope usage)


@dataclass(frozen=True, slots=True)
class Raised:
    """The reader raised: a legitimate answer (two readers agree when both raise)."""

    type: str
    message: str = ""
    status: Literal["raised"] = "raised"


@dataclass(frozen=True, slots=True)
class Skipped:
    """The reader (or rechain, for an unsupported view or option) declined the case."""

    message: str
    issue_url: str = ""
    status: Literal["skipped"] = "skipped"


@dataclass(frozen=True, slots=True)
class Crashed:
    """The harness broke: died, errored, or answered outside the schema.

    ``caught`` is True when the harness reported the error itself (Bowtie's
    "errored"), False when rechain saw the process die or the reply break.
    """

    message: str
    stderr: str = ""
    caught: bool = False
    status: Literal["crashed"] = "crashed"


@dataclass(frozen=True, slots=True)
class TimedOut:
    """No answer within the per-case limit; the process was killed and restarted."""

    seconds: float
    status: Literal["timeout"] = "timeout"


Outcome = Answered | Raised | Skipped | Crashed | TimedOut


def outcome_to_json(outcome: Outcome) -> Json:
    """A compact, JSON-safe record of an outcome, for reports: bounded whatever the reader
    answered (``count`` says how many messages; the first uuids are listed, each clipped)."""
    if isinstance(outcome, Answered):
        return {"status": "answered", "count": len(outcome.messages),
                "uuids": head([m.get("uuid") for m in outcome.messages])}
    if isinstance(outcome, Raised):
        return {"status": "raised", "type": clip(outcome.type), "message": clip(outcome.message)}
    if isinstance(outcome, Skipped):
        return {"status": "skipped", "message": clip(outcome.message),
                "issue_url": clip(outcome.issue_url)}
    if isinstance(outcome, Crashed):
        return {"status": "crashed", "message": clip(outcome.message, 500),
                "stderr": clip_start(outcome.stderr, 2000), "caught": outcome.caught}
    return {"status": "timeout", "seconds": outcome.seconds}


# --- schemas ----------------------------------------------------------------------------


@cache
def _registry() -> referencing.Registry[Any]:
    resources = []
    for name in ("protocol", "result", "report"):
        schema = load_schema(name)
        resources.append((schema["$id"], referencing.Resource.from_contents(schema)))
    return referencing.Registry().with_resources(resources)


@cache
def validator(definition: str) -> jsonschema.protocols.Validator:
    """A validator for ``result``, ``report`` or one ``$defs`` entry of ``protocol.json``."""
    if definition in ("result", "report"):
        schema: Json = {"$ref": load_schema(definition)["$id"]}
    else:
        schema = {"$ref": f"{load_schema('protocol')['$id']}#/$defs/{definition}"}
    cls = jsonschema.Draft202012Validator
    return cls(schema, registry=_registry())


def schema_problem(value: Any, definition: str) -> str | None:
    """The first way ``value`` breaks the named schema, as one line, or None."""
    try:
        error = jsonschema.exceptions.best_match(validator(definition).iter_errors(value))
    except RecursionError:  # the validator recurses; a reader may nest as deep as JSON goes
        return "(root): nested too deep to check against the schema"
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "(root)"
    return f"{where}: {error.message[:300]}"


# --- tier 2 messages ----------------------------------------------------------------------


def start_request() -> Json:
    return {"cmd": "start", "version": PROTOCOL_VERSION}


def run_request(seq: int, case: CaseInput) -> Json:
    return {"cmd": "run", "seq": seq, "case": case.to_json()}


def stop_request() -> Json:
    return {"cmd": "stop"}


def parse_start_reply(reply: Any) -> ImplementationInfo:
    """The implementation a ``start`` reply describes; ProtocolError if it breaks the schema."""
    problem = schema_problem(reply, "start_reply")
    if problem is not None:
        raise ProtocolError(f"start reply breaks the protocol: {problem}")
    return ImplementationInfo.from_json(reply["implementation"])


def parse_run_reply(reply: Any, seq: int, *, strict: bool = False) -> Outcome:
    """The outcome a ``run`` reply reports for request ``seq``."""
    if not isinstance(reply, dict) or reply.get("seq") != seq:
        return Crashed(f"reply is not for seq {seq}: {str(reply)[:200]}")
    if strict and (problem := schema_problem(reply, "run_reply")) is not None:
        return Crashed(f"reply breaks the protocol: {problem}")
    if reply.get("skipped") is True:
        return Skipped(str(reply.get("message", "")), str(reply.get("issue_url", "")))
    if reply.get("errored") is True:
        context = reply.get("context") or {}
        text = str(context.get("message", "")) if isinstance(context, dict) else str(context)
        trace = str(context.get("traceback", "")) if isinstance(context, dict) else ""
        return Crashed(text or "the harness reported an error", trace, caught=True)
    if "result" not in reply:
        return Crashed("reply has neither result, skipped nor errored")
    return outcome_from_result(reply["result"], strict=strict)


def outcome_from_result(result: Any, *, strict: bool = False) -> Outcome:
    """Turn a ``result.json`` value (any tier) into an Outcome; a bad one is a crash."""
    if strict and (problem := schema_problem(result, "result")) is not None:
        return Crashed(f"result breaks result.json: {problem}")
    if isinstance(result, list):
        result = {"messages": result}
    if not isinstance(result, dict):
        return Crashed(f"result is a {type(result).__name__}, not an object or array")
    if "raised" in result:
        raised = result["raised"]
        if isinstance(raised, dict) and isinstance(raised.get("type"), str):
            return Raised(raised["type"], str(raised.get("message", "")))
        return Crashed("`raised` must be an object with a string `type`")
    messages = result.get("messages", [] if isinstance(result.get("usage"), dict) else None)
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        return Crashed("`messages` must be an array of objects")
    leaf = result.get("leaf")
    usage = result.get("usage")
    return Answered(tuple(messages), leaf if isinstance(leaf, str) else None,
                    usage=dict(usage) if isinstance(usage, dict) else None)


def check_messages(messages: Sequence[Json]) -> str | None:
    """Whether every message satisfies ``result.json``'s message shape (validation mode)."""
    return schema_problem({"messages": list(messages)}, "result")
