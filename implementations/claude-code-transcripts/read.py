"""claude-code-transcripts' parser on one transcript: ``parse_session_file(path)``.

Run with the reader's own venv python: ``read.py FILE``. Its log lines keep type and
message but no uuid, so rows are matched by position and role. An exception it raises
is its answer.
"""

import json
import sys

from claude_code_transcripts import parse_session_file


def main() -> None:
    try:
        parsed = parse_session_file(sys.argv[1])
    except Exception as error:  # the reader's answer, reported as such
        print(json.dumps({"raised": {"type": type(error).__name__, "message": str(error)[:300]}}))
        return
    messages = [{"type": line.get("type"), "message": line.get("message")}
                for line in parsed.get("loglines", []) if isinstance(line, dict)]
    print(json.dumps({"messages": messages}, default=str))


main()
