#!/bin/bash -eu
# Build one fuzzer per reference harness into $OUT (ClusterFuzzLite / OSS-Fuzz, Python).
# Each fuzzer first runs its harness as a Hypothesis test, then hands libFuzzer the test's
# fuzz_one_input (rechain/fuzz/clusterfuzz.py).
cd "$SRC/rechain"
# the reference's glance in C built plain: an extension built with the sanitizer flags here
# would need their runtime loaded before Python's (the glance-c fuzzer compares it with the
# Python glance, and a crash in it ends the fuzzer as any other)
CFLAGS="" CXXFLAGS="" LDFLAGS="" pip3 install .
entry_points="$WORK/rechain-fuzzers"
python3 -m rechain.fuzz.clusterfuzz "$entry_points"
for fuzzer in "$entry_points"/fuzz_*.py; do
    # rechain's JSON Schemas and corpus are package data: bundle the whole package
    compile_python_fuzzer "$fuzzer" --collect-all rechain
done
