"""Named profiles: one module or folder per real reader's release, registered here.

``agent_sdk_0_3_332`` (the default), ``claude_code_2_1_332`` (``claude -p --resume``)
and ``claude_code_2_1_88`` (2.1.88's resume). Each is a ``Profile`` record
(``rechain.reference.stages``) of the stage functions its reader runs.
"""

from __future__ import annotations

from rechain.reference.model import UsageError
from rechain.reference.profiles.agent_sdk_0_3_332 import AGENT_SDK_TS
from rechain.reference.profiles.claude_code_2_1_88 import SEED
from rechain.reference.profiles.claude_code_2_1_332 import CLAUDE_CODE
from rechain.reference.profiles.family import profile_for
from rechain.reference.stages import Profile

PROFILES: dict[str, Profile] = {p.name: p for p in (AGENT_SDK_TS, SEED, CLAUDE_CODE)}
DEFAULT_PROFILE = AGENT_SDK_TS.name


def get_profile(name: str) -> Profile:
    """A profile by name or alias; unknown names are a usage error listing the choices."""
    for profile in PROFILES.values():
        if name == profile.name or name in profile.aliases:
            return profile
    if name.startswith("claude-code@"):  # any verified release of the family
        return profile_for(name.removeprefix("claude-code@"))
    known = ", ".join(f"{p.name} ({', '.join(p.aliases)})" for p in PROFILES.values())
    raise UsageError(f"unknown profile {name!r}; known: {known}")
