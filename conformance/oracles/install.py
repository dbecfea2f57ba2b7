"""Install pinned oracles into the rechain cache, idempotently.

An install is built in a staging dir next to its final place and renamed into
place only once it is complete (marker written last), so an interrupted install
never looks installed and a second run simply finishes the job.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from rechain.conformance.oracles.registry import (
    AGENT_SDK_PY,
    AGENT_SDK_TS,
    MARKER_NAME,
    REGISTRY,
    OracleSpec,
    entry_path,
    install_dir,
    is_installed,
    marker_content,
    oracles_root,
)
from rechain.errors import UsageError

NPM_TIMEOUT_S = 900
MIN_NODE = (18, 14)  # the SDK's engines.node; tested on Node 20
# --omit=optional skips the 384 MiB native CLI binary, which the readers never run.
# --legacy-peer-deps skips the peers (@anthropic-ai/sdk, MCP SDK, zod: 102 packages,
# 67 MB, ~12 s): sdk.mjs bundles everything the readers use and imports no peer,
# so the install is exactly one pinned package. --ignore-scripts: nothing to run.
NPM_FLAGS = (
    "--omit=optional",
    "--no-audit",
    "--no-fund",
    "--ignore-scripts",
    "--legacy-peer-deps",
    "--no-update-notifier",
)


@dataclass(frozen=True)
class InstallResult:
    """What ``install`` did, for the command line to report."""

    spec: OracleSpec
    path: Path
    already: bool
    seconds: float


def require_tool(tool: str, spec: OracleSpec) -> str:
    """The absolute path of ``tool``, or a one-line UsageError naming what needs it."""
    found = shutil.which(tool)
    if found is None:
        raise UsageError(
            f"{spec.name} needs `{tool}` on PATH (install Node.js >= 18.14 with npm; 20 is tested)"
        )
    return found


def node_version(node: str) -> tuple[int, int]:
    """Major and minor version of the ``node`` binary (0, 0 when unreadable)."""
    try:
        text = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return (0, 0)
    match = re.match(r"v(\d+)\.(\d+)", text.strip())
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)


def committed_package_json() -> bytes:
    """The package.json shipped with rechain that pins the TS SDK."""
    node_dir = resources.files("rechain.conformance").joinpath("node")
    return node_dir.joinpath("package.json").read_bytes()


def check_pin(spec: OracleSpec, manifest: bytes) -> None:
    """Refuse to install when package.json and the registry disagree on the version."""
    pinned = json.loads(manifest).get("dependencies", {}).get(spec.package)
    if pinned != spec.version:
        raise UsageError(
            f"conformance/node/package.json pins {spec.package} {pinned!r}, "
            f"but the registry says {spec.version}: make them agree"
        )


def last_line(text: str) -> str:
    """The most telling line of a tool's output: npm's first message, else the last error."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    npm = [line for line in lines if line.startswith("npm error")
           and not line.startswith("npm error code") and "complete log" not in line]
    if npm:  # npm's first message line says what went wrong (e.g. "404 No match found")
        return npm[0]
    errors = [line for line in lines if "ERR" in line]
    return (errors or lines or ["(no output)"])[-1]


def install_npm(spec: OracleSpec, staging: Path) -> None:
    """``npm install`` the committed package.json into ``staging``."""
    node = require_tool("node", spec)
    npm = require_tool("npm", spec)
    found = node_version(node)
    if found < MIN_NODE:
        raise UsageError(f"{spec.name} needs Node.js >= 18.14 ({node} is {found[0]}.{found[1]})")
    manifest = committed_package_json()
    if spec == AGENT_SDK_TS:
        check_pin(spec, manifest)
    else:  # another release of the same package: the shipped manifest, re-pinned
        document = json.loads(manifest)
        document["dependencies"] = {spec.package: spec.version}
        manifest = (json.dumps(document, indent=2) + "\n").encode()
    (staging / "package.json").write_bytes(manifest)
    try:
        done = subprocess.run(
            [npm, "install", *NPM_FLAGS],
            cwd=staging,
            capture_output=True,
            text=True,
            timeout=NPM_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise UsageError(f"npm install of {spec.slug} took over {NPM_TIMEOUT_S} s") from None
    if done.returncode != 0:
        raise UsageError(
            f"npm install of {spec.slug} failed (exit {done.returncode}): "
            f"{last_line(done.stderr or done.stdout)}"
        )
    if not (staging / spec.entry).exists():
        raise UsageError(f"npm install of {spec.slug} did not create {spec.entry}")


PIP_TIMEOUT_S = 900
CLAUDE_VERSION_TIMEOUT_S = 60


def run_step(argv: list[str], spec: OracleSpec, what: str, *, timeout: float,
             env: dict[str, str] | None = None) -> str:
    """Run one install step; its failure becomes a one-line UsageError naming the step."""
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout, check=False, env=env
        )
    except subprocess.TimeoutExpired:
        raise UsageError(f"{what} for {spec.slug} took over {timeout:g} s") from None
    except OSError as error:
        raise UsageError(f"{what} for {spec.slug} could not start: {error}") from None
    if done.returncode != 0:
        raise UsageError(
            f"{what} for {spec.slug} failed (exit {done.returncode}): "
            f"{last_line(done.stderr or done.stdout)}"
        )
    return done.stdout


def install_venv(spec: OracleSpec, staging: Path) -> None:
    """A private venv with exactly ``package==version`` in it, so its deps stay out of ours.

    The venv is built in ``staging`` and renamed into place; that is safe because
    the adapter only ever runs ``venv/bin/python`` (found via pyvenv.cfg next to
    it), never the console scripts whose shebangs name the staging path.
    """
    venv = staging / "venv"
    run_step([sys.executable, "-m", "venv", str(venv)], spec, "python -m venv",
             timeout=PIP_TIMEOUT_S)
    python = venv / "bin" / "python"
    run_step(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--no-input", f"{spec.package}=={spec.version}"],
        spec, "pip install", timeout=PIP_TIMEOUT_S,
    )
    found = run_step(
        [str(python), "-I", "-c",
         "import importlib.metadata as m; print(m.version('claude-agent-sdk'))"],
        spec, "version check", timeout=PIP_TIMEOUT_S,
    ).strip()
    if found != spec.version:
        raise UsageError(f"pip installed {spec.package} {found}, not {spec.version}")


def bundled_claude(venv_python: Path) -> Path | None:
    """The CLI binary shipped inside the installed Python SDK wheel, if there is one."""
    venv = venv_python.parent.parent
    pattern = "lib/python*/site-packages/claude_agent_sdk/_bundled/claude"
    for candidate in sorted(venv.glob(pattern)):
        if candidate.is_file():
            return candidate
    return None


def claude_version(binary: Path, spec: OracleSpec, scratch: Path) -> str:
    """What ``claude --version`` prints, run with a throwaway HOME and config dir."""
    home = scratch / "version-home"
    home.mkdir(parents=True, exist_ok=True)
    env = {"PATH": os.defpath, "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"),
           "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
    try:
        return run_step([str(binary), "--version"], spec, "claude --version",
                        timeout=CLAUDE_VERSION_TIMEOUT_S, env=env).strip()
    finally:
        shutil.rmtree(home, ignore_errors=True)


def install_claude_bin(spec: OracleSpec, staging: Path) -> None:
    """``bin/claude`` = the CLI binary bundled in the pinned Python SDK wheel.

    claude-agent-sdk 0.2.189 bundles CLI 2.1.332, byte-identical to the binary in
    ``@anthropic-ai/claude-code-linux-x64@2.1.332``; reusing it needs neither npm
    nor a second 400 MB download, and a hard link costs no disk. The Python SDK
    oracle is installed first when it is missing.
    """
    install(AGENT_SDK_PY)
    source = bundled_claude(entry_path(AGENT_SDK_PY))
    if source is None:
        raise UsageError(f"{AGENT_SDK_PY.slug} has no bundled claude binary on this platform")
    target = staging / spec.entry
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
        how = "hardlink"
    except OSError:
        shutil.copy2(source, target)
        how = "copy"
    printed = claude_version(target, spec, staging)
    if not printed.startswith(f"{spec.version} "):
        raise UsageError(f"{source} reports version {printed!r}, not {spec.version}")
    provenance = {"from": f"{AGENT_SDK_PY.package}=={AGENT_SDK_PY.version} _bundled/claude",
                  "how": how, "version": printed, "sha256": sha256_file(target)}
    (staging / "source.json").write_text(json.dumps(provenance, indent=2) + "\n", "utf-8")


def sha256_file(path: Path) -> str:
    """Hex sha256 of a (large) file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


@contextlib.contextmanager
def npm_pack(npm: str, spec: OracleSpec, staging: Path) -> Iterator[tarfile.TarFile]:
    """The release's npm tarball, fetched without installing or running anything; removed
    once read."""
    name = run_step(
        [npm, "pack", "--loglevel=error", "--pack-destination", str(staging),
         f"{spec.package}@{spec.version}"],
        spec, "npm pack", timeout=NPM_TIMEOUT_S,
    ).strip().splitlines()[-1]
    tarball = staging / name
    try:
        with tarfile.open(tarball) as archive:
            yield archive
    finally:
        tarball.unlink(missing_ok=True)


NODE_WRAPPER = """#!/bin/sh
# Claude Code {version}: the npm JS bundle run by Node (written by rechain oracle install)
here=$(dirname "$(readlink -f "$0")")
exec "{node}" "$here/../package/cli.js" "$@"
"""


def install_npm_pack(spec: OracleSpec, staging: Path) -> None:
    """``bin/claude`` = a wrapper running the release's JS bundle (``package/cli.js``) on Node.

    Claude Code up to 2.1.112 ships as one self-contained ``cli.js`` with no
    runtime dependencies, so ``npm pack`` (no install, no scripts) is enough.
    The wrapper finds the bundle relative to itself, because the staging dir is
    renamed into place after this step; it names Node by absolute path, because
    the adapter runs the CLI with a minimal ``PATH``.
    """
    node = require_tool("node", spec)
    npm = require_tool("npm", spec)
    found = node_version(node)
    if found < MIN_NODE:
        raise UsageError(f"{spec.name} needs Node.js >= 18.14 ({node} is {found[0]}.{found[1]})")
    with npm_pack(npm, spec, staging) as archive:
        archive.extractall(staging, filter="data")
    if not (staging / "package" / "cli.js").is_file():
        raise UsageError(f"{spec.slug}: the npm package has no cli.js (a native-only release?)")
    target = staging / spec.entry
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(NODE_WRAPPER.format(version=spec.version, node=os.path.realpath(node)),
                      "utf-8")
    target.chmod(0o755)
    printed = claude_version(target, spec, staging)
    if not printed.startswith(f"{spec.version} "):
        raise UsageError(f"{spec.slug}: cli.js reports version {printed!r}")
    provenance = {"from": f"npm pack {spec.package}@{spec.version}", "how": "node wrapper",
                  "version": printed, "sha256": sha256_file(staging / "package" / "cli.js")}
    (staging / "source.json").write_text(json.dumps(provenance, indent=2) + "\n", "utf-8")


def install_npm_native(spec: OracleSpec, staging: Path) -> None:
    """``bin/claude`` = the native binary of a release after 2.1.112, from its linux-x64 package.

    ``npm pack`` fetches the platform package alone (about 400 MB unpacked) without
    running any script; the binary is its ``claude`` file.
    """
    npm = require_tool("npm", spec)
    with npm_pack(npm, spec, staging) as archive:
        member = next((m for m in archive.getmembers() if m.name == "package/claude"), None)
        if member is None:
            raise UsageError(f"{spec.slug}: {spec.package} has no `claude` binary")
        archive.extract(member, staging, filter="data")
    target = staging / spec.entry
    target.parent.mkdir(parents=True, exist_ok=True)
    (staging / "package" / "claude").rename(target)
    target.chmod(0o755)
    printed = claude_version(target, spec, staging)
    if not printed.startswith(f"{spec.version} "):
        raise UsageError(f"{spec.slug}: the binary reports version {printed!r}")
    provenance = {"from": f"npm pack {spec.package}@{spec.version}", "how": "native binary",
                  "version": printed, "sha256": sha256_file(target)}
    (staging / "source.json").write_text(json.dumps(provenance, indent=2) + "\n", "utf-8")


INSTALLERS: dict[str, Callable[[OracleSpec, Path], None]] = {
    "npm": install_npm,
    "venv": install_venv,
    "claude-bin": install_claude_bin,
    "npm-pack": install_npm_pack,
    "npm-native": install_npm_native,
}


def can_install(spec: OracleSpec) -> bool:
    """Whether this module knows how to install ``spec``."""
    return spec.installer in INSTALLERS


def installable() -> list[OracleSpec]:
    """Every registered oracle that ``install`` can handle, in name order."""
    return [REGISTRY[name] for name in sorted(REGISTRY) if can_install(REGISTRY[name])]


def install(spec: OracleSpec, *, force: bool = False) -> InstallResult:
    """Install ``spec`` unless a finished install is already there (or ``force``)."""
    target = install_dir(spec)
    if is_installed(spec) and not force:
        return InstallResult(spec, target, already=True, seconds=0.0)
    if not can_install(spec):
        raise UsageError(f"rechain cannot install {spec.name} yet (installer {spec.installer!r})")
    started = time.monotonic()
    oracles_root().mkdir(parents=True, exist_ok=True)
    staging = oracles_root() / f".{spec.slug}.staging-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        INSTALLERS[spec.installer](spec, staging)
        marker = json.dumps(marker_content(spec), indent=2) + "\n"
        (staging / MARKER_NAME).write_text(marker, encoding="utf-8")
        shutil.rmtree(target, ignore_errors=True)
        try:
            staging.rename(target)
        except OSError:
            if not is_installed(spec):  # a concurrent install did not win either
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return InstallResult(spec, target, already=False, seconds=time.monotonic() - started)
