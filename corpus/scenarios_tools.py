"""Scenarios about tool calls and streamed assistant messages split over several rows."""

from __future__ import annotations

from rechain.corpus.build import Line, Session, text, thinking
from rechain.corpus.scenario import collector, options

SCENARIOS, scenario = collector()

_LS = {"command": "ls src", "description": "List source files"}


def _ask(s: Session, prompt: str = "Check the repo state: files, status and last commit.") -> Line:
    return s.user("u1", prompt, None)


@scenario("parallel-tools-one-row", "parallel-tools")
def one_row(s: Session) -> list[Line]:
    """One assistant row with two tool_use blocks answered by one user row with two results."""
    return [
        _ask(s),
        s.assistant(
            "a1", [s.tool_use("t1", **_LS), s.tool_use("t2", command="git status -s")], "u1"
        ),
        s.result("r1", ["t1", "t2"], "a1", source="a1", output="cli.py\nM cli.py"),
        s.assistant("a2", [text("One modified file: cli.py.")], "r1"),
    ]


@scenario("parallel-tools-one-row-two-results", "parallel-tools", "orphan-recovery")
def one_row_two_results(s: Session) -> list[Line]:
    """One assistant row with two calls; each result row hangs off it and the reply off the
    second."""
    return [
        _ask(s),
        s.assistant(
            "a1", [s.tool_use("t1", **_LS), s.tool_use("t2", command="git status -s")], "u1"
        ),
        s.result("r1", "t1", "a1", source="a1", output="cli.py"),
        s.result("r2", "t2", "a1", source="a1", output="M cli.py"),
        s.assistant("a2", [text("cli.py is modified.")], "r2"),
    ]


def _split_calls(s: Session, count: int) -> list[Line]:
    """``count`` streamed tool_use rows a1, a1b, a1c of one API message, chained in order."""
    names = ["a1", "a1b", "a1c"][:count]
    commands = ["ls src", "git status -s", "git log -1 --oneline"]
    rows: list[Line] = []
    for index, name in enumerate(names):
        parent = "u1" if index == 0 else names[index - 1]
        call = s.tool_use(f"t{index + 1}", command=commands[index])
        rows.append(s.assistant(name, [call], parent, msg="m1"))
    return rows


@scenario("parallel-tools-split-in-order", "parallel-tools", "split-message", "orphan-recovery")
def split_in_order(s: Session) -> list[Line]:
    """Two streamed tool_use rows; results written in call order, the reply after the second."""
    return [
        _ask(s),
        *_split_calls(s, 2),
        s.result("r1", "t1", "a1", source="a1", output="cli.py"),
        s.result("r2", "t2", "a1b", source="a1b", output="M cli.py"),
        s.assistant("a2", [text("cli.py is modified.")], "r2"),
    ]


@scenario(
    "parallel-tools-split-results-reversed", "parallel-tools", "split-message", "orphan-recovery"
)
def split_reversed(s: Session) -> list[Line]:
    """Two streamed tool_use rows whose results arrive second-first; the reply hangs off r1."""
    return [
        _ask(s),
        *_split_calls(s, 2),
        s.result("r2", "t2", "a1b", source="a1b", output="M cli.py"),
        s.result("r1", "t1", "a1", source="a1", output="cli.py"),
        s.assistant("a2", [text("cli.py is modified.")], "r1"),
    ]


@scenario(
    "parallel-tools-reply-off-first-result", "parallel-tools", "split-message", "orphan-recovery"
)
def reply_off_first(s: Session) -> list[Line]:
    """Results in call order, but the next reply names the first result as its parent."""
    return [
        _ask(s),
        *_split_calls(s, 2),
        s.result("r1", "t1", "a1", source="a1", output="cli.py"),
        s.result("r2", "t2", "a1b", source="a1b", output="M cli.py"),
        s.assistant("a2", [text("cli.py is modified.")], "r1"),
        *_next_turn(s, "a2"),
    ]


def _next_turn(s: Session, parent: str) -> list[Line]:
    return [
        s.user("u2", "Commit it.", parent),
        s.assistant("a3", [text("Committed as 4f2a9c1.")], "u2"),
    ]


@scenario("parallel-tools-three-calls", "parallel-tools", "split-message", "orphan-recovery")
def three_calls(s: Session) -> list[Line]:
    """Three streamed calls; results written r1 r2 r3 with the reply hanging off r1."""
    return [
        _ask(s),
        *_split_calls(s, 3),
        s.result("r1", "t1", "a1", source="a1", output="cli.py"),
        s.result("r2", "t2", "a1b", source="a1b", output="M cli.py"),
        s.result("r3", "t3", "a1c", source="a1c", output="4f2a9c0 fix: retry"),
        s.assistant("a2", [text("One change since 4f2a9c0.")], "r1"),
    ]


@scenario("parallel-tools-timestamp-order", "parallel-tools", "orphan-recovery", "timestamps")
def timestamp_order(s: Session) -> list[Line]:
    """Recovered results written r3 then r2 with r2's timestamp earlier; the reply hangs off r1."""
    return [
        _ask(s),
        *_split_calls(s, 3),
        s.result("r1", "t1", "a1", source="a1", output="cli.py", at=30),
        s.result("r3", "t3", "a1c", source="a1c", output="4f2a9c0 fix: retry", at=34),
        s.result("r2", "t2", "a1b", source="a1b", output="M cli.py", at=32),
        s.assistant("a2", [text("One change since 4f2a9c0.")], "r1", at=40),
    ]


@scenario("parallel-tools-stray-results", "parallel-tools", "orphan-recovery")
def stray_results(s: Session) -> list[Line]:
    """Results whose parent is off the group but whose source or tool id points into it."""
    return [
        _ask(s),
        *_split_calls(s, 2),
        s.result("r1", "t1", "a1", source="a1", output="cli.py"),
        s.system("s1", "informational", "r1", content="Hook ran"),
        s.result("r2", "t2", "s1", source="a1b", output="M cli.py"),
        s.result("r3", "t1", "s1", source="a1", output="cli.py (retry)"),
        s.assistant("a2", [text("cli.py is modified.")], "r1"),
    ]


@scenario("parallel-tools-ambiguous-tool-id", "parallel-tools", "orphan-recovery")
def ambiguous_tool_id(s: Session) -> list[Line]:
    """Two API messages reuse one tool_use id, so that id cannot place the stray result."""
    return [
        _ask(s),
        *_split_calls(s, 2),
        s.result("r1", "t1", "a1", source="a1", output="cli.py"),
        s.assistant("a2", [s.tool_use("t2", command="git status -s")], "r1", msg="m2"),
        s.system("s1", "informational", "a2", content="Retrying"),
        s.result("r2", "t2", "s1", output="M cli.py"),
        s.assistant("a3", [text("cli.py is modified.")], "r1", msg="m3"),
    ]


@scenario("parallel-tools-other-writer", "parallel-tools", "orphan-recovery", "subagent")
def other_writer(s: Session) -> list[Line]:
    """Stray results linked by source uuid, one by the same writer and one by another agentId."""
    return [
        _ask(s),
        *_split_calls(s, 3),
        s.result("r1", "t1", "a1", source="a1", output="cli.py"),
        s.system("s1", "informational", "r1", content="Hook ran"),
        s.result("r2", "t2", "s1", source="a1b", output="M cli.py"),
        s.result("r3", "t3", "s1", source="a1c", output="4f2a9c0", agentId="c0ffee1"),
        s.assistant("a2", [text("Done.")], "r1"),
    ]


@scenario("split-thinking-text-tool", "split-message", "thinking")
def split_thinking(s: Session) -> list[Line]:
    """A streamed reply written as thinking, text and tool_use rows sharing one message.id."""
    return [
        s.user("u1", "Why does test_retry flake?", None),
        s.assistant("a1", [thinking("Probably the clock. Check the test.", "a1")], "u1", msg="m1"),
        s.assistant("a1b", [text("Let me read the test first.")], "a1", msg="m1"),
        s.assistant(
            "a1c",
            [s.tool_use("t1", "Read", file_path="/repo/tests/test_retry.py")],
            "a1b",
            msg="m1",
        ),
        s.result("r1", "t1", "a1c", source="a1c", output="def test_retry(): ..."),
        s.assistant("a2", [thinking("It sleeps on the wall clock.", "a2")], "r1", msg="m2"),
        s.assistant(
            "a2b", [text("It sleeps on the wall clock; inject a fake clock.")], "a2", msg="m2"
        ),
    ]


@scenario("split-message-sibling-fragments", "split-message", "orphan-recovery", "progress")
def sibling_fragments(s: Session) -> list[Line]:
    """Streamed fragments of one reply hang side by side under one prompt, split by progress
    rows."""
    return [
        s.user("u1", "Check both config files.", None),
        s.assistant("f1", [thinking("Two reads in parallel.", "f1")], "u1", msg="m1"),
        s.progress("p1", "f1", hookName="PreToolUse:Read"),
        s.assistant("f2", [s.tool_use("t2", "Read", file_path="/repo/a.toml")], "u1", msg="m1"),
        s.assistant("f3", [s.tool_use("t3", "Read", file_path="/repo/b.toml")], "f2", msg="m1"),
        s.result("r2", "t2", "f2", source="f2", output="[a]"),
        s.result("r3", "t3", "f3", source="f3", output="[b]"),
        s.assistant("a2", [text("Both files parse.")], "r3"),
    ]


@scenario("split-message-rewind-into-fragment", "split-message", "rewind", "orphan-recovery")
def rewind_into_fragment(s: Session) -> list[Line]:
    """A rewind to the first fragment of a split reply pulls the abandoned fragment back in."""
    return [
        s.user("u1", "Delete the build directory.", None),
        s.assistant("a1", [text("I'll remove build/.")], "u1", msg="m1"),
        s.assistant("a1b", [s.tool_use("t1", command="rm -rf build")], "a1", msg="m1"),
        s.result("r1", "t1", "a1b", source="a1b", output="", is_error=True),
        s.user("u2", "Wait, keep build/cache.", "a1"),
        s.assistant("a2", [text("Understood, I'll keep build/cache.")], "u2"),
    ]


@scenario("assistant-without-message-id", "split-message", "orphan-recovery")
def without_message_id(s: Session) -> list[Line]:
    """Split tool_use rows that carry no message.id are never grouped, so no row is recovered."""
    rows = _split_calls(s, 2)
    for row in rows:
        assert isinstance(row, dict)
        del row["message"]["id"]
    return [
        _ask(s),
        *rows,
        s.result("r1", "t1", "a1", source="a1", output="cli.py"),
        s.result("r2", "t2", "a1b", source="a1b", output="M cli.py"),
        s.assistant("a2", [text("cli.py is modified.")], "r1"),
    ]


@scenario("tool-result-flags", "tool-result-meta", variants=[options(limit=3, offset=1)])
def tool_result_flags(s: Session) -> list[Line]:
    """Denied, unstarted, rewritten and shutdown-interrupted tool results carry their flags out."""
    return [
        s.user("u1", "Clean up the temp files and restart the server.", None),
        s.assistant("a1", [s.tool_use("t1", command="rm -rf /tmp/orbit-*")], "u1"),
        s.result(
            "r1",
            "t1",
            "a1",
            source="a1",
            output="The user doesn't want to take this action right now. STOP what you are doing "
            "and wait for the user to tell you how to proceed.",
            is_error=True,
            toolDenialKind="user-rejected",
        ),
        s.assistant("a2", [s.tool_use("t2", command="systemctl restart orbit")], "r1"),
        s.result(
            "r2",
            "t2",
            "a2",
            source="a2",
            output="not run",
            is_error=True,
            toolCallEnded="not_started",
        ),
        s.assistant("a3", [s.tool_use("t3", command="orbit status")], "r2"),
        s.result("r3", "t3", "a3", source="a3", output="redacted", toolResultRewritten=True),
        s.assistant("a4", [s.tool_use("t4", command="orbit logs")], "r3"),
        s.result(
            "r4", "t4", "a4", source="a4", output="", is_error=True, interruptedByShutdown=True
        ),
        s.user("u2", "Is it up?", "r4", toolDenialUnanswered="stream-closed"),
    ]
