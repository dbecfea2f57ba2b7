"""What the package registries publish for each oracle: its releases and which one is newest.

Asked only when a user names ``@latest`` or bisects between two releases, through
the registries' ordinary clients (``npm view``, ``pip index versions``); runs that
name concrete versions never touch the network.
"""

from __future__ import annotations

import json
import subprocess
import sys

from rechain.conformance.oracles.registry import (
    LATEST,
    REGISTRY,
    VERSION,
    OracleSpec,
    latest_record,
    oracles_root,
    release,
    version_tuple,
)
from rechain.errors import UsageError

QUERY_TIMEOUT_S = 120


def _run(argv: list[str], what: str) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=QUERY_TIMEOUT_S,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise UsageError(f"{what}: {error}") from None
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines() or ["(no output)"]
        raise UsageError(f"{what} failed (exit {done.returncode}): {lines[-1]}")
    return done.stdout


def registry_package(name: str) -> str:
    """The package whose published versions are the oracle's releases."""
    if name not in REGISTRY or "@" in name:
        raise UsageError(f"unknown oracle {name!r} (known: agent-sdk-ts, agent-sdk-py, "
                         "claude-code)")
    return REGISTRY[name].package


def parse_npm_versions(text: str) -> list[str]:
    """``npm view PKG versions --json`` → the plain releases (no pre-releases)."""
    value = json.loads(text or "[]")
    values = [value] if isinstance(value, str) else value
    return sorted((v for v in values if isinstance(v, str) and VERSION.fullmatch(v)),
                  key=version_tuple)


def parse_pip_versions(text: str) -> list[str]:
    """``pip index versions PKG`` → the releases on its ``Available versions:`` line."""
    for line in text.splitlines():
        if line.startswith("Available versions:"):
            found = [v.strip() for v in line.split(":", 1)[1].split(",")]
            return sorted((v for v in found if VERSION.fullmatch(v)), key=version_tuple)
    return []


def published_versions(name: str) -> list[str]:
    """Every plain release of the oracle's package, oldest first."""
    package = registry_package(name)
    if REGISTRY[name].installer == "venv":
        text = _run([sys.executable, "-m", "pip", "index", "versions", package,
                     "--disable-pip-version-check"], f"pip index versions {package}")
        return parse_pip_versions(text)
    text = _run(["npm", "view", package, "versions", "--json"], f"npm view {package}")
    return parse_npm_versions(text)


def between(versions: list[str], older: str, newer: str) -> list[str]:
    """The releases strictly after ``older`` and up to ``newer``, oldest first."""
    low, high = version_tuple(older), version_tuple(newer)
    return [v for v in versions if low < version_tuple(v) <= high]


def resolve(name: str) -> OracleSpec:
    """``NAME@latest`` → the newest published release, recorded for later offline runs."""
    base = name.removesuffix(f"@{LATEST}")
    versions = published_versions(base)
    if not versions:
        raise UsageError(f"{registry_package(base)}: the registry lists no release")
    newest = versions[-1]
    oracles_root().mkdir(parents=True, exist_ok=True)
    latest_record(base).write_text(json.dumps({"name": base, "version": newest}) + "\n",
                                   encoding="utf-8")
    return release(base, newest)
