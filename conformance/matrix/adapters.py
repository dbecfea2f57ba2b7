"""Pinned adapters of real readers (``implementations/<name>/``): load, install, connect.

Each folder holds ``adapter.json`` (name, pinned version, how to install the reader,
its contract), ``read.py`` (the glue: a transcript path in, ``result.json`` out) and
``skips.json`` (its real known bugs, each with a minimal case). A reader is installed
in its own venv or Node folder under the rechain cache (``readers/<name>@<version>``),
never in rechain's interpreter; ``agent-sdk-py`` reuses the pinned oracle's venv.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import venv
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rechain import portable
from rechain.cache import cache_dir
from rechain.errors import UsageError

ROOT = Path(__file__).resolve().parents[2] / "implementations"


@dataclass(frozen=True, slots=True)
class Adapter:
    """One shipped adapter, as its folder declares it."""

    folder: Path
    name: str
    version: str
    language: str
    install: dict[str, str]
    run: str  # python: the reader's venv runs read.py; rechain-python: rechain's does
    contract: dict[str, Any]
    why: str

    @property
    def slug(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def home(self) -> Path:
        """Where the reader is installed (its own venv or Node folder)."""
        if "oracle" in self.install:
            return cache_dir() / "oracles" / self.slug
        return cache_dir() / "readers" / self.slug

    @property
    def python(self) -> Path:
        return self.home / ("venv/bin/python" if "oracle" in self.install else "bin/python")

    def installed(self) -> bool:
        if "npm" in self.install:
            return self._npm_bin().exists()
        return self.python.exists()

    def _npm_bin(self) -> Path:
        package = self.install["npm"].rsplit("@", 1)[0]
        return self.home / "node_modules" / ".bin" / package

    def spec(self) -> str:
        """The tier-1 spec that runs it, declaring name, version and contract."""
        from rechain.conformance.contracts.model import Rows

        contract = self.contract
        shown = Rows(**contract.get("rows", {})).to_json()  # defaults too: the spec lists all
        rows = "+".join(k for k, v in shown.items() if v)
        parts = [f"name={self.name}", f"version={self.version}", f"language={self.language}"]
        parts += [f"{key}={contract[key]}" for key in ("scope", "identity", "content",
                                                       "strictness", "prompts", "results", "blank",
                                                       "bom")
                  if key in contract]
        if "rows" in contract:
            parts.append(f"rows={rows}")
        if "fields" in contract:
            parts.append("fields=" + "+".join(contract["fields"]))
        read = self.folder / "read.py"
        if self.run == "rechain-python":
            argv = [sys.executable, str(read), "{path}", str(self._npm_bin())]
        else:
            argv = [str(self.python), "-I", str(read), "{path}"]
        return f"cmd[{','.join(parts)}]:" + " ".join(shlex.quote(a) for a in argv)


def load(folder: Path) -> Adapter:
    """The adapter a folder declares; a broken ``adapter.json`` is a usage error."""
    try:
        data = json.loads((folder / "adapter.json").read_text(encoding="utf-8"))
        return Adapter(folder, data["name"], data["version"], data.get("language", "unknown"),
                       dict(data["install"]), data.get("run", "python"),
                       dict(data.get("contract", {})), data.get("why", ""))
    except (OSError, ValueError, KeyError) as error:
        raise UsageError(f"{folder}/adapter.json: {error}") from None


def shipped(root: Path = ROOT, names: list[str] | None = None) -> list[Adapter]:
    """Every adapter under ``root`` (or those named), in name order."""
    if not root.is_dir():
        raise UsageError(f"{root}: no implementations folder")
    found = [load(f) for f in sorted(root.iterdir()) if (f / "adapter.json").is_file()]
    if names:
        unknown = set(names) - {a.name for a in found}
        if unknown:
            raise UsageError(f"no adapter named {', '.join(sorted(unknown))}; "
                             f"shipped: {', '.join(a.name for a in found)}")
        found = [a for a in found if a.name in names]
    return found


def install(adapter: Adapter, say: Any = print) -> None:
    """Install the pinned reader in its own venv or Node folder (nothing if already there)."""
    if adapter.installed():
        return
    say(f"installing {adapter.slug} in {adapter.home}…")
    if "oracle" in adapter.install:
        raise UsageError(f"{adapter.slug}: run "
                         f"`{portable.rechain(['oracle', 'install', adapter.install['oracle']])}` "
                         "first")
    adapter.home.mkdir(parents=True, exist_ok=True)
    if "pip" in adapter.install:
        venv.create(adapter.home, with_pip=True)
        command = [str(adapter.python), "-m", "pip", "install", "-q", adapter.install["pip"]]
    else:
        command = ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(adapter.home),
                   adapter.install["npm"]]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["failed"])[-1]
        raise UsageError(f"installing {adapter.slug} failed: {tail}")


def installed_spec(name: str) -> str:
    """``adapter:NAME``: the shipped adapter's tier-1 spec, its reader installed if need be."""
    found = shipped(names=[name])[0]
    install(found, lambda text: print(text, file=sys.stderr))
    return found.spec()
