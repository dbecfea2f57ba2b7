"""The resumed messages as 2.1.88's first model request carries them.

``normalizeMessagesForAPI`` then ``ensureToolResultPairing``, run as the CLI
runs them: on the harness's context message, the resumed conversation and the
new prompt's turn together (merges and pairing repairs cross those seams), after
which the harness's own blocks are taken out again by ``harness_free`` — the
same function that cleans the real request, so both sides are cut alike.

Covered: attachments bubble up and render as ``<system-reminder>`` text
(``attachments.py``), merged into a preceding user message with the legacy
tool-result smoosh; ``local_command`` rows become user text; adjacent user
messages merge; an assistant merges into an earlier one with the same
``message.id`` found walking back over assistants and tool-result messages;
tool_use blocks are rebuilt as ``{type, id, name, input}`` under the tool's current
name (``Task`` is ``Agent``), ExitPlanMode and multi-edit Edit inputs trimmed; orphaned
thinking-only, whitespace-only and empty assistants as 2.1.88 treats them; then
the pairing pass (orphan results stripped, duplicate tool_use ids dropped,
missing results synthesised as errors). Not modelled: gated paths (statsig
gates are off offline), tool_reference and server-tool blocks, media limits.
Thinking blocks are kept whatever the model (2.1.88 does not strip them on a
model mismatch; 2.1.332 does).
"""

from __future__ import annotations

import re
from typing import Any

from rechain.reference.graph import ReaderError
from rechain.reference.js.text import JS_SPACE
from rechain.reference.js.values import UNDEFINED, prop, strict_equal, to_string
from rechain.reference.model import Json
from rechain.reference.profiles.claude_code_2_1_88 import attachments
from rechain.reference.profiles.claude_code_2_1_88.load import mkey
from rechain.reference.profiles.claude_code_2_1_88.release import BASE, SeedRelease
from rechain.reference.profiles.claude_code_2_1_88.resume import (
    filter_orphaned_thinking,
    filter_whitespace_only,
    merge_user_messages,
)
from rechain.reference.rows import content as content_of
from rechain.reference.rows import is_boundary, joined_fragments, odd_result

CONTEXT_PREFIX = ("<system-reminder>\nAs you answer the user's questions, you can use the "
                  "following context:")
SKILLS_PREFIX = "<system-reminder>\nThe following skills are available"
MISSING_RESULT = "[Tool result missing due to internal error]"
ORPHAN_PLACEHOLDER = "[Orphaned tool result removed due to conversation resume]"
INTERRUPTED_USE = "[Tool use interrupted]"
TODO_PREFIX = "<system-reminder>\nThe TodoWrite tool hasn't been used recently"


def _with_content(entry: Json, content: Any) -> Json:
    message = entry.get("message")
    return {**entry, "message": {**(message if type(message) is dict else {}),
                                 "content": content}}


def _is_tool_result_message(entry: Json) -> bool:
    content = content_of(entry)
    return entry.get("type") == "user" and type(content) is list and any(
        prop(b, "type") == "tool_result" for b in content)


def _same_id(a: Json, b: Json) -> bool:
    """``a.message.id === b.message.id`` (two missing ids are equal)."""
    left, right = prop(a.get("message"), "id"), prop(b.get("message"), "id")
    return (left is UNDEFINED and right is UNDEFINED) or strict_equal(left, right)


def _as_blocks(content: Any) -> list[Any]:
    """A message's content as blocks; content neither text nor a list (``null``, a number,
    an object: a hand-edited or corrupted row) has none (not probed on the real release)."""
    if type(content) is str:
        return [{"type": "text", "text": content}]
    return list(content) if type(content) is list else []


def _smoosh(result: Json, texts: list[Any]) -> Json:
    """``smooshIntoToolResult``'s string path: trimmed texts joined by blank lines."""
    parts = [to_string(result.get("content", "")).strip(JS_SPACE)]
    parts += [to_string(prop(b, "text")).strip(JS_SPACE) for b in texts]
    return {**result, "content": "\n\n".join(p for p in parts if p)}


def merge_with_results(a: Json, b: Json) -> Json:
    """``mergeUserMessagesAndToolResults`` (legacy smoosh, no seam newline, results first)."""
    left, right = _as_blocks(content_of(a)), _as_blocks(content_of(b))
    tail = left[-1] if left else UNDEFINED
    if (prop(tail, "type") == "tool_result" and type(prop(tail, "content")) is str
            and all(prop(x, "type") == "text" for x in right)):
        joined = [*left[:-1], _smoosh(tail, right)] if right else left
    else:
        joined = [*left, *right]
    results = [x for x in joined if prop(x, "type") == "tool_result"]
    return _with_content(a, results + [x for x in joined if prop(x, "type") != "tool_result"])


def _add_user(result: list[Json], entry: Json, release: SeedRelease = BASE) -> None:
    if result and result[-1].get("type") == "user":
        result[-1] = merge_user_messages(result[-1], entry, release.merge_seam_newline)
    else:
        result.append(entry)


# tools known under an older name: the request carries the current one
TOOL_ALIASES = {"Task": "Agent", "KillShell": "TaskStop", "AgentOutputTool": "TaskOutput",
                "BashOutputTool": "TaskOutput"}
# fields that old transcripts stored in a tool's input and the request leaves out
STRIPPED_INPUT = {"ExitPlanMode": (("plan", "planFilePath"), ("plan", "planFilePath")),
                  "Edit": (("edits",), ("old_string", "new_string", "replace_all"))}


def _input(name: Any, value: Any) -> Any:
    """``normalizeToolInputForAPI``: ExitPlanMode loses plan fields, a multi-edit Edit its
    synthesised single-edit fields."""
    rule = STRIPPED_INPUT.get(name) if type(name) is str else None
    if rule is None or type(value) is not dict or not any(k in value for k in rule[0]):
        return value
    return {k: v for k, v in value.items() if k not in rule[1]}


def _tool_use(block: Any, release: SeedRelease = BASE) -> Any:
    """A tool_use block rebuilt with only type, id, name (current, when the release renames
    legacy names) and input."""
    if prop(block, "type") != "tool_use":
        return block
    name = prop(block, "name")
    if release.legacy_tool_names_renamed and type(name) is str:
        name = TOOL_ALIASES.get(name, name)
    fields = {"type": "tool_use", "id": prop(block, "id"), "name": name,
              "input": _input(name, prop(block, "input"))}
    return {k: v for k, v in fields.items() if v is not UNDEFINED}


def _add_assistant(result: list[Json], entry: Json, release: SeedRelease = BASE) -> None:
    content = content_of(entry)
    if type(content) is not list and not release.todos_need_block_lists:
        # the todo scan passed it over: building the request fails on it instead
        raise ReaderError("message.content.map is not a function (TypeError)")
    if type(content) is list:
        entry = _with_content(entry, [_tool_use(b, release) for b in content])
    for at in range(len(result) - 1, -1, -1):
        earlier = result[at]
        if earlier.get("type") != "assistant" and not _is_tool_result_message(earlier):
            break
        if earlier.get("type") == "assistant" and _same_id(earlier, entry):
            left, right = content_of(earlier), content_of(entry)
            left, right = (left if type(left) is list else [],
                           right if type(right) is list else [])
            joined = (joined_fragments(left, right) if release.blank_text_merged_out
                      else [*left, *right])
            result[at] = _with_content(earlier, joined)
            return
    result.append(entry)


def _add_attachment(result: list[Json], entry: Json, release: SeedRelease = BASE) -> None:
    rendered = attachments.render(entry.get("attachment"), release)
    if result and result[-1].get("type") == "user":
        for message in rendered:
            result[-1] = merge_with_results(result[-1], message)
    else:
        result.extend(rendered)


def _non_empty_assistants(result: list[Json]) -> list[Json]:
    """``ensureNonEmptyAssistantContent``: an empty assistant (not the last) says so."""
    return [_with_content(e, [{"type": "text", "text": attachments.NO_CONTENT, "citations": []}])
            if e.get("type") == "assistant" and content_of(e) == [] and at < len(result) - 1
            else e for at, e in enumerate(result)]


def check_user_texts(entry: Json) -> None:
    """Fail the request as 2.1.88 does on a user text block whose text is not a string.

    Building the request tests each text block of every user message it sends
    (meta rows, tool-result rows and the first message included; nested
    tool-result content is not looked at) before adjacent users are merged; a
    text that is not a string (missing, null, false, a number, an object) throws,
    after the fork has written the conversation and the prompt (rule 25).
    """
    content = content_of(entry)
    if type(content) is not list:
        return
    for block in content:
        if prop(block, "type") == "text" and type(prop(block, "text")) is not str:
            raise ReaderError("text.startsWith is not a function (TypeError)")


def check_results(entry: Json) -> None:
    """Fail as the 2.1.88 line does on a user message holding a tool result whose content
    is a number, ``true`` or an object (0, false and null are sent): exit 1, no output,
    probed on 2.0.76, 2.1.39, 2.1.88 and 2.1.112."""
    content = content_of(entry)
    if type(content) is list and any(odd_result(b) for b in content):
        raise ReaderError("a tool result's content is neither text nor a list (TypeError)")


def normalise(messages: list[Json], release: SeedRelease = BASE) -> list[Json]:
    """``normalizeMessagesForAPI`` on deserialised rows (user and assistant rows out)."""
    result: list[Json] = []
    for entry in attachments.reorder(messages):
        kind = entry.get("type")
        if attachments.is_virtual(entry):
            continue
        if kind == "system" and entry.get("subtype") == "local_command":
            if release.local_command_sent:
                _add_user(result, attachments.user(entry.get("content"), meta=False), release)
        elif kind == "user":
            if release.user_texts_checked:
                check_user_texts(entry)
            if release.results_checked_at_request:
                check_results(entry)
            _add_user(result, entry, release)
        elif kind == "assistant":
            _add_assistant(result, entry, release)
        elif kind == "attachment":
            _add_attachment(result, entry, release)
    if release.blank_assistants_dropped:
        result = filter_orphaned_thinking(result)
        result = filter_whitespace_only(result, release.merge_seam_newline,
                                        release.whitespace_kept_with_content)
    return _non_empty_assistants(result)


def _result_ids(content: Any) -> list[Any]:
    return [mkey(prop(b, "tool_use_id")) for b in content if prop(b, "type") == "tool_result"]


def pair_results(messages: list[Json], release: SeedRelease = BASE) -> list[Json]:
    """``ensureToolResultPairing`` as ``release`` has it: missing results synthesised
    (``missing_results_synthesised``, before which the pass does not exist);
    orphan results stripped (``orphan_results_stripped``); repeated calls and results
    dropped and emptied messages given a placeholder (``pairing_placeholders``)."""
    strip, full = release.orphan_results_stripped, release.pairing_placeholders
    if not (strip or full or release.missing_results_synthesised):
        return messages  # no pairing pass at all
    out: list[Json] = []
    seen_uses: set[Any] = set()
    at = 0
    while at < len(messages):
        entry = messages[at]
        at += 1
        if entry.get("type") != "assistant":
            after_assistant = bool(out) and out[-1].get("type") == "assistant"
            if after_assistant or not strip or (not out and not full):
                kept: Json | None = entry
            else:
                kept = _without_results(entry, first=not out)
            if kept is not None:
                out.append(kept)
            continue
        entry, uses = _new_uses(entry, seen_uses) if full else (entry, _uses(entry))
        out.append(entry)
        following = messages[at] if at < len(messages) else None
        reply, taken = _paired_reply(following, uses if release.missing_results_synthesised
                                     else {}, strip, full)
        out += reply
        at += taken
    return out


def _without_results(entry: Json, first: bool) -> Json | None:
    """A user message that follows no assistant loses its tool results: a placeholder
    when nothing is left and it comes first, else dropped when nothing is left."""
    content = content_of(entry)
    if entry.get("type") != "user" or type(content) is not list:
        return entry
    kept = [b for b in content if prop(b, "type") != "tool_result"]
    if len(kept) == len(content):
        return entry
    if not kept and not first:
        return None
    return _with_content(entry, kept or [{"type": "text", "text": ORPHAN_PLACEHOLDER}])


def _uses(entry: Json) -> dict[Any, Any]:
    """An assistant message's tool_use ids (key -> id, in block order)."""
    content = content_of(entry)
    return {mkey(prop(b, "id")): prop(b, "id") for b in content
            if prop(b, "type") == "tool_use"} if type(content) is list else {}


def _new_uses(entry: Json, seen_uses: set[Any]) -> tuple[Json, dict[Any, Any]]:
    """The assistant message without the tool_use blocks an earlier one had, and its
    own tool_use ids (key -> id, in block order)."""
    content = content_of(entry)
    if type(content) is not list:
        return entry, {}
    uses: dict[Any, Any] = {}
    kept = []
    for block in content:
        if prop(block, "type") == "tool_use":
            key = mkey(prop(block, "id"))
            if key in seen_uses:
                continue
            seen_uses.add(key)
            uses[key] = prop(block, "id")
        kept.append(block)
    if len(kept) != len(content):
        entry = _with_content(entry, kept or [
            {"type": "text", "text": INTERRUPTED_USE, "citations": []}])
    return entry, uses


def _paired_reply(following: Json | None, uses: dict[Any, Any], strip: bool = True,
                  full: bool = True) -> tuple[list[Json], int]:
    """What goes after an assistant message with ``uses``, and how many messages that
    takes from the input (1 when the following user message is rewritten): results
    for the calls nobody answered first, then the reply without orphaned (``strip``) or
    repeated (``full``) results; a user message of its own when the assistant is not
    followed by one; a reply left empty is a placeholder (``full``) or goes."""
    replied = following is not None and following.get("type") == "user"
    content = content_of(following) if following is not None else UNDEFINED
    answered = _result_ids(content) if replied and type(content) is list else []
    missing = [u for u in uses if u not in answered]
    orphaned = {r for r in answered if r not in uses} if strip else set()
    repeated = full and len(set(answered)) != len(answered)
    if not missing and not orphaned and not repeated:
        return [], 0
    synthetic = [{"type": "tool_result", "tool_use_id": uses[u], "content": MISSING_RESULT,
                  "is_error": True} for u in missing]
    if replied:
        done: set[Any] = set()
        patched = []
        for block in _as_blocks(content):
            if prop(block, "type") == "tool_result":
                key = mkey(prop(block, "tool_use_id"))
                if key in orphaned or (full and key in done):
                    continue
                done.add(key)
            patched.append(block)
        if not synthetic and not patched and not full:
            return [], 1
        reply = _with_content(following, [*synthetic, *patched]) if synthetic or patched \
            else attachments.user(attachments.NO_CONTENT, meta=True)
        return [reply], 1
    return ([attachments.user(synthetic, meta=True)] if synthetic else []), 0


def after_last_boundary(messages: list[Json]) -> list[Json]:
    """``getMessagesAfterCompactBoundary``: the model sees the conversation from its last
    compact boundary on (a chain the walk carried past a boundary, over a cycle or a
    bridge, keeps the rows before it only in the transcript)."""
    for at in range(len(messages) - 1, -1, -1):
        if is_boundary(messages[at]):
            return messages[at:]
    return messages


def request(messages: list[Json], prompt: str, release: SeedRelease = BASE) -> list[Json]:
    """The request's ``messages`` as API items for a resume followed by ``prompt``.

    The harness's context message goes first (from ``date_context_sent`` on: before,
    the context holds only a CLAUDE.md, and the oracle's runs have none) and the new
    turn's own reminder (standing for the skills list) before the prompt, as the CLI
    puts them.
    """
    context = [attachments.user([{"type": "text", "text": f"{CONTEXT_PREFIX}\n(harness)"}],
                                meta=True)] if release.date_context_sent else []
    reminder = {"type": "attachment",
                "attachment": attachments.HarnessReminder(f"{SKILLS_PREFIX[18:]} (harness)")}
    turn = attachments.user(prompt, meta=False)
    messages = after_last_boundary(messages)
    items = pair_results(normalise([*context, *messages, reminder, turn], release), release)
    return [{"role": e.get("type"), "content": content_of(e)} for e in items]


HARNESS_PREFIXES = (CONTEXT_PREFIX, SKILLS_PREFIX, TODO_PREFIX)
SMOOSHED_HARNESS = re.compile(
    "(?:\n\n)?<system-reminder>\n(?:"
    + "|".join(re.escape(p.removeprefix("<system-reminder>\n")) for p in HARNESS_PREFIXES)
    + ")(?:.|\n)*?\n</system-reminder>")


def _is_harness_text(block: Any) -> bool:
    text = prop(block, "text")
    return prop(block, "type") == "text" and type(text) is str and text.startswith(
        HARNESS_PREFIXES)


def _without_smooshed(block: Any) -> Any:
    """A tool result with the harness reminders folded into its text taken out."""
    content = prop(block, "content")
    if prop(block, "type") != "tool_result" or type(content) is not str:
        return block
    cleaned = SMOOSHED_HARNESS.sub("", content)
    return block if cleaned == content else {**block, "content": cleaned}


def harness_free(messages: list[Json], prompt: str) -> list[Json]:
    """A request's messages without the harness's blocks and the prompt.

    The harness adds a context block to the first user message and reminders
    (skills list, TodoWrite nudge) to the prompt's turn, where they may be
    folded into a tool result; they and the prompt's own block are removed,
    and a user message left empty goes.
    """
    out: list[Json] = []
    for at, message in enumerate(messages):
        content = message.get("content")
        if type(content) is str:
            content = [{"type": "text", "text": content}]
        if type(content) is list:
            last = at == len(messages) - 1 and message.get("role") == "user"
            content = [_without_smooshed(b) for b in content if not _is_harness_text(b)
                       and not (last and prop(b, "type") == "text"
                                and prop(b, "text") == prompt)]
            if not content and message.get("role") == "user":
                continue
        out.append({"role": message.get("role"), "content": content})
    return out


def to_api(messages: list[Json], prompt: str = "next", release: SeedRelease = BASE) -> list[Json]:
    """The resumed conversation's part of the request (``harness_free`` of ``request``)."""
    return harness_free(request(messages, prompt, release), prompt)
