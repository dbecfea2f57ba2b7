"""A third-party transcript reader plugged into rechain (protocol v1, tier 2), in ~50 lines.

The reader is deliberately naive: it takes the last user/assistant line as the
leaf and walks ``parentUuid`` up. Try it:

    rechain smoke --impl "harness:python3 examples/naive_reader.py"
    rechain check --impl "harness:python3 examples/naive_reader.py" --against agent-sdk-ts
"""

import base64
import json
import sys


def read(data: bytes, options: dict) -> list[dict]:
    """The reader under test: bytes in, SessionMessage-like dicts out."""
    entries, last = {}, None
    for line in data.split(b"\n"):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("type") in ("user", "assistant"):
            entries[entry.get("uuid")] = entry
            last = entry.get("uuid")
    chain, seen = [], set()
    while last in entries and last not in seen:
        seen.add(last)
        chain.append(entries[last])
        last = entries[last].get("parentUuid")
    messages = [{"type": e["type"], "uuid": e["uuid"], "session_id": e.get("sessionId", ""),
                 "message": e.get("message"), "parent_tool_use_id": None,
                 "parent_agent_id": None} for e in reversed(chain)]
    start = options.get("offset") or 0
    limit = options.get("limit")
    return messages[start:start + limit] if limit else messages[start:]


INFO = {"name": "naive-reader", "version": "1.0", "language": "python",
        "fields": ["type", "uuid", "session_id", "message", "parent_tool_use_id",
                   "parent_agent_id"],
        "options": ["limit", "offset"]}

for request_line in sys.stdin:
    request = json.loads(request_line)
    if request["cmd"] == "start":
        reply = {"version": 1, "implementation": INFO}
    elif request["cmd"] == "run":
        case = request["case"]
        try:
            result = {"messages": read(base64.b64decode(case["transcript_b64"]), case["options"])}
        except Exception as error:  # the reader raising is an answer too
            result = {"raised": {"type": type(error).__name__, "message": str(error)}}
        reply = {"seq": request["seq"], "result": result}
    else:  # stop
        break
    print(json.dumps(reply), flush=True)
