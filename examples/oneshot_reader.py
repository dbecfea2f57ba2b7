"""The smallest reader rechain can check (protocol v1, tier 1): transcript on stdin, JSON out.

    rechain smoke --impl "cmd:python3 examples/oneshot_reader.py"
    rechain check --impl "cmd:python3 examples/oneshot_reader.py" --against agent-sdk-ts

The case's options arrive as JSON in $RECHAIN_CASE; a non-zero exit means the reader
rejected the file.
"""

import json
import os
import sys

options = json.loads(os.environ.get("RECHAIN_CASE", "{}")).get("options", {})
messages, seen = [], set()
for line in sys.stdin.buffer.read().split(b"\n"):
    try:
        entry = json.loads(line)
    except ValueError:
        continue
    if (isinstance(entry, dict) and entry.get("type") in ("user", "assistant")
            and entry.get("uuid") not in seen and not entry.get("isSidechain")):
        seen.add(entry.get("uuid"))
        messages.append({"type": entry["type"], "uuid": entry["uuid"]})
start, limit = options.get("offset") or 0, options.get("limit")
json.dump({"messages": messages[start:start + limit] if limit else messages[start:]}, sys.stdout)
