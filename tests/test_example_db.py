"""Failures that persist: a shrunk disagreement saved by one run is the next run's first example.

The Redis test starts Debian's ``redis-server`` on a free 127.0.0.1 port and stops it by PID.
"""

from __future__ import annotations

import hashlib
import shutil
import socket
import subprocess
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase

from rechain.cli import main
from rechain.conformance import example_db, report
from rechain.errors import UsageError

PLANTED = textwrap.dedent('''
    import hashlib
    from rechain.reference import Options, rebuild

    RECHAIN_INFO = {"name": "planted", "version": "1"}
    LOG = __LOG__

    def read(data, session_id, options):
        """The reference, with a planted bug: it loses the last of three or more messages."""
        with open(LOG, "a") as log:
            log.write(hashlib.sha1(data).hexdigest() + "\\n")
        result = rebuild(data, "sdk", Options(**options))
        if result.error is not None:
            raise TypeError(result.error)
        messages = [{k: v for k, v in m.items() if k != "line"} for m in result.messages]
        return messages[:-1] if len(messages) >= 3 else messages
''')


def _planted(tmp_path: Path) -> tuple[str, Path]:
    log = tmp_path / "calls.log"
    module = tmp_path / "planted_reader.py"
    module.write_text(PLANTED.replace("__LOG__", repr(str(log))))
    return f"python:{module}:read", log


def _check(impl: str, tmp_path: Path, name: str, *extra: str) -> tuple[int, list[dict]]:
    path = tmp_path / f"{name}.jsonl"
    code = main(["check", "--impl", impl, "--against", "reference", "--no-corpus",
                 "--examples", "20", "--no-progress", "--save-cases", str(tmp_path / "cases"),
                 "--report", str(path), *extra])
    return code, report.read(path)


def _plant_and_replay(tmp_path: Path, first_db: list[str], second_db: list[str]) -> None:
    """Run 1 saves its shrunk failure; run 2 (another seed) must try exactly it first."""
    impl, log = _planted(tmp_path)
    code, lines = _check(impl, tmp_path, "first", "--seed", "1", "--max-shrink", "1", *first_db)
    assert code == 1
    [finding] = [line for line in lines if line["kind"] == "finding"]
    saved_bytes = next(Path(finding["path"]).glob("*.jsonl")).read_bytes()
    log.write_text("")

    code, lines = _check(impl, tmp_path, "second", "--seed", "2", "--no-shrink", *second_db)
    assert code == 1
    first_call = log.read_text().split()[0]
    assert first_call == hashlib.sha1(saved_bytes).hexdigest()  # replayed before anything else
    first_case = next(line for line in lines if line["kind"] == "case")
    assert first_case["id"] in ("saved-gen-000", "saved-cor-000")
    assert first_case["status"] == "fail" and first_case["seq"] == 1


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_a_shared_directory_database_replays_first_and_is_never_written(tmp_path) -> None:
    shared, local = tmp_path / "ci-db", tmp_path / "my-db"
    _plant_and_replay(tmp_path, ["--example-db", str(shared)],
                      ["--example-db", str(local), "--shared-example-db", str(shared)])
    before = _files(shared)
    assert before
    impl, _ = _planted(tmp_path)
    _check(impl, tmp_path, "third", "--seed", "3", "--max-shrink", "1",
           "--example-db", str(local), "--shared-example-db", str(shared))
    assert _files(shared) == before  # read-only: the local one took the new shrink
    assert _files(local)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    server = shutil.which("redis-server") or (
        "/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists() else None)
    if server is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    pytest.importorskip("redis", reason="pip install 'hypothesis[redis]'")
    import redis

    port = _free_port()
    process = subprocess.Popen(
        [server, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no",
         "--dir", str(tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        client = redis.Redis(host="127.0.0.1", port=port)
        for _ in range(200):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if process.poll() is not None:
                    pytest.fail(f"redis-server exited with {process.returncode}")
                time.sleep(0.05)
        else:
            pytest.fail("redis-server did not answer")
        yield f"redis://127.0.0.1:{port}"
    finally:
        process.terminate()  # by PID: only the server this test started
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_a_failure_saved_in_redis_is_the_first_example_of_another_machine(tmp_path,
                                                                         redis_url) -> None:
    _plant_and_replay(tmp_path, ["--example-db", redis_url],
                      ["--example-db", str(tmp_path / "elsewhere"),
                       "--shared-example-db", redis_url])


def test_database_specs_that_cannot_work_are_usage_errors(tmp_path) -> None:
    plain_file = tmp_path / "file"
    plain_file.write_text("x")
    for spec, why in ((str(plain_file), "not a directory"), ("ftp://h/x", "a directory or redis"),
                      ("redis://127.0.0.1:notaport", "bad port"),
                      (f"redis://127.0.0.1:{_free_port()}", "redis")):
        with pytest.raises(UsageError, match=why):
            example_db.open_one(spec)
    assert main(["check", "--example-db", "ftp://h/x", "--examples", "0"]) == 2


def test_the_ci_profile_saves_to_a_directory(tmp_path) -> None:
    name = example_db.register_ci_profile(str(tmp_path / "examples"))
    database = settings.get_profile(name).database
    assert isinstance(database, DirectoryBasedExampleDatabase)
    assert Path(database.path) == tmp_path / "examples"
    assert settings.get_profile("ci").database is None  # the project's deterministic profile
