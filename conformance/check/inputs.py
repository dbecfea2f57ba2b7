"""The cases of one ``check`` run: corpus cases, failures saved by earlier runs, generated ones."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from hypothesis.database import ExampleDatabase

from rechain.conformance import differential as diff
from rechain.conformance import example_db
from rechain.conformance.protocol import View
from rechain.conformance.runner import Item, corpus_items
from rechain.corpus.cases_io import Case, CaseError, load_cases
from rechain.errors import UsageError
from rechain.wording import counted

Say = Callable[[str], None]


def group_sizes(examples: int) -> dict[str, int]:
    """How many of ``examples`` are valid transcripts and how many corrupted ones."""
    return {"generated": examples - examples // 2, "corrupted": examples // 2}


def group_seeds(seed: int) -> dict[str, int]:
    """Each generated group's own seed (the valid ones ``seed``, the corrupted ``seed + 1``)."""
    return {kind: seed + offset for offset, kind in enumerate(group_sizes(0))}


def corpus_cases(root: Path | None, option: str = "--corpus") -> list[Case]:
    """The cases of the packaged corpus, or of ``root``: a ``root`` that is no corpus is the
    user's to fix, said in one line (``option`` names where it was given)."""
    if root is not None and not root.is_dir():
        raise UsageError(f"{option} {root}: not a directory")
    try:
        return load_cases(root)
    except CaseError as error:
        raise UsageError(f"corpus: {error}") from None


def corpus(root: Path | None, profile: str, view: str, selected: Sequence[str]) -> list[Item]:
    """The corpus cases (the packaged corpus, or ``root``) matching ``selected`` globs."""
    items = corpus_items(corpus_cases(root), profile, view, selected=list(selected))
    if selected and not items:
        raise UsageError(f"no corpus case matches {' '.join(selected)}")
    return items


def generated(count: int, seed: int, profile: str, say: Say,
              view: View = "session-messages") -> list[Item]:
    """Half valid, half corrupted transcripts, each kind from its own seed."""
    seeds = group_seeds(seed)
    items: list[Item] = []
    for kind, size in group_sizes(count).items():
        if size <= 0:
            continue
        say(f"generating {counted(size, f'{kind} transcript')} "
            f"(seed {seeds[kind]})…")
        values = diff.generate(diff.strategy_for(kind), size, seeds[kind])
        items += [diff.make_item(value, kind, index, profile, view=view)
                  for index, value in enumerate(values)]
    return items


def saved(database: ExampleDatabase | None, examples: int, profile: str, view: str,
          say: Say) -> list[Item]:
    """The failures earlier runs saved in the example database, to replay first."""
    kinds = [kind for kind, size in group_sizes(examples).items() if size > 0]
    if database is None or not kinds:
        return []
    found = example_db.saved_items(database, kinds, profile, view)
    say(f"saved failures to replay first: {len(found)}")
    return found
