"""agent-history's parser on one transcript: ``claude_history.parser.parse_conversation``.

Run with the reader's own venv python: ``read.py FILE``. Prints each message's uuid and
role (``tool`` rows are the user's tool results). An exception it raises is its answer.
"""

import json
import sys
from pathlib import Path

from claude_history.parser import parse_conversation


def main() -> None:
    try:
        conversation = parse_conversation(Path(sys.argv[1]))
    except Exception as error:  # the reader's answer, reported as such
        print(json.dumps({"raised": {"type": type(error).__name__, "message": str(error)[:300]}}))
        return
    messages = [{"uuid": m.uuid, "type": "user" if m.role == "tool" else m.role}
                for m in conversation.messages]
    print(json.dumps({"messages": messages}))


main()
