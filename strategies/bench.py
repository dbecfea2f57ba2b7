"""Generation-rate benchmark: transcripts per second, up to 50 entries each.

Run ``python -m rechain.strategies.bench [--examples N]``. It times Hypothesis drawing
``transcripts(max_entries=50)`` (everything: drawing, writing, the intended conversation,
event labels) and prints one line per configuration, plus the mean size drawn, and how the
dense configuration's CPU rate compares with its target.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from rechain.strategies.corruptions import corrupted
from rechain.strategies.scripts import transcripts
from rechain.strategies.transcript import Transcript


def rate(strategy: st.SearchStrategy[object],
         examples: int) -> tuple[float, float, float, float]:
    """(transcripts per wall second, per CPU second, mean lines, mean chain entries).

    CPU time is reported too because a shared machine's wall clock measures the load.
    """
    sizes: list[tuple[int, int]] = []

    @settings(max_examples=examples, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(value: object) -> None:
        t = value if isinstance(value, Transcript) else value.clean  # type: ignore[attr-defined]
        sizes.append((len(t.lines), sum(r.uuid is not None for r in t.records)))

    start, cpu = time.perf_counter(), time.process_time()
    run()
    took, cpu_took = time.perf_counter() - start, time.process_time() - cpu
    n = max(len(sizes), 1)
    return (len(sizes) / took, len(sizes) / cpu_took, sum(s[0] for s in sizes) / n,
            sum(s[1] for s in sizes) / n)


#: the dense configuration (about 50 chain entries each) and its target rate per CPU second
DENSE = "transcripts(min_ops=20, max_entries=50)"
DENSE_TARGET = 200


def main(argv: Sequence[str] | None = None) -> int:
    """Print the generation rate of the default and the dense configurations."""
    parser = argparse.ArgumentParser(prog="python -m rechain.strategies.bench")
    parser.add_argument("--examples", type=int, default=2000)
    args = parser.parse_args(argv)
    configs = {
        "transcripts(max_entries=50)": transcripts(max_entries=50),
        DENSE: transcripts(min_ops=20, max_entries=50),
        "corrupted(transcripts(max_entries=50))": corrupted(transcripts(max_entries=50)),
    }
    for name, strategy in configs.items():
        wall, cpu, lines, entries = rate(strategy, args.examples)
        print(f"{name:42s} {wall:7.1f}/s wall {cpu:7.1f}/s cpu  "
              f"mean {lines:5.1f} lines, {entries:5.1f} entries")
        if name == DENSE:
            print(f"{'':42s} target {DENSE_TARGET}/s cpu: {cpu / DENSE_TARGET:.2f} of it")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
