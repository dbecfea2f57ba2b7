"""The one row writer: key order of each layout, DROP, and bytes as JSON.stringify writes them."""

from __future__ import annotations

import json

from rechain.strategies import rows


def test_current_layout_puts_chain_then_own_fields_then_the_stamps_a_row_lacks() -> None:
    stamped = rows.stamps("s", cwd="/w", version="2.1.332", git_branch="main", slug="a-b-c")
    out = rows.row(rows.chain("p"), {"type": "user", "uuid": "u", "cwd": "/mine"}, stamped)
    assert list(out) == ["parentUuid", "isSidechain", "type", "uuid", "cwd", "userType",
                         "entrypoint", "sessionId", "version", "gitBranch", "slug"]
    assert out["cwd"] == "/mine"


def test_stamps_first_layout_and_the_boundary_chain_fields() -> None:
    stamped = rows.stamps("s", cwd="/w", version="2.0.76", git_branch="main", entrypoint=None,
                          agent_id="a1")
    out = rows.row(rows.chain(None, logical="l"), {"type": "system"}, stamped, stamps_first=True)
    assert list(out) == ["parentUuid", "logicalParentUuid", "isSidechain", "userType", "cwd",
                         "sessionId", "version", "gitBranch", "agentId", "type"]


def test_a_drop_value_leaves_the_field_out() -> None:
    out = rows.row(rows.chain(None), {"type": "user"}, {"entrypoint": rows.DROP, "cwd": "/w"})
    assert "entrypoint" not in out and out["cwd"] == "/w"


def test_bytes_are_compact_utf8_and_big_integers_still_serialise() -> None:
    value = {"text": "héllo ✓ \u2028", "n": 2**70, "nested": [1, None, True]}
    assert rows.dumps(value) == json.dumps(value, ensure_ascii=False,
                                           separators=(",", ":")).encode()
    assert rows.jsonl([{"a": 1}, b"raw", "text"], newline=b"\r\n") == b'{"a":1}\r\nraw\r\ntext\r\n'
    assert rows.jsonl([{"a": 1}], final_newline=False) == b'{"a":1}'


def test_assistant_message_orders_keys_by_release() -> None:
    full = rows.assistant_message([rows.text("x")], "msg_1", model="m", usage=rows.usage(1, 2))
    assert list(full) == ["model", "id", "type", "role", "content", "stop_reason",
                          "stop_sequence", "usage"]
    old = rows.assistant_message([], "msg_1", model="m", model_first=False)
    assert list(old)[:4] == ["id", "type", "role", "model"]
    assert rows.assistant_message([], "msg_1") == {"role": "assistant", "content": [],
                                                   "id": "msg_1"}
