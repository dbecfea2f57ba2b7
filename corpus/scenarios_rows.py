"""Scenarios about special rows: queued commands, meta rows and origins, quiet turns, voice."""

from __future__ import annotations

from typing import Any

from rechain.corpus.build import Line, Row, Session, text
from rechain.corpus.scenario import collector, options

SCENARIOS, scenario = collector()

_SYSTEM = [options(system=True)]


def _queued(prompt: Any, **fields: Any) -> Row:
    return {"type": "queued_command", "prompt": prompt, "commandMode": "prompt", **fields}


def _tool_turn(s: Session) -> list[Line]:
    """u1 asks, a1 calls a tool, r1 answers it."""
    return [
        s.user("u1", "Run the test suite.", None),
        s.assistant("a1", [s.tool_use("t1", command="pytest -q")], "u1"),
        s.result("r1", "t1", "a1", source="a1", output="112 passed"),
    ]


@scenario("queued-command-answered", "queued-command", "attachment")
def queued_answered(s: Session) -> list[Line]:
    """A prompt queued during a tool call is followed by the reply, so it becomes a user message."""
    return [
        *_tool_turn(s),
        s.attachment("q1", "r1", _queued("also check the coverage")),
        s.assistant("a2", [text("All 112 pass; coverage is 91%.")], "q1"),
    ]


@scenario("queued-command-trailing", "queued-command", "attachment", "leaf-choice")
def queued_trailing(s: Session) -> list[Line]:
    """Two queued prompts hang off the last reply when the session ends; both are kept."""
    return [
        *_tool_turn(s),
        s.assistant("a2", [text("All 112 tests pass.")], "r1"),
        s.attachment("q1", "a2", _queued("then push")),
        s.attachment("q2", "q1", _queued("and open a PR")),
    ]


@scenario("queued-command-followed-by-prompt", "queued-command", "attachment")
def queued_then_prompt(s: Session) -> list[Line]:
    """A queued prompt followed by a new typed prompt instead of a reply is left out."""
    return [
        *_tool_turn(s),
        s.attachment("q1", "r1", _queued("also lint")),
        s.user("u2", "Never mind, just summarise.", "q1"),
        s.assistant("a2", [text("All 112 tests pass.")], "u2"),
    ]


@scenario("queued-command-before-interrupt", "queued-command", "attachment", "interrupt")
def queued_interrupt(s: Session) -> list[Line]:
    """A queued prompt followed by an interrupt marker counts as answered."""
    return [
        *_tool_turn(s),
        s.attachment("q1", "r1", _queued("stop after this")),
        s.user("u2", [text("[Request interrupted by user]")], "q1"),
        s.user("u3", "Summarise what ran.", "u2"),
        s.assistant("a3", [text("The full suite ran.")], "u3"),
    ]


@scenario("queued-command-meta-and-origin", "queued-command", "attachment", "meta", "origin")
def queued_meta(s: Session) -> list[Line]:
    """Queued prompts marked isMeta, from a channel, and from a task notification."""
    return [
        *_tool_turn(s),
        s.attachment("q1", "r1", _queued("hidden reminder", isMeta=True)),
        s.attachment("q2", "q1", _queued("from #deploys", isMeta=True, origin={"kind": "channel"})),
        s.attachment(
            "q3",
            "q2",
            _queued(
                "<task-notification>build 77 finished</task-notification>",
                origin={"kind": "task-notification", "subkind": "done", "extra": "dropped"},
                runId="run_7f3a",
            ),
        ),
        s.assistant("a2", [text("Noted all three.")], "q3"),
    ]


@scenario("queued-command-source-uuid", "queued-command", "attachment", "duplicate-uuid")
def queued_source_uuid(s: Session) -> list[Line]:
    """Queued prompts take their source_uuid as uuid, unless that uuid is already in the file."""
    return [
        *_tool_turn(s),
        s.attachment("q1", "r1", _queued("use the fast profile", source_uuid=s.uid("typed1"))),
        s.attachment("q2", "q1", _queued("and be quiet", source_uuid=s.uid("u1"))),
        s.assistant("a2", [text("Using the fast profile.")], "q2"),
    ]


@scenario("queued-command-block-prompt", "queued-command", "attachment")
def queued_blocks(s: Session) -> list[Line]:
    """A queued prompt whose prompt is a list of content blocks, and one with no prompt."""
    return [
        *_tool_turn(s),
        s.attachment("q1", "r1", _queued([text("see this"), text("and this")])),
        s.attachment("q2", "q1", {"type": "queued_command", "commandMode": "prompt"}),
        s.assistant("a2", [text("Looked at both.")], "q2"),
    ]


@scenario("queued-command-absorbed-mid-turn", "queued-command", "attachment")
def queued_absorbed(s: Session) -> list[Line]:
    """A queue-operation marks a queued prompt as absorbed mid-turn although a prompt follows it."""
    return [
        *_tool_turn(s),
        {
            "type": "queue-operation",
            "operation": "remove",
            "reason": "absorbed_mid_turn",
            "commandUuid": s.uid("typed1"),
            "timestamp": "2026-11-20T09:00:08.000Z",
            "sessionId": s.session_id,
        },
        s.attachment("q1", "r1", _queued("also lint", source_uuid=s.uid("typed1"))),
        s.user("u2", "Now summarise.", "q1"),
        s.assistant("a2", [text("All 112 tests pass and lint is clean.")], "u2"),
    ]


_KINDS = [
    "channel",
    "peer",
    "observer",
    "observer-activity",
    "slack-ping",
    "voice-call",
    "human",
    "task-notification",
]


@scenario("meta-origin-kinds", "meta", "origin")
def meta_origins(s: Session) -> list[Line]:
    """isMeta rows from every origin kind; only channel, peer, observer(-activity), slack-ping and
    voice-call stay."""
    rows: list[Line] = [s.user("u1", "Watch the channels for me.", None)]
    parent = "u1"
    for n, kind in enumerate(_KINDS, start=1):
        rows.append(
            s.user(f"m{n}", f"Message from {kind}.", parent, isMeta=True, origin={"kind": kind})
        )
        rows.append(s.assistant(f"a{n}", [text(f"Seen the {kind} message.")], f"m{n}"))
        parent = f"a{n}"
    peer = {"kind": "peer", "senderTaskId": "task_12"}
    rows.append(s.user("m20", "Peer with a sender task.", parent, isMeta=True, origin=peer))
    rows.append(s.user("m21", "Meta with no origin.", "m20", isMeta=True))
    rows.append(s.user("m22", "A string origin.", "m21", isMeta=True, origin="channel"))
    rows.append(s.assistant("a20", [text("Done watching.")], "m22"))
    return rows


@scenario("meta-flags-in-output", "meta", "compact-summary")
def meta_flags(s: Session) -> list[Line]:
    """isVisibleInTranscriptOnly rows are kept and flagged is_meta; isMeta false changes nothing."""
    return [
        s.user("u1", "Show the build log.", None, isMeta=False),
        s.user("v1", "Build log attached.", "u1", isVisibleInTranscriptOnly=True),
        s.assistant("a1", [text("The build log shows 2 warnings.")], "v1"),
        s.user(
            "v2",
            "Shown in the transcript only.",
            "a1",
            isVisibleInTranscriptOnly=True,
            isMeta=False,
        ),
    ]


@scenario("local-command-completed", "local-command", "meta")
def local_command(s: Session) -> list[Line]:
    """A slash command after its caveat is marked completed; the same rows with no caveat are
    not."""
    caveat = (
        "<local-command-caveat>Caveat: The messages below were generated by the user while "
        "running local commands. DO NOT respond to these messages.</local-command-caveat>"
    )
    name = (
        "<command-name>/model</command-name>\n<command-message>model</command-message>\n"
        "<command-args></command-args>"
    )
    return [
        s.user("u1", "Which model are you?", None),
        s.assistant("a1", [text("Claude Sonnet 4.5.")], "u1"),
        s.user("c1", caveat, "a1", isMeta=True),
        s.user("c2", name, "c1"),
        s.user("c3", "<local-command-stdout>Set model to opus</local-command-stdout>", "c2"),
        s.user("u2", "And now?", "c3"),
        s.assistant("a2", [text("Claude Opus.")], "u2"),
        s.user("c4", name, "a2"),
        s.user("c5", "<local-command-stdout>Set model to sonnet</local-command-stdout>", "c4"),
    ]


@scenario("closes-quiet-turn", "closes-quiet-turn")
def closes_quiet(s: Session) -> list[Line]:
    """closesQuietTurn replies are dropped only when their one text block is empty or the stock
    reply."""
    quiet = "No response requested."
    return [
        s.user("u1", "FYI the deploy finished.", None),
        s.assistant("a1", [text(quiet)], "u1", closesQuietTurn=True),
        s.user("u2", "FYI the tests finished.", "a1"),
        s.assistant("a2", [text("")], "u2", closesQuietTurn=True),
        s.user("u3", "FYI lint finished.", "a2"),
        s.assistant("a3", [text("Thanks, noted.")], "u3", closesQuietTurn=True),
        s.user("u4", "FYI docs built.", "a3"),
        s.assistant("a4", [text(quiet), text("")], "u4", closesQuietTurn=True),
        s.user("u5", "FYI release tagged.", "a4"),
        s.assistant("a5", [text(quiet)], "u5"),
        s.user("u6", "FYI all done.", "a5"),
        s.assistant("a6", [text(quiet)], "u6", closesQuietTurn="yes"),
    ]


@scenario("voice-call-talk", "voice-call", "system", variants=_SYSTEM)
def voice_call(s: Session) -> list[Line]:
    """voice_call_talk rows turn into user rows only with string content and a voice-call origin."""
    voice = {"kind": "voice-call"}
    return [
        s.user("u1", "Start a call.", None),
        s.assistant("a1", [text("Calling.")], "u1"),
        s.system("v1", "voice_call_talk", "a1", content="Can you hear me?", origin=voice),
        s.assistant("a2", [text("Yes, loud and clear.")], "v1"),
        s.system(
            "v2",
            "voice_call_talk",
            "a2",
            content="spoken",
            blocks=[text("Read the diff.")],
            origin=voice,
        ),
        s.assistant("a3", [text("Reading it.")], "v2"),
        s.system("v3", "voice_call_talk", "a3", content="From a peer.", origin={"kind": "peer"}),
        s.assistant("a4", [text("A peer spoke.")], "v3"),
        s.system("v4", "voice_call_talk", "a4", content=None, origin=voice, msgV=2),
        s.assistant("a5", [text("Silence.")], "v4"),
    ]


@scenario("voice-call-talk-folded-command", "voice-call", "queued-command", variants=_SYSTEM)
def voice_fold(s: Session) -> list[Line]:
    """A voice_call_talk row with fold.command turns into a queued command; a malformed fold does
    not."""
    voice = {"kind": "voice-call"}
    return [
        *_tool_turn(s),
        s.system(
            "v1",
            "voice_call_talk",
            "r1",
            content="and deploy it",
            origin=voice,
            fold={"command": {"commandMode": "prompt"}, "at": "mid-turn"},
        ),
        s.assistant("a2", [text("Deploying after the tests.")], "v1"),
        s.system("v2", "voice_call_talk", "a2", content="thanks", origin=voice, fold="nope"),
        s.assistant("a3", [text("You're welcome.")], "v2"),
    ]


@scenario(
    "options-paging",
    "options",
    "system",
    variants=[
        options(limit=2),
        options(offset=3),
        options(limit=2, offset=3),
        options(limit=0, offset=2),
        options(offset=50),
        options(limit=50, offset=1),
        options(system=True, limit=3, offset=2),
    ],
)
def paging(s: Session) -> list[Line]:
    """Five turns with a system row, read with different limit and offset values."""
    rows: list[Line] = []
    parent: str | None = None
    for n in range(1, 6):
        rows.append(s.user(f"u{n}", f"Step {n}?", parent))
        rows.append(s.assistant(f"a{n}", [text(f"Step {n} done.")], f"u{n}"))
        parent = f"a{n}"
        if n == 2:
            rows.append(s.system("s1", "informational", parent, content="Checkpoint saved"))
            parent = "s1"
    return rows
