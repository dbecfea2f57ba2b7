"""``rechain oracle install|list``: put the pinned real readers into the cache and show them.

Oracles are installed on demand (not at pip install time) because they come from
other registries (npm) and are large; the tests that need one skip until then.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path
from typing import Any

from rechain.conformance.oracles.install import InstallResult, can_install, install, installable
from rechain.conformance.oracles.registry import (
    LATEST,
    MARKER_NAME,
    REGISTRY,
    OracleSpec,
    get,
    install_dir,
    is_installed,
    oracles_root,
    version_tuple,
)
from rechain.conformance.oracles.releases import resolve
from rechain.errors import UsageError


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``oracle`` with its two actions."""
    parser = subparsers.add_parser(
        "oracle",
        help="install or list the oracles (real transcript readers)",
        description="Install the pinned oracles into the rechain cache, or list them.",
    )
    actions = parser.add_subparsers(dest="oracle_action", metavar="ACTION")
    install_parser = actions.add_parser(
        "install", help="install oracles into the cache (default: all that rechain can install)"
    )
    install_parser.add_argument(
        "names", nargs="*", metavar="NAME",
        help="oracle names: agent-sdk-ts, agent-sdk-py, claude-code, each also as NAME@VERSION "
             "(any published release) or NAME@latest (resolved now and recorded)")
    install_parser.add_argument(
        "--force", action="store_true", help="reinstall even when already installed"
    )
    actions.add_parser("list", help="show each oracle, its pinned version and install state")
    parser.set_defaults(handler=run, oracle_parser=parser)


def run(args: argparse.Namespace) -> int:
    """Dispatch to the chosen action; no action prints the usage."""
    if args.oracle_action == "install":
        return run_install(args.names, force=args.force)
    if args.oracle_action == "list":
        return run_list()
    args.oracle_parser.print_help(sys.stderr)
    return 2


def run_install(names: list[str], *, force: bool) -> int:
    """Install the named oracles (or every installable one) and say what happened."""
    specs = [_spec(name) for name in names] if names else installable()
    for spec in specs:
        if not can_install(spec):
            raise UsageError(f"rechain cannot install {spec.name} yet")
    for spec in specs:
        print(describe(install(spec, force=force)), flush=True)
    return 0


def _spec(name: str) -> OracleSpec:
    """``NAME``, ``NAME@VERSION`` or ``NAME@latest`` (asked of the registry, then recorded)."""
    if name.endswith(f"@{LATEST}"):
        spec = resolve(name)
        print(f"{name} is {spec.slug}", flush=True)
        return spec
    return get(name)


def describe(result: InstallResult) -> str:
    """One line per oracle: what was done, which version, where (and from what, if recorded)."""
    spec = result.spec
    origin = provenance(result.path)
    if result.already:
        return f"{spec.name} {spec.version}: already installed in {result.path}{origin}"
    return (
        f"{spec.name} {spec.version}: installed in {result.path}{origin} "
        f"({result.seconds:.1f} s)"
    )


def provenance(path: Path) -> str:
    """`` (from ...)`` when the install recorded where its files came from (claude-code)."""
    try:
        recorded = json.loads((path / "source.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    if not isinstance(recorded, dict) or "from" not in recorded:
        return ""
    return f" (from {recorded['from']}, {recorded.get('how', 'copy')})"


def run_list() -> int:
    """A table of every registered oracle."""
    rows = [("NAME", "VERSION", "INSTALLED", "PATH")]
    specs = {spec.slug: spec for spec in REGISTRY.values()}
    for marker in sorted(oracles_root().glob(f"*/{MARKER_NAME}")):
        with contextlib.suppress(UsageError):
            spec = get(marker.parent.name)
            specs.setdefault(spec.slug, spec)
    for spec in sorted(specs.values(), key=lambda s: (s.name, version_tuple(s.version))):
        rows.append(
            (spec.name, spec.version, "yes" if is_installed(spec) else "no", str(install_dir(spec)))
        )
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True)]
        print("  ".join([*cells, row[3]]))
    return 0
