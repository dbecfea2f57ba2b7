"""The switches that set a later JS-bundle release's resume apart from 2.1.88's.

One ``SeedRelease`` per release of the 2.1.88 line (``reference/profiles/family.py``
sets them from the first release of each change): the seed pipeline's stages read
these switches, so 2.1.39 or 2.1.101 is a parameter of the one 2.1.88 loader, not a
copy of it. Each switch is named for the later behaviour: those that came after 2.1.88
are off in 2.1.88, those that came before it are on (off in the older releases).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SeedRelease:
    """One release's resume, as switches on the 2.1.88 behaviour."""

    version: str = "2.1.88"
    #: the walk bridges a parent missing from the file to the newest earlier row of the
    #: same side at most 5 s older; before, the chain starts at the orphan
    dangling_bridge: bool = False
    #: over 5 MiB, a compact boundary line across a read chunk's edge is judged like any
    #: other line; before, it is seen only when it starts with the system prefix
    boundary_across_chunks: bool = False
    #: with more than one leaf, the loader keeps only the one the last main-chain row
    #: written walks up to (that row may have children), and ``--resume <id>`` ranks
    #: leaves only; before, every leaf, and ``--resume <id>`` ranked every row
    leaf_last_written: bool = False

    #: the walk bridges a parent already on the chain (a cycle) by timestamp as it does a
    #: missing one, and stops where the bridge finds nothing; before, "Cycle detected"
    #: ends the walk there
    cycle_bridge: bool = False

    #: the request's fragments of one ``message.id`` are joined without blank text
    #: blocks (when a block other than thinking is left); before, every block is kept
    blank_text_merged_out: bool = False

    #: a whitespace-only assistant row is kept when another row of its ``message.id``
    #: holds content other than thinking or blank text; before, every one is dropped
    whitespace_kept_with_content: bool = False

    #: a queued task notification is sent after the "[SYSTEM NOTIFICATION - NOT USER
    #: INPUT]" notice; before, after "A background agent completed a task:"
    task_notification_notice: bool = False

    # switches of changes before 2.1.88 (on in 2.1.88, off in the releases before them)

    #: the request opens with the harness's context message (today's date, and a
    #: CLAUDE.md when there is one); before, the context is only a CLAUDE.md, so without
    #: one no context message is sent and the first resumed message opens the request (a
    #: queued command's reminder after a leading tool result is then folded into it)
    date_context_sent: bool = True
    #: a resume that ends on a tool result gets a meta "Continue from where you left
    #: off." before the "No response requested."; before, only the latter
    continue_interrupted_turn: bool = True
    #: results of parallel calls and fragments of a split response off the walked path are
    #: put back after the chain's row of the same API message; before, they stay out
    orphan_recovery: bool = True
    #: a parent already on the chain stops the walk (a partial chain is resumed); before,
    #: the walk follows the cycle for ever and the release hangs at 100 % CPU
    cycle_detection: bool = True
    #: a resumed row stays one message, uuid kept; before, one message per content block
    #: (the filters then see single blocks), fresh uuids from the first row with several
    rows_kept_whole: bool = True
    #: a call is answered by a result whose ``tool_use_id`` is the same value (``===``,
    #: any type; every block of a row counts); before, only by a result opening its
    #: message whose ``tool_use_id`` as an object key (``String``) equals the call's id,
    #: so a call whose id is not a string is always dropped and ``"5"`` is answered by 5
    calls_matched_by_value: bool = True
    #: a resumed user or assistant row with ``[]`` content is not written to the fork;
    #: before, it is written like any other
    empty_rows_not_written: bool = True
    #: a queued command is sent as "The user sent a new message while you were working:";
    #: before, as "The user sent the following message:"
    queued_command_new_wording: bool = True
    #: merging two user messages ends the first one's text with a newline at a text-text
    #: seam; before, the texts are joined as they are
    merge_seam_newline: bool = True
    #: thinking-only and whitespace-only assistant messages are left out (when resumed and
    #: in the request); before, they are kept and sent
    blank_assistants_dropped: bool = True
    #: the request fails on a user text block whose text is not a string; before, it is
    #: sent as it is
    user_texts_checked: bool = True
    #: a tool result whose content is truthy and neither text nor a list fails building the
    #: request, after the fork is written; before, the resume fails before anything is
    #: written (both fail: exit 1, no output)
    results_checked_at_request: bool = True
    #: a tool call under a legacy name (``Task``) is sent under the current one (``Agent``);
    #: before, under its own
    legacy_tool_names_renamed: bool = True
    #: a ``local_command`` system row is sent as user text; before, it is left out
    local_command_sent: bool = True
    #: the request answers a call whose result does not follow it with a synthetic error
    #: result "[Tool result missing due to internal error]"; before, there is no pairing
    #: pass and the call is sent as it is
    missing_results_synthesised: bool = True
    #: the request strips tool results no call of the preceding assistant asked for (a
    #: message left empty goes); before, they are sent
    orphan_results_stripped: bool = True
    #: the request also drops repeated calls and results, strips the first message's
    #: results and puts a placeholder in a message left empty; before, none of that
    pairing_placeholders: bool = True
    #: a queued command is worded by its origin (task notification, coordinator, channel);
    #: before, every one as the user's
    queued_origin_wording: bool = True
    #: each line is JS-``trim()``-ed before ``JSON.parse`` (NBSP, form feed, ...); before,
    #: a line with such a character around its value is dropped
    lines_trimmed: bool = True
    #: a live ``preservedSegment`` boundary splices the kept segment back and prunes what
    #: was written before the boundary; before, parent links are walked as written
    preserved_segment_relink: bool = True
    #: a queued command whose prompt is a list of blocks is sent as its text blocks and
    #: images; before, as one text of the blocks' texts joined by LF, images dropped
    queued_prompt_blocks: bool = True
    #: over 5 MiB, the bytes before the last compact boundary are skipped (and dead branches
    #: cut); before, the whole file is read
    large_file_skip: bool = True
    #: ``--continue`` sees a session without a first prompt or title; before, the session
    #: list passes it over (no prompt in the first 16 KiB, no title) and nothing is resumed
    continue_lists_promptless: bool = True
    #: the session list reads each session's head for a first prompt (and, until
    #: ``continue_lists_promptless``, passes over one without); before, it lists every
    #: session
    lite_session_list: bool = True
    #: ``--continue`` passes over a session whose head holds ``"isSidechain":true`` (and
    #: its leaf pool takes sidechain leaves); before, it lists the session and leaves
    #: sidechain leaves out
    continue_hides_sidechain_heads: bool = True
    #: a ``progress`` row is bridged over (its child takes its parent); before, it is a
    #: row of the chain like any other
    progress_bridged: bool = True
    #: ``progress`` rows are loaded (bridged or as rows); before, they are not read at
    #: all, so the chain breaks at one
    progress_loaded: bool = True
    #: a bare ``null`` line stops loading; before, it is passed over
    null_line_stops_loading: bool = True
    #: "No response requested." follows the last user or assistant message, past system
    #: rows; before, only when the very last message is a user one
    no_response_past_system: bool = True
    #: the todo scan fails on an assistant whose content is not a list (the resume fails);
    #: before, it passes over it and building the request fails on it instead
    todos_need_block_lists: bool = True
    #: ``--resume <file>.jsonl`` walks the chain from the leaf as the other entry points do;
    #: before, it resumes every user and assistant row of the file in file order, each as
    #: its type and message under a fresh uuid (``file_rows.py``)
    resume_file_walks_chain: bool = True

    @property
    def profile_name(self) -> str:
        return f"claude-code@{self.version}"


BASE = SeedRelease()
