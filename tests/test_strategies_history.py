"""What the strategies write for release-history checks: preserved segments often enough,
rewinds into them, and clock skew inside a turn."""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, seed, settings

from rechain.strategies import Compact, Prompt, Reply, Rewind, Transcript, transcripts, write


def _prompts(t: Transcript) -> list[dict]:
    return [line for line in t.lines if line.get("type") == "user"
            and str((line.get("message") or {}).get("content")).startswith("Prompt")]


def test_a_rewind_to_the_head_of_a_preserved_segment_continues_from_the_summary() -> None:
    t = write([Prompt(), Reply(), Prompt(), Reply(), Compact(keep=1), Prompt(), Reply(),
               Rewind(1), Prompt(), Reply()])
    boundary = next(line for line in t.lines if line.get("subtype") == "compact_boundary")
    segment = boundary["compactMetadata"]["preservedSegment"]
    rewound = _prompts(t)[-1]
    # the head's parent in the live chain is the summary (the anchor), not its old parent
    assert rewound["parentUuid"] == segment["anchorUuid"]
    assert rewound["uuid"] in t.intended


def test_a_rewind_inside_preserved_messages_forks_at_the_kept_row() -> None:
    t = write([Prompt(), Reply(), Prompt(), Reply(), Prompt(), Reply(),
               Compact(keep=2, style="messages"), Rewind(0), Prompt(), Reply()])
    boundary = next(line for line in t.lines if line.get("subtype") == "compact_boundary")
    kept = boundary["compactMetadata"]["preservedMessages"]["uuids"]
    rewound = _prompts(t)[-1]
    assert rewound["parentUuid"] in kept  # the row before the last kept prompt
    assert rewound["uuid"] == t.intended[-2]


def test_a_skewed_response_is_older_than_its_prompt_and_still_increases() -> None:
    t = write([Prompt(), Reply(blocks=("text", "tool_use"), skew_ms=5_000)])
    prompt, *response = [line for line in t.lines if line.get("type") in ("user", "assistant")]
    stamps = [line["timestamp"] for line in response]
    assert stamps[0] < prompt["timestamp"]
    assert stamps == sorted(stamps)


def _share(predicate: object) -> float:
    found: list[bool] = []

    @seed(20261201)
    @settings(max_examples=500, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(transcripts())
    def draw(t: Transcript) -> None:
        found.append(bool(predicate(t)))  # type: ignore[operator]

    draw()
    return sum(found) / len(found)


def test_preserved_segments_are_in_at_least_one_default_draw_in_twenty() -> None:
    share = _share(lambda t: b"preservedSegment" in t.to_bytes()
                   or b"preservedMessages" in t.to_bytes())
    assert share >= 0.05, f"{share:.1%} of 500 draws preserve a segment"


def test_skewed_turns_and_rewinds_after_compaction_are_drawn() -> None:
    assert _share(lambda t: any(isinstance(op, Reply) and op.skew_ms for op in t.script)) > 0.05
    def rewound_after_compaction(t: Transcript) -> bool:
        ops = list(t.script)
        return any(isinstance(op, Compact) and op.keep and any(
            isinstance(later, Rewind) for later in ops[i:]) for i, op in enumerate(ops))
    assert _share(rewound_after_compaction) > 0.01
