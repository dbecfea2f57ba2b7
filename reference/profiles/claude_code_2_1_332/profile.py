"""Profile ``claude-code@2.1.332`` (alias ``cli``): what ``claude -p --resume`` sends the model.

The stages are the CLI's (``parse_cli`` ... ``recover_cli``); ``present``
shows the resumed chain's user and assistant rows in the SDK's
``SessionMessage`` shape, so ``rechain rebuild --profile cli`` reads like the
SDK profile. The views say what the CLI itself reports: ``chain`` (the rows
and the tip the new prompt is chained to) and ``api`` (the request's
``messages`` before the new prompt's turn).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress
from operator import itemgetter

from rechain.reference.explain import left_out
from rechain.reference.facts import KIND
from rechain.reference.first_prompt import (
    FIRST_PROMPT_ERROR,
    first_prompt_fails,
)
from rechain.reference.graph import Graph, ReaderError
from rechain.reference.js.values import as_stringified
from rechain.reference.lazyrows import chain_uuids, stored_rows
from rechain.reference.model import Diagnostic, Json, Options, Rebuild
from rechain.reference.parse import Parsed
from rechain.reference.profiles.claude_code_2_1_332.api import (
    continued,
    deserialise,
    empty_blocks,
    ends_interrupted,
    redone_turn,
    requeued_prompt,
    sentinel_after,
    to_api,
    unanswered_tip,
)
from rechain.reference.profiles.claude_code_2_1_332.chain import choose_leaf_cli, walk_cli
from rechain.reference.profiles.claude_code_2_1_332.load import (
    parse_cli,
    raw_uuid,
    relink_cli,
    state_of,
)
from rechain.reference.profiles.claude_code_2_1_332.read import read_cli
from rechain.reference.profiles.claude_code_2_1_332.recover import recover_cli
from rechain.reference.profiles.claude_code_2_1_332.release import LATEST, CliRelease
from rechain.reference.rows import odd_result
from rechain.reference.stages import Profile, drive, in_line_order
from rechain.reference.view import Presented, session_message

DEFAULT_MODEL = "claude-sonnet-4-6"  # the oracle adapter's pinned --model


def hidden_reason_cli(row: Json, include_system: bool) -> str | None:
    """The messages view shows the chain's user and assistant rows, meta and team ones too."""
    kind = row.get("type")
    if kind in ("user", "assistant"):
        return None
    return f"{kind} rows are not messages (the api view shows what they send)"


def present_cli(
    parsed: Parsed, graph: Graph, chain: list[Json], leaf: Json | None, options: Options
) -> Presented:
    """The chain's user and assistant rows as ``SessionMessage`` objects; the CLI's
    failure on a first prompt that is not a string (rule L7) is the reader's error."""
    if first_prompt_fails(chain):  # an empty chain (no leaf) has no prompt to fail on
        raise ReaderError(FIRST_PROMPT_ERROR)
    # the rows' types are in their facts: a row kept undecoded stays so in the messages,
    # and the rows shown are picked in C (no pair built per row of a long chain)
    uuids = chain_uuids(chain)
    kinds = map(itemgetter(KIND), map(graph.facts().__getitem__, uuids))
    shown = [*map(_MESSAGE_KINDS.__contains__, kinds)]
    return Presented([*compress(stored_rows(chain), shown)],
                     [*map(graph.line.__getitem__, compress(uuids, shown))], session_message)


_MESSAGE_KINDS = frozenset({"user", "assistant"})


@dataclass(frozen=True, slots=True)
class Resumed:
    """Everything one resume decides: the leaf, the chain, the tip and the diagnostics."""

    leaf: Json | None
    chain: list[Json]
    lines: list[int]
    diagnostics: list[Diagnostic]
    resume_interrupted: bool = False  # CLAUDE_CODE_RESUME_INTERRUPTED_TURN
    error: str | None = None  # the CLI exits 1 and resumes nothing (rule L7)
    release: CliRelease = LATEST

    @property
    def kept(self) -> list[Json]:
        """The chain after the deserialisation filters (what the prompt is chained after)."""
        kept = deserialise(self.chain, self.resume_interrupted, self.release)
        return [row for row in kept if not _silent(row)]

    @property
    def tip(self) -> str | None:
        """The row the new prompt follows: the redone turn's last row, an interrupted call's
        fragment, else the last row that is not an empty block list (rule A8)."""
        if self.error is not None:
            return None
        kept = self.kept
        requeued = requeued_prompt(kept, self.release) if self.resume_interrupted else None
        if requeued is not None:
            rest = [row for row in kept if row is not requeued]
            return rest[-1]["uuid"] if rest else None
        redone = redone_turn(kept) if self.resume_interrupted else None
        if redone is not None:
            return redone["uuid"]
        interrupted = unanswered_tip(kept, self.release)
        # a fragment without a uuid cannot be a parent: the prompt follows the last row
        if interrupted is not None and ends_interrupted(kept) \
                and raw_uuid(interrupted["uuid"]) is not None:
            return interrupted["uuid"]
        last = next((r for r in reversed(kept) if r.get("type") in ("user", "assistant")), None)
        ends_on_user = last is None or last.get("type") == "user"  # None: no message at all
        after = sentinel_after(kept, self.release)
        if ends_on_user and not continued(kept, self.release) and after >= 0:
            kept = kept[:after + 1]  # the sentinel follows this row; the prompt, the sentinel
        kept = [row for row in kept if not empty_blocks(row)]  # never a parent: probed
        return kept[-1]["uuid"] if kept else None  # recovered rows count: probed (D4 case)


SILENT_SYSTEM = frozenset({"file_snapshot"})


def _silent(row: Json) -> bool:
    """System rows the resumed conversation leaves out (the prompt never follows them)."""
    subtype = row.get("subtype")
    return row.get("type") == "system" and type(subtype) is str and subtype in SILENT_SYSTEM


TODO_SCAN_ERROR = "Failed to resume session: q.message.content.find is not a function"


def _todo_scan_fails(chain: list[Json], options: Options, release: CliRelease) -> str | None:
    """Before ``assistant_text_content_read``, the todo scan walks the resumed assistants
    from the last one to a TodoWrite call and fails on one whose content is no list."""
    if release.assistant_text_content_read:
        return None
    for row in reversed(deserialise(chain, options.resume_interrupted_turn, release)):
        if row.get("type") != "assistant":
            continue
        message = row.get("message")
        content = message.get("content") if type(message) is dict else None
        if type(content) is not list:
            return TODO_SCAN_ERROR
        if any(type(b) is dict and b.get("type") == "tool_use" and b.get("name") == "TodoWrite"
               for b in content):
            return None
    return None


TEXT_NOT_STRING_ERROR = ("Failed to resume session: $.text.trim is not a function. (In "
                         "'$.text.trim()', '$.text.trim' is undefined)")


def _text_not_string(chain: list[Json], release: CliRelease) -> str | None:
    """Before ``textless_blocks_dropped``, a text block whose ``text`` is not a string on
    a resumed user or assistant row fails the resume (probed on 2.1.120: the blank-text
    check trims it, or the request is refused; exit 1 either way)."""
    if release.textless_blocks_dropped:
        return None
    for row in chain:
        message = row.get("message") if row.get("type") in ("user", "assistant") else None
        content = message.get("content") if type(message) is dict else None
        if type(content) is list and any(
                type(b) is dict and b.get("type") == "text" and type(b.get("text")) is not str
                for b in content):
            return TEXT_NOT_STRING_ERROR
    return None


HOOK_CONTENT_ERROR = "the request is not built: a hook's additional context is not a list (exit 1)"


def _hook_content_fails(chain: list[Json], release: CliRelease) -> str | None:
    """Before ``hook_context_checked``, a resumed hook_additional_context attachment whose
    content is not a list fails the request (probed on 2.1.120 and 2.1.200: exit 1)."""
    if release.hook_context_checked:
        return None
    for row in chain:
        attachment = row.get("attachment") if row.get("type") == "attachment" else None
        if type(attachment) is dict and attachment.get("type") == "hook_additional_context" \
                and type(attachment.get("content")) is not list:
            return HOOK_CONTENT_ERROR
    return None


ODD_RESULT_ERROR = ("the resume fails: a tool result's content is truthy and neither text nor a "
                    "list (exit 1)")


def _odd_result_fails(chain: list[Json], release: CliRelease) -> str | None:
    """Before ``odd_result_content_sent``, a resumed user row holding a tool result whose
    content is a number, ``true`` or an object fails the resume (probed on 2.1.120,
    2.1.269, 2.1.277, 2.1.281 to 2.1.283: exit 1, nothing sent; 0, false, null are sent)."""
    if release.odd_result_content_sent:
        return None
    for row in chain:
        message = row.get("message") if row.get("type") == "user" else None
        content = message.get("content") if type(message) is dict else None
        if type(content) is list and any(odd_result(b) for b in content):
            return ODD_RESULT_ERROR
    return None


def resumed(result: Rebuild, release: CliRelease = LATEST) -> Resumed:
    """What the CLI's load decided, from one run of this profile's stages: every row of the
    chain counts as shown (the chain view lists them all), and a first prompt that is not a
    string resumes nothing (rule L7)."""
    run = result.run
    if run is None:  # not a run of this profile's stages: nothing was resumed
        return Resumed(None, [], [], list(result.diagnostics), error=result.error,
                       release=release)
    graph, chain, leaf, options = run.graph, run.chain, run.leaf, run.options
    diagnostics = [*run.source.diagnostics, *run.parsed.findings(), *graph.diagnostics]
    shown = [graph.line[row["uuid"]] for row in chain]
    diagnostics += left_out(graph, chain, shown, lambda row, _: None, options)
    failed = (state_of(graph).failure or _todo_scan_fails(chain, options, release)
              or _text_not_string(chain, release) or _hook_content_fails(chain, release)
              or _odd_result_fails(chain, release))
    if failed is not None:
        diagnostics += [Diagnostic(n, "reader-error", f"not resumed: {failed}") for n in shown]
        return Resumed(leaf, [], [], list(in_line_order(diagnostics)),
                       options.resume_interrupted_turn, failed, release)
    if first_prompt_fails(chain):  # an empty chain (no leaf) has no prompt to fail on
        diagnostics.append(Diagnostic(None, "first-prompt", FIRST_PROMPT_ERROR))
        diagnostics += [Diagnostic(n, "reader-error", f"not resumed: {FIRST_PROMPT_ERROR}")
                        for n in shown]
        return Resumed(leaf, [], [], list(in_line_order(diagnostics)),
                       options.resume_interrupted_turn, FIRST_PROMPT_ERROR, release)
    return Resumed(leaf, chain, shown, list(in_line_order(diagnostics)),
                   options.resume_interrupted_turn, release=release)


def resume(data: bytes, options: Options | None = None) -> Resumed:
    """The CLI's load of one transcript (never raises on any bytes)."""
    return resumed(drive(data, CLAUDE_CODE, options or Options(), None))


def chain_view(result: Rebuild, release: CliRelease = LATEST) -> Json:
    """``--view chain``: the leaf, the tip the prompt follows, the chain's uuids, diagnostics."""
    found = resumed(result, release)
    return {
        "profile": result.profile,
        "session_id": result.session_id,
        "leaf": raw_uuid(found.leaf["uuid"]) if found.leaf is not None else None,
        "tip": raw_uuid(found.tip) if found.tip is not None else None,
        "chain": [raw_uuid(row["uuid"]) for row in found.chain],
        "lines": found.lines,
        "diagnostics": [d.to_json() for d in found.diagnostics],
    }


def api_view(result: Rebuild, release: CliRelease = LATEST) -> Json:
    """``--view api``: the request's ``messages`` before the new prompt's turn."""
    options = result.run.options if result.run is not None else Options()
    model = options.model or DEFAULT_MODEL
    found = resumed(result, release)
    error = found.error if found.leaf is not None else "No conversation found"
    return {
        "profile": result.profile,
        "session_id": result.session_id,
        "model": model,
        # sent as JSON.stringify writes it: an integer beyond a double's digits is rounded
        "messages": (as_stringified(to_api(found.chain, model, options.resume_interrupted_turn,
                                           release)) if error is None else []),
        "error": error,
    }


CLAUDE_CODE = Profile(
    name="claude-code@2.1.332",
    description="claude -p --resume <id> of Claude Code 2.1.332: the chain and the API messages",
    oracle="claude-code",
    read=read_cli,
    parse=parse_cli,
    relink=relink_cli,
    choose_leaf=choose_leaf_cli,
    walk=walk_cli,
    recover=recover_cli,
    present=present_cli,
    hidden_reason=hidden_reason_cli,
    aliases=("cli", "claude-code"),
    views={"chain": chain_view, "api": api_view},
)
