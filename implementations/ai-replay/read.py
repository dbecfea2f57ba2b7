"""ai-replay's parser on one transcript: ``ai_replay.parser.parse_session(path)``.

Run with the reader's own venv python: ``read.py FILE``. ai-replay turns a session into
the turns of a replay: a prompt, then the assistant's blocks (text, thinking, tool calls,
each call with its result attached). Read back as rows in the order the replay plays
them: the prompt, each block, each result at its own timestamp among the blocks. An
exception it raises is its answer.
"""

import json
import sys

from ai_replay.parser import parse_session


def rows_of(turn: dict) -> list[dict]:
    """One turn as rows: the prompt, then blocks and results in the order they play."""
    rows = [{"type": "user", "text": turn["user_text"]}] if turn.get("user_text") else []
    pending: list[tuple[str, dict]] = []
    for block in turn.get("blocks", []):
        stamp = block.get("timestamp") or ""
        due = [p for p in pending if p[0] <= stamp]
        pending = [p for p in pending if p[0] > stamp]
        rows += [row for _, row in sorted(due, key=lambda p: p[0])]
        call = block.get("tool_call") or {}
        rows.append({"type": "assistant", "text": block.get("text", ""),
                     "tool_use_id": call.get("tool_use_id"), "name": call.get("name")})
        if call and call.get("result") is not None:
            pending.append((call.get("result_timestamp") or "", {
                "type": "user", "tool_use_id": call.get("tool_use_id"),
                "text": call.get("result")}))
    return rows + [row for _, row in sorted(pending, key=lambda p: p[0])]


def main() -> None:
    try:
        turns = parse_session(sys.argv[1])
    except Exception as error:  # the reader's answer, reported as such
        print(json.dumps({"raised": {"type": type(error).__name__, "message": str(error)[:300]}}))
        return
    print(json.dumps({"messages": [row for turn in turns for row in rows_of(turn)]},
                     default=str))


main()
