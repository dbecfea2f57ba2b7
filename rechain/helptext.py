"""Help text from docstrings: reStructuredText markup becomes plain text for ``--help``.

Command descriptions are the modules' docstrings (one source for the docs and
the help); what renders in Sphinx would show as raw markup in a terminal.
"""

from __future__ import annotations

import re

# :role:`text` and ``literal`` and *emphasis* (not a lone * such as a glob's)
_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`([^`]+)`")
_LITERAL = re.compile(r"``(.+?)``", re.S)
_EMPHASIS = re.compile(r"(?<![\w*])\*{1,2}([^\s*](?:[^*]*?[^\s*])?)\*{1,2}(?![\w*])")


def plain(text: str) -> str:
    """``text`` with inline RST markup removed (the words stay)."""
    return _EMPHASIS.sub(r"\1", _LITERAL.sub(r"\1", _ROLE.sub(r"\1", text)))


def description(doc: str | None) -> str | None:
    """A module docstring's body (its paragraphs after the summary line) for ``--help``."""
    if not doc:
        return None
    paragraphs = [p.strip() for p in doc.strip().split("\n\n")]
    body = paragraphs[1:] or paragraphs
    return plain(" ".join(" ".join(p.split()) for p in body))
