"""Which session ``claude -p --continue`` of 2.1.88 resumes in a project with several sessions.

``--continue`` takes the first session of the ``/resume`` list (``loadMessageLogs``:
``readLiteMetadata`` on each file's head and tail, sidechain and team sessions
dropped, newest first), so it is the one non-interactive way to observe
2.1.88's lite reads. ``pick`` lays the sessions out (with the given mtimes) in a
throwaway config dir, runs the real 2.1.88 with ``--fork-session`` against the
fake Messages API and reports whose uuids the fork wrote; ``predicted`` asks
``rechain.reference.listing`` (profile ``claude-code@2.1.88``) for the first
listed session.

    python -m rechain.conformance.claude_code_2_1_88.continue_pick --trials 30
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

SEED_LISTING = "claude-code@2.1.88"


def layout(config: Path, project: Path, sessions: dict[str, tuple[bytes, float]]) -> Path:
    """Write each session (bytes, mtime in s) into the project's folder; returns the folder."""
    from rechain.conformance.oracles.claude_cli import project_dir_name

    folder = config / "projects" / project_dir_name(str(project))
    folder.mkdir(parents=True)
    for session_id, (data, mtime) in sessions.items():
        path = folder / f"{session_id}.jsonl"
        path.write_bytes(data)
        os.utime(path, (mtime, mtime))
    return folder


def predicted(config: Path, project: Path) -> str | None:
    """The session the seed listing puts first (None when it lists nothing)."""
    from rechain.reference.listing import list_sessions

    listed = list_sessions(config, project, profile=SEED_LISTING)
    return listed[0]["sessionId"] if listed else None


def pick(sessions: dict[str, tuple[bytes, float]], timeout: float = 90) -> tuple[str | None, int]:
    """(the session 2.1.88 resumed, or None for a fresh start; its exit status)."""
    from rechain.conformance.oracles.claude_cli import PATH, QUIET_ENV
    from rechain.conformance.oracles.fake_api import FakeMessagesApi
    from rechain.conformance.oracles.registry import CLAUDE_CODE_2_1_88, entry_path
    from rechain.conformance.oracles.scratch import scratch

    api = FakeMessagesApi()
    api.start()
    try:
        with scratch("rechain-pick-") as root:
            for sub in ("home", "tmp", "config", "project"):
                (root / sub).mkdir()
            folder = layout(root / "config", root / "project", sessions)
            env = {"PATH": PATH, "HOME": str(root / "home"), "TMPDIR": str(root / "tmp"),
                   "LANG": "C.UTF-8", "CLAUDE_CONFIG_DIR": str(root / "config"),
                   "ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": api.key(),
                   **QUIET_ENV}
            argv = [str(entry_path(CLAUDE_CODE_2_1_88)), "-p", "--continue", "--fork-session",
                    "--model", "claude-sonnet-4-6", "next"]
            done = subprocess.run(argv, cwd=root / "project", env=env, capture_output=True,
                                  timeout=timeout, check=False, stdin=subprocess.DEVNULL)
            originals = {f"{s}.jsonl" for s in sessions}
            written: set[str] = set()
            for path in folder.glob("*.jsonl"):
                if path.name in originals:
                    continue
                for line in path.read_bytes().splitlines():
                    try:
                        row = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(row, dict) and isinstance(row.get("uuid"), str):
                        written.add(row["uuid"])
        owners = [s for s, (data, _) in sessions.items()
                  if any(u.encode() in data for u in written)]
        return (owners[0] if len(owners) == 1 else None), done.returncode
    finally:
        api.close()


def _session(number: int, kind: str) -> bytes:
    """A small session whose head carries one of the lite-read traps."""
    sid = f"5eed0000-2188-4000-8000-{number:012d}"

    def row(n: int, parent: int | None, role: str, **extra: object) -> dict[str, object]:
        message: dict[str, object] = {"role": role, "content": f"{role} {number}.{n}"}
        if role == "assistant":
            message = {"id": f"msg_{number}_{n}", "role": "assistant", "model": "claude-sonnet-4-6",
                       "content": [{"type": "text", "text": f"answer {number}.{n}"}]}
        return {"parentUuid": None if parent is None else f"5eed{number:04d}-{parent:04d}-4000"
                "-8000-000000000000", "isSidechain": False, "type": role, "message": message,
                "uuid": f"5eed{number:04d}-{n:04d}-4000-8000-000000000000",
                "timestamp": f"2026-01-01T00:{number:02d}:{n:02d}.000Z", "sessionId": sid,
                **extra}

    rows: list[dict[str, object]] = [row(1, None, "user"), row(2, 1, "assistant")]
    if kind == "sidechain-later":
        rows.append({**row(3, 2, "user"), "isSidechain": True})
    elif kind == "sidechain-spaced":
        rows.append({"type": "custom-title", "customTitle": "x", "sessionId": sid})
    elif kind == "team":
        rows[0] = {**rows[0], "teamName": "crew"}
    elif kind == "late-sidechain":
        pad = "x" * 70_000
        rows += [{**row(3, 2, "user"), "pad": pad}, {**row(4, 3, "assistant"), "isSidechain": True}]
    text = b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in rows)
    if kind == "sidechain-spaced":
        text += json.dumps(row(3, 2, "user") | {"isSidechain": True}).encode() + b"\n"
    return text


KINDS = ("plain", "sidechain-later", "sidechain-spaced", "team", "late-sidechain")


def trial(rng: random.Random) -> tuple[str | None, str | None, list[str]]:
    """One random project: (seed's first listed session, 2.1.88's resumed one, kinds)."""
    from rechain.conformance.owned_dirs import owned

    count = rng.randint(2, 4)
    now = time.time()
    kinds = [rng.choice(KINDS) for _ in range(count)]
    sessions = {f"5eed0000-2188-4000-8000-{n:012d}": (_session(n, kinds[n - 1]),
                                                       now - rng.choice((10, 20, 30, 40)) - n)
                for n in range(1, count + 1)}
    with owned("rechain-predict-") as made:
        root = Path(os.path.realpath(made))
        layout(root / "config", root / "project", sessions)
        mine = predicted(root / "config", root / "project")
    theirs, _ = pick(sessions)
    return mine, theirs, kinds


def main(argv: list[str] | None = None) -> int:
    """Run random trials and print agreement."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--seed", type=int, default=88)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    agree = 0
    for number in range(args.trials):
        mine, theirs, kinds = trial(rng)
        agree += mine == theirs
        if mine != theirs:
            print(f"DIFF trial {number} {kinds}: seed {mine} vs 2.1.88 {theirs}")
    print(f"--continue pick agrees {agree}/{args.trials}")
    return 0 if agree == args.trials else 1


if __name__ == "__main__":
    sys.exit(main())
