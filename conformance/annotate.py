"""What a run report adds to a runner record: the case's tags and, when it failed, why.

Kept apart from the runner so that workers stay fast: this runs once per case, in the
process that writes the report, and only failing records cost a rebuild.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rechain.conformance.explain import explain, profile_for
from rechain.conformance.runner import Item, Record

Json = dict[str, Any]
NOT_PASSING = frozenset({"fail", "crash", "timeout"})


def tags_of(item: Item) -> list[str]:
    """A corpus case's own tags; a generated transcript's from the strategy that wrote it."""
    own = getattr(item.source, "tags", None)
    if isinstance(own, (tuple, list)):
        return [str(tag) for tag in own]
    if item.source is None:
        return []
    from rechain.strategies.observe import tags

    return tags(item.source)


def merged_readers(implementations: Iterable[Any]) -> frozenset[str]:
    """The labels of the readers whose contract shows prompts on adjacent lines as one."""
    from rechain.conformance.impls import label

    return frozenset(label("", i.info) for i in implementations
                     if (i.info.contract or {}).get("prompts") == "merged")


def loose_readers(implementations: Iterable[Any]) -> frozenset[str]:
    """The labels of the readers without uuids whose contract compares no content: their
    rows pair on role where content does not decide (``contracts.pairing``)."""
    from rechain.conformance.impls import label

    return frozenset(label("", i.info) for i in implementations
                     if (i.info.contract or {}).get("content") == "ignored"
                     or (i.info.contract or {}).get("strictness") in ("uuids", "types"))


def explanation_of(item: Item, record: Record, profile: str, tags: Sequence[str],
                   merged: frozenset[str] = frozenset(),
                   loose: frozenset[str] = frozenset()) -> Json | None:
    """The explanation of a record that did not pass (None for a pass or skip); ``merged``
    the readers that show adjacent prompts as one, ``loose`` those that compare no content."""
    if record.status not in NOT_PASSING:
        return None
    difference = record.difference.to_json() if record.difference is not None else None
    return explain(item.case.data, record.outcome, record.expected, difference,
                   target=record.against, profile=profile_for(record.against, profile),
                   tags=tags, message=record.verdict.message, causes=record.verdict.causes,
                   options=item.case.options, leads=record.verdict.leads,
                   merged=record.implementation in merged,
                   loose=record.implementation in loose)


def annotations(item: Item, records: Sequence[Record], profile: str,
                merged: frozenset[str] = frozenset(),
                loose: frozenset[str] = frozenset()) -> list[Json]:
    """Per record, the keyword arguments ``report.case_line`` takes besides the record."""
    tags = tags_of(item)
    return [{"tags": tags,
             "explanation": explanation_of(item, record, profile, tags, merged, loose)}
            for record in records]
