"""The harness's own context block, taken out of what an older CLI release sends.

Releases before the context moved out of the conversation (2.1.88's JS bundle, the
first native releases) open the request's first user message with a
``<system-reminder>`` block of their own ("As you answer the user's questions, you can
use the following context: # currentDate …"): it is the harness's, not the
transcript's, so an answer is compared without it. The block goes, the rest of that
message stays as the release sent it (a block list); a message that held only the
block (the chain starts at an assistant) goes too. Newer releases send no such block
and pass through unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

CONTEXT_PREFIX = ("<system-reminder>\nAs you answer the user's questions, you can use the "
                  "following context:")


def _is_context(block: Any) -> bool:
    return (isinstance(block, dict) and block.get("type") == "text"
            and isinstance(block.get("text"), str) and block["text"].startswith(CONTEXT_PREFIX))


def without_context(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` without the harness's context block in the first user message."""
    out = list(messages)
    if not out or out[0].get("role") != "user":
        return out
    if isinstance(out[0].get("content"), str):  # the chain starts at an assistant
        return out[1:] if out[0]["content"].startswith(CONTEXT_PREFIX) else out
    if not isinstance(out[0].get("content"), list):
        return out
    content = out[0]["content"]
    kept = [block for block in content if not _is_context(block)]
    if len(kept) == len(content):
        return out
    return ([{**out[0], "content": kept}] if kept else []) + out[1:]
