"""MkDocs hooks: pages whose source sits outside ``docs/``, links into the repository, and the
API reference's view of the package.

* The README is the home page, its "In CI" section also the CI guide, the changelog a page;
  the ``docs/*.md`` they name become links. A page that only exists sometimes (the CI guide,
  ``docs/matrix.md``, which ``rechain matrix`` writes) is in the navigation when it exists.
* Links from a page to repository files outside ``docs/`` are checked to exist and shown as the
  file's name: a missing one is a warning, so ``mkdocs build --strict`` fails on it. A link to
  ``matrix.md`` before ``rechain matrix`` has written it is shown as its text.
* mkdocstrings finds ``rechain.*`` as installed, although its folders sit side by side in the
  repository (``pyproject.toml``'s ``package-dir``), through a temporary tree of symlinks.
"""

from __future__ import annotations

import logging
import re
import tomllib
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

from rechain.conformance.owned_dirs import make_owned, release

ROOT = Path(__file__).resolve().parent.parent
log = logging.getLogger("mkdocs.plugins.rechain")
_trees: list[Path] = []

CI_SECTION = re.compile(r"^## In CI\b.*?(?=^## |\Z)", re.M | re.S)
#: optional pages, put in the navigation before this entry when they exist
OPTIONAL_BEFORE = "Findings"
#: ```docs/page.md``` named in the README or the changelog: a link on the site
DOCS_PATH = re.compile(r"`docs/([\w.-]+\.md)`")
#: pages a command writes (``rechain matrix``): a link to one is kept once it exists
GENERATED_LINK = re.compile(r"\[([^\]]+)\]\((matrix\.md)(#[^)\s]*)?\)")
REPO_LINK = re.compile(r"\[([^\]]+)\]\((\.\./[^)\s#]+)(#[^)\s]*)?\)")
#: reStructuredText the docstrings use (``:class:`X```, a paragraph ending in ``::``) that
#: Markdown shows literally: the role is dropped, ``::`` becomes ``:``
RST_ROLE = re.compile(r":(?:class|func|data|mod|meth|attr|obj|exc):(?=<code>)")
RST_LITERAL = re.compile(r"(\S)::</p>|<p>::</p>")


def _readme() -> str:
    return (ROOT / "README.md").read_text("utf-8")


def generated_pages() -> dict[str, str]:
    """Page path → Markdown, for the pages whose source is outside ``docs/``."""
    pages = {"index.md": _readme(), "changelog.md": (ROOT / "CHANGELOG.md").read_text("utf-8")}
    section = CI_SECTION.search(pages["index.md"])
    if section:
        pages["ci.md"] = section[0].replace("## In CI", "# In CI", 1)
    return {page: DOCS_PATH.sub(_link, text) for page, text in pages.items()}


def optional_nav() -> list[dict[str, str]]:
    """The navigation entries of the pages that exist only sometimes, when they exist."""
    entries = []
    if CI_SECTION.search(_readme()):
        entries.append({"CI guide": "ci.md"})
    if (ROOT / "docs" / "matrix.md").is_file():
        entries.append({"Reader matrix": "matrix.md"})
    return entries


def _link(match: re.Match[str]) -> str:
    """A link when the page exists (a page still to be written stays a file name)."""
    if not (ROOT / "docs" / match[1]).is_file():
        log.info("docs/%s is named but does not exist (yet)", match[1])
        return match[0]
    return f"[`docs/{match[1]}`]({match[1]})"


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
    """Add the optional pages to the navigation; point mkdocstrings at the package tree."""
    nav = config.nav
    at = next((i for i, e in enumerate(nav) if isinstance(e, dict) and OPTIONAL_BEFORE in e),
              len(nav))
    nav[at:at] = [e for e in optional_nav() if e not in nav]
    # locked as this build's: a build killed outright leaves it to the next one to remove
    tree = package_tree(make_owned("rechain-docs-"))
    _trees.append(tree)
    handlers = config.plugins["mkdocstrings"].config.handlers
    handlers.setdefault("python", {})["paths"] = [str(tree)]
    return config


def on_files(files: Files, config: Any) -> Files:
    """Add the pages whose source is outside ``docs/``."""
    for page, text in generated_pages().items():
        files.append(File.generated(config, page, content=text))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Links to ``../somewhere`` in the repository: checked, then rendered as the link text;
    links to a generated page not written yet: the link text."""
    folder = (ROOT / "docs" / page.file.src_uri).parent

    def replace(match: re.Match[str]) -> str:
        if not (folder / match[2]).resolve().exists():
            log.warning("%s links to %s, which does not exist", page.file.src_uri, match[2])
        return match[1]

    def unwritten(match: re.Match[str]) -> str:
        if (ROOT / "docs" / match[2]).is_file():
            return match[0]
        log.info("%s links to %s, not generated yet", page.file.src_uri, match[2])
        return match[1]

    return GENERATED_LINK.sub(unwritten, REPO_LINK.sub(replace, markdown))


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:
    """The API reference's docstrings, without reStructuredText markup left in the text."""
    html = RST_ROLE.sub("", html)
    return RST_LITERAL.sub(lambda m: f"{m[1]}:</p>" if m[1] else "", html)


def on_shutdown() -> None:
    """Remove the temporary package trees."""
    while _trees:
        release(_trees.pop())
