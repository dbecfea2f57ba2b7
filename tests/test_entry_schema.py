"""``rechain/schemas/entry.json`` accepts every generated line and every real one."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import orjson
import pytest
from hypothesis import given

from rechain.schema_files import load_schema, validator
from rechain.strategies import Mutation, Transcript, damage, transcripts
from rechain.strategies.ops import Prompt, Reply

REAL = Path(__file__).resolve().parents[2] / "shared" / "corpus-real"
REAL_FILES = sorted(REAL.glob("*.jsonl"))


def errors(line: object) -> list[str]:
    return [e.message for e in validator("entry").iter_errors(line)]


def test_schema_is_draft_2020_12() -> None:
    schema = load_schema("entry")
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.skipif(not REAL_FILES, reason="shared/corpus-real is not beside the checkout")
@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.name[:40])
def test_every_real_line_validates(path: Path) -> None:
    for number, raw in enumerate(path.read_bytes().splitlines(), 1):
        assert errors(orjson.loads(raw)) == [], f"{path.name}:{number}"


@given(transcripts())
def test_every_generated_line_validates(t: Transcript) -> None:
    for line in t.lines:
        assert errors(line) == [], line
    for lines in t.subagents.values():
        for line in lines:
            assert errors(line) == [], line


def test_damaged_entries_do_not_validate() -> None:
    t = write_small()
    for kind in ("unknown_type", "missing_uuid"):
        line = damage(t, [Mutation(kind)]).lines[-1]
        assert errors(line), kind


def write_small() -> Transcript:
    from rechain.strategies import write

    return write([Prompt(), Reply()])
