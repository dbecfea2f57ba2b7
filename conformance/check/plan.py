"""What one ``check`` run connects to and compares with, and the connections each worker makes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rechain.conformance import example_db, report
from rechain.conformance.check.settings import Settings
from rechain.conformance.contracts.model import load as load_contract
from rechain.conformance.contracts.setup import contract_targets
from rechain.conformance.impls import Implementation, Validating, connect, recorded_views
from rechain.conformance.oracles.ts_sdk import TsSdkOracle
from rechain.conformance.protocol import View
from rechain.conformance.protocol_process import Limits
from rechain.conformance.runner import Against, Connections, Intended, Recorded, Target

#: the groups of generated input (valid and corrupted transcripts)
GENERATED = frozenset({"generated", "corrupted"})


def connect_checked(spec: str, limits: Limits, validate: bool, venv: Path | None = None
                    ) -> Implementation:
    """A connected reader, its answers checked against the schemas when ``validate``."""
    implementation = connect(spec, limits, strict=validate, venv=venv)
    return Validating(implementation) if validate else implementation


def default_against(impl_specs: Sequence[str], profile: str, resume: bool = False) -> str | None:
    """The reader generated input is compared with when ``--against`` is not given.

    In the resume views (profile ``cli``) that is the reference, never the slow CLI.
    """
    if not resume and TsSdkOracle.available() is None and "agent-sdk-ts" not in impl_specs:
        return "agent-sdk-ts"
    reference = f"reference:{profile}"
    if not any(spec.startswith("reference") for spec in impl_specs):
        return reference
    return None


class Plan:
    """The readers under test and the targets of one run; builds worker connections."""

    def __init__(self, settings: Settings) -> None:
        # the views the profile's expectations are recorded in (what corpus and generated
        # items ask for): the SDKs' session messages, the CLI's api + chain, ...
        self.profile, self.views = recorded_views(settings.profile)
        self.view: View = self.views[0]
        self.limits = Limits(timeout=settings.timeout, memory_mb=settings.memory_mb)
        self.validate = settings.validate
        self.venv: Path | None = settings.venv
        self.impl_specs: list[str] = list(settings.impl) or [f"reference:{settings.profile}"]
        self.against_spec: str | None = settings.against
        self.default_against = (None if settings.against else default_against(
            self.impl_specs, self.profile, self.view != "session-messages"))
        self.made: list[Connections] = []
        self.contract = load_contract(settings.contract) if settings.contract else None
        self.level: str | None = settings.fields
        self.every: int = settings.invariant_every
        self.database = example_db.open_database(settings.example_db,
                                                 settings.shared_example_db)

    def connections(self) -> Connections:
        """A fresh set of connections (one per worker)."""
        implementations = [connect_checked(s, self.limits, self.validate, self.venv)
                           for s in self.impl_specs]
        judged = contract_targets(implementations, self.contract, self.level, self.profile,
                                  self.every)
        targets: list[Target] = []
        if self.against_spec is not None:
            targets.append(Against(connect_checked(self.against_spec, self.limits,
                                                   self.validate, self.venv)))
        elif len(judged) < len(implementations):  # else each has its contract's answer only
            targets.append(Recorded(self.profile, views=self.views))
            if self.view == "session-messages" and self.default_against != "agent-sdk-ts":
                targets.append(Intended())  # the TS SDK's own answer, when it runs, is the one
            if self.default_against is not None:
                other = connect_checked(self.default_against, self.limits, self.validate)
                targets.append(Against(other, GENERATED))
        targets += judged
        made = Connections(implementations, targets, level=self.level)
        self.made.append(made)
        return made

    def against_spec_for(self, target: Target) -> str | None:
        """The spec to put in a replay command for a target."""
        if self.against_spec is not None:
            return self.against_spec
        if isinstance(target, Recorded | Intended) or getattr(target, "owner", None):
            return None
        return self.default_against

    def rates(self) -> dict[str, report.Rate]:
        """Calls and seconds per reader, over every worker's connections."""
        merged: dict[str, list[float]] = {}
        for made in self.made:
            for name, (calls, seconds) in made.seconds.items():
                total = merged.setdefault(name, [0, 0.0])
                total[0] += calls
                total[1] += seconds
        return {name: report.Rate(int(c), s) for name, (c, s) in merged.items()}

    def close(self) -> None:
        """Close every worker's connections."""
        for made in self.made:
            made.close()
