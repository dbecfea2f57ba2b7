"""Re-recording keeps a case's expectations where they stood (``rechain.corpus.splice``)."""

from __future__ import annotations

from rechain.corpus.splice import expectation_key, splice


def _mine(item: str) -> bool:
    return item.startswith("b")


def _key(item: str) -> str:
    return item[:2]


def test_fresh_items_take_the_places_of_the_old_ones() -> None:
    placed = splice(["a1", "b1", "c1", "b2"], ["b2'", "b1'"], _mine, _key)
    assert placed == ["a1", "b1'", "c1", "b2'"]


def test_an_item_not_recorded_again_is_dropped_and_a_new_one_follows_the_last_replaced() -> None:
    assert splice(["a1", "b1", "b2", "c1"], ["b2'", "b3"], _mine, _key) == ["a1", "b2'", "b3", "c1"]


def test_items_of_a_reader_new_to_the_file_go_at_the_end_in_recorded_order() -> None:
    assert splice(["a1", "c1"], ["b2", "b1"], _mine, _key) == ["a1", "c1", "b2", "b1"]


def test_options_in_another_order_are_the_same_expectation() -> None:
    first = expectation_key("p", "api", {"limit": None, "entry": "continue"})
    assert first == expectation_key("p", "api", {"entry": "continue", "limit": None})
    assert first != expectation_key("p", "api", {"entry": "resume-id", "limit": None})
