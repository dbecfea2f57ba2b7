"""Statistics: ``event()`` for every feature a transcript exercises, ``target()`` on its
shape in the ``nightly`` profile (targeting pays off only over many examples)."""

from __future__ import annotations

from collections import Counter

from hypothesis import event, settings, target

from rechain.strategies.ops import Compact, Note, Prompt, Reply, Rewind, Task
from rechain.strategies.transcript import Transcript


def shape(transcript: Transcript) -> dict[str, int]:
    """Branch count (parents with two or more children), widest parallel call, depth."""
    children = Counter(line.get("parentUuid") for line in transcript.lines
                       if "parentUuid" in line and line.get("parentUuid") is not None)
    widths = Counter(line["message"]["id"] for line in transcript.lines
                     if line.get("type") == "assistant"
                     and line["message"]["content"][0].get("type") == "tool_use")
    return {"branches": sum(1 for n in children.values() if n > 1),
            "parallel": max(widths.values(), default=0),
            "depth": len(transcript.intended)}


def features(transcript: Transcript) -> list[str]:
    """Labels of the features this transcript exercises."""
    labels = [f"generation {transcript.generation}"]
    script = transcript.script
    for op in script:
        if isinstance(op, Reply):
            calls = op.blocks.count("tool_use")
            if len(op.blocks) > 1:
                labels.append("split message")
            if calls > 1:
                labels.append("parallel tool calls")
            if any(d > 0 for d in op.delays[:calls]):
                labels.append("results out of order")
            if any(op.eager[:calls]):
                labels.append("eager result")
            if op.unanswered and calls:
                labels.append("unanswered tool_use")
            if op.hooks and calls:
                labels.append("hook progress")
            if op.queued:
                labels.append("queued command")
        elif isinstance(op, Prompt):
            labels.append(f"prompt {op.kind}")
            labels.append("timestamp skew" if op.pause_ms < 0 else
                          "timestamp tie" if op.pause_ms == 0 else "timestamp gap")
        elif isinstance(op, Rewind):
            labels.append("rewind")
        elif isinstance(op, Compact):
            labels.append(f"compaction keep={min(op.keep, 1)} {op.style}")
        elif isinstance(op, Task):
            labels.append("sidechain " + ("inline" if transcript.generation == "1.0.98"
                                          else "subagent file"))
        elif isinstance(op, Note):
            labels.append(f"note {op.kind}")
        else:
            labels.append(f"metadata {op.kind}")
    intended = set(transcript.intended)
    if transcript.live and intended and list(transcript.intended) != [
            u for u in transcript.live if u in intended]:
        labels.append("reader order differs from write order")
    if transcript.falls_back:
        labels.append("live conversation empty: file falls back to an older branch")
    return sorted(set(labels))


#: feature label (its first words) -> the corpus tag naming the same behaviour
_TAGS = (("split message", "split-message"), ("parallel tool calls", "parallel-tools"),
         ("results out of order", "out-of-order"), ("eager result", "parallel-tools"),
         ("unanswered tool_use", "interrupt"), ("hook progress", "progress"),
         ("queued command", "queued-command"), ("prompt meta", "meta"),
         ("prompt command", "local-command"), ("prompt interrupt", "interrupt"),
         ("timestamp skew", "timestamps"), ("timestamp tie", "timestamps"), ("rewind", "rewind"),
         ("compaction", "compaction"), ("compaction keep=1 segment", "preserved-segment"),
         ("compaction keep=1 messages", "preserved-messages"), ("sidechain", "sidechain"),
         ("note", "system"), ("reader order differs", "orphan-recovery"),
         ("live conversation empty", "leaf-choice"))


def tags(value: object) -> list[str]:
    """The corpus tags (``case.json`` vocabulary) of a generated transcript, corrupted or not.

    A corrupted one adds ``corrupted`` and each mutation's kind in kebab-case
    (``invalid-utf8``, ``dangling-parent``), the words the corpus tags damage with.
    """
    clean = getattr(value, "clean", value)
    found: list[str] = []
    if isinstance(clean, Transcript):
        for name in features(clean):
            found += [tag for prefix, tag in _TAGS if name.startswith(prefix)]
    for mutation in getattr(value, "mutations", ()):
        found += ["corrupted", str(mutation.kind).replace("_", "-")]
    return list(dict.fromkeys(found)) or ["basic"]


def label(transcript: Transcript) -> None:
    """Record one ``event()`` per exercised feature (called by :func:`transcripts`)."""
    for name in features(transcript):
        event(name)


def aim(transcript: Transcript) -> None:
    """``target()`` branch count, parallel width and depth, in the ``nightly`` profile only.

    Call it once per test case from the test body (a label may be targeted only once).
    """
    if getattr(settings, "_current_profile", None) == "nightly":
        for name, value in shape(transcript).items():
            target(float(value), label=name)
