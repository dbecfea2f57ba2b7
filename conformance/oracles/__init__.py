"""Oracles: real readers of transcripts that the reference loader is checked against.

``registry`` says which oracles exist, at which pinned version and where they are
installed; ``install`` puts them into the rechain cache; each adapter module
(``ts_sdk`` for the TypeScript Agent SDK) runs one of them. Adapters raise
``OracleError`` so callers can tell "the oracle failed" from "our code failed".
"""


class OracleError(Exception):
    """An oracle could not answer: not installed, crashed, timed out or rejected the request."""


class OracleReaderError(OracleError):
    """The reader itself raised (e.g. ``UnicodeDecodeError``): a result, not a crash."""

    def __init__(self, oracle: str, error_type: str, detail: str) -> None:
        super().__init__(f"{oracle}: the reader raised {error_type}: {detail}")
        self.oracle = oracle
        self.error_type = error_type
        self.detail = detail
