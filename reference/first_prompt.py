"""The first-prompt scan both resume profiles run (2.1.332 and 2.1.88): a throw resumes nothing.

Every print-mode resume looks for the conversation's first prompt along the resumed
chain. Which rows and which strings it passes over is 2.1.88's rule 24 too, so the seed
profile runs this scan as well; only the verdict on a text that is not a string differs
(``throws``; probed, docs/cli-resume.md L7).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rechain.reference.js.values import UNDEFINED, prop, truthy
from rechain.reference.listing.claude_code_2_1_88 import ends_prompt_scan
from rechain.reference.model import Json

FIRST_PROMPT_ERROR = "Failed to resume session: the first prompt's text is not a string"


def _texts(row: Json) -> list[Any]:
    """A user row's string content, or the ``text`` of each of its text blocks, in order."""
    content = prop(row.get("message", UNDEFINED), "content")
    if type(content) is str:
        return [content]
    if type(content) is list:
        return [prop(block, "text") for block in content if prop(block, "type") == "text"]
    return []


def throws_on_332(text: Any) -> bool:
    """2.1.332's verdict on a truthy text that is not a string: only an empty list gets
    through (it ends the scan); a number, ``true``, an object or a list with anything in it
    throws (probed: ``[]`` then ``5`` resumes; ``[""]``, ``[5]``, ``[null]``, ``["hello"]``
    fail). 2.1.88 throws on all of them (rule 24)."""
    return not (type(text) is list and not text)


def first_prompt_fails(
    chain: list[Json], throws: Callable[[Any], bool] = throws_on_332
) -> bool:
    """Whether the scan throws on this chain: user rows in chain order, meta rows and
    compact summaries passed over (tool-result rows are not), each text in order. Falsy
    texts are passed over; a string ends the scan unless the session list would pass it
    over too; any other text ends it with ``throws(text)``."""
    for row in chain:
        if row.get("type") != "user" or truthy(row.get("isMeta")) \
                or truthy(row.get("isCompactSummary")):
            continue
        for text in _texts(row):
            if not truthy(text):
                continue
            if type(text) is not str:
                return throws(text)
            if ends_prompt_scan(text):
                return False
    return False
