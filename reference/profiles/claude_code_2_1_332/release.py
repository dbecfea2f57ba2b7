"""The switches that set an earlier Claude Code release's resume apart from 2.1.332's.

One ``CliRelease`` per release of the family (``reference/family.py``): the CLI
profile's stages read these switches, so a release is a parameter of the one
profile, not a copy of it. Each switch is on in 2.1.332 and names the first release
that behaves so (found with ``rechain drift``; see ``docs/changes.md``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CliRelease:
    """One release's resume, as switches on the 2.1.332 behaviour."""

    version: str = "2.1.332"
    #: ``tool_use`` blocks are sent with the ``caller`` their row holds; before, without it
    tool_use_caller: bool = True
    #: a user row with ``origin.kind == "voice-call"`` (and a queued command from one) is sent
    #: as a ``VoiceCallRecord`` call and its result; before, as a plain user row
    voice_call_records: bool = True
    #: the record's reminder and result speak of "one or more blocks"; before, of one block
    voice_record_blocks: bool = True
    #: a ``voice_call_talk`` system row is read as the user or queued-command row it stands
    #: for; before, it is a system row the resume leaves out
    voice_call_talk_rows: bool = True

    @property
    def profile_name(self) -> str:
        return f"claude-code@{self.version}"


LATEST = CliRelease()
