"""The named targets of ``rechain fuzz``: the reference's harnesses and third-party readers.

A reference harness runs in rechain's own interpreter. A third-party reader
runs in its own venv under ``<cache>/fuzz-venvs/<name>`` (``rechain fuzz
--install NAME`` makes it), through the same worker, fed a file path.
"""

from __future__ import annotations

from dataclasses import dataclass

from rechain.fuzz.fuzz_rebuild import short_name, slug
from rechain.reference import PROFILES


@dataclass(frozen=True, slots=True)
class Target:
    """A fuzz target by name: what to call, how, and where it is installed."""

    name: str
    spec: str
    #: pip requirement of a third-party reader (None: rechain's own code)
    package: str | None = None
    input: str | None = None
    #: modules imported under instrumentation before the target (an adapter imports its
    #: reader only when called; the reader's code must report coverage all the same)
    instrument: tuple[str, ...] = ()
    #: instrument only these modules (function by function), not the whole package
    scope: tuple[str, ...] = ()
    note: str = ""
    #: a ``--target`` of the user's: imported only where it runs (the probe, the workers),
    #: never in rechain's process; it gets the default contract
    user: bool = False

    @property
    def third_party(self) -> bool:
        return self.package is not None


#: the SDK line parser's classification, and what it calls per line; the JSON fallback
#: parser runs uninstrumented here (parse-line-json instruments it), the harness never
LINE_SCOPE = ("rechain.reference.parse", "rechain.reference.queued", "rechain.reference.js.values")
#: the pure-Python JSON fallback parser, alone
JSON_SCOPE = ("rechain.reference.js.jsonparse",)
#: the listing's pure rules (the harness never reaches its disk edge)
LISTING_SCOPE = (
    "rechain.reference.listing.agent_sdk_0_3_332",
    "rechain.reference.listing.claude_code_2_1_88",
    "rechain.reference.listing.scan",
    "rechain.reference.js.text",
)


def _reference() -> list[Target]:
    targets = [
        Target("parse-line", "rechain.fuzz.fuzz_parse_line:one_input", scope=LINE_SCOPE),
        Target("parse-line-json", "rechain.fuzz.fuzz_parse_line:json_one_input", scope=JSON_SCOPE),
        Target("glance-c", "rechain.fuzz.fuzz_glance:one_input", scope=LINE_SCOPE),
    ]
    targets += [
        Target(f"rebuild-{short_name(name)}", f"rechain.fuzz.fuzz_rebuild:profiles.{slug(name)}")
        for name in PROFILES
    ]
    targets += [
        Target("rebuild-output", "rechain.fuzz.fuzz_rebuild:output_one_input"),
        Target("rebuild-views", "rechain.fuzz.fuzz_rebuild:views_one_input"),
        Target("read-large", "rechain.fuzz.fuzz_read_large:one_input"),
        Target("sessions", "rechain.fuzz.fuzz_sessions:one_input"),
        Target("listing", "rechain.fuzz.fuzz_listing:one_input", scope=LISTING_SCOPE),
        Target("property-clean", "rechain.fuzz.fuzz_property:clean_one_input"),
        Target("property-corrupted", "rechain.fuzz.fuzz_property:corrupted_one_input"),
    ]
    return targets


THIRD_PARTY = (
    Target(
        "claude-code-transcripts",
        "claude_code_transcripts:parse_session_file",
        package="claude-code-transcripts==0.6",
        input="path",
        note="parse_session_file(path) -> {'loglines': [...]}",
    ),
    Target(
        "claude-code-transcripts-html",
        "rechain.fuzz.adapters:claude_code_transcripts_html",
        package="claude-code-transcripts==0.6",
        input="path",
        instrument=("claude_code_transcripts",),
        note="parse_session_file, then the HTML renderer on a temp dir",
    ),
    Target(
        "agent-history",
        "claude_history.parser:parse_conversation",
        package="agent-history==0.10.0",
        input="path",
        note="parse_conversation(Path) -> Conversation",
    ),
    Target(
        "ai-replay",
        "ai_replay.parser:parse_session",
        package="ai-replay==0.5.1",
        input="path",
        note="parse_session(path) -> turn dicts",
    ),
    Target(
        "claude-code-log",
        "rechain.fuzz.adapters:claude_code_log",
        package="claude-code-log==1.7.0",
        input="path",
        instrument=("claude_code_log.converter", "claude_code_log.dag"),
        note="converter.load_transcript(path, silent=True), then dag.build_dag",
    ),
)

REFERENCE = tuple(_reference())
TARGETS: dict[str, Target] = {t.name: t for t in (*REFERENCE, *THIRD_PARTY)}


def venv_name(target: Target) -> str:
    """The venv directory name of a third-party target (its distribution name)."""
    assert target.package is not None
    return target.package.split("==")[0]
