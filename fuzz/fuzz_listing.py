"""Harness: the session list's head/tail metadata reader, for both listing profiles.

A listing never reads a whole transcript: it reads 64 KiB at each end and
scans that text for fields (first prompt, title, branch, cwd, tag, ...). Here
the input is the file. When its first byte is odd, the input is split in two
and read as the head and tail of a file too large to be read whole, so the
tail starts mid-line, often mid-character, as it does on disk. Contract: no
exception; a session the profile lists is a dict of JSON values carrying the
id and size it was given and a non-empty string summary; the SDK's guards
(programmatic entrypoint, continued-in target, collision cwd) answer with
their declared types.

Run: ``rechain fuzz listing``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from rechain.fuzz.contract import harness
from rechain.reference.listing import agent_sdk_0_3_332 as sdk_rules
from rechain.reference.listing import claude_code_2_1_88 as cli_rules
from rechain.reference.listing.agent_sdk_0_3_332 import Lite, lite_of
from rechain.reference.listing.disk import LITE_READ_BYTES

SESSION_ID = "0f0e0d0c-0b0a-4000-8000-00000000abcd"
PROJECT = "/home/user/project"
MTIME_MS = 1_764_000_000_000


class BrokenListingError(AssertionError):
    """The listing returned something that breaks its own shape."""


def lite_for(data: bytes) -> Lite:
    """The lite read of a file holding ``data``, or of a large file's two ends."""
    if data[:1] and data[0] & 1 and len(data) > 2:
        middle = len(data) // 2
        head, tail = data[:middle], data[middle:]
        return lite_of(head, tail, len(head) + LITE_READ_BYTES + len(tail), MTIME_MS)
    return lite_of(data, None, len(data), MTIME_MS)


def check_info(info: Any, lite: Lite) -> None:
    """What any listed session must look like."""
    if info is None:
        return
    if type(info) is not dict or info.get("sessionId") != SESSION_ID:
        raise BrokenListingError(f"not this session's info: {info!r:.200}")
    if info.get("fileSize") != lite.size or info.get("lastModified") != MTIME_MS:
        raise BrokenListingError("size or mtime not the file's")
    summary = info.get("summary")
    if type(summary) is not str or not summary:
        raise BrokenListingError(f"summary {summary!r:.80}")
    json.dumps(info)  # every value is JSON (a lone surrogate is still a str)


@harness(max_len=16384, timeout_s=10, description="session listing head/tail: never raises")
def one_input(data: bytes) -> None:
    if not data:
        return  # an empty file is never read (`read_lite` returns None)
    lite = lite_for(data)
    if type(sdk_rules.is_programmatic(lite.head, lite.tail)) is not bool:
        raise BrokenListingError("is_programmatic is not a bool")
    target = sdk_rules.continued_in(lite.tail)
    cwd = sdk_rules.relocated_or_first_cwd(lite)
    if not (target is None or type(target) is str) or not (cwd is None or type(cwd) is str):
        raise BrokenListingError(f"guard answers {target!r:.80} / {cwd!r:.80}")
    check_info(sdk_rules.session_info(SESSION_ID, lite, PROJECT), lite)
    check_info(cli_rules.session_info(SESSION_ID, lite, PROJECT, None), lite)


if __name__ == "__main__":
    from rechain.fuzz.worker import exec_harness

    exec_harness("rechain.fuzz.fuzz_listing:one_input", sys.argv[1:])
