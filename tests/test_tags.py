"""A generated case's tags come from the strategy that wrote it, in the corpus's words."""

from __future__ import annotations

from rechain.conformance import differential as diff
from rechain.conformance.annotate import tags_of
from rechain.strategies.observe import features, tags


def test_generated_transcripts_carry_the_corpus_tags_of_their_features():
    values = diff.generate(diff.strategy_for("generated"), 30, 5)
    seen: set[str] = set()
    for value in values:
        found = tags(value)
        labels = features(value)
        assert found
        assert ("rewind" in found) == ("rewind" in labels)
        assert ("parallel-tools" in found) == any(
            label in ("parallel tool calls", "eager result") for label in labels)
        assert ("compaction" in found) == any(label.startswith("compaction") for label in labels)
        seen |= set(found)
    assert {"parallel-tools", "split-message", "rewind"} <= seen


def test_corrupted_transcripts_add_their_damage():
    for value in diff.generate(diff.strategy_for("corrupted"), 10, 6):
        found = tags(value)
        kinds = {m.kind.replace("_", "-") for m in value.mutations}
        assert kinds <= set(found)
        assert ("corrupted" in found) == bool(kinds)


def test_a_run_item_takes_the_corpus_case_tags_or_the_strategy_tags():
    value = diff.generate(diff.strategy_for("generated"), 1, 5)[0]
    item = diff.make_item(value, "generated", 0, "agent-sdk@0.3.332")
    assert tags_of(item) == tags(value)
