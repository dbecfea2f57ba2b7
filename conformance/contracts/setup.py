"""Which readers of a run are judged by a contract, and the targets that judge them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rechain.conformance.contracts.model import Contract, from_json, with_strictness
from rechain.conformance.contracts.target import ContractTarget


def declared(implementation: Any, override: Contract | None = None) -> Contract | None:
    """The contract a reader is judged by: ``--contract`` if given, else what it declares."""
    info = implementation.info
    if override is not None:
        return Contract(**{**{f: getattr(override, f) for f in override.__slots__},
                           "name": info.name, "version": info.version})
    if info.contract is None:
        return None
    return from_json(dict(info.contract), f"{info.slug}'s contract")


def contract_targets(implementations: Sequence[Any], override: Contract | None,
                     level: str | None, profile: str, every: int) -> list[ContractTarget]:
    """One target per reader with a contract; the others keep the plain comparison."""
    targets = []
    for implementation in implementations:
        contract = declared(implementation, override)
        if contract is not None:
            targets.append(ContractTarget(implementation, with_strictness(contract, level),
                                          profile, every))
    return targets
