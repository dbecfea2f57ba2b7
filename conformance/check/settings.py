"""What one ``rechain check`` run was asked for, as a value the command builds from its options."""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rechain.shard import Shard


@dataclass(frozen=True, slots=True)
class Settings:
    """The options that decide what runs and how it is judged (rendering is the command's).

    ``seed`` and ``save_cases`` are resolved (a number, an absolute directory) before the run.
    """

    seed: int
    save_cases: Path
    started: dt.datetime
    impl: tuple[str, ...] = ()
    against: str | None = None
    profile: str = "sdk"
    examples: int | None = None
    corpus: Path | None = None
    case: tuple[str, ...] = ()
    no_corpus: bool = False
    shard: Shard | None = None
    example_db: str | None = None
    shared_example_db: tuple[str, ...] = ()
    report: Path | None = None
    jobs: int = 1
    timeout: float = 30.0
    memory_mb: int = 2048
    venv: Path | None = None
    no_shrink: bool = False
    max_shrink: int = 12
    skips: Path | None = None
    no_skips: bool = False
    contract: str | None = None
    fields: str | None = None
    invariant_every: int = 4
    validate: bool = False
    argv: tuple[str, ...] = ()

    @classmethod
    def from_options(cls, options: Any, **resolved: Any) -> Settings:
        """The settings named like ``options``' attributes (an argparse namespace), with
        ``resolved`` given explicitly; lists become tuples."""
        chosen: dict[str, Any] = {}
        for one in dataclasses.fields(cls):
            if one.name in resolved:
                chosen[one.name] = resolved[one.name]
            elif hasattr(options, one.name):
                value = getattr(options, one.name)
                if value is None and isinstance(one.default, tuple):
                    continue  # an option not given: none of them
                chosen[one.name] = tuple(value) if isinstance(value, list) else value
        return cls(**chosen)

    @property
    def examples_run(self) -> int:
        """Generated transcripts asked for: ``--examples``, else 200 (none with ``--case``)."""
        if self.examples is not None:
            return self.examples
        return 0 if self.case else 200

    def judged_as(self) -> list[str]:
        """The options of this run that decide a verdict, for a replay to judge the same way."""
        flags = ["--profile", self.profile] if self.profile != "sdk" else []
        if self.contract:
            flags += ["--contract", str(Path(self.contract).expanduser().absolute())]
        if self.fields:
            flags += ["--fields", self.fields]
        return flags + (["--validate"] if self.validate else [])
