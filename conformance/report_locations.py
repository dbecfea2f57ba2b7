"""Where CI tools are told a failure is: a SARIF ``artifactLocation`` and a GitHub
annotation's ``file=``.

GitHub code scanning reads a relative ``uri`` against the root of the repository it
analysed (``%SRCROOT%``), and refuses an upload in which any result has no physical
location. A case file in the checkout is named relative to its root. Any other place is
named relative to a base of its own, described in the run's ``originalUriBaseIds``, never
by an absolute path: a path into an installed package or the runner's temporary folder
means nothing on another machine, and changes between runs (so GitHub would open a new
alert each time). The bases:

* ``RECHAIN_CORPUS``: the corpus the run read (``<case>/transcript.jsonl``), rechain's own
  (``corpus/cases/`` of its source at the version the run names) unless ``--corpus``
  named another;
* ``RECHAIN_CASES``: the folder shrunk cases were saved to (``--save-cases``, the
  action's ``cases/`` artefact), ``<case>/transcript.jsonl``;
* ``RECHAIN_FINDINGS``: the folder ``rechain fuzz`` filed a crash's input in;
* ``RECHAIN_GENERATED``: a generated transcript no file holds, by its case id (the run's
  seed makes it again).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

Json = dict[str, Any]
SRCROOT = "%SRCROOT%"
CORPUS, CASES, FINDINGS, GENERATED = ("RECHAIN_CORPUS", "RECHAIN_CASES", "RECHAIN_FINDINGS",
                                      "RECHAIN_GENERATED")


def checkout(start: Path) -> Path:
    """The repository ``start`` lies in (the nearest folder up holding ``.git``), which CI
    tools resolve relative paths against; ``start`` itself outside any repository."""
    here = start.resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return here


def inside(path: str | Path, root: Path) -> str | None:
    """``path`` relative to ``root`` (POSIX form) when it lies inside it, else None."""
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


def corpus_root(head: Mapping[str, Any]) -> Path:
    """The corpus directory the run read: its ``--corpus`` (from the directory it ran in),
    else the packaged one."""
    argv = [str(a) for a in head.get("argv") or []]
    for i, arg in enumerate(argv):
        given = (argv[i + 1] if arg == "--corpus" and i + 1 < len(argv)
                 else arg.split("=", 1)[1] if arg.startswith("--corpus=") else None)
        if given is not None:
            return Path(str(head.get("cwd") or "."), given)
    from rechain.corpus.cases_io import default_root

    return Path(str(default_root()))


def artifact(line: Mapping[str, Any], root: Path | None, corpus: Path) -> Json:
    """The ``artifactLocation`` of a case line or finding line (see the module's bases)."""
    if line.get("kind") == "finding":
        folder = Path(str(line["path"])) if line.get("path") else None
        if folder is not None:
            file = folder / "transcript.jsonl"
            return _within(file, root) or {"uri": f"{folder.name}/transcript.jsonl",
                                           "uriBaseId": CASES}
        return {"uri": str(line.get("case_id", "")), "uriBaseId": GENERATED}
    case_id = str(line["id"])
    if line.get("group") in ("generated", "corrupted"):
        return {"uri": case_id, "uriBaseId": GENERATED}
    name = f"{case_id.split('[', 1)[0]}/transcript.jsonl"
    return _within(corpus / name, root) or {"uri": name, "uriBaseId": CORPUS}


def crash_artifact(input_path: str | None, signature: str, root: Path | None) -> Json:
    """A fuzz crash's input: in the checkout, else by name in its findings folder."""
    if input_path is None:
        return {"uri": signature, "uriBaseId": FINDINGS}
    return _within(Path(input_path), root) or {"uri": Path(input_path).name,
                                               "uriBaseId": FINDINGS}


def _within(file: Path, root: Path | None) -> Json | None:
    relative = inside(file, root) if root is not None else None
    return None if relative is None else {"uri": relative, "uriBaseId": SRCROOT}


def bases(used: set[str], head: Mapping[str, Any], version: str) -> Json:
    """``originalUriBaseIds`` for the bases the results use: what each names, in words (no
    absolute path: it would be one only the machine that ran has)."""
    argv = [str(a) for a in head.get("argv") or []]
    corpus = ("the corpus named by --corpus" if any(a.split("=", 1)[0] == "--corpus"
                                                    for a in argv)
              else f"rechain {version}'s own corpus: corpus/cases/ of its source")
    seed = head.get("seed")
    words = {
        SRCROOT: "the root of the repository checked out",
        CORPUS: f"{corpus}; each case is <id>/transcript.jsonl",
        CASES: "the folder the shrunk cases were saved to (--save-cases; the action uploads "
               "it as cases/)",
        FINDINGS: "the findings folder of the rechain fuzz campaign",
        GENERATED: "transcripts generated from the run's seed" + (
            f" {seed}" if seed is not None else "") + ", named by case id: rechain check "
            "with the same --seed and --examples makes them again",
    }
    return {base: {"description": {"text": words[base]}} for base in sorted(used)}
