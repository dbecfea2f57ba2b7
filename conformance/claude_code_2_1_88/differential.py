"""The differential loop: transcripts → real Claude Code 2.1.88 vs the seed profile, per entry.

``python -m rechain.conformance.claude_code_2_1_88.differential --generated 500 --rotate
--dump DIR`` runs generated transcripts (``rechain.strategies``, every other one corrupted),
corpus cases or real files through both, prints agreement per view (chain, api,
state) and cases/s, and saves each disagreeing input under ``--save``.
``--dump`` keeps every input with the oracle's result, so ``--replay DIR``
re-judges them against a changed profile without running the oracle again.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rechain.conformance.claude_code_2_1_88.compare import (
    api_difference,
    expected,
    first_difference,
    observed,
    observed_request,
    state_difference,
    wrote_prompt,
)
from rechain.reference import rebuild
from rechain.reference.model import Options
from rechain.reference.profiles.claude_code_2_1_88.parse import numbered_lines, parse_values
from rechain.reference.profiles.claude_code_2_1_88.resume import ENTRY_POINTS

SESSION = "5eed0000-2188-4000-8000-000000000001"
# corpus cases run under their own session id (by case name); everything else under SESSION
SESSIONS: dict[str, str] = {}
ENVS: dict[str, dict[str, str]] = {}


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


def _outcomes_differ(mine: str | None, failed: bool, result: object) -> str | None:
    """Both failed or both answered: None; else what each did."""
    if (mine is not None) == failed:
        return None
    stderr = getattr(result, "stderr", "") or ""
    tail = stderr.strip().splitlines()[-1:]
    return f"error: seed {mine!r} vs 2.1.88 rc {getattr(result, 'returncode', None)} {tail}"


def judge(name: str, data: bytes, entry: str, result: object,
          session: str = SESSION, release: str = "2.1.88") -> Verdict:
    """Compare one oracle result (a CliResume or an OracleError) with the seed.

    The chain is judged by what the fork wrote up to the prompt (it is whole even
    when the request failed afterwards); the request by the first request; the
    state only when the run succeeded.
    """
    from rechain.conformance.oracles.claude_cli import PROMPT, CliResume

    if not isinstance(result, CliResume):
        return Verdict(name, entry, f"oracle failed: {result}")
    rebuilt = rebuild(data, f"claude-code@{release}", Options(entry=entry), session_id=session)
    view = rebuilt.view("chain")
    written = result.ok or wrote_prompt(result.forked, PROMPT)
    chain = _outcomes_differ(view["error"], not written, result)
    if chain is None and view["error"] is None:
        chain = first_difference(expected(view["messages"]),
                                 observed(result.forked, known_uuids(data), PROMPT))
    request = rebuilt.view("api")
    api = _outcomes_differ(request["error"], not result.ok, result)
    if api is None and request["error"] is None:
        api = api_difference(request["messages"],
                             observed_request(result.messages, result.prompt_turn, PROMPT))
    state = None
    if result.ok and view["error"] is None:
        state = state_difference(rebuilt.view("state")["state"], result.forked)
    return Verdict(name, entry, chain, api, state)


def generated(
    count: int, generations: list[str] | None = None, seed: int = 0
) -> Iterator[tuple[str, bytes]]:
    """``count`` transcripts from the writer model, the same for the same ``seed``; every
    other one damaged by ``corrupted`` (torn lines, duplicates, dangling parents, ...)."""
    from rechain.conformance.differential import generate
    from rechain.strategies.corruptions import corrupted
    from rechain.strategies.scripts import transcripts

    clean = transcripts(max_ops=12, max_entries=30, generations=generations)
    damaged = corrupted(clean, min_mutations=1)
    plain = iter(generate(clean, (count + 1) // 2, seed))
    broken = iter(generate(damaged, count // 2, seed + 1))
    for number in range(count):
        if number % 2:
            yield f"bad-{number:04d}", next(broken).to_bytes()
        else:
            yield f"gen-{number:04d}", next(plain).to_bytes()


def files(paths: list[Path]) -> Iterator[tuple[str, bytes]]:
    """Transcript files and corpus case directories."""
    for path in paths:
        if path.is_dir() and (path / "transcript.jsonl").exists():
            document = json.loads((path / "case.json").read_text("utf-8"))
            SESSIONS[path.name] = document["session_id"]
            ENVS[path.name] = document.get("env") or {}
            yield path.name, (path / "transcript.jsonl").read_bytes()
        elif path.is_dir():
            yield from files(sorted(path.iterdir()))
        elif path.suffix == ".jsonl":
            yield path.name, path.read_bytes()


def _dump(folder: Path, stem: str, data: bytes, result: object, session: str) -> None:
    """The input and what 2.1.88 did with it, so the comparison can be re-run offline."""
    from rechain.conformance.oracles.claude_cli import CliResume

    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{stem}.jsonl").write_bytes(data)
    if isinstance(result, CliResume):
        record = {"session_id": session, "returncode": result.returncode,
                  "stderr": result.stderr[-2000:],
                  "asked": result.first_request is not None, "messages": result.messages,
                  "prompt_turn": result.prompt_turn, "forked": result.forked}
    else:
        record = {"session_id": session, "oracle_error": str(result)}
    (folder / f"{stem}.json").write_text(json.dumps(record), "utf-8")


def undump(path: Path) -> object:
    """A dumped oracle result back as a ``CliResume`` (or an ``OracleError``)."""
    from rechain.conformance.oracles import OracleError
    from rechain.conformance.oracles.claude_cli import CliResume

    record = json.loads(path.read_text("utf-8"))
    if "oracle_error" in record:
        return OracleError(record["oracle_error"])
    return CliResume(messages=record["messages"], prompt_turn=record["prompt_turn"],
                     resumed_parent=None, resumed_leaf=None, appended=[],
                     requests=int(record["asked"]), returncode=record["returncode"],
                     stderr=record["stderr"], first_request={} if record["asked"] else None,
                     forked=record["forked"])


def replay(folder: Path, release: str = "2.1.88") -> list[Verdict]:
    """Judge every dumped case again (after a change to the profile or the comparison)."""
    verdicts = []
    for path in sorted(folder.glob("*.json")):
        name, entry = path.stem.rsplit(".", 1)
        data = path.with_suffix(".jsonl").read_bytes()
        session = json.loads(path.read_text("utf-8")).get("session_id", SESSION)
        verdicts.append(judge(name, data, entry, undump(path), session, release))
    return verdicts


def run(cases: list[tuple[str, bytes]], entries: list[str], workers: int,
        save: Path | None, dump: Path | None = None, rotate: bool = False,
        release: str = "2.1.88") -> list[Verdict]:
    """Every case through the real ``release`` (forked resume) and its profile of the
    2.1.88 line, per entry point.

    With ``rotate`` each case runs at one entry point only (round robin).
    """
    from rechain.conformance.oracles.claude_cli import ClaudeCliOracle, CliCase
    from rechain.conformance.oracles.registry import get as get_oracle

    verdicts: list[Verdict] = []
    for entry in entries:
        mine = [c for at, c in enumerate(cases)
                if not rotate or entries[at % len(entries)] == entry]
        with ClaudeCliOracle(spec=get_oracle(f"claude-code@{release}"), entry=entry, fork=True,
                             workers=workers, timeout=90) as oracle:
            results = oracle.resume_all(
                CliCase(data, SESSIONS.get(name, SESSION), ENVS.get(name)) for name, data in mine)
        if dump is not None:  # every answer kept before any is judged
            for (name, data), result in zip(mine, results, strict=True):
                _dump(dump, f"{name}.{entry}", data, result, SESSIONS.get(name, SESSION))
        for (name, data), result in zip(mine, results, strict=True):
            session = SESSIONS.get(name, SESSION)
            verdict = judge(name, data, entry, result, session, release)
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
    parser.add_argument("--seed", type=int, default=0,
                        help="the generated transcripts' seed (the same seed, the same files)")
    parser.add_argument("--generation", action="append",
                        help="only this writer generation (e.g. 2.1.332: attachments)")
    parser.add_argument("--entry", action="append", choices=ENTRY_POINTS)
    parser.add_argument("--release", default="2.1.88",
                        help="a JS-bundle release of the 2.1.88 line (its oracle installed)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--save", type=Path)
    parser.add_argument("--api", action="store_true", help="print api-view differences too")
    parser.add_argument("--dump", type=Path, help="keep every input and oracle result here")
    parser.add_argument("--replay", type=Path, help="judge a --dump folder again, no oracle")
    parser.add_argument("--rotate", action="store_true",
                        help="one entry point per case, round robin")
    args = parser.parse_args(argv)
    started = time.monotonic()
    if args.replay is not None:
        verdicts = replay(args.replay, args.release)
    else:
        cases = [*files(args.paths), *generated(args.generated, args.generation, args.seed)]
        verdicts = run(cases, args.entry or list(ENTRY_POINTS), args.workers, args.save,
                       args.dump, args.rotate, args.release)
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
          f"state (re-appended metadata) agree {state}/{len(verdicts)}; "
          f"{len(verdicts) / seconds:.2f} cases/s ({seconds:.0f} s)")
    return 0 if agree == len(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
