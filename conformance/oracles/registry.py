"""Which oracles exist, the version each is pinned to, and where each one is installed.

One frozen ``OracleSpec`` per oracle. Install locations live under
``rechain.cache.cache_dir()/oracles/<name>@<version>/`` so two pinned versions
can sit side by side, and a marker file written last tells a finished install
from an interrupted one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType

from rechain import portable
from rechain.cache import cache_dir
from rechain.errors import UsageError

MARKER_NAME = ".rechain-installed.json"


@dataclass(frozen=True)
class OracleSpec:
    """A pinned oracle: what it is, how ``install`` gets it, and what it loads."""

    name: str
    version: str
    installer: str  # key into ``rechain.conformance.oracles.install.INSTALLERS``
    package: str  # the package name in its registry (npm, PyPI)
    entry: str  # path, relative to the install dir, of what the adapter loads
    summary: str

    @property
    def slug(self) -> str:
        """``name@version``: the install dir's name and how the oracle is shown."""
        return f"{self.name}@{self.version}"


AGENT_SDK_TS = OracleSpec(
    name="agent-sdk-ts",
    version="0.3.332",
    installer="npm",
    package="@anthropic-ai/claude-agent-sdk",
    entry="node_modules/@anthropic-ai/claude-agent-sdk",
    summary="TypeScript Agent SDK session readers (getSessionMessages, listSessions)",
)

AGENT_SDK_PY = OracleSpec(
    name="agent-sdk-py",
    version="0.2.189",
    installer="venv",
    package="claude-agent-sdk",
    entry="venv/bin/python",
    summary="Python Agent SDK session readers (get_session_messages), in a private venv",
)

CLAUDE_CODE = OracleSpec(
    name="claude-code",
    version="2.1.332",
    installer="claude-bin",
    package="@anthropic-ai/claude-code",
    entry="bin/claude",
    summary="the real Claude Code CLI resuming a transcript (`claude -p --resume`), offline",
)

# Older Claude Code releases, driven by the same adapter. Up to 2.1.112 the npm
# package is a plain JS bundle (``cli.js``) that runs on Node >= 18: ``npm pack``
# and a wrapper script are the whole install (no dependencies, no postinstall).
LAST_JS_BUNDLE = (2, 1, 112)  # from 2.1.113 the npm package wraps the native binary


def js_bundle_release(version: str, summary: str = "") -> OracleSpec:
    """The ``npm-pack`` spec of one Claude Code release shipped as a JS bundle."""
    return OracleSpec(
        name="claude-code",
        version=version,
        installer="npm-pack",
        package="@anthropic-ai/claude-code",
        entry="bin/claude",
        summary=summary or f"Claude Code {version} (npm JS bundle on Node)",
    )


VERSION = re.compile(r"\d+\.\d+\.\d+")
LATEST = "latest"
NATIVE_PACKAGE = "@anthropic-ai/claude-code-linux-x64"  # the binary of a native release


def version_tuple(version: str) -> tuple[int, ...]:
    """``"2.1.88"`` → ``(2, 1, 88)``, for ordering releases numerically."""
    return tuple(int(part) for part in version.split("."))


def claude_code_release(version: str) -> OracleSpec | None:
    """The spec of any Claude Code release: a JS bundle up to 2.1.112, native after."""
    if not VERSION.fullmatch(version):
        return None
    if version_tuple(version) <= LAST_JS_BUNDLE:
        return js_bundle_release(version)
    return OracleSpec(
        name="claude-code",
        version=version,
        installer="npm-native",
        package=NATIVE_PACKAGE,
        entry="bin/claude",
        summary=f"Claude Code {version} (the native linux-x64 binary from npm)",
    )


CLAUDE_CODE_2_1_88 = js_bundle_release(
    "2.1.88", "Claude Code 2.1.88 (npm JS bundle on Node), the release the seed profile follows"
)

# Others add their spec here and an installer in install.py. The default release of
# an oracle is keyed by its name; further releases of it by their slug (name@version).
REGISTRY: MappingProxyType[str, OracleSpec] = MappingProxyType(
    {
        **{spec.name: spec for spec in (AGENT_SDK_TS, AGENT_SDK_PY, CLAUDE_CODE)},
        CLAUDE_CODE_2_1_88.slug: CLAUDE_CODE_2_1_88,
    }
)


def release(name: str, version: str) -> OracleSpec:
    """The spec of ``name`` at a concrete ``version``: same installer, another version."""
    default = REGISTRY.get(name)
    if default is None or "@" in name:
        known = ", ".join(sorted(n for n in REGISTRY if "@" not in n))
        raise UsageError(f"unknown oracle {name!r} (known: {known})")
    if not VERSION.fullmatch(version):
        raise UsageError(f"{name}@{version}: a version is three numbers (e.g. "
                         f"{default.version}) or `latest`")
    if version == default.version:
        return default
    if name == "claude-code":
        found = claude_code_release(version)
        assert found is not None
        return found
    return replace(default, version=version, summary=f"{default.summary.split(' (')[0]} "
                   f"({version})")


def latest_record(name: str) -> Path:
    """Where ``oracle install NAME@latest`` wrote which concrete version `latest` was."""
    return oracles_root() / f"{name}@{LATEST}.json"


def resolved_latest(name: str) -> str | None:
    """The concrete version `latest` resolved to at the last install, if any."""
    try:
        recorded = json.loads(latest_record(name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = recorded.get("version") if isinstance(recorded, dict) else None
    return version if isinstance(version, str) and VERSION.fullmatch(version) else None


def get(name: str) -> OracleSpec:
    """The spec called ``name`` or ``name@version``; an unknown name is the user's mistake.

    ``name@latest`` is the release the last ``rechain oracle install name@latest``
    resolved (the registry is asked only at install time, so runs stay offline).
    """
    if name in REGISTRY:
        return REGISTRY[name]
    base, at, version = name.partition("@")
    if not at or base not in REGISTRY:
        known = ", ".join(sorted(REGISTRY))
        raise UsageError(f"unknown oracle {name!r} (known: {known}; any of them also as "
                         f"NAME@VERSION or NAME@latest)")
    if version == LATEST:
        concrete = resolved_latest(base)
        if concrete is None:
            raise UsageError(f"{name}: not resolved yet; "
                             f"run `{portable.rechain(['oracle', 'install', name])}`")
        version = concrete
    return release(base, version)


def oracles_root() -> Path:
    """Parent of every install dir; read at call time so ``$RECHAIN_CACHE`` applies."""
    return cache_dir() / "oracles"


def install_dir(spec: OracleSpec) -> Path:
    """Where ``spec`` is (or would be) installed."""
    return oracles_root() / spec.slug


def entry_path(spec: OracleSpec) -> Path:
    """The file or directory the adapter loads from the install dir."""
    return install_dir(spec) / spec.entry


def marker_path(spec: OracleSpec) -> Path:
    """The file ``install`` writes last, once everything else is in place."""
    return install_dir(spec) / MARKER_NAME


def marker_content(spec: OracleSpec) -> dict[str, str]:
    """What the marker records, so a stale or foreign dir is not taken as installed."""
    return {"name": spec.name, "version": spec.version, "package": spec.package}


def is_installed(spec: OracleSpec) -> bool:
    """True when a finished install of exactly this pinned version is in the cache."""
    try:
        recorded = json.loads(marker_path(spec).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return recorded == marker_content(spec) and entry_path(spec).exists()
