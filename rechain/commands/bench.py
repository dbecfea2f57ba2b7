"""``rechain bench``: benchmarks that print what they measured in one run."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from rechain.commands._paths import output_file
from rechain.conformance.bench.limited import DEFAULT_TIMEOUT_S, Bounds, default_memory_mb
from rechain.conformance.bench.synthetic import KINDS
from rechain.errors import UsageError

BENCH_READERS = ("reference:sdk", "agent-sdk-ts", "agent-sdk-py", "claude-code")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bench", help="run a benchmark and print its ratios")
    kinds = parser.add_subparsers(dest="bench", metavar="KIND", required=True)
    load = kinds.add_parser("load", help="reference load time vs read+orjson floor (and the SDKs)")
    load.add_argument("--size-mb", type=float, default=100.0, metavar="MB",
                      help="size of the generated transcript in MB (default 100)")
    load.add_argument("--runs", type=int, default=3, help="best of N runs (default 3)")
    load.add_argument("--seed", type=int, default=0,
                      help="seed of the generated transcript (default 0)")
    load.add_argument("--keep", type=Path, help="write the generated transcript here")
    load.add_argument("--kind", choices=KINDS, default="linear",
                      help="linear: nearly every line on the returned chain; mostly-dead: about "
                           "95%% of the lines on abandoned branches; compacted: 90%% of the "
                           "file before a compaction that keeps none of it; chain: one chain "
                           "of short "
                           "rows (about 370 bytes each); nul: a sparse file of NUL bytes "
                           "(default linear; --sizes too)")
    load.add_argument("--sizes", metavar="MB,...",
                      help="a scale curve instead: time and peak memory of the floor, each "
                           "profile and the SDKs at each size (e.g. 1,10,100,300), and each "
                           "curve's exponent")
    load.add_argument("--sdk-timeout", type=float, default=DEFAULT_TIMEOUT_S, metavar="SECONDS",
                      help="stop an SDK's measurement past this many seconds of wall time and "
                           "report it as stopped, without a figure (default "
                           f"{DEFAULT_TIMEOUT_S:g}; each SDK process, at each size)")
    load.add_argument("--sdk-memory-mb", type=float, default=None, metavar="MB",
                      help="stop an SDK's measurement once its processes hold more than MB "
                           "resident (default: 8192, or half the machine's memory if less)")
    load.add_argument("--stages", action="store_true",
                      help="also time each profile stage by stage (the file read, each stage "
                           "slot, the driver, the messages read), as x the floor of the run")
    load.set_defaults(handler=_load)
    listing = kinds.add_parser(
        "listing", help="session-list time at several file sizes (sparse files; must be flat)"
    )
    listing.add_argument("--sessions", type=int, default=100, metavar="N",
                         help="session files in the listed project (default 100)")
    listing.add_argument(
        "--sizes-mb", default="1,100", help="comma-separated file sizes in MB (default 1,100)"
    )
    listing.add_argument("--runs", type=int, default=3, help="best of N runs (default 3)")
    listing.set_defaults(handler=_listing)
    oracles = kinds.add_parser(
        "oracles", help="cases/s of the reference and each installed oracle on the same cases")
    oracles.add_argument("--cases", type=int, default=500, metavar="N",
                         help="generated transcripts (up to 20 entries) to answer (default 500)")
    oracles.add_argument("--seed", type=int, default=0, help="seed of the cases (default 0)")
    oracles.add_argument("--cli", type=int, default=8, metavar="N",
                         help="how many of the cases the real CLI answers (~1 CPU-s each; "
                              "default 8, 0 leaves it out)")
    oracles.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="J",
                         help="also measure J connections at once (default: the cores)")
    oracles.add_argument("--readers", default=",".join(BENCH_READERS), metavar="LIST",
                         help=f"comma-separated readers (default {','.join(BENCH_READERS)})")
    oracles.set_defaults(handler=_oracles)
    strategies = kinds.add_parser(
        "strategies", help="transcripts the strategies generate per second, per configuration "
                           "(python -m rechain.strategies.bench)")
    strategies.add_argument("--examples", type=int, default=2000, metavar="N",
                            help="transcripts drawn per configuration (default 2000)")
    strategies.set_defaults(handler=_strategies)


def _load(args: argparse.Namespace) -> int:
    from rechain.conformance.bench import load

    if args.size_mb <= 0 or args.runs < 1:
        raise UsageError("--size-mb must be > 0 and --runs >= 1")
    if args.sdk_timeout <= 0 or (args.sdk_memory_mb is not None and args.sdk_memory_mb <= 0):
        raise UsageError("--sdk-timeout and --sdk-memory-mb must be > 0")
    bounds = Bounds(args.sdk_timeout, args.sdk_memory_mb or default_memory_mb())
    if args.sizes is not None and args.stages:
        raise UsageError("--stages times one file: give --size-mb, not --sizes")
    if args.sizes is not None:
        import json
        import sys

        from rechain.conformance.bench import curve

        sizes = _sizes(args.sizes, "--sizes")
        print(json.dumps(curve.run(sizes, args.seed,
                                   lambda text: print(text, file=sys.stderr, flush=True),
                                   args.kind, bounds),
                         sort_keys=True))
        return 0
    if args.keep is not None:
        output_file("--keep", args.keep)
    print(load.main_json(load.run(args.size_mb, args.runs, args.seed, args.keep, args.kind,
                                  bounds, by_stage=args.stages)))
    return 0


def _listing(args: argparse.Namespace) -> int:
    import json

    from rechain.conformance.bench import listing

    sizes = _sizes(args.sizes_mb, "--sizes-mb")
    if args.sessions < 1 or args.runs < 1:
        raise UsageError("--sessions and --runs must be >= 1")
    print(json.dumps(listing.run(args.sessions, sizes, args.runs), indent=2))
    return 0


def _oracles(args: argparse.Namespace) -> int:
    import json
    import sys

    from rechain.conformance.bench import oracles

    readers = [r.strip() for r in args.readers.split(",") if r.strip()]
    if args.cases < 1 or args.cli < 0 or args.jobs < 1 or not readers:
        raise UsageError("--cases and --jobs must be >= 1, --cli >= 0, --readers not empty")
    for reader in readers:
        if reader.partition(":")[0] != "reference" and reader.partition("@")[0] not in (
                "agent-sdk-ts", "agent-sdk-py", "claude-code"):
            raise UsageError(f"--readers: {reader!r} is not reference[:PROFILE] or an oracle")
    summary = oracles.run(args.cases, args.seed, args.cli, args.jobs, readers,
                          lambda text: print(text, file=sys.stderr, flush=True))
    print(json.dumps(summary, sort_keys=True))
    return 0


def _strategies(args: argparse.Namespace) -> int:
    from rechain.strategies import bench

    if args.examples < 1:
        raise UsageError("--examples must be >= 1")
    return bench.main(["--examples", str(args.examples)])


def _sizes(text: str, option: str) -> list[float]:
    """Comma-separated sizes in MB, each > 0."""
    try:
        sizes = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"{option} {text!r}: give numbers like 1,100") from None
    if not sizes or min(sizes) <= 0:
        raise UsageError(f"{option} {text!r}: give sizes > 0, like 1,100")
    return sizes
