"""The reference's harnesses for ClusterFuzzLite / OSS-Fuzz: each one a Hypothesis test too.

The OSS-Fuzz Python pattern: a fuzzer first runs its Hypothesis test (which
replays the example database and shrinks what it finds), then hands libFuzzer
``test.hypothesis.fuzz_one_input``, so libFuzzer's bytes drive the same test.
Here the test draws the harness' input as bytes (up to its contract's
``max_len``) and fails on anything the contract does not allow: a finding
crashes the fuzzer, as ClusterFuzzLite needs. ``write_entry_points`` writes
one small script per harness for ``compile_python_fuzzer`` (``.clusterfuzzlite/build.sh``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ENTRY = '''"""ClusterFuzzLite fuzzer for rechain's {name} harness ({spec})."""
import sys

from rechain.fuzz.clusterfuzz import main

if __name__ == "__main__":
    main({name!r}, sys.argv)
'''


class ContractBreachError(AssertionError):
    """A harness input broke the harness' contract (the finding's signature and message)."""


def hypothesis_test(name: str, max_examples: int = 100) -> Any:
    """The named reference harness as a Hypothesis test over bytes."""
    from rechain.fuzz.contract import check
    from rechain.fuzz.registry import TARGETS
    from rechain.fuzz.target import Feeder, load

    function, contract = load(TARGETS[name].spec)
    feed = Feeder(function, contract)

    @settings(max_examples=max_examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.binary(max_size=contract.max_len))
    def harness_holds(data: bytes) -> None:
        failure = check(lambda: feed(data), contract.allowed)
        if failure is not None:
            raise ContractBreachError(f"{failure.signature}: {failure.message}")

    return harness_holds


def fuzz_one_input(name: str) -> Callable[[bytes], Any]:
    """libFuzzer's entry for the harness: Hypothesis reads the test's input from the bytes."""
    return hypothesis_test(name).hypothesis.fuzz_one_input  # type: ignore[no-any-return]


def main(name: str, argv: Sequence[str]) -> None:
    """What a built fuzzer runs: the Hypothesis test briefly, then libFuzzer (atheris)."""
    import atheris

    test = hypothesis_test(name, max_examples=20)
    test()
    atheris.instrument_all()  # rechain's code reports coverage to libFuzzer
    atheris.Setup(list(argv), test.hypothesis.fuzz_one_input)
    atheris.Fuzz()


def reference_names() -> list[str]:
    from rechain.fuzz.registry import REFERENCE

    return [target.name for target in REFERENCE]


def write_entry_points(directory: Path) -> list[Path]:
    """``fuzz_<harness>.py`` for every reference harness (dashes become underscores)."""
    from rechain.fuzz.registry import TARGETS

    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name in reference_names():
        path = directory / f"fuzz_{name.replace('-', '_').replace('.', '_')}.py"
        path.write_text(ENTRY.format(name=name, spec=TARGETS[name].spec), encoding="utf-8")
        written.append(path)
    return written


def _cli(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rechain.fuzz.clusterfuzz",
                                     description="write one fuzzer script per harness")
    parser.add_argument("directory", type=Path)
    args = parser.parse_args(argv)
    for path in write_entry_points(args.directory):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(_cli())
