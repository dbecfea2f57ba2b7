"""Named profiles: which stage functions make up each real reader's behaviour.

A profile is data: a frozen record of stage functions. New readers (the CLI's
resume, the 2.1.88 loader, the Python SDK) recombine the same stages and swap
the ones that differ, instead of ``if profile == ...`` inside the stages.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from rechain.errors import UsageError
from rechain.reference import graph, parse, read, recover, view
from rechain.reference.model import Json, Options


@dataclass(frozen=True, slots=True)
class Profile:
    """One reader's behaviour, stage by stage."""

    name: str
    description: str
    oracle: str
    read: Callable[[bytes, Options], read.Source]
    parse: Callable[..., parse.Parsed]
    relink: Callable[[graph.Graph], None]
    choose_leaf: Callable[[graph.Graph], Json | None]
    walk: Callable[[graph.Graph, Json], list[Json]]
    recover: Callable[[graph.Graph, list[Json]], list[Json]]
    present: Callable[..., view.Presented]
    hidden_reason: Callable[[Json, bool], str | None]
    aliases: tuple[str, ...] = field(default=())
    # extra views a profile offers besides its messages (``rechain rebuild --view NAME``):
    # each takes (data, options, session_id) and returns a JSON object
    views: Mapping[str, Callable[[bytes, Options, str | None], Json]] = field(
        default_factory=dict
    )


AGENT_SDK_TS = Profile(
    name="agent-sdk@0.3.332",
    description="getSessionMessages of @anthropic-ai/claude-agent-sdk 0.3.332 (TypeScript)",
    oracle="agent-sdk-ts",
    read=lambda data, options: read.read_sdk(data, options.disable_precompact_skip),
    parse=parse.parse_sdk,
    relink=graph.relink_compactions,
    choose_leaf=graph.choose_leaf_sdk,
    walk=graph.walk,
    recover=recover.recover_orphans,
    present=view.present_sdk,
    hidden_reason=view.hidden_reason,
    aliases=("sdk", "agent-sdk", "agent-sdk-ts"),
)

def _seed() -> Profile:
    """``claude-code@2.1.88`` (imported late: its module builds on this one)."""
    from rechain.reference.seed import SEED

    return SEED


def _resume() -> Profile:
    """``claude-code@2.1.332`` (imported late: its module builds on this one)."""
    from rechain.reference.resume import CLAUDE_CODE

    return CLAUDE_CODE


PROFILES: dict[str, Profile] = {p.name: p for p in (AGENT_SDK_TS, _seed(), _resume())}
DEFAULT_PROFILE = AGENT_SDK_TS.name


def get_profile(name: str) -> Profile:
    """A profile by name or alias; unknown names are a usage error listing the choices."""
    for profile in PROFILES.values():
        if name == profile.name or name in profile.aliases:
            return profile
    known = ", ".join(f"{p.name} ({', '.join(p.aliases)})" for p in PROFILES.values())
    raise UsageError(f"unknown profile {name!r}; known: {known}")
