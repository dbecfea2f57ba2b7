"""The differential loop: transcripts → real Claude Code 2.1.88 vs the seed profile, per entry.

``python -m rechain.reference.seed.differential --generated 500 --entry resume-id``
runs generated transcripts (``rechain.strategies.transcripts()``), corpus
cases or real files through both, prints agreement and cases/s, and saves each
disagreeing input under ``--save`` for minimising.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rechain.reference.model import Options
from rechain.reference.seed.compare import (
    api_difference,
    api_observed,
    expected,
    first_difference,
    observed,
    state_difference,
    with_prompt_remainder,
)
from rechain.reference.seed.parse import numbered_lines, parse_values
from rechain.reference.seed.resume import ENTRY_POINTS
from rechain.reference.seed.views import api_view, chain_view, state_view

SESSION = "5eed0000-2188-4000-8000-000000000001"


@dataclass(frozen=True, slots=True)
class Verdict:
    """One case at one entry point: agreement, or the first difference."""

    name: str
    entry: str
    difference: str | None
    api: str | None = None
    state: str | None = None


def known_uuids(data: bytes) -> set[str]:
    """Every string uuid in the file (rows the CLI did not invent)."""
    found: set[str] = set()
    for _, value in parse_values(numbered_lines(data), []):
        if isinstance(value, dict) and isinstance(value.get("uuid"), str):
            found.add(value["uuid"])
    return found


def judge(name: str, data: bytes, entry: str, result: object) -> Verdict:
    """Compare one oracle result (a CliResume or an OracleError) with the seed."""
    from rechain.conformance.oracles.claude_cli import PROMPT, CliResume

    view = chain_view(data, Options(entry=entry), SESSION)
    if not isinstance(result, CliResume):
        return Verdict(name, entry, f"oracle failed: {result}")
    oracle_error = not result.ok
    if view["error"] is not None or oracle_error:
        if (view["error"] is not None) == oracle_error:
            return Verdict(name, entry, None)
        tail = result.stderr.strip().splitlines()[-1:] if result.stderr else []
        return Verdict(name, entry, f"error: seed {view['error']!r} vs 2.1.88 rc "
                                    f"{result.returncode} {tail}")
    mine = expected(view["messages"])
    theirs = observed(result.forked, known_uuids(data), PROMPT)
    sent = api_view(data, Options(entry=entry), SESSION)["messages"]
    # harness-looking text inside the transcript cannot be told from the harness's: drop both
    request = with_prompt_remainder(result.messages, result.prompt_turn, PROMPT)
    api = api_difference(api_observed(sent), api_observed(request))
    state = state_view(data, Options(entry=entry), SESSION)["state"]
    return Verdict(name, entry, first_difference(mine, theirs), api,
                   state_difference(state, result.forked))


def generated(count: int) -> Iterator[tuple[str, bytes]]:
    """``count`` transcripts from the writer model (Hypothesis ``example()``)."""
    from hypothesis.errors import NonInteractiveExampleWarning

    from rechain.strategies.scripts import transcripts

    strategy = transcripts(max_ops=12, max_entries=30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonInteractiveExampleWarning)
        for number in range(count):
            yield f"gen-{number:04d}", strategy.example().to_bytes()


def files(paths: list[Path]) -> Iterator[tuple[str, bytes]]:
    """Transcript files and corpus case directories."""
    for path in paths:
        if path.is_dir() and (path / "transcript.jsonl").exists():
            yield path.name, (path / "transcript.jsonl").read_bytes()
        elif path.is_dir():
            yield from files(sorted(path.iterdir()))
        elif path.suffix == ".jsonl":
            yield path.name, path.read_bytes()


def run(cases: list[tuple[str, bytes]], entries: list[str], workers: int,
        save: Path | None) -> list[Verdict]:
    """Every case through 2.1.88 (forked resume) and the seed, per entry point."""
    from rechain.conformance.oracles.claude_cli import ClaudeCliOracle, CliCase
    from rechain.conformance.oracles.registry import CLAUDE_CODE_2_1_88

    verdicts: list[Verdict] = []
    for entry in entries:
        with ClaudeCliOracle(spec=CLAUDE_CODE_2_1_88, entry=entry, fork=True,
                             workers=workers, timeout=90) as oracle:
            results = oracle.resume_all(CliCase(data, SESSION) for _, data in cases)
        for (name, data), result in zip(cases, results, strict=True):
            verdict = judge(name, data, entry, result)
            verdicts.append(verdict)
            differs = (verdict.difference, verdict.api, verdict.state) != (None, None, None)
            if differs and save is not None:
                save.mkdir(parents=True, exist_ok=True)
                (save / f"{name}.{entry}.jsonl").write_bytes(data)
    return verdicts


def main(argv: list[str] | None = None) -> int:
    """Command line: print one line per disagreement and the agreement figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--generated", type=int, default=0)
    parser.add_argument("--entry", action="append", choices=ENTRY_POINTS)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--save", type=Path)
    parser.add_argument("--api", action="store_true", help="print api-view differences too")
    args = parser.parse_args(argv)
    cases = [*files(args.paths), *generated(args.generated)]
    started = time.monotonic()
    verdicts = run(cases, args.entry or list(ENTRY_POINTS), args.workers, args.save)
    seconds = time.monotonic() - started
    for verdict in verdicts:
        if verdict.difference is not None:
            print(f"DIFF {verdict.name} [{verdict.entry}] {verdict.difference}")
        if verdict.api is not None and args.api:
            print(f"API {verdict.name} [{verdict.entry}] {verdict.api}")
        if verdict.state is not None and args.api:
            print(f"STATE {verdict.name} [{verdict.entry}] {verdict.state}")
    agree = sum(v.difference is None for v in verdicts)
    api = sum(v.api is None for v in verdicts)
    state = sum(v.state is None for v in verdicts)
    print(f"chain agree {agree}/{len(verdicts)}; api agree {api}/{len(verdicts)}; "
          f"state (title, tag) agree {state}/{len(verdicts)}; "
          f"{len(verdicts) / seconds:.2f} cases/s ({seconds:.0f} s)")
    return 0 if agree == len(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
