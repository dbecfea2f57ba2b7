"""A contract's answer reads every row, also those the reference parse left undecoded."""

from __future__ import annotations

import json


def test_a_contracts_answer_holds_decoded_rows_also_off_the_chain() -> None:
    from rechain.conformance.contracts.answers import answer
    from rechain.conformance.contracts.model import from_json

    rows = [{"type": "user", "uuid": "u1", "parentUuid": None, "message": {"content": "a"}},
            {"type": "assistant", "uuid": "a1", "parentUuid": "u1",
             "message": {"id": "m1", "content": [{"type": "text", "text": "old"}]}},
            {"type": "assistant", "uuid": "a2", "parentUuid": "u1", "isSidechain": True,
             "message": {"id": "m2", "content": [{"type": "text", "text": "side"}]}},
            {"type": "assistant", "uuid": "a3", "parentUuid": "u1",
             "message": {"id": "m3", "content": [{"type": "text", "text": "new"}]}}]
    data = b"".join(json.dumps(r).encode() + b"\n" for r in rows)
    contract = from_json({"name": "x", "version": "1", "scope": "archive",
                          "rows": {"sidechain": True}})
    found = answer(data, contract)
    assert all(isinstance(entry, dict) for entry in found.entries.values())
    assert set(found.uuids) == {"u1", "a1", "a2", "a3"} and found.sidechain == {"a2"}
