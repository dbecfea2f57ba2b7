"""Scenarios about compaction: boundaries, summaries and preserved segments or messages."""

from __future__ import annotations

from rechain.corpus.build import Line, Session, text
from rechain.corpus.scenario import collector, options

SCENARIOS, scenario = collector()

_SYSTEM = [options(system=True)]


def _history(s: Session) -> list[Line]:
    """The pre-compaction conversation u1 a1 u2 a2."""
    return [
        s.user("u1", "Port the CLI from argparse to click.", None),
        s.assistant("a1", [text("Ported the main command.")], "u1"),
        s.user("u2", "Port the subcommands too.", "a1"),
        s.assistant("a2", [text("Ported all five subcommands.")], "u2"),
    ]


def _after(s: Session, parent: str) -> list[Line]:
    return [
        s.user("u3", "Now update the docs.", parent),
        s.assistant("a3", [text("Updated docs/cli.md.")], "u3"),
    ]


_WORDS = "The user ported the CLI to click, main command and subcommands."


@scenario("compaction-plain", "compaction", "compact-summary", variants=_SYSTEM)
def plain(s: Session) -> list[Line]:
    """A manual compaction: boundary with parent null, summary, then the conversation goes on."""
    return [
        *_history(s),
        s.boundary("cb", logical="a2"),
        s.summary("cs", "cb", _WORDS),
        *_after(s, "cs"),
    ]


@scenario("compaction-summary-is-leaf", "compaction", "compact-summary", variants=_SYSTEM)
def summary_leaf(s: Session) -> list[Line]:
    """The file ends right after a compaction, so the summary is the whole conversation."""
    return [*_history(s), s.boundary("cb", logical="a2"), s.summary("cs", "cb", _WORDS)]


@scenario("compaction-twice", "compaction", "compact-summary", variants=_SYSTEM)
def twice(s: Session) -> list[Line]:
    """Two compactions in one file; only the part after the second boundary is on the chain."""
    return [
        *_history(s),
        s.boundary("cb", logical="a2"),
        s.summary("cs", "cb", _WORDS),
        *_after(s, "cs"),
        s.boundary("cb2", logical="a3"),
        s.summary("cs2", "cb2", _WORDS + " Docs were updated."),
        s.user("u4", "Release it.", "cs2"),
        s.assistant("a4", [text("Released 2.0.0.")], "u4"),
    ]


@scenario("compaction-old-branch-written-last", "compaction", "rewind", "leaf-choice")
def old_branch_last(s: Session) -> list[Line]:
    """After a compaction, a rewind into the pre-compaction history is written last and wins."""
    return [
        *_history(s),
        s.boundary("cb", logical="a2"),
        s.summary("cs", "cb", _WORDS),
        *_after(s, "cs"),
        s.user("u4", "Undo the subcommand port.", "a1"),
        s.assistant("a4", [text("Reverted the subcommands.")], "u4"),
    ]


@scenario("compaction-preserved-segment", "compaction", "preserved-segment", variants=_SYSTEM)
def preserved_segment(s: Session) -> list[Line]:
    """A partial compaction keeps u2/a2 through preservedSegment, relinked under the summary."""
    return [
        *_history(s),
        s.boundary("cb", logical="a2", preservedSegment=s.segment("u2", "cs", "a2")),
        s.summary("cs", "cb", _WORDS),
        *_after(s, "cs"),
    ]


@scenario("compaction-preserved-segment-missing-head", "compaction", "preserved-segment")
def segment_missing_head(s: Session) -> list[Line]:
    """A preservedSegment with a missing head: the anchor's children still move, so the summary
    drops out."""
    return [
        *_history(s),
        s.boundary("cb", logical="a2", preservedSegment=s.segment("gone", "cs", "a2")),
        s.summary("cs", "cb", _WORDS),
        *_after(s, "cs"),
    ]


@scenario(
    "compaction-preserved-segment-anchor-children", "compaction", "preserved-segment", "rewind"
)
def segment_anchor_children(s: Session) -> list[Line]:
    """Two rewinds off the summary anchor: both are moved below the preserved tail."""
    return [
        *_history(s),
        s.boundary("cb", logical="a2", preservedSegment=s.segment("u2", "cs", "a2")),
        s.summary("cs", "cb", _WORDS),
        *_after(s, "cs"),
        s.user("u4", "Update the man page instead.", "cs"),
        s.assistant("a4", [text("Updated orbit.1.")], "u4"),
    ]


@scenario("compaction-preserved-messages", "compaction", "preserved-messages", variants=_SYSTEM)
def preserved_messages(s: Session) -> list[Line]:
    """preservedMessages lists u2 and a2, chained under the anchor in list order."""
    return [
        *_history(s),
        s.boundary("cb", logical="a2", preservedMessages=s.preserved("cs", ["u2", "a2"])),
        s.summary("cs", "cb", _WORDS),
        *_after(s, "cs"),
    ]


@scenario("compaction-preserved-messages-reordered", "compaction", "preserved-messages")
def preserved_reordered(s: Session) -> list[Line]:
    """preservedMessages lists a1 before u1, so the relinked chain follows the list, not the
    file."""
    return [
        *_history(s),
        s.boundary("cb", logical="a2", preservedMessages=s.preserved("cs", ["a1", "u1"])),
        s.summary("cs", "cb", _WORDS),
        *_after(s, "cs"),
    ]


@scenario("compaction-preserved-messages-missing-uuid", "compaction", "preserved-messages")
def preserved_missing(s: Session) -> list[Line]:
    """preservedMessages names a uuid that is not in the file, so the relink is skipped."""
    return [
        *_history(s),
        s.boundary("cb", logical="a2", preservedMessages=s.preserved("cs", ["u2", "a2", "gone"])),
        s.summary("cs", "cb", _WORDS),
        *_after(s, "cs"),
    ]


@scenario("compaction-preserved-messages-not-a-list", "compaction", "preserved-messages")
def preserved_not_a_list(s: Session) -> list[Line]:
    """preservedMessages is truthy but has no uuids list: the TS SDK's reader throws."""
    return [
        *_history(s),
        s.boundary("cb", logical="a2", preservedMessages=True),
        s.summary("cs", "cb", _WORDS),
        *_after(s, "cs"),
    ]


@scenario(
    "compaction-both-preserved-kinds", "compaction", "preserved-messages", "preserved-segment"
)
def both_kinds(s: Session) -> list[Line]:
    """A boundary with preservedMessages and a preservedSegment: the message list takes
    precedence."""
    return [
        *_history(s),
        s.boundary(
            "cb",
            logical="a2",
            preservedMessages=s.preserved("cs", ["u2", "a2"]),
            preservedSegment=s.segment("u1", "cs", "a1"),
        ),
        s.summary("cs", "cb", _WORDS),
        *_after(s, "cs"),
    ]


@scenario("microcompact-boundary-in-chain", "compaction", "system", variants=_SYSTEM)
def microcompact(s: Session) -> list[Line]:
    """A microcompact_boundary system row links two turns like any system row."""
    return [
        *_history(s),
        s.system(
            "mb",
            "microcompact_boundary",
            "a2",
            content="Context microcompacted",
            microcompactMetadata={"trigger": "auto", "preTokens": 90211, "tokensSaved": 20480},
        ),
        *_after(s, "mb"),
    ]
