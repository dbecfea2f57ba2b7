"""Skeletons of real transcripts: same length placeholders, no text left, same chain.

The oracle part needs the real transcripts (``../shared/corpus-real``, which CI
has) and the installed TS SDK; it skips with the reason otherwise.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rechain.conformance.oracles.ts_sdk import TsSdkOracle
from rechain.corpus import PROFILE, load_cases
from rechain.corpus.anonymise import (
    INTERRUPT_MARKERS,
    TAG_NAMES,
    anonymise,
    anonymise_line,
    parse_strict,
    placeholder,
    scrub,
)
from rechain.corpus.cases_io import INPUT_FILE, default_root
from rechain.strategies import rows

REPO = Path(__file__).resolve().parents[1]
REAL_DIRS = [Path("/work/shared/corpus-real"), REPO.parent / "shared" / "corpus-real"]
REAL = next((d for d in REAL_DIRS if d.is_dir()), None)
UNAVAILABLE = TsSdkOracle.available()


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def real_cases():
    return [c for c in load_cases() if c.provenance["source"] == "real"]


def original_of(case) -> Path:
    """The file in corpus-real: ``<owner>__<repo>__<path with / as __>``."""
    owner, name = case.provenance["repo"].split("/")
    assert REAL is not None
    return REAL / "__".join([owner, name, *case.provenance["path"].split("/")])


def free_texts(value, key=None):
    """Every prose string in a parsed row: text, thinking, prompts and tool output."""
    if isinstance(value, dict):
        for k, item in value.items():
            yield from free_texts(item, k)
    elif isinstance(value, list):
        for item in value:
            yield from free_texts(item, key)
    elif isinstance(value, str) and key in {"text", "thinking", "content", "prompt", "command"}:
        yield value


# --- placeholders ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "hello world",
        "  \n\t",
        "naïve café",
        "emoji 😀 and \U0001d518",
        "line\r\nbreak\u2028x",
        "a\u00a0b",
    ],
)
def test_placeholder_keeps_utf16_length_and_whitespace(text):
    out = placeholder(text)
    assert utf16_length(out) == utf16_length(text)
    assert set(out) <= {"x"} | set(" \t\r\n\u2028\u00a0")
    assert [c.isspace() for c in out if c != "x"] == [c.isspace() for c in text if c.isspace()]


def test_scrub_keeps_reader_markers_only():
    assert scrub("No response requested.") == "No response requested."
    assert scrub("[Request interrupted by user] sorry") == "[Request interrupted by user] xxxxx"
    command = "<command-name>/model</command-name>\n<command-args>opus</command-args>"
    assert (
        scrub(command) == "<command-name>xxxxxx</command-name>\n<command-args>xxxx</command-args>"
    )
    assert scrub("<secret>pw</secret>") == "xxxxxxxxxxxxxxxxxxx"


# --- lines ----------------------------------------------------------------------------


def row(**fields):
    return rows.dumps(fields)


def test_structure_is_kept_and_text_replaced():
    line = row(
        parentUuid="p-1", isSidechain=False, cwd="/home/alice/secret", type="assistant",
        message={"id": "msg_1", "role": "assistant", "model": "claude-x", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "cat pw"}},
            {"type": "text", "text": "Here it is"},
        ]},
        uuid="u-1", timestamp="2026-01-01T00:00:00.000Z", sourceToolAssistantUUID="a-0",
        compactMetadata={"preservedSegment": {"headUuid": "h", "anchorUuid": "a", "tailUuid": "t"}},
    )  # fmt: skip
    out = json.loads(anonymise_line(line))
    assert out["uuid"] == "u-1" and out["parentUuid"] == "p-1"
    assert out["sourceToolAssistantUUID"] == "a-0"
    assert out["compactMetadata"]["preservedSegment"] == {
        "headUuid": "h",
        "anchorUuid": "a",
        "tailUuid": "t",
    }
    assert out["cwd"] == "x" * len("/home/alice/secret")
    tool, words = out["message"]["content"]
    assert (tool["id"], tool["name"], tool["input"]) == ("toolu_1", "Bash", {"command": "xxx xx"})
    assert words == {"type": "text", "text": "xxxx xx xx"}
    assert list(out) == list(json.loads(line))


def test_lines_that_do_not_parse_become_unparseable_placeholders():
    for bad in [
        b'\xef\xbb\xbf{"a":1}',
        b'{"a":NaN}',
        b"{truncated",
        b"[1,2]",
        b"\xc2\xa0{}",
        b"\xff",
    ]:
        out = anonymise_line(bad)
        assert len(out) == len(bad) and set(out) <= set(b"x ")
        with pytest.raises(ValueError):
            parse_strict(out.decode())


def test_bytes_around_the_json_and_number_literals_survive():
    line = b"\x0c  " + row(type="user", uuid="u", n=1)[:-1] + b',"big":1e400,"z":-0,"f":1.0}\r'
    out = anonymise_line(line)
    assert out.startswith(b"\x0c  {") and out.endswith(b',"big":1e400,"z":-0,"f":1.0}\r')
    data = b"\n".join([b"", b"   ", row(type="user", uuid="u"), b""])
    assert anonymise(data).split(b"\n")[:2] == [b"", b"   "]
    assert anonymise(data).count(b"\n") == data.count(b"\n")
    lone = b'{"type":"user","uuid":"u","message":{"content":"a\\ud800b"}}'
    assert anonymise_line(lone) == b'{"type":"user","uuid":"u","message":{"content":"xxx"}}'


# --- the real transcripts ---------------------------------------------------------------


needs_real = pytest.mark.skipif(REAL is None, reason="../shared/corpus-real is not present")


@needs_real
def test_every_real_case_is_the_skeleton_of_its_original():
    cases = real_cases()
    assert len(cases) == len(list(REAL.glob("*.jsonl")))
    for case in cases:
        assert case.input_bytes() == anonymise(original_of(case).read_bytes()), case.id


@needs_real
def test_no_original_text_survives():
    tokens = [re.escape(m) for m in INTERRUPT_MARKERS] + [f"</?{t}>" for t in TAG_NAMES]
    allowed = re.compile("(" + "|".join([*tokens, "x", r"\s"]) + ")*")
    for case in real_cases():
        skeleton = case.input_bytes().decode("utf-8", "replace")
        for line in skeleton.split("\n"):
            try:
                parsed = json.loads(line)
            except ValueError:
                continue
            for text in free_texts(parsed):
                assert allowed.fullmatch(text), (case.id, text[:80])
        for line in original_of(case).read_bytes().split(b"\n"):
            try:
                parsed = json.loads(line)
            except ValueError:
                continue
            for text in free_texts(parsed):
                if len(text.strip()) >= 20 and not text.startswith("["):
                    assert text not in skeleton, (case.id, text[:80])


@needs_real
@pytest.mark.oracle
@pytest.mark.skipif(UNAVAILABLE is not None, reason=f"agent-sdk-ts: {UNAVAILABLE}")
def test_oracle_rebuilds_each_skeleton_like_its_original():
    with TsSdkOracle() as oracle:
        for case in real_cases():
            for options in case.variants:
                kwargs = {"session_id": case.session_id, **options}
                original = oracle.session_messages(original_of(case).read_bytes(), **kwargs)
                skeleton = oracle.session_messages(case.input_bytes(), **kwargs)
                uuids = [m["uuid"] for m in original]
                assert [m["uuid"] for m in skeleton] == uuids, case.id
                recorded = next(e for e in case.expectations_for(PROFILE) if e.options == options)
                assert [m["uuid"] for m in recorded.messages] == uuids, case.id


@pytest.mark.parametrize(("options", "why"), [
    (["--id", "real-one"], "--source real needs --commit, --licence, --path, --repo"),
    (["--id", "Not_Kebab", "--source", "hand-written", "--tag", "basic"], "--id: 'Not_Kebab'"),
    (["--id", "mine", "--source", "hand-written"], "give at least one --tag"),
    (["--id", "mine", "--source", "hand-written", "--tag", "no-such-tag"],
     "--tag 'no-such-tag' is not a corpus tag"),
])
def test_anonymise_refuses_a_case_lint_would_refuse_before_writing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str],
        why: str) -> None:
    from rechain.cli import main
    from rechain.corpus.lint import lint_cases

    source = tmp_path / "session.jsonl"
    source.write_bytes((Path(str(default_root())) / "linear-two-turns" / INPUT_FILE).read_bytes())
    (tmp_path / "cases").mkdir()
    assert main(["corpus", "anonymise", str(source), str(tmp_path / "cases"), *options]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"rechain: error: {source}: not added: ") and why in line
    assert list((tmp_path / "cases").iterdir()) == []
    # with what it asked for, the case is written and lints clean
    assert main(["corpus", "anonymise", str(source), str(tmp_path / "cases"), "--id", "mine",
                 "--source", "hand-written", "--tag", "basic"]) == 0
    assert lint_cases(tmp_path / "cases") == []
