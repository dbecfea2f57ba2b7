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


def shrink_order(records: Sequence[Any], generated: frozenset[str]
                 ) -> list[tuple[tuple[str, str, str, frozenset[str]], list[int]]]:
    """The kinds of failure to shrink, each once per reader against one answer.

    A kind is a reader and a signature; of the targets and groups that saw it, the
    one with most examples is shrunk. Crashes and data loss come first (their
    cause's rank), then the frequent kinds, so the budget goes to the harmful.
    """
    from rechain.conformance.contracts.judge import rank

    kinds: dict[tuple[str, str, str, frozenset[str]], list[int]] = {}
    ranks: dict[tuple[str, str, str, frozenset[str]], int] = {}
    for record in records:
        if record.group in generated and record.status in ("fail", "crash", "timeout") \
                and record.signature:
            key = (record.implementation, record.against, record.group, record.signature)
            kinds.setdefault(key, []).append(int(record.case_id.rsplit("-", 1)[1]))
            ranks[key] = min(ranks.get(key, 99), rank(record.verdict.cause or ""))
    best: dict[tuple[str, frozenset[str]], tuple[tuple[str, str, str, frozenset[str]],
                                                  list[int]]] = {}
    for key, indices in kinds.items():
        seen = best.get((key[0], key[3]))
        if seen is None or len(indices) > len(seen[1]):
            best[(key[0], key[3])] = (key, indices)

    def priority(entry: tuple[tuple[str, str, str, frozenset[str]], list[int]]
                 ) -> tuple[int, int]:
        return (ranks[entry[0]], -len(entry[1]))

    return sorted(best.values(), key=priority)
