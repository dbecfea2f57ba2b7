"""Profile ``claude-code@2.1.332``: the chain and the API messages of ``claude -p --resume``.

See ``docs/cli-resume.md`` for every rule and the minimal case that shows it.
"""

from rechain.reference.profiles.claude_code_2_1_332.api import same_model, to_api
from rechain.reference.profiles.claude_code_2_1_332.profile import (
    CLAUDE_CODE,
    DEFAULT_MODEL,
    Resumed,
    resume,
)

__all__ = ["CLAUDE_CODE", "DEFAULT_MODEL", "Resumed", "resume", "same_model", "to_api"]
