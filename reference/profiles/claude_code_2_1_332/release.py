"""The switches that set an earlier Claude Code release's resume apart from 2.1.332's.

One ``CliRelease`` per release of the family (``reference/family.py``): the CLI
profile's stages read these switches, so a release is a parameter of the one
profile, not a copy of it. Each switch is on in 2.1.332 and names the first release
that behaves so (found with ``rechain drift``; see ``docs/changes.md``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CliRelease:
    """One release's resume, as switches on the 2.1.332 behaviour."""

    version: str = "2.1.332"
    #: ``tool_use`` blocks are sent with the ``caller`` their row holds; before, without it
    tool_use_caller: bool = True
    #: a user row with ``origin.kind == "voice-call"`` (and a queued command from one) is sent
    #: as a ``VoiceCallRecord`` call and its result; before, as a plain user row
    voice_call_records: bool = True
    #: the record's reminder and result speak of "one or more blocks"; before, of one block
    voice_record_blocks: bool = True
    #: a ``voice_call_talk`` system row is read as the user or queued-command row it stands
    #: for; before, it is a system row the resume leaves out
    voice_call_talk_rows: bool = True
    #: a hook's additional context that is not a list of strings sends nothing; before,
    #: one whose content is not a list fails the request (exit 1), a list is joined
    hook_context_checked: bool = True
    #: a file whose main-chain rows hold no user or assistant row resumes its last row as
    #: it is; before, "No conversation found"
    lone_row_resumed: bool = True
    #: a user text block that is empty or whitespace is not sent; before, it was
    blank_user_text_dropped: bool = True
    #: a user row whose content is an empty list sends nothing (the sentinel and the prompt
    #: follow the row before it); before, it was sent as ``[]``
    empty_user_rows_dropped: bool = True
    #: attachments sent after the last assistant (queued commands) join the new prompt's
    #: turn; before, they were the conversation's last user message, answered by the
    #: "No response requested." sentinel
    trailing_reminders_join_prompt: bool = True
    #: a text block whose ``text`` is not a string is dropped from its row; before, the
    #: resume fails on it (exit 1)
    textless_blocks_dropped: bool = True
    #: without a checkpoint, a last row older than the newest row gives way to the newest
    #: row below it; before, the last row written is the tip
    newest_below_last: bool = True
    #: an assistant message's tool_use blocks are sent after its other blocks; before, in
    #: the order its rows hold them
    calls_sent_last: bool = True
    #: rows put back by orphan recovery go among the turn's chain rows in file order;
    #: before, all of them right after the message's last chain row, by timestamp
    recovered_interleaved: bool = True
    #: orphan recovery also puts back the system, attachment and meta rows hanging off a
    #: message's rows, its results and the chain's own asides; before, none of them
    asides_recovered: bool = True
    #: orphan recovery puts back the asides hanging off the chain's own aside rows (a meta
    #: row below a system row on the chain); before, it left them off
    chain_asides_recovered: bool = True
    #: a lone surrogate in the request's text is sent as U+FFFD; before, as it is
    #: (JSON-escaped)
    lone_surrogates_replaced: bool = True
    #: an assistant's thinking blocks are sent only when it was written by the request's
    #: model; before, every thinking block was sent
    thinking_model_checked: bool = True
    #: a cut-off turn keeps its unanswered calls (answered by a synthetic result); before,
    #: they were dropped like any unanswered call and the prompt followed the row before
    interrupted_turn_kept: bool = True
    #: a queued command is sent as "This is how Claude Code surfaces messages the user sends
    #: mid-turn …"; before, "IMPORTANT: After completing your current task, you MUST address
    #: the user's message above. Do not ignore it."
    queued_wording_in_turn: bool = True
    #: a meta queued command is sent as "[MESSAGE FROM NON-USER SOURCE - NOT USER INPUT]";
    #: before, worded as the user's
    queued_meta_marked: bool = True
    #: a queued task notification's notice adds "No human input has been received …";
    #: before, the notice ended at "… any pending question."
    task_notice_no_human_input: bool = True
    #: a user row from a task notification is sent after the notice, in a
    #: ``<system-reminder>``; before, as written
    task_notification_rows_noticed: bool = True
    #: the request's first user message goes as written; before, the harness's
    #: ``<system-reminder>`` context block ("# currentDate") opened it, so its content went
    #: as a block list
    context_block_gone: bool = True
    #: a ``fork_briefing`` attachment is never the last row written (the tip); before, one
    #: written last was the tip, resumed as an attachment that ends the turn
    fork_briefing_passed_over: bool = True
    #: with ``CLAUDE_CODE_RESUME_INTERRUPTED_TURN``, an interrupted prompt is redone in an
    #: extra request; before, it was taken out and sent joined in front of the new prompt
    interrupted_turn_redone: bool = True
    #: adjacent user rows stay apart when a blank assistant is dropped; before, every two
    #: adjacent user rows then merged into the first, so the prompt followed that one
    users_kept_apart: bool = True
    #: an assistant's empty text blocks are not sent; before, they were
    empty_assistant_text_dropped: bool = True
    #: an assistant row whose ``content`` is a string is read as one text block; before, the
    #: resume fails when the todo scan reaches it ("content.find is not a function")
    assistant_text_content_read: bool = True
    #: a call of a cut-off turn nobody answered (of the final assistant message) gets the
    #: synthetic "[Tool call interrupted: …]" result; before, "[Request interrupted by user
    #: for tool use]", for the calls of the last assistant message with one unanswered
    interrupted_call_result: bool = True
    #: a conversation that ends on a tool result gets only "No response requested."; before,
    #: the meta "Continue from where you left off." joined that result first
    continue_notice_gone: bool = True
    #: a JSON ``null`` line is skipped like any value that is not a row; before, the resume
    #: fails ("null is not an object", exit 1)
    null_line_ignored: bool = True
    #: a compact boundary's ``compactMetadata.preservedMessages`` relinks the rows it lists
    #: after the boundary; before, only a ``preservedSegment`` is relinked
    preserved_messages_relinked: bool = True
    #: a tool result whose content is truthy and neither text nor a list is sent; before,
    #: the resume fails on it (exit 1, no request)
    odd_result_content_sent: bool = True
    #: a tool result whose content is not text, a list or null is sent as the text
    #: ``JSON.stringify`` writes of it; before, as it is
    result_content_stringified: bool = True
    #: a ``preservedMessages`` that is not an object with a ``uuids`` list is left alone;
    #: before, the resume fails ("undefined is not an object")
    preserved_messages_checked: bool = True
    #: a result filed off its message's rows (below a system row, say) that answers a call
    #: of the message is put back; before, only results below the message's own rows
    strays_recovered: bool = True
    #: the timestamp bridge never lands on a result of a call already on the chain; before,
    #: it could (the result is then an orphan where it lands)
    bridge_skips_chain_results: bool = True

    @property
    def profile_name(self) -> str:
        return f"claude-code@{self.version}"


LATEST = CliRelease()
