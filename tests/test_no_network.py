"""Proof that a CLI resume contacts nothing but the fake API on loopback.

Two independent checks, each skipped with its reason when this machine cannot do it:
``strace`` lists every connect()/send*() address of the CLI and its children, and a
whole run inside ``unshare -n`` (a fresh network namespace whose only interface is
``lo``) still gives the same answer.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rechain.cache import cache_dir
from rechain.conformance.oracles.claude_cli import ClaudeCliOracle

SID = "c11c0de0-5e55-4a1b-8c2d-0123456789ab"
UNAVAILABLE = ClaudeCliOracle.available()
TWO = (
    b'{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"' + SID.encode()
    + b'","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hello"}}\n'
    b'{"type":"assistant","uuid":"a1","parentUuid":"u1","timestamp":"2026-01-01T00:00:02.000Z",'
    b'"message":{"role":"assistant","model":"claude-sonnet-4-6","id":"msg_1",'
    b'"content":[{"type":"text","text":"hi there"}]}}\n'
)
EXPECTED = [
    {"role": "user", "content": "hello"},
    {"role": "assistant", "content": [{"type": "text", "text": "hi there"}]},
]
LOOPBACK = {"127.0.0.1", "::1", "::ffff:127.0.0.1"}
ADDRESS = re.compile(r'inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)"')
PORT = re.compile(r"(?:sin_port|sin6_port)=htons\((\d+)\)")



def needs_cli(test):
    """Mark a test as running the installed CLI: it skips with the reason otherwise."""
    skip = pytest.mark.skipif(UNAVAILABLE is not None, reason=f"claude-code: {UNAVAILABLE}")
    return pytest.mark.oracle(skip(test))


def inet_targets(log: str) -> list[tuple[str, int | None]]:
    """Every IPv4/IPv6 address (and port) that a traced call names."""
    found = []
    for line in log.splitlines():
        for match in ADDRESS.finditer(line):
            port = PORT.search(line)
            found.append((match.group(1) or match.group(2), int(port.group(1)) if port else None))
    return found


def test_inet_targets_parses_strace_lines() -> None:
    log = (
        '7 connect(11, {sa_family=AF_INET, sin_port=htons(4242), '
        'sin_addr=inet_addr("127.0.0.1")}, 16) = -1 EINPROGRESS\n'
        '8 connect(3, {sa_family=AF_UNIX, sun_path="/run/x.sock"}, 110) = 0\n'
        '9 sendto(5, "x", 1, 0, {sa_family=AF_INET6, sin6_port=htons(53), '
        'sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2001:db8::1", &sin6_addr)}, 28) = 1\n'
    )
    assert inet_targets(log) == [("127.0.0.1", 4242), ("2001:db8::1", 53)]


@needs_cli
def test_strace_sees_only_loopback(tmp_path) -> None:
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed (apt-get install strace)")
    log = tmp_path / "trace.log"
    wrapper = [strace, "-f", "-qq", "-o", str(log),
               "-e", "trace=connect,sendto,sendmsg,sendmmsg"]
    with ClaudeCliOracle(wrapper=wrapper) as cli:
        result = cli.resume(TWO, session_id=SID)
        port = cli.port
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    if not result.ok and ("ptrace" in result.stderr or "Operation not permitted" in result.stderr):
        pytest.skip(f"strace cannot trace here: {result.stderr.strip()[:200]}")
    assert result.ok and result.requests == 1, result.stderr
    assert result.messages == EXPECTED
    targets = inet_targets(text)
    assert targets, f"strace recorded no inet connect:\n{text[:2000]}"
    assert {address for address, _ in targets} <= LOOPBACK, targets
    assert {p for _, p in targets} == {port}


NAMESPACED = textwrap.dedent(
    """
    import json, socket, sys
    from rechain.conformance.oracles.claude_cli import ClaudeCliOracle
    data = bytes.fromhex(sys.argv[1])
    with ClaudeCliOracle() as cli:
        result = cli.resume(data, session_id=sys.argv[2])
    print(json.dumps({"interfaces": sorted(name for _, name in socket.if_nameindex()),
                      "returncode": result.returncode, "requests": result.requests,
                      "messages": result.messages, "leaf": result.resumed_leaf,
                      "stderr": result.stderr}))
    """
)


@needs_cli
def test_a_resume_works_in_an_empty_network_namespace() -> None:
    unshare, ip = shutil.which("unshare"), shutil.which("ip") or "/usr/sbin/ip"
    if unshare is None:
        pytest.skip("unshare is not installed (util-linux)")
    if not Path(ip).exists():
        pytest.skip("ip is not installed (iproute2), needed to bring lo up")
    probe = subprocess.run([unshare, "-n", "true"], capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"unshare -n is not permitted here: {probe.stderr.strip()[:200]}")
    env = {**os.environ, "RECHAIN_CACHE": str(cache_dir())}
    script = f'{ip} link set lo up && exec "$0" -c "$1" "$2" "$3"'
    done = subprocess.run(
        [unshare, "-n", "sh", "-c", script, sys.executable, NAMESPACED, TWO.hex(), SID],
        capture_output=True, text=True, timeout=300, env=env, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["interfaces"] == ["lo"]  # nothing but loopback exists in there
    assert (report["returncode"], report["requests"]) == (0, 1), report["stderr"]
    assert report["messages"] == EXPECTED
    assert report["leaf"] == "a1"
