"""The first-prompt scan of ``claude -p --resume <id>`` (2.1.332): a throw resumes nothing.

Every print-mode resume looks for the conversation's first prompt along the resumed
chain. Which rows and which strings it passes over is 2.1.88's rule (``first_prompt_fails``
in ``rechain.reference.seed.resume``; both use ``listing.seed.ends_prompt_scan``); what
differs is how 2.1.332 treats a text that is not a string (probed, docs/cli-resume.md L7).
"""

from __future__ import annotations

from typing import Any

from rechain.reference.js import prop, truthy
from rechain.reference.listing.seed import ends_prompt_scan
from rechain.reference.model import Json

FIRST_PROMPT_ERROR = "Failed to resume session: the first prompt's text is not a string"


def _texts(row: Json) -> list[Any]:
    """A user row's string content, or the ``text`` of each of its text blocks, in order."""
    message = row.get("message")
    content = message.get("content") if type(message) is dict else None
    if type(content) is str:
        return [content]
    if type(content) is list:
        return [prop(block, "text") for block in content if prop(block, "type") == "text"]
    return []


def _verdict(text: Any) -> bool | None:
    """True: the scan throws; False: it ends here; None: it goes on to the next text.

    Falsy texts are passed over. A string ends the scan unless the session list would pass
    it over too. Of the other values only an empty list gets through (it ends the scan); a
    number, ``true``, an object or a list with anything in it throws (probed: ``[]`` then
    ``5`` resumes, ``[""]``, ``[5]``, ``[null]`` and ``["hello"]`` fail).
    """
    if not truthy(text):
        return None
    if type(text) is str:
        return False if ends_prompt_scan(text) else None
    return not (type(text) is list and not text)


def first_prompt_fails(chain: list[Json]) -> bool:
    """Whether the scan throws on this chain: user rows in chain order, meta rows and
    compact summaries passed over (tool-result rows are not), each text in order."""
    for row in chain:
        if row.get("type") != "user" or truthy(row.get("isMeta")) \
                or truthy(row.get("isCompactSummary")):
            continue
        for text in _texts(row):
            verdict = _verdict(text)
            if verdict is not None:
                return verdict
    return False
