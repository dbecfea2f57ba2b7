"""claude-conversation-extractor on one transcript: ``extract_conversation(path, detailed=True)``.

Run with the reader's own venv python: ``read.py FILE``. Its messages keep a role and
the text it renders (tool calls written out in detailed mode), no uuid, so rows are
matched by position and role. It prints progress and its own errors on stdout: those
go to stderr, so stdout holds the answer only. An exception it raises is its answer.
"""

import contextlib
import json
import sys
import tempfile
from pathlib import Path

from extract_claude_logs import ClaudeConversationExtractor


def main() -> None:
    try:
        with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(sys.stderr):
            found = ClaudeConversationExtractor(Path(out)).extract_conversation(
                Path(sys.argv[1]), detailed=True)
    except Exception as error:  # the reader's answer, reported as such
        print(json.dumps({"raised": {"type": type(error).__name__, "message": str(error)[:300]}}))
        return
    messages = [{"type": m.get("role"), "text": m.get("content")} for m in found]
    print(json.dumps({"messages": messages}, default=str))


main()
