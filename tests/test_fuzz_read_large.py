"""The large-file read harness judges the lines read, whatever form the source keeps them in."""

from __future__ import annotations

from rechain.fuzz.fuzz_read_large import one_input

SNAPSHOT = (b'{"type":"attribution-snapshot","messageId":"m1","surface":"cli",'
            b'"fileStates":{"a.py":{"claudeLines":1,"humanLines":2}}}')


def test_a_snapshot_read_last_is_in_order() -> None:
    """Found by the harness: the SDK reads the one snapshot after every other line; the
    check took that for lines out of order once the read kept its lines undecoded."""
    one_input(SNAPSHOT + b"\n\n")
    one_input(b'{"type":"user"}\n' + SNAPSHOT + b"\n" + b'{"type":"user"}\n')
