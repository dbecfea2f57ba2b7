"""The HTML report: every failure readable as page text, checked in a real browser too.

The browser test renders the page in headless Chromium (Debian's ``chromium``), reads
what a person sees (``innerText``: layout-aware, closed ``<details>`` bodies and hidden
elements excluded), and keeps a screenshot in ``$RECHAIN_ARTEFACTS`` (default
``tests/artefacts/``, ignored by git).
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from rechain.conformance import report, report_html
from rechain.conformance.compare import Verdict
from rechain.conformance.explain import explain
from rechain.conformance.protocol import Answered, ImplementationInfo
from rechain.conformance.runner import Record

PROMPT = (b'{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s",'
          b'"message":{"role":"user","content":"Prompt 1"}}\n')
META = (b'{"type":"user","uuid":"u2","parentUuid":"u1","sessionId":"s","isMeta":true,'
        b'"message":{"role":"user","content":"Stop hook feedback 2"}}\n')
DATA = PROMPT + META
READER, OTHER = "naive-reader@1.0", "tidy-reader@2.0"
TARGET = "agent-sdk-ts@0.3.332"


def planted() -> list[dict]:
    """A run where one reader shows a meta row the real reader hides, and another passes."""
    got = Answered(({"uuid": "u1"}, {"uuid": "u2"}))
    expected = Answered(({"uuid": "u1"},))
    explanation = explain(DATA, got, expected, None, target=TARGET, tags=("meta",))
    fail = Record(1, "gen-00001", "generated", READER, TARGET,
                  Verdict("fail", "different chain"), got, expected, 0.01, frozenset())
    ok = Record(1, "gen-00001", "generated", OTHER, TARGET, Verdict("pass"), expected,
                expected, 0.01, frozenset())
    head = report.header([(READER, ImplementationInfo("naive-reader", "1.0", "python")),
                          (OTHER, ImplementationInfo("tidy-reader", "2.0", "go"))], [TARGET],
                         seed=7, examples=1, profile="agent-sdk@0.3.332")
    cases = [report.case_line(fail, tags=("meta",), explanation=explanation),
             report.case_line(ok, tags=("meta",))]
    return [head, *cases, report.footer(cases, {}, 0.5)]


def test_the_page_holds_every_fact_as_text_grouped_by_behaviour():
    lines = planted()
    page = report_html.render(lines)
    sentence = lines[1]["explanation"]["sentence"]
    assert "line 2 (user, meta) is on the chain" in sentence
    assert html.escape(sentence) in page
    assert "title=" not in page  # nothing lives only in a tooltip
    assert ">none<" not in page and "none</td>" not in page
    assert "<h3>row the real reader hides" in page
    assert "2 · user · meta · Stop hook feedback 2 (parent: line 1)" in page
    assert "gen-00001" in page and "first difference ▶ +" in page
    assert '<select id="reader">' in page and f'<option value="{READER}">' in page
    assert report_html.render(lines) == page  # a pure function of the lines


def test_case_ids_and_texts_are_escaped():
    lines = planted()
    lines[1] = dict(lines[1], id="<script>x</script>")
    page = report_html.render(lines)
    assert "&lt;script&gt;x&lt;/script&gt;" in page and "<script>x</script>" not in page


#: appended to a copy of the page: what a person sees, then with the filter on the other reader
PROBE = """
<script>
var all = document.body.innerText;
var reader = document.getElementById("reader");
reader.value = "%s";
reader.dispatchEvent(new Event("change"));
var other = document.body.innerText;
[["all", all], ["other", other]].forEach(function (pair) {
  var pre = document.createElement("pre");
  pre.id = "probe-" + pair[0];
  pre.textContent = pair[1];
  document.body.appendChild(pre);
});
</script>
"""


def _artefacts() -> Path:
    where = Path(os.environ.get("RECHAIN_ARTEFACTS") or Path(__file__).parent / "artefacts")
    where.mkdir(parents=True, exist_ok=True)
    return where


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    return found


def _run(browser: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                           "--hide-scrollbars", "--window-size=1400,1800",
                           f"--user-data-dir={cwd / 'profile'}", *args],
                          capture_output=True, text=True, timeout=300, cwd=cwd, check=False)


def _probe(dom: str, name: str) -> str:
    found = re.search(rf'<pre id="probe-{name}">(.*?)</pre>', dom, re.S)
    assert found, "the probe did not run"
    return html.unescape(found.group(1))


def test_in_chromium_a_planted_failure_is_visible_text(tmp_path):
    browser = _chromium()
    lines = planted()
    page = report_html.render(lines)
    shown = tmp_path / "report.html"
    shown.write_text(page, encoding="utf-8")
    probed = tmp_path / "probed.html"
    probed.write_text(page.replace("</body>", PROBE % OTHER + "</body>"), encoding="utf-8")

    dumped = _run(browser, "--dump-dom", probed.as_uri(), cwd=tmp_path)
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    seen = _probe(dumped.stdout, "all")
    explanation = lines[1]["explanation"]
    assert explanation["sentence"] in seen  # the sentence naming the behaviour
    assert "2 · user · meta · Stop hook feedback 2 (parent: line 1)" in seen  # an input line
    assert f"expected: {TARGET}" in seen and f"got: {READER}" in seen  # both sides
    assert re.search(r"=\s+1 · user · prompt · Prompt 1\s+1 · user · prompt · Prompt 1", seen)
    assert re.search(r"first difference ▶ \+\s+2 · user · meta · Stop hook feedback 2", seen)
    filtered = _probe(dumped.stdout, "other")  # the failure is naive-reader's alone
    assert "gen-00001" not in filtered and explanation["sentence"] not in filtered
    assert OTHER in filtered

    picture = _artefacts() / "report-html.png"
    picture.unlink(missing_ok=True)
    taken = _run(browser, f"--screenshot={picture}", shown.as_uri(), cwd=tmp_path)
    assert taken.returncode == 0, taken.stderr[-2000:]
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
