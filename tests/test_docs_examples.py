"""The library documentation is true: its test snippets run, its tables match the code."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from rechain import testing
from rechain.strategies import EFFECTS, FEATURES, GENERATIONS

ROOT = Path(__file__).resolve().parent.parent
PAGES = (ROOT / "README.md", ROOT / "docs" / "strategies.md")
STRATEGIES_PAGE = (ROOT / "docs" / "strategies.md").read_text(encoding="utf-8")

# A stand-in for "your reader": correct by construction (the reference), so the snippets
# must pass; the tailer re-reads everything it was fed, so it sees whether the file grows.
MY_READER = '''
from rechain.reference import rebuild


def read(data: bytes) -> list[dict]:
    return list(rebuild(data, "sdk").messages)


class Tailer:
    def __init__(self) -> None:
        self.data = b""

    def feed(self, chunk: bytes) -> None:
        self.data += chunk

    def messages(self) -> list[dict]:
        return read(self.data)
'''
CONFTEST = '''
from hypothesis import settings

settings.register_profile("docs", max_examples=25, deadline=None, database=None,
                          stateful_step_count=8)
settings.load_profile("docs")
'''


def _test_snippets() -> dict[str, str]:
    """File name → code of every python block that starts with ``# test_<name>.py``."""
    found: dict[str, str] = {}
    for page in PAGES:
        for code in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
            first = code.splitlines()[0]
            if re.fullmatch(r"# test_\w+\.py", first):
                name = first[2:]
                found[name if name not in found else f"test_{page.stem}_{name[5:]}"] = code
    return found


def test_every_test_snippet_in_the_docs_runs_and_passes(tmp_path: Path) -> None:
    snippets = _test_snippets()
    assert len(snippets) >= 3, sorted(snippets)
    (tmp_path / "my_reader.py").write_text(MY_READER)
    (tmp_path / "conftest.py").write_text(CONFTEST)
    for name, code in snippets.items():
        (tmp_path / name).write_text(code)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "--rootdir", str(tmp_path), *sorted(snippets)],
        cwd=tmp_path, capture_output=True, text=True, timeout=900, check=False)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert re.search(rf"\b{len(snippets)} passed\b", run.stdout), run.stdout[-2000:]


def test_the_corruption_table_is_the_declared_effects() -> None:
    rows = dict(re.findall(r"^\| `(\w+)` \| (.+?) \|$", STRATEGIES_PAGE, re.M))
    for kind, effect in EFFECTS.items():
        assert kind in rows, kind
        assert rows[kind].replace("`", "") == effect, kind


def test_every_feature_generation_and_public_name_is_documented() -> None:
    for feature in FEATURES:
        assert f"| `{feature}` |" in STRATEGIES_PAGE, feature
    for generation in GENERATIONS:
        assert f'`"{generation.version}"`' in STRATEGIES_PAGE, generation.version
    for name in testing.__all__:
        assert f"`{name}" in STRATEGIES_PAGE, name


def test_the_pasted_failure_shows_the_example_as_it_is() -> None:
    """The shrunk failure in the guide was printed by the current example file."""
    source = (ROOT / "examples" / "test_toy_reader.py").read_text(encoding="utf-8").splitlines()
    cited = re.findall(r"^examples/test_toy_reader\.py:(\d+): in \w+\n    (.+)$",
                       STRATEGIES_PAGE, re.M)
    assert cited
    for number, shown in cited:
        assert source[int(number) - 1].strip() == shown.strip(), number
    assert "Prompt(kind='command'" in STRATEGIES_PAGE
