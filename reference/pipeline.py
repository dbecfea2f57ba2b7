"""``rebuild``: a profile, by name or record, run by the one driver (``stages.drive``)."""

from __future__ import annotations

from rechain.reference.model import Options, Rebuild
from rechain.reference.profiles import DEFAULT_PROFILE, get_profile
from rechain.reference.stages import Profile, drive


def rebuild(
    data: bytes,
    profile: str | Profile = DEFAULT_PROFILE,
    options: Options | None = None,
    *,
    session_id: str | None = None,
) -> Rebuild:
    """The conversation ``profile`` rebuilds from a transcript's bytes; never raises on input.

    Every view of the profile is then ``result.view(name)``, computed from the same run.
    """
    chosen = profile if isinstance(profile, Profile) else get_profile(profile)
    return drive(data, chosen, options or Options(), session_id)

