"""``reference/js/date_v8.parse`` agrees with Node 20's ``Date.parse`` (V8), legacy forms too.

One Node process answers every string (JSON lines in, JSON lines out, TZ=UTC
as the oracles run); skipped when ``node`` is missing.
"""

from __future__ import annotations

import math
import subprocess
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from node_lines import NODE, ask, node_answering

from rechain.reference.js import date_v8

pytestmark = [pytest.mark.xdist_group("node-jsdate"),
              pytest.mark.skipif(NODE is None, reason="node is not installed")]
SCRIPT = ("const rl=require('readline').createInterface({input:process.stdin});"
          "rl.on('line',l=>{const t=Date.parse(JSON.parse(l));"
          "process.stdout.write(JSON.stringify(Number.isNaN(t)?null:t)+'\\n')});")


@pytest.fixture(scope="module")
def node() -> Iterator[subprocess.Popen[str]]:
    with node_answering(SCRIPT, env={'TZ': 'UTC'}) as proc:
        yield proc


def node_parse(proc: subprocess.Popen[str], text: str) -> float:
    answer = ask(proc, text)
    return math.nan if answer is None else float(answer)


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


KNOWN = [
    "2026-01-01T00:00:00.000Z", "2026-01-01", "2026-01-01T10:00", "2026-02-31T00:00:00Z",
    "2026-01-01T24:00:00Z", "2026-01-01T24:00:01Z", "2026-01-01t00:00:00z",
    "2026-01-01 10:00:00", "2026-01-01T10:00:00+0130", "2026-01-01T10:00:00+01:30",
    "+002026-01-01T00:00:00Z", "-000000-01-01T00:00:00Z", "2026-01-01T00:00:00.1234567Z",
    "Jan 1 2026", "Jan 1", "1 Jan 2026 10:00 PM", "Thu, 01 Jan 2026 00:00:00 GMT",
    "Thu Jan 01 2026 00:00:00 GMT+0100 (Central European Standard Time)", "2026/01/02",
    "1/2/2026", "1/2/26", "1/2/70", "12/31/1999 23:59:59.999", "January 5, 2026 10:30:15",
    "2026-1-2", "2026-01-02 10:00 EST", "10:00 2026-01-02", "1e3", "1000", "42", "", " ",
    "-1", "+1", "2026-01-01T00:00:00 UTC+2", "Jan 2026", "2026 Jan 5", "5 2026 Jan",
    "12:00 am Jan 5 2026", "12:00 pm Jan 5 2026", "13:00 pm Jan 5 2026", "Jan 5 2026 24:00",
    "Sat Jan 5 2026 (x(y)z) 10:00", "Jan 5 2026 10:00 z", "Jan 5 2026 10:00 PDT",
    "2026.01.05", "05.01.2026", "Jan-5-2026", "Jan 5 2026 10:00:00 GMT-8",
    "Jan 5 2026 10:00:00 GMT-08:30", "Jan 5 2026 10:00:00 +05", "Jan 5 2026 10:00:00 GMT+123",
    "Jan 5 2026 10.30", "Jan 5 2026 10:30.5", "foo 2026", "foo2026", "2026 foo",
    "Ju 5 2026", "Julyish 5 2026", "utcx 2026", "T10:00", "2026-01-01T", "2026-13-01",
    "2026-00-10", "2026-01-32", "0000-01-01", "0099-01-01T00:00:00Z", "99-01-01",
    "1 2 3 4", "10:00:00:00 Jan 5 2026", "Jan 5 2026 10::", "Jan 5 2026 10:00 am pm",
    "-199900", "-000001-01-01T00:00:00Z", "-000400-03-01", "-123456/",
    "10:00123456+1199912345610:00:00", "Jan 5 2026 10:00 GMT+0596",
]


def test_known_strings_parse_as_node_parses_them(node: subprocess.Popen[str]) -> None:
    wrong = [(t, date_v8.parse(t), node_parse(node, t)) for t in KNOWN
             if not same(date_v8.parse(t), node_parse(node, t))]
    assert wrong == []


PIECES = st.sampled_from([
    "2026", "26", "1", "01", "12", "31", "32", "0", "00", "2026-01-05", "1999", "10", "59",
    "999", "1234", "-", "+", ":", ".", "/", ",", " ", "  ", "T", "t", "Z", "z", "Jan", "dec",
    "September", "am", "PM", "GMT", "UTC", "UT", "EST", "pdt", "Mon", "(", ")", "(c)", "x",
    "é", "\u00a0", "24", "0800", "+0100", "-05:30", "T10:00", "10:00", "10:00:00", ".5",
])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, max_size=8).map("".join))
def test_generated_strings_parse_as_node_parses_them(
    node: subprocess.Popen[str], text: str
) -> None:
    assert same(date_v8.parse(text), node_parse(node, text)), text


def _two(top: int) -> st.SearchStrategy[str]:
    return st.integers(0, top).map("{:02d}".format)


STAMPS = st.builds(
    "{}-{}-{}T{}:{}:{}.{}Z".format,
    st.integers(0, 9999).map("{:04d}".format), _two(13), _two(32), _two(25), _two(60),
    _two(60), st.integers(0, 999).map("{:03d}".format))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(STAMPS)
def test_stamps_of_the_written_form_parse_as_node_parses_them(
    node: subprocess.Popen[str], text: str
) -> None:
    """The form rows are stamped with, read by one match; out-of-range fields (the 31st
    of February, hour 24, month 13) included."""
    assert same(date_v8.parse(text), node_parse(node, text)), text
