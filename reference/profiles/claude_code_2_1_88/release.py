"""The switches that set a later JS-bundle release's resume apart from 2.1.88's.

One ``SeedRelease`` per release of the 2.1.88 line (``reference/profiles/family.py``
sets them from the first release of each change): the seed pipeline's stages read
these switches, so 2.1.91 or 2.1.101 is a parameter of the one 2.1.88 loader, not a
copy of it. Every switch is off in 2.1.88.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SeedRelease:
    """One release's resume, as switches on the 2.1.88 behaviour."""

    version: str = "2.1.88"
    #: the walk bridges a parent missing from the file to the newest earlier row of the
    #: same side at most 5 s older; before, the chain starts at the orphan
    dangling_bridge: bool = False
    #: over 5 MiB, a compact boundary line across a read chunk's edge is judged like any
    #: other line; before, it is seen only when it starts with the system prefix
    boundary_across_chunks: bool = False
    #: the resumed leaf is the last-written row (per entry point's pool); before, the one
    #: with the newest timestamp
    leaf_last_written: bool = False

    #: a queued task notification is sent after the "[SYSTEM NOTIFICATION - NOT USER
    #: INPUT]" notice; before, after "A background agent completed a task:"
    task_notification_notice: bool = False

    @property
    def profile_name(self) -> str:
        return f"claude-code@{self.version}"


BASE = SeedRelease()
