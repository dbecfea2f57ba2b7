"""MkDocs hooks: the README is the site's home page and the changelog a page (the ``docs/*.md``
they name become links); links from a page to repository files outside ``docs/`` are checked
to exist and shown as the file's name; the API
reference finds ``rechain.*`` as installed, although its folders sit side by side in the
repository (``pyproject.toml``'s ``package-dir``).

A link that names a missing file is a warning, so ``mkdocs build --strict`` fails on it.
"""

from __future__ import annotations

import logging
import re
import shutil
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
GENERATED = {"index.md": "README.md", "changelog.md": "CHANGELOG.md"}
REPO_LINK = re.compile(r"\[([^\]]+)\]\((\.\./[^)\s#]+)(#[^)\s]*)?\)")
#: reStructuredText the docstrings use (``:class:`X```, a paragraph ending in ``::``) that
#: Markdown shows literally: the role is dropped, ``::`` becomes ``:``
RST_ROLE = re.compile(r":(?:class|func|data|mod|meth|attr|obj|exc):(?=<code>)")
RST_LITERAL = re.compile(r"(\S)::</p>|<p>::</p>")
log = logging.getLogger("mkdocs.plugins.rechain")
_tree: list[Path] = []


def package_tree(into: Path) -> Path:
    """``into/rechain``: the installed layout, as symlinks to the repository's folders."""
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    top = into / "rechain"
    top.mkdir()
    for entry in (ROOT / "rechain").iterdir():
        (top / entry.name).symlink_to(entry)
    for package, folder in mapping["package-dir"].items():
        parts = package.split(".")
        if len(parts) == 2:
            (top / parts[1]).symlink_to(ROOT / folder)
    return into


@event_priority(100)  # before mkdocstrings reads its handler's search paths
def on_config(config: Any) -> Any:
    """Point the Python handler at a temporary installed-layout tree."""
    tree = package_tree(Path(tempfile.mkdtemp(prefix="rechain-docs-")))
    _tree.append(tree)
    handlers = config.plugins["mkdocstrings"].config.handlers
    handlers.setdefault("python", {})["paths"] = [str(tree)]
    return config


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:
    """The API reference's docstrings, without reStructuredText markup left in the text."""
    html = RST_ROLE.sub("", html)
    return RST_LITERAL.sub(lambda m: f"{m[1]}:</p>" if m[1] else "", html)


def on_shutdown() -> None:
    """Remove the temporary tree."""
    while _tree:
        shutil.rmtree(_tree.pop(), ignore_errors=True)


#: ```docs/page.md``` named in the README or the changelog: a link on the site
DOCS_PATH = re.compile(r"`docs/([\w.-]+\.md)`")


def _link(match: re.Match[str]) -> str:
    """A link when the page exists (a page still to be written stays a file name)."""
    if not (ROOT / "docs" / match[1]).is_file():
        log.info("the README names docs/%s, which does not exist (yet)", match[1])
        return match[0]
    return f"[`docs/{match[1]}`]({match[1]})"


def on_files(files: Files, config: Any) -> Files:
    """Add the pages whose source is a file at the repository's root."""
    for page, source in GENERATED.items():
        text = DOCS_PATH.sub(_link, (ROOT / source).read_text("utf-8"))
        files.append(File.generated(config, page, content=text))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Links to ``../somewhere`` in the repository: checked, then rendered as the link text."""
    folder = (ROOT / "docs" / page.file.src_uri).parent

    def replace(match: re.Match[str]) -> str:
        target = (folder / match[2]).resolve()
        if not target.exists():
            log.warning("%s links to %s, which does not exist", page.file.src_uri, match[2])
        return match[1]

    return REPO_LINK.sub(replace, markdown)
