"""Values nested thousands deep (JSON.parse takes them) break no profile, view or output."""

from __future__ import annotations

import pytest

from rechain import jsonio, textview
from rechain.reference import PROFILES, Options, get_profile, rebuild
from rechain.reference.js.values import as_stringified, deep_copy, to_string

DEEP = "[" * 5000 + "]" * 5000
ROWS = [
    '{"type":"system","subtype":"compact_boundary","uuid":"cb","parentUuid":null,'
    '"compactMetadata":{"preservedSegment":{"headUuid":"u1","anchorUuid":null,"tailUuid":'
    + DEEP + "}}}",
    '{"type":"user","uuid":"u1","parentUuid":null,"timestamp":' + DEEP + ',"message":{"role":'
    + DEEP + ',"content":[{"type":"tool_use","id":' + DEEP + ',"input":' + DEEP + "}]}}",
    '{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"role":"assistant","model":'
    + DEEP + ',"content":' + DEEP + "}}",
    '{"type":"user","uuid":"u2","parentUuid":"a1","message":' + DEEP + "}",
    '{"type":"assistant","uuid":"a2","parentUuid":' + DEEP + ',"message":{"content":[]}}',
    '{"type":"custom-title","customTitle":' + DEEP + ',"sessionId":"s"}',
]
DATA = ("\n".join(ROWS) + "\n").encode()
ENTRIES = (None, "continue", "resume-id", "resume-file")


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_every_profile_and_output_takes_deep_values(name: str) -> None:
    profile = get_profile(name)
    result = rebuild(DATA, profile)
    assert jsonio.dumps(as_stringified(result.to_json()))
    assert textview.render_bytes(result)
    for entry in ENTRIES if name.endswith("2.1.88") else (None,):
        rebuilt = rebuild(DATA, profile, Options(entry=entry))
        for view in profile.views:
            assert jsonio.dumps(as_stringified(rebuilt.view(view))), (view, entry)


def test_helpers_do_not_recurse() -> None:
    value: list[object] = []
    inner = value
    for _ in range(100_000):
        inner.append([])
        inner = inner[0]  # type: ignore[assignment]
    assert to_string(value) == ""
    assert type(deep_copy(value)) is list  # comparing would recurse; copying must not
    assert jsonio.dumps(value).startswith(b"[[[")
