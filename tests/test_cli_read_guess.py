"""The CLI's read of a large file, from a plain boundary found in its last eighth or else
guessed whole and checked on the glances, answers as the exact read: the last plain
compact boundary found by its text in the whole buffer, attribution snapshots but the
last dropped and the last read after every other line.

Each file is over 5 MiB (the only files either is made for) and holds one line the read
has to notice, or one it may pass over, among a generated transcript's lines.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import orjson
import pytest

from rechain.conformance.bench.synthetic import write_transcript
from rechain.reference import Options
from rechain.reference.profiles.claude_code_2_1_332.read import Guessed, last_plain_boundary
from rechain.reference.profiles.family import profile_for
from rechain.reference.read import LARGE_FILE_BYTES, Source, read_from
from rechain.reference.stages import Profile, drive

CLI = profile_for("2.1.332")
OLDER = profile_for("2.1.120")


def _exact_read(data: bytes, options: Options) -> Source:
    """The read without the guess: both searches of the whole buffer first."""
    if len(data) <= LARGE_FILE_BYTES or options.disable_precompact_skip:
        return CLI.read(data, options)
    return read_from(data, last_plain_boundary(data))


SNAPSHOT = b'{"type":"attribution-snapshot","messageId":"m","surface":"cli","fileStates":{}}'
BOUNDARY = orjson.dumps({"type": "system", "subtype": "compact_boundary", "uuid": "b0",
                         "parentUuid": None, "content": "compacted", "isSidechain": False,
                         "timestamp": "2026-11-01T00:00:00.000Z"})
KEEPING = orjson.dumps({"type": "system", "subtype": "compact_boundary", "uuid": "b1",
                        "parentUuid": None, "timestamp": "2026-11-01T00:00:00.000Z",
                        "compactMetadata": {"preservedSegment": {
                            "headUuid": "h", "anchorUuid": "a", "tailUuid": "t"}}})

# a snapshot whose last ``type`` makes it a row, and one that is a plain boundary too
SNAPSHOT_ROW = (b'{"type":"attribution-snapshot","type":"user","uuid":"sr","parentUuid":null,'
                b'"isSidechain":false,"timestamp":"2026-11-03T00:00:00.000Z",'
                b'"message":{"role":"user","content":"read last"}}')
SNAPSHOT_BOUNDARY = (b'{"type":"attribution-snapshot","type":"system","subtype":"compact_boundary",'
                     b'"uuid":"sb","parentUuid":null,"content":"x"}')
PROGRESS = orjson.dumps({"type": "progress", "uuid": "p1", "parentUuid": "b0"})
BRIDGED = orjson.dumps({"type": "user", "uuid": "u1", "parentUuid": "p1", "isSidechain": False,
                        "message": {"role": "user", "content": "hi"},
                        "timestamp": "2026-11-02T00:00:00.000Z"})
SENT = orjson.dumps({"type": "user", "uuid": "u2", "sentAsUuid": "s1", "parentUuid": None,
                     "isSidechain": False, "message": {"role": "user", "content": "hey"},
                     "timestamp": "2026-11-02T00:00:00.000Z"})


@pytest.fixture(scope="module")
def lines(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    path: Path = tmp_path_factory.mktemp("guess") / "large.jsonl"
    write_transcript(path, LARGE_FILE_BYTES + 300_000, 3, "linear")
    return path.read_bytes().split(b"\n")


def _spliced(lines: list[bytes], *inserted: tuple[int, bytes]) -> bytes:
    out = list(lines)
    for at, line in sorted(inserted, reverse=True):
        out[at:at] = line.split(b"\n")
    return b"\n".join(out)


CASES: dict[str, tuple[tuple[int, bytes], ...]] = {
    "nothing": (),
    "snapshots": ((100, SNAPSHOT), (2000, SNAPSHOT)),
    "snapshot-after-spaces": ((100, b"  " + SNAPSHOT),),
    "snapshot-then-one-after-spaces": ((100, SNAPSHOT), (300, b"  " + SNAPSHOT)),
    "plain-boundary": ((500, BOUNDARY),),
    "two-plain-boundaries": ((500, BOUNDARY), (1500, BOUNDARY.replace(b'"b0"', b'"b2"'))),
    "boundary-keeping-rows": ((500, KEEPING),),
    "marker-text-elsewhere": ((500, b'{"type":"user","uuid":"x","note":"compact_boundary"}'),),
    "marker-escaped": ((500, BOUNDARY.replace(b"compact_boundary", b"compact\\u005fboundary")),),
    "duplicate-subtype": ((500, BOUNDARY.replace(b'"subtype":"compact_boundary"',
                                                 b'"subtype":"compact_boundary","subtype":"x"')),),
    "boundary-then-snapshot": ((500, BOUNDARY), (900, SNAPSHOT)),
    "snapshot-then-boundary": ((300, SNAPSHOT), (500, BOUNDARY)),
    "three-snapshots-the-last-a-row": ((100, SNAPSHOT), (800, SNAPSHOT), (1500, SNAPSHOT_ROW)),
    "snapshot-first": ((0, SNAPSHOT),),
    "snapshot-last": ((-1, SNAPSHOT),),
    "snapshot-then-blank": ((700, SNAPSHOT + b"\n  \n"),),
    "snapshot-and-boundary": ((700, SNAPSHOT_BOUNDARY),),
    "snapshots-around-boundaries": ((100, SNAPSHOT), (300, SNAPSHOT), (500, BOUNDARY),
                                    (900, SNAPSHOT), (1200, BOUNDARY.replace(b'"b0"', b'"b3"')),
                                    (1400, SNAPSHOT_ROW)),
    "boundary-then-not-glanced": ((500, BOUNDARY), (900, b'{"type":"user",\n"uuid":"m1"}')),
    "not-glanced-then-boundary": ((100, b"{not json"), (500, BOUNDARY)),
    "boundary-then-blank": ((500, BOUNDARY + b"\n\n  "),),
    # what the rows before a boundary leave is forgotten: a progress row's bridge, a uuid
    "bridge-before-boundary": ((400, PROGRESS), (500, BOUNDARY), (-1, BRIDGED)),
    "sent-as-before-boundary": ((400, SENT), (500, BOUNDARY), (-1, SENT)),
    "boundary-last": ((-1, BOUNDARY),),
    "boundary-first": ((0, BOUNDARY),),
    "plain-then-keeping": ((500, BOUNDARY), (1500, KEEPING)),
    "keeping-then-plain": ((500, KEEPING), (1500, BOUNDARY)),
    "value-across-lines": ((100, b'{"type":"user",\n"uuid":"m1"}'),),
    "boundary-across-lines": ((100, BOUNDARY[:30] + b"\n" + BOUNDARY[30:]),),
    "not-utf8": ((100, b'{"type":"user","uuid":"\xff"}'),),
    "null-and-blank": ((100, b"null\n\n   "),),
    "bom-boundary": ((0, b"\xef\xbb\xbf" + BOUNDARY),),
    # in the last eighth of the file, where the read looks for a plain boundary first
    "tail-plain-boundary": ((-5, BOUNDARY),),
    "tail-two-plain-boundaries": ((-40, BOUNDARY), (-5, BOUNDARY.replace(b'"b0"', b'"b2"'))),
    "tail-plain-then-keeping": ((-40, BOUNDARY), (-5, KEEPING)),
    "tail-keeping-only": ((-5, KEEPING),),
    "plain-then-tail-keeping": ((500, BOUNDARY), (-5, KEEPING)),
    "plain-then-tail-marker-text": (
        (500, BOUNDARY), (-5, b'{"type":"user","uuid":"x","note":"compact_boundary"}')),
    "tail-boundary-and-snapshots": ((100, SNAPSHOT), (-30, BOUNDARY), (-10, SNAPSHOT)),
    "tail-snapshot-and-boundary": ((-10, SNAPSHOT_BOUNDARY),),
    "tail-boundary-across-lines": ((-5, BOUNDARY[:30] + b"\n" + BOUNDARY[30:]),),
    "tail-marker-twice-in-a-line": ((-5, BOUNDARY[:-1] + b',"note":"compact_boundary"}'),),
    "tail-boundary-then-progress-bridge": ((-40, PROGRESS), (-30, BOUNDARY), (-1, BRIDGED)),
}
# the cases whose last plain boundary's marker lies in the file's last eighth
FROM_THE_TAIL = {"boundary-last", "tail-plain-boundary", "tail-two-plain-boundaries",
                 "tail-plain-then-keeping", "tail-boundary-and-snapshots",
                 "tail-snapshot-and-boundary", "tail-marker-twice-in-a-line",
                 "tail-boundary-then-progress-bridge"}


@pytest.mark.parametrize("profile", [CLI, OLDER], ids=["2.1.332", "2.1.120"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_large_read_answers_as_the_exact_read(lines: list[bytes], case: str,
                                              profile: Profile) -> None:
    data = _spliced(lines, *CASES[case])
    assert len(data) > LARGE_FILE_BYTES
    assert isinstance(profile.read(data, Options()).lines, Guessed) == (case not in FROM_THE_TAIL)
    exact = dataclasses.replace(profile, read=_exact_read)
    guessed, expected = (drive(data, p, Options(), "s") for p in (profile, exact))
    assert guessed.to_json() == expected.to_json()
    for name in sorted(profile.views):
        assert guessed.view(name) == expected.view(name)
