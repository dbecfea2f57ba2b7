"""agent-chat-reader on one transcript: ``claude.read_turns_from(path, offset=0, verbose=True)``.

Run with the reader's own venv python: ``read.py FILE``. Its turns keep a role (USER,
CLAUDE) and the text it renders (tool calls summarised in verbose mode), no uuid, so
rows are matched by position and role. The offset it returns (where a torn last line
starts, for tailing) is not part of the answer. An exception it raises is its answer.
"""

import json
import sys
from pathlib import Path

from agent_chat_reader.claude import read_turns_from

ROLES = {"USER": "user", "CLAUDE": "assistant"}


def main() -> None:
    try:
        turns, _offset = read_turns_from(Path(sys.argv[1]), offset=0, verbose=True)
    except Exception as error:  # the reader's answer, reported as such
        print(json.dumps({"raised": {"type": type(error).__name__, "message": str(error)[:300]}}))
        return
    messages = [{"type": ROLES.get(t.role, t.role), "text": t.text} for t in turns]
    print(json.dumps({"messages": messages}))


main()
