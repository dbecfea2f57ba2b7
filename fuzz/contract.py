"""Error contracts: what a harness may do with an input, and what counts as a finding.

A harness declares the exceptions that are documented outcomes (say
``JsonError`` for the line parser); any other exception is a finding, as is a
hang past ``timeout_s`` or memory past ``rss_mb`` (those two are enforced by
libFuzzer in the worker). Failures are grouped by a signature (exception type
and the innermost frame outside the standard library), so one bug found a
thousand times is one finding. Standard library only: this also runs inside a
third-party reader's venv.
"""

from __future__ import annotations

import sysconfig
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

InputKind = Literal["bytes", "path"]
_PATHS = sysconfig.get_paths()
_STDLIB = (_PATHS["stdlib"], _PATHS["platstdlib"])
#: in a venv, site-packages lies under platstdlib: a reader's code is not the stdlib
_SITE = (_PATHS["purelib"], _PATHS["platlib"])


@dataclass(frozen=True, slots=True)
class Contract:
    """What a harness promises about every input it is given."""

    #: exceptions that are documented outcomes, not findings
    allowed: tuple[type[BaseException], ...] = ()
    #: a single input running longer than this is a finding (a hang)
    timeout_s: int = 10
    #: resident memory past this is a finding (a blow-up)
    rss_mb: int = 2048
    #: the largest input the fuzzer builds
    max_len: int = 65536
    #: how the input reaches the target: the bytes, or a path to a file holding them
    input: InputKind = "bytes"
    #: file name used in ``path`` mode (some readers look at the suffix)
    file_name: str = "session.jsonl"
    #: seeds, and whether inputs are transcripts (structure-aware mutator): ``file``
    #: windows of whole files, ``line`` single lines; ``random`` buffers of random bytes
    #: (Hypothesis-driven harnesses) and ``none`` are not transcripts
    seeds: Literal["file", "line", "random", "none"] = "file"

    @property
    def transcripts(self) -> bool:
        return self.seeds in ("file", "line")

    #: hand-written seed inputs, added to whatever ``seeds`` builds
    examples: tuple[bytes, ...] = ()
    #: share of mutations left to libFuzzer's (fast, C) byte mutator
    byte_share: float = 0.25
    description: str = ""

    def with_overrides(self, **changes: Any) -> Contract:
        """A copy with some fields replaced (command-line overrides)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


#: the contract of a harness fed one line of a transcript (seeded with lines, mostly bytes)
ONE_LINE: dict[str, Any] = {"max_len": 4096, "timeout_s": 5, "seeds": "line", "byte_share": 0.7}


def harness(**fields: Any) -> Callable[[Callable[[bytes], Any]], Callable[[bytes], Any]]:
    """Attach a :class:`Contract` to a harness function as ``fuzz_contract``."""
    contract = Contract(**fields)

    def attach(function: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
        function.fuzz_contract = contract  # type: ignore[attr-defined]
        return function

    return attach


def contract_of(function: Callable[..., Any], module: str) -> Contract:
    """The declared contract; a plain reader gets the default one (no exception allowed)."""
    declared = getattr(function, "fuzz_contract", None)
    if isinstance(declared, Contract):
        return declared
    return Contract(description=f"{module}: any exception is a finding")


@dataclass(frozen=True, slots=True)
class Failure:
    """One input's breach of the contract."""

    signature: str
    exception: str
    message: str
    where: str
    trace: str = field(repr=False, default="")

    def to_json(self) -> dict[str, str]:
        return {
            "signature": self.signature,
            "exception": self.exception,
            "message": self.message,
            "where": self.where,
            "traceback": self.trace,
        }


def _innermost_frame(error: BaseException) -> traceback.FrameSummary | None:
    """The deepest frame outside the standard library (the code that is at fault)."""
    frames = traceback.extract_tb(error.__traceback__)
    for frame in reversed(frames):
        name = frame.filename
        if name.startswith(_SITE) or not (name.startswith(_STDLIB) or name.startswith("<")):
            return frame
    return frames[-1] if frames else None


def _short(path: str) -> str:
    parts = Path(path).parts
    return "/".join(parts[-2:])


def failure_of(error: BaseException) -> Failure:
    """Describe an exception as a finding with a stable signature."""
    kind = type(error)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    frame = _innermost_frame(error)
    where = f"{_short(frame.filename)}:{frame.name}:{frame.lineno}" if frame else "?"
    message = str(error)
    if len(message) > 300:
        message = message[:300] + "..."
    trace = "".join(traceback.format_exception(error))
    return Failure(f"{name}@{where}", name, message, where, trace[-4000:])


def check(call: Callable[[], Any], allowed: tuple[type[BaseException], ...]) -> Failure | None:
    """Run one input; None when it returned or raised a documented outcome."""
    try:
        call()
    except allowed:
        return None
    except KeyboardInterrupt:
        raise
    except BaseException as error:
        return failure_of(error)
    return None
