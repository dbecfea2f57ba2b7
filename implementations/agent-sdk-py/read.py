"""The Python Agent SDK's ``get_session_messages`` on one transcript, in 15 lines of glue.

Run with the SDK's venv python: ``read.py FILE``. The file goes into a private
``CLAUDE_CONFIG_DIR`` under the project directory of a private working directory.
"""

import dataclasses
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path


def main() -> None:
    source = Path(sys.argv[1])
    with tempfile.TemporaryDirectory() as home:
        work = Path(home, "work").resolve()
        work.mkdir()
        project = Path(home, "projects", re.sub(r"[^A-Za-z0-9]", "-", str(work)))
        project.mkdir(parents=True)
        shutil.copyfile(source, project / source.name)
        os.environ["CLAUDE_CONFIG_DIR"] = home
        from claude_agent_sdk import get_session_messages

        try:
            found = get_session_messages(source.stem, directory=str(work))
        except Exception as error:  # the reader's answer, reported as such
            print(json.dumps({"raised": {"type": type(error).__name__,
                                         "message": str(error)[:300]}}))
            return
    print(json.dumps({"messages": [dataclasses.asdict(m) for m in found]}))


main()
