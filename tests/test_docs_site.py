"""The documentation site builds strictly (a broken link fails it) and renders in a browser."""

from __future__ import annotations

import html
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [
    pytest.mark.skipif(
        importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None,
        reason="the docs extra is not installed (pip install -e '.[docs]')"),
    pytest.mark.xdist_group("docs-site"),  # one build of the site, shared by this module
]
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
#: what the site is built from, besides docs/ (copied so that a test can break a page)
SOURCES = ("mkdocs.yml", "README.md", "CHANGELOG.md", "pyproject.toml")


def _build(root: Path, site: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of the tree at ``root`` into ``site`` (never into the repo)."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f",
         str(root / "mkdocs.yml"), "-d", str(site)],
        cwd=root, env=ENV, capture_output=True, text=True, timeout=900, check=False)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    run = _build(ROOT, out)
    assert run.returncode == 0, run.stderr[-4000:]
    return out


def _text(page: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def test_the_site_builds_strictly_with_every_page(site: Path) -> None:
    index = _text((site / "index.html").read_text(encoding="utf-8"))
    assert "Test your reader with Hypothesis" in index  # the README is the home page
    guide = _text((site / "strategies" / "index.html").read_text(encoding="utf-8"))
    assert "What intended means" in guide
    api = _text((site / "api" / "index.html").read_text(encoding="utf-8"))
    for name in ("rechain.testing", "transcripts", "corrupted", "rebuilds_intended",
                 "no_row_twice", "TranscriptMachine", "rebuild"):
        assert name in api, name
    for page in ("protocol", "findings", "cli-resume", "stability", "changelog"):
        assert (site / page / "index.html").is_file(), page
    if "\n## In CI" in (ROOT / "README.md").read_text(encoding="utf-8"):
        assert (site / "ci" / "index.html").is_file()
    if (ROOT / "docs" / "matrix.md").is_file():
        assert (site / "matrix" / "index.html").is_file()
    assert not list(ROOT.glob("site")), "a build wrote into the repository"


def test_pages_that_exist_only_sometimes_join_the_site_when_they_exist(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.spec_from_file_location("rechain_docs_hooks", ROOT / "docs" / "hooks.py")
    assert spec and spec.loader
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    monkeypatch.setattr(hooks, "ROOT", tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "CHANGELOG.md").write_text("# Changelog\n")
    (tmp_path / "README.md").write_text("# r\n\n## Use\n\nSee `docs/guide.md`.\n")
    assert hooks.optional_nav() == []
    assert set(hooks.generated_pages()) == {"index.md", "changelog.md"}
    page = SimpleNamespace(file=SimpleNamespace(src_uri="findings.md"))
    linking = "The table is in [`matrix.md`](matrix.md)."
    assert hooks.on_page_markdown(linking, page, None, None) == "The table is in `matrix.md`."
    (tmp_path / "README.md").write_text(
        "# r\n\n## In CI\n\nRun `.ci/run`; see `docs/guide.md`.\n\n### Caches\n\nx\n\n## Next\n")
    (tmp_path / "docs" / "matrix.md").write_text("# Matrix\n")
    (tmp_path / "docs" / "guide.md").write_text("# Guide\n")
    assert hooks.optional_nav() == [{"CI guide": "ci.md"}, {"Reader matrix": "matrix.md"}]
    assert hooks.on_page_markdown(linking, page, None, None) == linking
    ci = hooks.generated_pages()["ci.md"]
    assert ci.startswith("# In CI\n") and "### Caches" in ci and "## Next" not in ci
    assert "[`docs/guide.md`](guide.md)" in ci  # a page that exists becomes a link


def test_a_broken_link_fails_the_strict_build(tmp_path: Path) -> None:
    for name in SOURCES:
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "docs", tmp_path / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    for entry in ROOT.iterdir():  # everything else a page may link to
        if entry.name not in ("docs", *SOURCES) and not entry.name.startswith("."):
            (tmp_path / entry.name).symlink_to(entry)
    page = tmp_path / "docs" / "stability.md"
    page.write_text(page.read_text(encoding="utf-8")
                    + "\nSee [the gone page](no-such-page.md) and [a file](../no/such.json).\n")
    run = _build(tmp_path, tmp_path / "site")
    assert run.returncode != 0
    warnings = [line for line in run.stderr.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == 2, warnings  # the two broken links, nothing else
    assert "no-such-page.md" in warnings[0] + warnings[1]
    assert "../no/such.json" in warnings[0] + warnings[1]


def test_a_rendered_page_shows_its_text_in_chromium(site: Path, tmp_path: Path) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (Debian package chromium)")
    url = (site / "strategies" / "index.html").as_uri()
    flags = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([*flags, "--dump-dom", url], capture_output=True, text=True,
                         timeout=300, check=True).stdout
    assert re.search(r'<html[^>]*class="[^"]*\bjs\b', dom), "the theme's JavaScript did not run"
    text = _text(re.search(r"<article.*?</article>", dom, re.S)[0])  # type: ignore[index]
    assert "Strategies and invariants in your own tests" in text
    assert "expected_uuids(t, \"sdk\")" in text
    # copy buttons are added by JavaScript, one per code block
    blocks = dom.count("<pre")
    assert blocks >= 5
    assert dom.count('data-md-type="copy"') == blocks
    shot = tmp_path / "strategies.png"
    subprocess.run([*flags, "--window-size=1280,1400", f"--screenshot={shot}", url],
                   capture_output=True, timeout=300, check=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 20_000  # a rendered page, not a blank one
