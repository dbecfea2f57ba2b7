"""claude-code-log on one transcript, as a user runs it on a project directory (JSON output).

Run with the reader's own venv python: ``read.py FILE``. Prints ``{"messages": [...]}``:
each rendered row's uuid once, in the order the JSON tree shows them (depth first).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def main() -> None:
    source = Path(sys.argv[1])
    program = Path(sys.executable).with_name("claude-code-log")
    with tempfile.TemporaryDirectory() as home:
        project = Path(home) / "project"
        project.mkdir()
        shutil.copyfile(source, project / source.name)
        out = Path(home) / "out.json"
        done = subprocess.run([str(program), str(project), "-f", "json", "-o", str(out),
                               "--no-cache"], capture_output=True, text=True,
                              env={**os.environ, "HOME": home}, check=False)
        if done.returncode != 0 or not out.exists():
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            print(json.dumps({"raised": {"type": f"exit {done.returncode}", "message": last}}))
            return
        tree = json.loads(out.read_text(encoding="utf-8"))
    messages, seen = [], set()
    stack = list(reversed(tree.get("messages") or []))
    while stack:
        node = stack.pop()
        uuid = node.get("uuid")
        if isinstance(uuid, str) and uuid not in seen:
            seen.add(uuid)
            messages.append({"uuid": uuid, "type": node.get("type")})
        stack.extend(reversed(node.get("children") or []))
    print(json.dumps({"messages": messages}))


main()
