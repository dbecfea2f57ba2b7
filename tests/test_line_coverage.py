"""Every line of a transcript is among the messages or explained by a diagnostic, exactly once.

The rule (README, ``rechain/schemas/rebuild.json``): each line 1..N of the file is
accounted for once, by a message's ``line`` or by one diagnostic whose kind says
what became of the line (``through`` extends it to a range of lines). Kinds listed
under ``$defs.noteKind`` only remark on a line already accounted for (a repair, where
the walk stopped) and are not counted. Views whose items are not lines (``api``,
``state``) share the rebuild's accounting; the CLI's ``chain`` view lists the chain's
``lines`` and its own diagnostics, and is held to the same rule.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import given, settings

from rechain.corpus import Case, load_cases
from rechain.reference import PROFILES, Diagnostic, Options, rebuild
from rechain.reference.profiles.claude_code_2_1_88.resume import ENTRY_POINTS
from rechain.schema_files import load_schema
from rechain.strategies import CorruptedTranscript, Transcript, corrupted, transcripts

REPO = Path(__file__).resolve().parents[1]
REAL_DIRS = [Path("/work/shared/corpus-real"), REPO.parent / "shared" / "corpus-real"]
REAL = next((d for d in REAL_DIRS if d.is_dir()), None)
REAL_FILES = sorted(REAL.glob("*.jsonl")) if REAL is not None else []
CASES = load_cases()

SCHEMA = load_schema("rebuild")
NOTES = frozenset(SCHEMA["$defs"]["noteKind"]["enum"])

# every option set the corpus and the CLI use: system rows on/off, paging, the seed's
# entry points, the CLI's interrupted-turn resume, the large-file skip turned off
OPTION_SETS = (
    Options(),
    Options(include_system_messages=True),
    Options(limit=2, offset=1),
    Options(offset=3, include_system_messages=True),
    Options(limit=0),
    Options(resume_interrupted_turn=True),
    Options(disable_precompact_skip=True),
    *(Options(entry=entry) for entry in ENTRY_POINTS),
)


def line_count(data: bytes) -> int:
    """Lines of the file as the readers number them: LF-separated, no line after a final LF."""
    pieces = data.split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()
    return len(pieces)


def accounting(lines: Iterable[int], diagnostics: Iterable[Diagnostic]) -> Counter[int]:
    """How many times each line is accounted for (notes and line-less findings not counted)."""
    counts: Counter[int] = Counter(lines)
    for d in diagnostics:
        if d.line is None or d.kind in NOTES:
            continue
        last = d.through if d.through is not None else d.line
        counts.update(range(d.line, last + 1))
    return counts


def problems(data: bytes, counts: Counter[int]) -> list[str]:
    """Lines missing, accounted for twice, or outside the file."""
    total = line_count(data)
    wrong = [f"line {n}: {counts[n]} times" for n in range(1, total + 1) if counts[n] != 1]
    wrong += [f"line {n} is not in the file" for n in counts if not 1 <= n <= total]
    return wrong


def assert_every_line_once(data: bytes, profile: str, options: Options) -> None:
    result = rebuild(data, profile, options)
    counts = accounting((m["line"] for m in result.messages), result.diagnostics)
    assert problems(data, counts) == [], (profile, options)
    assert {d.kind for d in result.diagnostics} <= KINDS


KINDS = NOTES | frozenset(SCHEMA["$defs"]["lineKind"]["enum"])


def assert_chain_view_once(data: bytes, options: Options) -> None:
    view = rebuild(data, "claude-code@2.1.332", options).view("chain")
    diagnostics = [Diagnostic(d["line"], d["kind"], d["detail"], d.get("through"))
                   for d in view["diagnostics"]]
    assert problems(data, accounting(view["lines"], diagnostics)) == [], options


def case_option_sets(case: Case) -> list[Options]:
    """The general option sets plus the case's own variants, under its environment."""
    skip = bool(case.env.get("CLAUDE_CODE_DISABLE_PRECOMPACT_SKIP"))
    own = [Options(include_system_messages=bool(v.get("include_system_messages", False)),
                   limit=v.get("limit"), offset=v.get("offset") or 0,
                   disable_precompact_skip=skip) for v in case.variants]
    return [*OPTION_SETS, *own]


@pytest.mark.skipif(not REAL_FILES, reason="shared/corpus-real is not beside the checkout")
@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.name[:60])
@pytest.mark.parametrize("profile", list(PROFILES))
def test_every_line_of_a_real_transcript_is_accounted_for_once(path: Path, profile: str) -> None:
    data = path.read_bytes()
    for options in OPTION_SETS:
        assert_every_line_once(data, profile, options)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_every_line_of_a_corpus_case_is_accounted_for_once(case: Case) -> None:
    data = case.input_bytes()
    for options in case_option_sets(case):
        for profile in PROFILES:
            assert_every_line_once(data, profile, options)
        assert_chain_view_once(data, options)


@settings(max_examples=60)
@given(transcripts())
def test_every_line_of_a_generated_transcript_is_accounted_for_once(t: Transcript) -> None:
    data = t.to_bytes()
    for options in (Options(), Options(include_system_messages=True), Options(entry="resume-id")):
        for profile in PROFILES:
            assert_every_line_once(data, profile, options)
        assert_chain_view_once(data, options)


@settings(max_examples=60)
@given(corrupted(transcripts()))
def test_every_line_of_a_damaged_transcript_is_accounted_for_once(
    c: CorruptedTranscript,
) -> None:
    data = c.to_bytes()
    for options in (Options(), Options(limit=1, offset=1), Options(entry="resume-file")):
        for profile in PROFILES:
            assert_every_line_once(data, profile, options)
        assert_chain_view_once(data, options)


def test_the_accounting_counts_what_it_should() -> None:
    """The checker itself: a missing line, a line twice and a range are seen."""
    data = b"{}\n{}\n{}\n"
    assert problems(data, accounting([1], [Diagnostic(2, "blank", "")])) == ["line 3: 0 times"]
    twice = accounting([1, 2], [Diagnostic(2, "blank", ""), Diagnostic(3, "blank", "")])
    assert problems(data, twice) == ["line 2: 2 times"]
    ranged = accounting([], [Diagnostic(1, "before-compact-boundary", "", 3)])
    assert problems(data, ranged) == []
