"""A worker's output reaches the campaign log up to a cap: a target that prints on every
input, or without end in a hang, must not fill the disk or rechain's memory."""

from __future__ import annotations

import io
import os
import threading

from rechain.conformance.jsonl_process import STDERR_PIECE
from rechain.fuzz import groups
from rechain.fuzz.runner import CappedLog, Report, _Reader, copy_capped


def test_a_stream_is_logged_up_to_its_cap_then_said_to_be_left_out() -> None:
    log = io.BytesIO()
    capped = CappedLog(log, b"[worker 2] ", limit=80)
    for _ in range(10):
        capped.write(b"printed by the target\n")
    kept = log.getvalue()
    assert kept.startswith(b"[worker 2] printed by the target\n" * 2 + b"[worker 2] pr")
    assert kept.endswith(b"[worker 2] [rechain: the rest of this stream is left out of the "
                         b"log: over %d MiB]\n" % (groups.OUTPUT_LIMIT >> 20))
    assert kept.count(b"left out") == 1 and len(kept) < 80 + 200


def test_what_the_target_prints_is_read_to_its_end_past_the_cap() -> None:
    """The copier drains the pipe whatever it keeps: a worker blocked on a full pipe would
    stop fuzzing (and pass its deadline) instead of being cut off in the log."""
    read_end, write_end = os.pipe()
    said = b"y\n" * (1 << 20)  # 2 MiB, 30 times a pipe's buffer

    def target() -> None:
        with os.fdopen(write_end, "wb") as out:
            out.write(said)

    writer = threading.Thread(target=target)
    writer.start()
    log = io.BytesIO()
    with os.fdopen(read_end, "rb") as stream:
        copy_capped(stream, CappedLog(log, limit=1000))
    writer.join(timeout=60)
    assert not writer.is_alive()
    assert log.getvalue().startswith(b"y\ny\n") and log.getvalue().count(b"left out") == 1


def test_a_stderr_line_without_end_is_read_in_pieces_and_the_status_after_it_counted() -> None:
    line = b"x" * (10 * STDERR_PIECE)  # no newline for 640 KiB
    said = line + b"\n#449\tINITED cov: 12 ft: 13 corp: 1/1b exec/s: 0 rss: 50Mb\n"
    report = Report("t", "m:f")
    log = io.BytesIO()
    reader = _Reader(io.BytesIO(said), log, 0.0, report)
    reader.run()
    assert reader.last_execs == 449 and reader.cov == 12
    assert log.getvalue() == said
