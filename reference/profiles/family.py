"""The Claude Code release family: one profile per release, built from the known switches.

Native releases from 2.1.260 to 2.1.332 are the 2.1.332 profile with the switches of
``CliRelease`` set from the first release of each change (found by bisecting with
``rechain drift`` or probing both neighbouring releases); the JS-bundle releases from
2.1.88 on are the 2.1.88 profile with the switches of ``SeedRelease`` (``SEED_SWITCHES``).
A release is answered only inside a range whose both ends were checked against the real
program; any other is a clear error naming what was verified, never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from rechain.reference.model import UsageError
from rechain.reference.profiles.claude_code_2_1_88 import SEED
from rechain.reference.profiles.claude_code_2_1_88.profile import read_chain
from rechain.reference.profiles.claude_code_2_1_88.release import SeedRelease
from rechain.reference.profiles.claude_code_2_1_332.chain import choose_leaf_cli, walk_cli
from rechain.reference.profiles.claude_code_2_1_332.load import parse_cli, relink_cli
from rechain.reference.profiles.claude_code_2_1_332.profile import (
    CLAUDE_CODE,
    api_view,
    chain_view,
)
from rechain.reference.profiles.claude_code_2_1_332.recover import recover_cli
from rechain.reference.profiles.claude_code_2_1_332.release import CliRelease
from rechain.reference.stages import Profile

ENTRY_POINTS = ("resume-id", "continue", "resume-file")
VERSION_TEXT = re.compile(r"\d+\.\d+\.\d+")


def version_tuple(version: str) -> tuple[int, ...]:
    """``"2.1.88"`` → ``(2, 1, 88)``; anything else is the user's mistake."""
    parts = version.split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise UsageError(f"claude-code@{version}: a release is three numbers, e.g. 2.1.332")
    return tuple(int(p) for p in parts)


@dataclass(frozen=True, slots=True)
class Switch:
    """One behaviour change of the resume: the ``CliRelease`` field and its first release."""

    field: str
    first: str
    summary: str


#: Changes of the native line (2.1.267 to 2.1.332; those at or below the range's first
#: release wait for the range to reach them), each from a ``rechain drift`` bisection
#: or a probe of both neighbouring releases.
SWITCHES: tuple[Switch, ...] = (
    Switch("lone_surrogates_replaced", "2.1.139",
           "a lone surrogate in the request is sent as U+FFFD (before: as it is, JSON-escaped; "
           "2.1.122 < first <= 2.1.139)"),
    Switch("preserved_messages_relinked", "2.1.141",
           "a boundary's `preservedMessages` are relinked after it (before: only a "
           "`preservedSegment`)"),
    Switch("lone_row_resumed", "2.1.200",
           "a file whose main-chain rows hold no user or assistant row resumes its last row "
           "(before: \"No conversation found\"; 2.1.141 < first <= 2.1.200)"),
    Switch("blank_user_text_dropped", "2.1.200",
           "a user text block that is empty or whitespace is not sent (before: sent; 2.1.141 < "
           "first <= 2.1.200)"),
    Switch("trailing_reminders_join_prompt", "2.1.200",
           "queued commands after the last assistant join the new prompt's turn (before: "
           "sent as the last user message, then \"No response requested.\"; 2.1.141 < first "
           "<= 2.1.200)"),
    Switch("textless_blocks_dropped", "2.1.200",
           "a text block whose `text` is not a string is dropped from its row (before: the "
           "resume fails on it, \"$.text.trim is not a function\"; 2.1.141 < first <= "
           "2.1.200)"),
    Switch("thinking_model_checked", "2.1.200",
           "thinking blocks written by another model than the request's are not sent "
           "(before: every one is; 2.1.141 < first <= 2.1.200, and 2.1.200 and 2.1.222 send "
           "none at all, 2.1.240 those of the request's model)"),
    Switch("hook_context_checked", "2.1.222",
           "a hook's additional context whose content is not a list of strings sends nothing "
           "(before: not a list fails the request, exit 1; a list's other items are joined "
           "as JavaScript joins them; 2.1.200 < first <= 2.1.222)"),
    Switch("queued_wording_in_turn", "2.1.222",
           "a queued command is sent as \"This is how Claude Code surfaces messages the user "
           "sends mid-turn\" (before: \"IMPORTANT: After completing your current task, you "
           "MUST address the user's message above.\"; 2.1.200 < first <= 2.1.222)"),
    Switch("task_notice_no_human_input", "2.1.222",
           "a queued task notification's notice adds \"No human input has been received\" "
           "(before: it ends at \"any pending question.\"; 2.1.200 < first <= 2.1.222)"),
    Switch("queued_meta_marked", "2.1.225",
           "a meta queued command is sent as \"[MESSAGE FROM NON-USER SOURCE - NOT USER "
           "INPUT]\" (before: worded as the user's; 2.1.223 < first <= 2.1.225)"),
    Switch("task_notification_rows_noticed", "2.1.240",
           "a task notification's user row is sent after the notice, in a system reminder "
           "(before: as written; 2.1.222 and 2.1.225 send the notice unwrapped; 2.1.225 < "
           "first <= 2.1.240)"),
    Switch("null_line_ignored", "2.1.228",
           "a JSON `null` line is skipped (before: the resume fails, \"null is not an "
           "object\")"),
    Switch("calls_sent_last", "2.1.139",
           "an assistant message's tool_use blocks are sent after its other blocks (before: "
           "in the order its rows hold them; 2.1.122 < first <= 2.1.139)"),
    Switch("empty_user_rows_dropped", "2.1.260",
           "a user row whose content is an empty list sends nothing (before: sent as `[]`; "
           "2.1.250 < first <= 2.1.260)"),
    Switch("newest_below_last", "2.1.260",
           "without a checkpoint, a last row older than the newest row gives way to the newest "
           "row below it (before: the last row written is the tip, children or not; 2.1.250 < "
           "first <= 2.1.260)"),
    Switch("recovered_interleaved", "2.1.261",
           "rows put back by orphan recovery go among the turn's chain rows in file order "
           "(before: all right after the message's last chain row, by timestamp; 2.1.260 still "
           "so)"),
    Switch("asides_recovered", "2.1.261",
           "orphan recovery puts back the system, attachment and meta rows hanging off a "
           "message's rows or results (before: none of them, so they are neither sent nor "
           "the tip; 2.1.260 still so)"),
    Switch("interrupted_turn_kept", "2.1.265",
           "a cut-off turn's unanswered calls are kept and answered by a synthetic result "
           "(before: dropped like any unanswered call; 2.1.263 still so)"),
    Switch("context_block_gone", "2.1.268",
           "the first user message is sent as written (before: the harness's context block "
           "opened it, so it went as a block list)"),
    Switch("interrupted_turn_redone", "2.1.200",
           "with CLAUDE_CODE_RESUME_INTERRUPTED_TURN an interrupted prompt is redone in an "
           "extra request (before: taken out of the conversation, the row before it the tip, "
           "and sent joined in front of the new prompt; 2.1.141 < first <= 2.1.200)"),
    Switch("fork_briefing_passed_over", "2.1.260",
           "a `fork_briefing` attachment is never the tip (before: written last, it is the "
           "tip and ends the turn as an attachment does; 2.1.250 < first <= 2.1.260)"),
    Switch("users_kept_apart", "2.1.269",
           "adjacent user rows stay apart when a blank assistant is dropped (before: every "
           "two adjacent user rows merged into the first, and the prompt followed it; "
           "2.1.268 still so)"),
    Switch("empty_assistant_text_dropped", "2.1.277",
           "an assistant's empty text blocks are not sent (before: they were)"),
    Switch("assistant_text_content_read", "2.1.277",
           "an assistant row whose `content` is a string is read as one text block (before: "
           "the resume fails, \"content.find is not a function\")"),
    Switch("interrupted_call_result", "2.1.281",
           "an unanswered call of the cut-off turn's final message is kept and answered by "
           "\"[Tool call interrupted…]\" (before: kept only when the turn has a result or "
           "ends on an attachment, answered by \"[Request interrupted by user for tool use]\", "
           "for the last message with an unanswered call)"),
    Switch("continue_notice_gone", "2.1.281",
           "a conversation ending on a tool result gets no \"Continue from where you left "
           "off.\" (before: that meta prompt joined the result)"),
    Switch("strays_recovered", "2.1.281",
           "a result filed off its message's rows (below a system row) is put back (before: "
           "only results below the message's own rows)"),
    Switch("chain_asides_recovered", "2.1.281",
           "orphan recovery puts back the asides hanging off the chain's own aside rows "
           "(before: left off, neither sent nor the tip; 2.1.280 still so)"),
    Switch("bridge_skips_chain_results", "2.1.281",
           "the timestamp bridge never lands on a result of a call on the chain (before: it "
           "could, and that result went as an orphan)"),
    Switch("preserved_messages_checked", "2.1.285",
           "a `preservedMessages` without a `uuids` list is left alone (before: the resume "
           "fails, \"undefined is not an object\")"),
    Switch("odd_result_content_sent", "2.1.284",
           "a tool result whose `content` is truthy and neither text nor a list (a number, "
           "`true`, an object) is sent (before: the resume fails on it, exit 1, no request; "
           "2.1.283 still so)"),
    Switch("result_content_stringified", "2.1.303",
           "a tool result whose `content` is not text, a list or null is sent as the text "
           "`JSON.stringify` writes of it (before: as it is; 2.1.285 < first <= 2.1.303)"),
    Switch("tool_use_caller", "2.1.304",
           "tool_use blocks are sent with their `caller` (before: without it)"),
    Switch("voice_call_records", "2.1.319",
           "a voice-call user row is sent as a VoiceCallRecord call and its result (before: as "
           "a plain user row)"),
    Switch("voice_record_blocks", "2.1.321",
           "the voice-call record's reminder and result speak of one or more blocks (before: "
           "of one block)"),
    Switch("voice_call_talk_rows", "2.1.323",
           "a voice_call_talk system row is read as the row it stands for (before: left out)"),
)

#: Changes of the 2.1.88 line (the JS bundles), each from versions.md's bisection and
#: checked on the corpus against the release named. Those before 2.1.88 are on in 2.1.88
#: and were found on 2.1.39 and 2.0.76; a first release there that was not bisected is the
#: first release known to have the change (``docs/changes.md`` says which), and the
#: releases between are not answered.
SEED_SWITCHES: tuple[Switch, ...] = (
    Switch("dangling_bridge", "2.1.91",
           "a parent missing from the file is bridged to the newest row at most 5 s older "
           "(before: the chain starts at the orphan)"),
    Switch("boundary_across_chunks", "2.1.91",
           "over 5 MiB, a boundary line across a read chunk's edge is seen like any other "
           "(before: only when it starts with the system prefix)"),
    Switch("task_notification_notice", "2.1.101",
           "a queued task notification is sent after a \"[SYSTEM NOTIFICATION - NOT USER "
           "INPUT]\" notice (before: \"A background agent completed a task:\"; 2.1.100 "
           "still so)"),
    Switch("date_context_sent", "2.1.42",
           "the request opens with a context message holding today's date (before: only a "
           "CLAUDE.md makes one, so without it the first resumed message opens the request, "
           "and a reminder after a leading tool result is folded into that result; 2.1.41 "
           "still so)"),
    Switch("continue_interrupted_turn", "2.1.42",
           "a resume ending on a tool result is sent a meta \"Continue from where you left "
           "off.\" (before: only \"No response requested.\")"),
    Switch("orphan_recovery", "2.1.80",
           "results of parallel calls and split-response fragments off the walked path are "
           "put back (before: left out)"),
    Switch("cycle_detection", "2.1.39",
           "a parent already on the chain stops the walk, a partial chain is resumed (before: "
           "the release follows the cycle for ever and hangs)"),
    Switch("rows_kept_whole", "2.1.30",
           "a resumed row stays one message (before: one message per content block, so an "
           "unanswered tool_use block is dropped alone and its text kept; fresh uuids from the "
           "first row with several blocks)"),
    Switch("calls_matched_by_value", "2.1.30",
           "a call is answered by a result with the same `tool_use_id` value, of any type "
           "(before: the results' ids are taken as object keys, so a call whose id is not a "
           "string is dropped though a result answers it, and \"5\" is answered by 5)"),
    Switch("empty_rows_not_written", "2.1.88",
           "a resumed user or assistant row with `[]` content is not written to a fork "
           "(before: written)"),
    Switch("queued_command_new_wording", "2.1.39",
           "a queued command is sent as \"The user sent a new message while you were "
           "working:\" (before: \"The user sent the following message:\")"),
    Switch("blank_assistants_dropped", "2.1.39",
           "thinking-only and whitespace-only assistant messages are left out (before: kept "
           "and sent)"),
    Switch("user_texts_checked", "2.1.69",
           "the request fails on a user text block whose text is not a string (before: sent "
           "as it is)"),
    Switch("results_checked_at_request", "2.1.88",
           "a tool result whose `content` is truthy and neither text nor a list fails the "
           "request after the fork is written (before: the resume fails before anything is "
           "written; 2.1.39 < first <= 2.1.88, the releases between not probed)"),
    Switch("legacy_tool_names_renamed", "2.1.63",
           "a `Task` tool call is sent as `Agent` (before: under its own name)"),
    Switch("local_command_sent", "2.1.63",
           "a local_command system row is sent as user text (before: left out)"),
    Switch("missing_results_synthesised", "2.1.21",
           "the request answers a call whose result does not follow it with \"[Tool result "
           "missing due to internal error]\" (before: no pairing pass, the call sent as it "
           "is; 2.1.18 < first <= 2.1.21)"),
    Switch("orphan_results_stripped", "2.1.21",
           "the request strips tool results no call asked for, a message left empty goes "
           "(before: sent; 2.1.18 < first <= 2.1.21)"),
    Switch("pairing_placeholders", "2.1.76",
           "the request also drops repeated calls and results, strips the first message's "
           "results and gives an emptied message a placeholder (before: none of that)"),
    Switch("queued_origin_wording", "2.1.69",
           "a queued command is worded by its origin: task notification, coordinator, channel "
           "(before: every one as the user's)"),
    Switch("queued_prompt_blocks", "2.1.39",
           "a queued command's block prompt is sent as its text blocks and images (before: "
           "one text, the blocks' texts joined by LF, images dropped)"),
    Switch("lines_trimmed", "2.1.39",
           "each line is JS-trimmed before JSON.parse, so an NBSP-prefixed or FF-ended line "
           "is read (before: dropped)"),
    Switch("preserved_segment_relink", "2.1.76",
           "a live preservedSegment boundary splices the kept segment back (before: parent "
           "links walked as written)"),
    Switch("large_file_skip", "2.1.88",
           "over 5 MiB the bytes before the last compact boundary are skipped (before: the "
           "whole file is read)"),
    Switch("continue_lists_promptless", "2.1.88",
           "--continue sees a session without a first prompt or title (before: passed over "
           "when the first 16 KiB hold no prompt and there is no title: nothing resumed)"),
    Switch("lite_session_list", "2.1.39",
           "the session list reads each head for a first prompt, and until 2.1.88's line "
           "--continue passes over a session without one (before: every session listed)"),
    Switch("continue_hides_sidechain_heads", "2.1.39",
           "--continue passes over a session whose head holds \"isSidechain\":true, and "
           "takes sidechain leaves (before: listed, sidechain leaves left out)"),
    Switch("progress_bridged", "2.1.88",
           "a progress row is bridged over, its child takes its parent (before: a chain row "
           "like any other)"),
    Switch("progress_loaded", "2.1.9",
           "progress rows are loaded (before: not read, the chain breaks at one)"),
    Switch("null_line_stops_loading", "2.1.39",
           "a bare `null` line stops loading (before: passed over)"),
    Switch("no_response_past_system", "2.1.88",
           "\"No response requested.\" follows the last user or assistant message past "
           "system rows (before: only when the very last message is a user one)"),
    Switch("todos_need_block_lists", "2.1.88",
           "the todo scan fails on an assistant whose content is not a list, the resume fails "
           "(before: passed over; building the request fails on it instead)"),
    Switch("resume_file_walks_chain", "2.1.88",
           "--resume <file>.jsonl walks the chain from the leaf (before: every user and "
           "assistant row of the file in file order, fresh uuids, no flags)"),
    Switch("merge_seam_newline", "2.1.78",
           "two merged user messages get a newline at a text-text seam (before: joined as "
           "they are)"),
    Switch("leaf_last_written", "2.1.101",
           "with several leaves, the one the last main-chain row written walks up to, "
           "children or not; --resume <id> ranks leaves only (before: the newest timestamp "
           "over every leaf, or over every row for --resume <id>)"),
    Switch("blank_text_merged_out", "2.1.101",
           "the request joins the fragments of one message.id without blank text blocks "
           "(before: every block; 2.1.91 < first <= 2.1.101, the releases between not "
           "probed)"),
    Switch("cycle_bridge", "2.1.108",
           "a parent already on the chain is bridged by timestamp like a missing one (before: "
           "the walk stops there, \"Cycle detected\")"),
    Switch("whitespace_kept_with_content", "2.1.111",
           "a whitespace-only assistant row is resumed when another row of its message.id "
           "holds content (before: dropped, like every whitespace-only one)"),
)

#: Releases checked against the real program, oldest first, and on what.
VERIFIED: tuple[tuple[str, str], ...] = (
    ("2.0.76", "the whole corpus, recorded (219 cases, 309/309 option sets: seed-* and the "
               "cases recorded since at all three entry points, the others at --resume <id>), "
               "200 generated at --continue (seed 76): 200/200, 2 of them hangs on both sides"),
    ("2.1.39", "the whole corpus, recorded (219 cases, 309/309 option sets: seed-* and the "
               "cases recorded since at all three entry points, the others at --resume <id>), "
               "200 generated at --continue (seed 39): 200/200"),
    ("2.1.88", "the corpus's recorded 2.1.88 expectations, all three entry points; 200 "
               "generated (200/200, seed 88)"),
    ("2.1.91", "the whole corpus, one entry point per case (199/199), 200 generated (200/200, "
               "seed 91)"),
    ("2.1.94", "the case the task-notice switch shows on (1/1)"),
    ("2.1.98", "the case the task-notice switch shows on (1/1)"),
    ("2.1.100", "the case the task-notice switch shows on (1/1)"),
    ("2.1.101", "the whole corpus (its recorded expectations at all three entry points, "
                "96/96; the other 171 cases at one each, 171/171), 200 generated (200/200, "
                "seed 101); the earlier misses on corrupted transcripts were the leaf rule, "
                "fixed and recorded as cases"),
    ("2.1.107", "the cases the cycle switch shows on (2/2)"),
    ("2.1.108", "the cases the cycle switch shows on (2/2)"),
    ("2.1.110", "the case the whitespace switch shows on (1/1)"),
    ("2.1.111", "the case the whitespace switch shows on (1/1)"),
    ("2.1.112", "the whole corpus at --resume <id> (201/201; its answers recorded on the 9 "
                "cases the 2.1.101 to 2.1.112 switches show on, all three entry points, "
                "27/27), 200 generated (200/200, seed 112)"),
    ("2.1.120", "the whole corpus (233/233 option sets), its answers on the 74 cases "
                "its switches show on recorded; 200 generated (200/200, seed 120)"),
    ("2.1.260", "the whole corpus (233/233 option sets), 200 generated (200/200, seed 260); "
                "its answers on the cases 2.1.120 and 2.1.268 recorded"),
    ("2.1.261", "the whole corpus (233/233 option sets), 200 generated (200/200, seed 261); "
                "its answers on the 24 cases the 2.1.261 to 2.1.269 switches show on recorded"),
    ("2.1.263", "the whole corpus (233/233 option sets), 200 generated (200/200, seed 263); "
                "its answers on the 24 cases the 2.1.261 to 2.1.269 switches show on recorded"),
    ("2.1.265", "the whole corpus (233/233 option sets), 200 generated (200/200, seed 265); "
                "its answers on the 24 cases the 2.1.261 to 2.1.269 switches show on recorded"),
    ("2.1.266", "the whole corpus (233/233 option sets), 200 generated (200/200, seed 266)"),
    ("2.1.267", "the whole corpus (233/233 option sets), 200 generated (200/200, seed 267); "
                "its answers on the 24 cases the 2.1.261 to 2.1.269 switches show on recorded"),
    ("2.1.268", "the whole corpus (233/233 option sets), 200 generated (200/200, seed 268); "
                "its answers on the 24 cases the 2.1.268 to 2.1.281 switches show on recorded"),
    ("2.1.269", "the whole corpus (233/233 option sets), 200 generated (200/200, seed 269)"),
    ("2.1.276", "the cases the 2.1.277 switches show on (4/4 answered the older way)"),
    ("2.1.277", "the cases the 2.1.277 switches show on (4/4)"),
    ("2.1.280", "the whole corpus (233/233 option sets), 200 generated (200/200, seed 280)"),
    ("2.1.281", "the cases the 2.1.281 and 2.1.285 switches show on (15/15 option sets); "
                "its answer on the chain-aside case recorded"),
    ("2.1.283", "the tool-result content cases (3/3, answered the older way)"),
    ("2.1.284", "the cases the 2.1.281, 2.1.284 and 2.1.285 switches show on (6/6)"),
    ("2.1.285", "the whole corpus (202/202 option sets), 200 generated (200/200, seed 285); "
                "its answers on the switch cases recorded"),
    ("2.1.303", "the cases each switch shows on (9/9), the tool-result content and three "
                "real cases recorded (6/6)"),
    ("2.1.304", "the whole corpus (205/205 option sets), 200 generated (200/200, seed 304); "
                "its answers on the switch cases recorded"),
    ("2.1.318", "the cases each switch shows on (9/9)"),
    ("2.1.319", "the whole corpus (213/213 option sets), 200 generated (200/200, seed 319); "
                "its answers on the switch cases recorded"),
    ("2.1.321", "the whole corpus (205/205 option sets), 200 generated (200/200, seed 321); "
                "its answers on the switch cases recorded"),
    ("2.1.322", "the cases each switch shows on (9/9)"),
    ("2.1.323", "the whole corpus (202/202 option sets), 200 generated (200/200, seed 323); "
                "its answers on the switch cases recorded"),
    ("2.1.332", "the whole corpus's recorded expectations, 200 generated (200/200, seed 332)"),
)

#: Ranges answered by the switches (both ends verified), newest line last.
SEED_RANGE = ("2.1.88", "2.1.112")
CLI_RANGE = ("2.1.260", "2.1.332")
#: Older native releases the switches answer one by one: the changes between them and
#: 2.1.260 were placed by probing a few installed releases, not bisected, so the releases
#: in between are not answered.
CLI_SINGLES = ("2.1.120",)
CLI_RANGES = (*((v, v) for v in CLI_SINGLES), CLI_RANGE)
#: Older JS bundles the 2.1.88 loader answers one by one: the changes between them and
#: 2.1.88 were not bisected, so the releases in between are not answered.
SEED_SINGLES = ("2.0.76", "2.1.39")
SEED_RANGES = (*((v, v) for v in SEED_SINGLES), SEED_RANGE)
RANGES = (*SEED_RANGES, *CLI_RANGES)


def _settings(version: str, switches: tuple[Switch, ...]) -> dict[str, bool]:
    at = version_tuple(version)
    return {s.field: at >= version_tuple(s.first) for s in switches}


def cli_release(version: str) -> CliRelease:
    """The switches of one release of the 2.1.332 line."""
    return CliRelease(version=version, **_settings(version, SWITCHES))


def seed_release(version: str) -> SeedRelease:
    """The switches of one release of the 2.1.88 line."""
    return SeedRelease(version=version, **_settings(version, SEED_SWITCHES))


def _inside(version: str, ends: tuple[str, str]) -> bool:
    low, high = (version_tuple(v) for v in ends)
    return low <= version_tuple(version) <= high


def _release_named(profile: str) -> str | None:
    """The X of a ``claude-code@X`` profile name whose X is a release number, else None."""
    name, at, version = profile.partition("@")
    ok = name == "claude-code" and at == "@" and VERSION_TEXT.fullmatch(version) is not None
    return version if ok else None


def in_seed_line(profile: str) -> bool:
    """Whether ``profile`` names a release the 2.1.88 loader answers (its switches set)."""
    version = _release_named(profile)
    return version is not None and _in_seed_ranges(version)


def _in_seed_ranges(version: str) -> bool:
    return any(_inside(version, ends) for ends in SEED_RANGES)


def in_cli_line(profile: str) -> bool:
    """Whether ``profile`` names a release the 2.1.332 profile answers (its switches set)."""
    version = _release_named(profile)
    return version is not None and any(_inside(version, ends) for ends in CLI_RANGES)


def _verified_text() -> str:
    return ", ".join(low if low == high else f"{low} to {high}" for low, high in RANGES)


def same_range(first: str, last: str) -> bool:
    """Whether one answered range holds both releases (and so every release between)."""
    return any(_inside(first, ends) and _inside(last, ends) for ends in RANGES)


def is_answered(version: str) -> bool:
    """Whether the family answers for this release (inside what was verified)."""
    return any(_inside(version, ends) for ends in RANGES)


def profile_for(version: str) -> Profile:
    """The profile of ``claude-code@version``; outside what was verified, a UsageError."""
    if not is_answered(version):
        raise UsageError(f"claude-code@{version} is not a verified release; rechain answers for "
                         f"{_verified_text()} (`rechain history` shows them)")
    if _in_seed_ranges(version):
        return _seed_profile(version)
    release = cli_release(version)
    if release == CliRelease():
        return CLAUDE_CODE
    return _as_release(CLAUDE_CODE, version, f"claude -p --resume <id> of Claude Code {version}",
                       parse=partial(parse_cli, release=release),
                       relink=partial(relink_cli, release=release),
                       choose_leaf=partial(choose_leaf_cli, release=release),
                       walk=partial(walk_cli, release=release),
                       recover=partial(recover_cli, release=release),
                       views={"chain": partial(chain_view, release=release),
                              "api": partial(api_view, release=release)})


def _seed_profile(version: str) -> Profile:
    """The 2.1.88 profile with this release's switches."""
    release = seed_release(version)
    if release == SeedRelease():
        return SEED
    return _as_release(SEED, version, f"Claude Code {version} resume (the 2.1.88 loader with "
                       f"this release's switches; npm JS bundle)",
                       read=partial(read_chain, release=release))


def _as_release(base: Profile, version: str, description: str, **slots: Any) -> Profile:
    """``base`` answering as ``claude-code@version``: the slots its switches reach swapped."""
    name = f"claude-code@{version}"
    return replace(base, name=name, description=description, oracle=name, aliases=(), **slots)


def verified_releases() -> tuple[tuple[str, str], ...]:
    """(release, profile name) for every verified release and switch point, oldest first."""
    points = {v for v, _ in VERIFIED} | {s.first for s in (*SEED_SWITCHES, *SWITCHES)}
    ordered = sorted((p for p in points if is_answered(p)), key=version_tuple)
    return tuple((v, f"claude-code@{v}") for v in ordered)

