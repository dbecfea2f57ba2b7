"""The reference loader: Claude Code transcripts rebuilt as each real reader does.

``rebuild(data, profile)`` runs pure stages (read, parse, index, relink, leaf,
walk, recover, view) chosen by a named profile; see ``docs/architecture.md``.
"""

from rechain.reference.model import Diagnostic, Options, Rebuild
from rechain.reference.pipeline import rebuild
from rechain.reference.profiles import DEFAULT_PROFILE, PROFILES, get_profile
from rechain.reference.stages import Profile

__all__ = [
    "DEFAULT_PROFILE",
    "PROFILES",
    "Diagnostic",
    "Options",
    "Profile",
    "Rebuild",
    "get_profile",
    "rebuild",
]
