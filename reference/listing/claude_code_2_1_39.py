"""Whether the session list before 2.1.88's line shows a session: it needs a first prompt.

Before 2.1.88's line (2.1.39 and 2.0.76 seen so), ``--continue`` takes the newest session
the list shows, and the list passes over a session with neither a first prompt in its first
16 KiB nor a custom title. The prompt scan there differs from 2.1.88's: it reads the
first text block of each user line only, and passes over fewer texts (the interrupt
marker, for one, is a prompt).
"""

from __future__ import annotations

import re

from rechain.reference.js.text import trim
from rechain.reference.listing.claude_code_2_1_88 import extract_tag, user_entries

SKIPPED = re.compile(
    r"^(?:<local-command-stdout>|<session-start-hook>|<tick>"
    r"|\s*<ide_opened_file>[\s\S]*</ide_opened_file>\s*$"
    r"|\s*<ide_selection>[\s\S]*</ide_selection>\s*$)")


def _first_text(content: object) -> str:
    if type(content) is str:
        return content
    if type(content) is list:
        block = next((b for b in content if type(b) is dict and b.get("type") == "text"), None)
        text = block.get("text") if block is not None else None
        return text if type(text) is str else ""
    return ""


def has_first_prompt(head: str) -> bool:
    """Whether the head holds a user line the list takes as the session's first prompt."""
    for entry in user_entries(head):
        message = entry.get("message")
        text = _first_text(message.get("content") if type(message) is dict else None)
        if not text:
            continue
        shown = trim(text.replace("\n", " "))
        if extract_tag(shown, "command-name") or not SKIPPED.search(shown):
            return True
    return False
