"""The glance in C (``reference/_glance.c``) parses exactly as the glance in Python.

``parse._glance_lines`` is the algorithm; the C module is its fast path for plain rows
and refuses the rest to the Python parser. Every test here parses the same buffer both
ways and compares all the parser hands on: rows (decoded), their line numbers, facts,
whether each is plain, the stamps kept, diagnostics, host rows and delivery counts, and
then the rebuild of every profile. The lines are those where a hand-written validator
could go wrong: JSON of every shape under the graph's field names, duplicate and escaped
keys, every prefix of a row, and any bytes at all.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sysconfig
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rechain.fuzz.fuzz_glance import WALKS, disagreement, glancing, parsed
from rechain.reference import PROFILES, Options, parse
from rechain.reference.facts import KINDS, MAIN_WRITER
from rechain.reference.js.values import UNDEFINED
from rechain.reference.lazyrows import UNKEPT, Pending
from rechain.reference.profiles import get_profile
from rechain.reference.stages import drive
from rechain.strategies import corrupted, transcripts

NATIVE = parse.native_glance
needs_native = pytest.mark.skipif(NATIVE is None, reason="the C glance is not built")


def test_the_c_glance_is_built_where_there_is_a_c_compiler() -> None:
    """An install on a machine with a compiler builds it (``setup.py``): a silent
    fall back to the Python glance would leave these tests skipped and the load slower."""
    if shutil.which("cc") is None and shutil.which("gcc") is None:  # pragma: no cover
        pytest.skip("no C compiler here: the Python glance is what this install runs")
    assert NATIVE is not None


@pytest.mark.parametrize("walk", sorted(WALKS))
def test_each_walk_reaches_the_c_entry_point_it_names(walk: str) -> None:
    """``found`` and ``given`` are walked by ``glance_spans`` (lines in order), ``views``
    by ``glance_lines``: the comparisons below cover all three."""
    lines = WALKS[walk](ROW + b"\n" + RESULT)
    in_order = lines.in_order()
    assert (in_order is None) == (walk == "views")
    assert in_order is None or (in_order[1] is None) == (walk == "found")


def _agree(data: bytes) -> None:
    assert disagreement(data) is None


def _rebuilds_agree(data: bytes) -> None:
    for profile in PROFILES.values():
        results = []
        for native in (NATIVE, None):
            with glancing(native):
                results.append(drive(data, profile, Options(), None).to_json())
        assert results[0] == results[1]


ROW = (b'{"parentUuid":"p","isSidechain":false,"type":"assistant","uuid":"u",'
       b'"timestamp":"2026-01-01T00:00:00.000Z","message":{"id":"msg_1","role":"assistant",'
       b'"content":[{"type":"text","text":"a \\"b\\" \\u00e9 \\n c"},{"type":"tool_use",'
       b'"id":"t1","name":"Bash","input":{"command":"ls","n":[1,-2.5e3,true,null]}}]}}')
RESULT = (b'{"parentUuid":"u","type":"user","uuid":"r","timestamp":"2026-01-01T00:00:01Z",'
          b'"sourceToolAssistantUUID":"u","message":{"role":"user","content":[{"type":'
          b'"tool_result","tool_use_id":"t1","content":"ok"}]}}')

EDGES = [
    ROW, RESULT,
    ROW + b" \t\r", b" " + ROW, b"\xef\xbb\xbf" + ROW, ROW + b"x", ROW[:-1],
    b'{"type":"user","uuid":"a","uuid":"b","parentUuid":"a"}',
    b'{"type":"progress","uuid":"a","type":"user"}',
    b'{"type":"user","uuid":"a","message":{"content":[{"type":"tool_result","tool_use_id":"t"}]},'
    b'"message":{"content":"plain"}}',
    b'{"type":"user","uuid":"a","message":{"content":[{"type":"tool_result","tool_use_id":"t"}],'
    b'"content":null}}',
    b'{"type":"user","uuid":"a","message":{"content":[{"type":"tool_result"},'
    b'{"type":"tool_result","tool_use_id":7},{"tool_use_id":"z","type":"tool_result",'
    b'"type":"text"}]}}',
    b'{"type":"assistant","uuid":"c","message":{"id":"m1","id":"m2","content":[{"type":'
    b'"tool_use","id":"t1","id":"t2"},{"type":"tool_use"},3,"x",null,[]]}}',
    b'{"type":"user","uuid":"c","message":{"id":"m1","content":[{"type":"tool_use","id":"t"}]}}',
    b'{"\\u0074ype":"user","\\u0075uid":"d"}',
    b'{"type":"user","uuid":"d","message":{"\\u0063ontent":[{"type":"tool_result"}]}}',
    b'{"type":"user","uuid":"d","message":{"content":[{"\\u0074ype":"tool_result"}]}}',
    b'{"type":"user","uuid":"\\u0064","parentUuid":"\\u0063"}',
    b'{"type":"us\\u0065r","uuid":"d"}',
    b'{"type":"user","uuid":"a","x":"\\ud800"}',
    b'{"type":"user","uuid":"a","x":"\\ud83d\\ude00"}',
    *(b'{"type":"user","uuid":"a","x":"' + pair + b'"}' for pair in (
        b"\\ud83d\\u0041", b"\\ud83d", b"\\ude00\\ud83d", b"\\uDBFF\\uDFFF", b"\\ud83d\\ude0",
        b"\\ud83d\\", b"\\ud83d\\ud83d")),
    b'{"type":"user","uuid":"a","x":"\\uDC00\\uZZZZ"}',
    b'{"type":"user","uuid":"a","x":"\\x"}',
    b'{"type":"user","uuid":"a","x":"tab\there"}',
    b'{"type":"user","uuid":"a","x":"\x7f\xff\xfe"}',
    b'{"type":"user","uuid":"\xff","parentUuid":"\xc3"}',
    b'{"type":"user","uuid":"a","agentId":"\xff"}',
    b'{"type":"user","uuid":"a","x":1e400,"y":-0,"z":0.5E-7,"w":-12.0e+3}',
    b'{"type":"user","uuid":"a","x":01}', b'{"type":"user","uuid":"a","x":1.}',
    b'{"type":"user","uuid":"a","x":.5}', b'{"type":"user","uuid":"a","x":-}',
    b'{"type":"user","uuid":"a","x":1e}', b'{"type":"user","uuid":"a","x":+1}',
    b'{"type":"user","uuid":"a","x":tru}', b'{"type":"user","uuid":"a","x":nul}',
    b'{"type":"user","uuid":"a","x":NaN}', b'{"type":"user","uuid":"a",}',
    b'{"type":"user","uuid":"a" "x":1}', b'{"type":"user","uuid":"a","x":[1,]}',
    b'{"type":"user","uuid":"a","x":' + b"[" * 300 + b"]" * 300 + b"}",
    b'{"type":"user","uuid":"a","x":' + b'{"a":' * 300 + b"1" + b"}" * 300 + b"}",
    b'{"type":"user","uuid":"a","isSidechain":true}',
    b'{"type":"user","uuid":"a","isSidechain":null,"teamName":null,"agentId":null}',
    b'{"type":"user","uuid":"a","teamName":""}', b'{"type":"user","uuid":"a","agentId":"x"}',
    b'{"type":"user","uuid":"a","agentId":3}', b'{"type":"user","uuid":"a","parentUuid":3}',
    b'{"type":"user","uuid":"a","parentUuid":""}',
    b'{"type":"user","uuid":"a","isMeta":true}', b'{"type":"user","uuid":"a","isMeta":0}',
    b'{"type":"user","uuid":"a","isMeta":false,"closesQuietTurn":null}',
    b'{"type":"user","uuid":"a","closesQuietTurn":false}',
    b'{"type":"user","uuid":"a","hostHiddenToolUseIds":[]}',
    b'{"type":"user","uuid":"a","ranByToolUseId":"t"}',
    b'{"type":"user","uuid":"a","sourceToolAssistantUUID":5}',
    b'{"type":"user","uuid":"a","sourceToolAssistantUUID":"\\u0075"}',
    b'{"type":"system","subtype":"voice_call_talk","uuid":"k","content":"x",'
    b'"origin":{"kind":"voice-call"}}',
    b'{"type":"system","subtype":"voice\\u005fcall_talk","uuid":"k","content":"x",'
    b'"origin":{"kind":"voice-call"}}',
    b'{"type":"system","subtype":7,"uuid":"k"}',
    b'{"type":"attachment","uuid":"l","attachment":{"type":"queued_command","prompt":"p"}}',
    b'{"type":"queue-operation","operation":"enqueue","content":"x"}',
    b'{"type":"host-row","uuid":"h","ranByToolUseId":"t"}',
    b'{"type":"user","uuid":"a","message":"text","attachment":3}',
    b'{"type":"user","uuid":"a","message":{"content":{"type":"tool_result"}}}',
    b'{"type":"user","uuid":"a","message":[1]}',
    b'{"type":"user","uuid":"a","timestamp":null,"message":{"content":[{"type":"tool_result",'
    b'"tool_use_id":"t"}]}}',
    b'{"type":"user","uuid":"a","timestamp":12,"message":{"content":[{"type":"tool_result",'
    b'"tool_use_id":"t"}]}}',
    b'{"type":"user","uuid":"a","timestamp":"\\u0032","message":{"content":[{"type":'
    b'"tool_result","tool_use_id":"t"}]}}',
    b'{"type":"user","uuid":"a","timestamp":"\xff","message":{"content":[{"type":"tool_result",'
    b'"tool_use_id":"t"}]}}',
    b"{}", b"{", b"[]", b"null", b'"x"', b"", b" ", b"\x00",
]


@needs_native
@pytest.mark.parametrize("at", range(len(EDGES)))
def test_the_c_and_python_glances_agree_on_a_line_at_an_edge(at: int) -> None:
    line = EDGES[at]
    for data in (line, line + b"\n", ROW + b"\n" + line + b"\n" + RESULT):
        _agree(data)
    _rebuilds_agree(ROW + b"\n" + line + b"\n" + RESULT + b"\n")


@needs_native
def test_the_c_glance_keeps_plain_rows_undecoded_and_shares_the_parent_string() -> None:
    """What makes it fast: a plain row stays bytes, its parent is the previous row's uuid
    object (one string for a chain), and the stamp of a tool result is kept."""
    result = parsed(ROW + b"\n" + RESULT + b"\n", NATIVE)
    stored = list(result.entries.stored())  # type: ignore[attr-defined]
    assert [type(item) for item in stored] == [Pending, Pending]
    assert result.facts is not None
    assert result.facts[1][2] is result.facts[0][0]
    assert stored[1].stamp == "2026-01-01T00:00:01Z"
    assert result.facts[0][5] == ("t1",) and result.facts[1][6] == ("t1",)


@needs_native
@pytest.mark.parametrize("line", [ROW, RESULT, EDGES[11], EDGES[12]])
def test_every_prefix_of_a_row_is_parsed_alike(line: bytes) -> None:
    _agree(b"\n".join(line[:cut] for cut in range(len(line) + 1)))


_FIELDS = ["uuid", "type", "parentUuid", "subtype", "isSidechain", "teamName", "agentId",
           "isMeta", "closesQuietTurn", "hostHiddenToolUseIds", "ranByToolUseId",
           "sourceToolAssistantUUID", "timestamp", "message", "content", "id", "tool_use_id",
           "attachment", "x"]
_STRINGS = st.sampled_from(["user", "assistant", "progress", "system", "tool_use",
                            "tool_result", "voice_call_talk", "a", "b", "", "msg_1", "t1",
                            "2026-01-01T00:00:00Z", "é", "\ud800", "\n"])
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False,
                     allow_infinity=False), _STRINGS)


def _pairs(values: st.SearchStrategy[Any]) -> st.SearchStrategy[list[tuple[str, Any]]]:
    return st.lists(st.tuples(st.sampled_from(_FIELDS), values), max_size=8)


_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), _pairs(inner).map(lambda pairs: ("object", pairs))),
    max_leaves=20)


def _text(value: Any, ascii_only: bool) -> str:
    """JSON text of a value, objects written from (key, value) pairs: duplicate keys stay."""
    if type(value) is tuple and value[0] == "object":
        return "{" + ",".join(json.dumps(k, ensure_ascii=ascii_only) + ":" +
                              _text(v, ascii_only) for k, v in value[1]) + "}"
    if type(value) is list:
        return "[" + ",".join(_text(item, ascii_only) for item in value) + "]"
    return json.dumps(value, ensure_ascii=ascii_only)


@st.composite
def lines_of_any_shape(draw: st.DrawFn) -> bytes:
    """An object line under the graph's field names, each of any JSON shape, mostly a
    row the C glance may accept (a string uuid and a conversation type first)."""
    head = draw(st.sampled_from([[], [("uuid", "u"), ("type", "user")],
                                 [("type", "assistant"), ("uuid", "v")]]))
    pairs = head + draw(_pairs(_VALUES))
    text = _text(("object", pairs), draw(st.booleans()))
    return text.encode("utf-8", "surrogatepass")


@needs_native
@settings(max_examples=400, deadline=None)
@given(st.lists(lines_of_any_shape(), min_size=1, max_size=6))
def test_the_c_and_python_glances_agree_on_rows_of_any_shape(lines: list[bytes]) -> None:
    _agree(b"\n".join(lines))


@needs_native
@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300), st.sampled_from([ROW, RESULT, b""]))
def test_the_c_and_python_glances_agree_on_any_bytes(data: bytes, row: bytes) -> None:
    _agree(row + b"\n" + data)
    _agree(row[: len(row) // 2] + data)


@needs_native
@settings(max_examples=60, deadline=None)
@given(corrupted(transcripts(rewinds=True, compaction=True)))
def test_the_c_and_python_glances_agree_on_corrupted_transcripts(c: Any) -> None:
    _agree(c.data)
    _rebuilds_agree(c.data)


@needs_native
def test_the_c_glance_refuses_lines_it_is_handed_outside_the_buffer() -> None:
    """A caller's mistake is a Python error, never a read past the buffer."""
    entries: list[Any] = []
    with pytest.raises(ValueError, match="outside the buffer"):
        NATIVE.glance_lines([(1, b"x" * 10, 5)], b"0123456789", entries, [], [],
                            lambda *args: None)
    with pytest.raises(TypeError):
        NATIVE.glance_lines([(1, b"x")], b"0123456789", entries, [], [], lambda *args: None)
    with pytest.raises(ValueError, match="outside the buffer"):
        NATIVE.glance_spans(b"0123\n56789", 0, 1, [11], entries, [], [], lambda *a: None)
    with pytest.raises(ValueError, match="not lines' starts"):
        NATIVE.glance_spans(b"0123\n56789", 0, 1, [0, 11], entries, [], [], lambda *a: None)
    with pytest.raises(ValueError, match="not lines' starts"):
        NATIVE.glance_spans(b"0123\n56789", 0, 1, [0, 3], entries, [], [], lambda *a: None)
    with pytest.raises(ValueError, match="outside the buffer"):
        NATIVE.glance_spans(b"0123", 9, 1, None, entries, [], [], lambda *a: None)
    assert entries == []


@needs_native
def test_a_line_is_never_read_past_its_lf() -> None:
    """Given starts that skip a line, the span holds an LF: JSON whitespace, but never
    inside a line, so the span is refused rather than read as one row."""
    data = b'{"type":"user",\n"uuid":"a"}\n{}'
    refused: list[bytes] = []
    kept: list[Any] = []

    def refuse(number: int, line: Any, start: int, buffer: bytes, previous: Any) -> Any:
        refused.append(bytes(line))
        return previous

    NATIVE.glance_spans(data, 0, 1, [0, len(data) - 2], kept, [], [], refuse)
    assert kept == [] and refused[0] == b'{"type":"user",\n"uuid":"a"}'


def test_a_profile_without_the_c_glance_rebuilds_the_same() -> None:
    """The SDK profile rebuilds a real-shaped transcript alike either way (and runs where
    the C module is not built)."""
    data = ROW + b"\n" + RESULT + b"\n"
    with glancing(None):
        python = drive(data, get_profile("sdk"), Options(), None).to_json()
    assert python == drive(data, get_profile("sdk"), Options(), None).to_json()
    assert [m["uuid"] for m in python["messages"]] == ["u", "r"]


def test_a_buffer_that_is_not_bytes_is_glanced_in_python() -> None:
    """A caller's ``bytearray`` (the C glance reads ``bytes`` only) rebuilds the same."""
    data = ROW + b"\n" + RESULT + b"\n"
    got = drive(bytearray(data), get_profile("sdk"), Options(), None).to_json()  # type: ignore[arg-type]
    assert got == drive(data, get_profile("sdk"), Options(), None).to_json()


@needs_native
def test_a_surrogate_pair_escaped_in_a_string_it_skips_is_kept() -> None:
    """Python's ``json.dumps`` writes an emoji as a pair of escapes: the C glance reads the
    pair as the one character it is and keeps the row (a lone half it leaves to Python)."""
    pair = b'{"type":"user","uuid":"a","message":{"content":"\\ud83d\\ude00"}}'
    lone = b'{"type":"user","uuid":"b","message":{"content":"\\ud83d"}}'
    stored = list(parsed(pair + b"\n" + lone, NATIVE).entries.stored())  # type: ignore[attr-defined]
    assert [type(item) for item in stored] == [Pending, dict]
    assert stored[1]["message"]["content"] == "\ud83d"


def _portable_build(folder: Path) -> ModuleType:
    """The C glance compiled with its portable 8-byte steps alone (``RECHAIN_NO_SIMD``), as
    a machine without SSE2 runs it, loaded beside the installed one."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:  # pragma: no cover
        pytest.skip("no C compiler here")
    source = Path(parse.__file__).with_name("_glance.c")
    built = folder / f"_glance{sysconfig.get_config_var('EXT_SUFFIX')}"
    subprocess.run([compiler, "-O2", "-DRECHAIN_NO_SIMD", "-shared", "-fPIC",
                    f"-I{sysconfig.get_paths()['include']}", str(source), "-o", str(built)],
                   check=True, capture_output=True)
    spec = importlib.util.spec_from_file_location("_glance", built)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.configure(Pending, UNDEFINED, UNKEPT, MAIN_WRITER, KINDS)
    return module


@pytest.fixture(scope="module")
def portable(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    if not (Path(parse.__file__).with_name("_glance.c")).exists():  # pragma: no cover
        pytest.skip("the C source is not installed here")
    return _portable_build(tmp_path_factory.mktemp("portable"))


@pytest.mark.parametrize("at", range(len(EDGES)))
def test_the_portable_c_glance_agrees_on_a_line_at_an_edge(portable: ModuleType,
                                                             at: int) -> None:
    """The 8-byte steps (every machine without SSE2) on the lines at an edge, a long
    string around each so that every step size is taken."""
    padding = b"x" * 37
    line = EDGES[at].replace(b'"a"', b'"a' + padding + b'"')
    for data in (line, ROW + b"\n" + line + b"\n" + RESULT):
        assert disagreement(data, portable) is None


@settings(max_examples=150, deadline=None)
@given(st.lists(lines_of_any_shape(), min_size=1, max_size=6))
def test_the_portable_c_glance_agrees_on_rows_of_any_shape(portable: ModuleType,
                                                           lines: list[bytes]) -> None:
    assert disagreement(b"\n".join(lines), portable) is None
