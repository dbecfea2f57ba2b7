"""Scenarios about bytes: line splitting, whitespace, encodings and lines that are not entries.

Each case starts from a short valid conversation and damages some lines, so
what a reader drops shows up as a cut in the rebuilt chain.
"""

from __future__ import annotations

from rechain.corpus.build import Line, Session, dumps, jsonl, text
from rechain.corpus.scenario import collector

SCENARIOS, scenario = collector()


def _rows(s: Session, turns: int = 3) -> list[bytes]:
    """``turns`` prompt/reply pairs u1 a1 u2 a2 ..., each already serialised."""
    asks = ["Open the changelog.", "Add an entry for 1.4.", "Sort the entries.", "Commit."]
    answers = ["Opened CHANGELOG.md.", "Added 1.4.0.", "Sorted by date.", "Committed."]
    rows: list[bytes] = []
    parent: str | None = None
    for n in range(1, turns + 1):
        rows.append(dumps(s.user(f"u{n}", asks[n - 1], parent)))
        rows.append(dumps(s.assistant(f"a{n}", [text(answers[n - 1])], f"u{n}")))
        parent = f"a{n}"
    return rows


@scenario("parse-blank-and-whitespace-lines", "parse", "blank-line")
def blank_lines(s: Session) -> bytes:
    """Empty lines, lines of spaces and tabs, and rows indented with spaces or a tab."""
    u1, a1, u2, a2, u3, a3 = _rows(s)
    return b"\n".join(
        [b"", u1, b"   ", a1, b"\t\t", b" " + u2, b"\t" + a2, b"\x0b\x0c", u3, b"", a3, b"", b""]
    )


@scenario("parse-non-object-lines", "parse", "non-object")
def non_objects(s: Session) -> list[Line]:
    """JSON arrays, strings, numbers, null and objects of unknown or missing type between rows."""
    u1, a1, u2, a2, u3, a3 = _rows(s)
    stray = {"parentUuid": s.uid("a1"), "uuid": s.uid("x1"), "message": {"role": "user"}}
    return [
        b"[]",
        u1,
        b'"user"',
        a1,
        b"42",
        b"null",
        u2,
        b"true",
        {"type": "User", "uuid": s.uid("x2"), "parentUuid": s.uid("a1")},
        stray,
        a2,
        {
            "type": "queue-operation",
            "operation": "enqueue",
            "timestamp": "2026-11-20T09:00:09.000Z",
        },
        u3,
        b"[" + a3 + b"]",
    ]


@scenario("parse-truncated-last-line", "parse", "truncated")
def truncated_last(s: Session) -> bytes:
    """The file ends in the middle of the last row, with no newline, as after a crash."""
    rows = _rows(s)
    return b"\n".join([*rows[:-1], rows[-1][: len(rows[-1]) // 2]])


@scenario("parse-truncated-then-appended", "parse", "truncated")
def truncated_appended(s: Session) -> bytes:
    """A row cut off mid-write, with the next session's first row appended on the same line."""
    u1, a1, u2, a2, u3, a3 = _rows(s)
    return jsonl([u1, a1, u2, a2[: len(a2) - 40] + u3, a3])


@scenario("parse-bom", "parse", "bom")
def bom(s: Session) -> list[Line]:
    """A UTF-8 byte order mark before the first row and another one in front of a later row."""
    u1, a1, u2, a2, u3, a3 = _rows(s)
    return [b"\xef\xbb\xbf" + u1, a1, u2, b"\xef\xbb\xbf" + a2, u3, a3]


@scenario("parse-crlf", "parse", "crlf")
def crlf(s: Session) -> bytes:
    """Every row ends in CRLF, as after a checkout with autocrlf."""
    return jsonl(_rows(s), newline=b"\r\n")


@scenario("parse-lone-cr", "parse", "lone-cr")
def lone_cr(s: Session) -> list[Line]:
    """Two rows on one line separated by a lone CR, and a row that ends in CR before its LF."""
    u1, a1, u2, a2, u3, a3 = _rows(s)
    return [u1, a1 + b"\r" + u2, a2, u3 + b"\r", a3]


@scenario("parse-nan-and-infinity", "parse", "nan")
def nan(s: Session) -> list[Line]:
    """Rows carrying NaN, Infinity and -Infinity as bare numbers, which strict JSON refuses."""
    u1, a1, u2, a2, u3, a3 = _rows(s)
    return [
        u1,
        a1.replace(b'"output_tokens":23', b'"output_tokens":NaN'),
        u2,
        a2.replace(b'"input_tokens":4', b'"input_tokens":Infinity'),
        u3,
        a3.replace(b'"input_tokens":4', b'"input_tokens":-Infinity'),
    ]


@scenario("parse-nbsp-and-form-feed", "parse", "nbsp", "form-feed")
def nbsp_form_feed(s: Session) -> list[Line]:
    """NBSP before a row, form feed after a row, and form feed or vertical tab before rows."""
    u1, a1, u2, a2, u3, a3 = _rows(s)
    return [u1, b"\xc2\xa0" + a1, u2, a2 + b"\x0c", b"\x0c" + u3, b"\x0b" + a3]


@scenario("parse-invalid-utf8", "parse", "invalid-utf8")
def invalid_utf8(s: Session) -> list[Line]:
    """Invalid UTF-8 inside strings (stray, truncated, overlong, surrogate) and between tokens."""
    u1, a1, u2, a2, u3, a3 = _rows(s)
    between = dumps(s.user("x1", "Extra prompt.", "a3")).replace(b',"uuid"', b',\xfe"uuid"')
    return [
        u1.replace(b"Open the", b"Open \xff the \x80"),
        a1.replace(b"Opened", b"Op\xe2\x82ened \xc0\xaf"),
        u2.replace(b"Add an", b"Add \xed\xa0\x80 an"),
        a2,
        u3.replace(b"Sort the", b"Sort \xf4\x90\x80\x80 the"),
        a3,
        between,
    ]


@scenario("parse-no-final-newline", "parse")
def no_final_newline(s: Session) -> bytes:
    """A complete last row with no newline after it."""
    return jsonl(_rows(s), final_newline=False)


@scenario("parse-control-characters", "parse")
def control_chars(s: Session) -> list[Line]:
    """A raw tab or SOH inside a string rejects a row; a NUL before a row and DEL in a string do
    not."""
    u1, a1, u2, a2, u3, a3 = _rows(s)
    raw_tab = dumps(s.user("x1", "Extra prompt.", "a3")).replace(b"Extra prompt", b"Extra\tprompt")
    raw_soh = dumps(s.user("x2", "Extra prompt.", "x1")).replace(
        b"Extra prompt", b"Extra\x01prompt"
    )
    return [u1, a1, b"\x00" + u2, a2.replace(b"Added", b"Add\x7fed"), u3, a3, raw_tab, raw_soh]


@scenario("parse-duplicate-keys", "parse", "duplicate-uuid")
def duplicate_keys(s: Session) -> list[Line]:
    """Rows with a repeated key: the last message, isMeta or uuid value is the one read."""
    u1, a1, u2, a2, u3, a3 = _rows(s)
    return [
        u1,
        a1[:-1] + b',"message":{"role":"assistant","content":"second message key"}}',
        u2[:-1] + b',"isMeta":false,"isMeta":true}',
        a2,
        u3,
        a3[:-1] + b',"uuid":"' + s.uid("a9").encode() + b'"}',
    ]


@scenario("parse-unicode-text", "parse")
def unicode_text(s: Session) -> list[Line]:
    """Emoji, combining marks, escaped surrogate pairs, a lone escaped surrogate and U+2028."""
    stamps = dumps(s.session_stamps())[1:-1]
    return [
        s.user("u1", "Résumé the naïve café 😀 é (e + U+0301)", None),
        b'{"parentUuid":"' + s.uid("u1").encode() + b'","isSidechain":false,"type":"assistant",'
        b'"message":{"id":"' + s.msg_id("a1").encode() + b'","role":"assistant","content":'
        b'[{"type":"text","text":"pair \\ud83d\\ude00 lone \\ud800 sep \xe2\x80\xa8 end"}]},'
        b'"uuid":"' + s.uid("a1").encode() + b'","timestamp":"2026-11-20T09:00:05.000Z",'
        + stamps + b'}',
    ]


@scenario("parse-number-edge-cases", "parse")
def numbers(s: Session) -> list[Line]:
    """Numbers JavaScript changes when it parses them: huge, beyond 2^53, -0, 1.0 and 1E2."""
    u1, a1, u2, a2 = _rows(s, 2)
    usage = b'"usage":{"input_tokens":12345678901234567890,"output_tokens":1e400,'
    usage += b'"cache_read_input_tokens":-0,"cache_creation_input_tokens":1.0,"weight":1E2,'
    usage += b'"ratio":0.1000000000000000055511151231257827,"tiny":5e-324,"small":1e-7}'
    start = a1.index(b'"usage":{')
    end = a1.index(b"}", start) + 1
    return [u1, a1[:start] + usage + a1[end:], u2, a2]


@scenario("parse-type-and-uuid-variants", "parse", "missing-uuid")
def type_variants(s: Session) -> list[Line]:
    """Rows whose type has odd case or spaces, or whose uuid is an object, are not entries."""
    u1, a1, u2, a2, u3, a3 = _rows(s)
    return [
        u1,
        a1,
        u2.replace(b'"type":"user"', b'"type":"user "'),
        u2.replace(b'"type":"user"', b'"type":"USER"'),
        u2.replace(b'"uuid":"', b'"uuid":{"id":"').replace(b'","timestamp"', b'"},"timestamp"'),
        a2,
        u3,
        a3,
    ]
