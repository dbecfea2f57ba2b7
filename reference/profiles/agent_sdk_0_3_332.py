"""Profile ``agent-sdk@0.3.332`` (alias ``sdk``, the default): the TS SDK's ``getSessionMessages``.

Every slot is a shared stage: this reader is the one the others are told apart from.
"""

from __future__ import annotations

from rechain.reference import graph, parse, read, recover, view
from rechain.reference.stages import Profile

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
