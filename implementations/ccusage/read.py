"""ccusage's session report on one transcript: token totals of the session.

Run as ``read.py FILE BIN`` (BIN: the ``ccusage`` program installed for it). The file is
placed in a private ``CLAUDE_CONFIG_DIR`` as Claude Code lays out projects, and
``ccusage session --json --offline`` is asked for that session's totals.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

COUNTERS = {"inputTokens": "input_tokens", "outputTokens": "output_tokens",
            "cacheCreationTokens": "cache_creation_input_tokens",
            "cacheReadTokens": "cache_read_input_tokens"}


def main() -> None:
    source, program = Path(sys.argv[1]), sys.argv[2]
    with tempfile.TemporaryDirectory() as home:
        project = Path(home) / "projects" / "project"
        project.mkdir(parents=True)
        shutil.copyfile(source, project / source.name)
        env = {**os.environ, "HOME": home, "CLAUDE_CONFIG_DIR": home}
        done = subprocess.run([program, "session", "--json", "--offline"], capture_output=True,
                              text=True, env=env, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        print(json.dumps({"raised": {"type": f"exit {done.returncode}", "message": last}}))
        return
    report = json.loads(done.stdout)
    sessions = [s for s in report.get("session", report.get("sessions", []))
                if s.get("period", s.get("sessionId")) == source.stem]
    usage = {name: sum(int(s.get(key, 0)) for s in sessions) for key, name in COUNTERS.items()}
    print(json.dumps({"usage": usage}))


main()
