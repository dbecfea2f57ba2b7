"""The format's vocabulary, shared by the mutator and the libFuzzer dictionary.

Entry types, flags, timestamps and odd values: one list each, so the value
operations (``value_ops``) and the dictionary (``dictionary``) can never
drift apart. Standard library only.
"""

from __future__ import annotations

from typing import Any

ENTRY_TYPES = (
    "user",
    "assistant",
    "system",
    "attachment",
    "progress",
    "summary",
    "host-row",
    "queue-operation",
    "attribution-snapshot",
    "file-history-snapshot",
    "custom",
)
FLAGS = (
    "isSidechain",
    "isMeta",
    "teamName",
    "isCompactSummary",
    "closesQuietTurn",
    "isVisibleInTranscriptOnly",
    "interruptedByShutdown",
    "toolResultRewritten",
)
ODD_VALUES: tuple[Any, ...] = (
    None,
    42,
    -1,
    0,
    1.5,
    "",
    "x",
    [],
    {},
    [1],
    {"a": 1},
    True,
    False,
    2**53 + 1,
    "\ud800",
)
TIMESTAMPS = (
    "2026-11-20T09:00:00.000Z",
    "2026-11-20T09:00:00Z",
    "1970-01-01T00:00:00.000Z",
    "not-a-date",
    "",
    "2026-11-20 09:00:00",
    "2026-11-20T09:00:00.000+05:00",
    "9999-12-31T23:59:59.999Z",
)
#: fragments that crashed readers before, as the byte mutator should insert them whole
KNOWN_CRASHERS = (
    b'"message":null',
    b'"message":0',
    b'"content":42',
    b'"content":null',
    b'"timestamp":null',
)
