#!/bin/bash -eu
# Build one fuzzer per reference harness into $OUT (ClusterFuzzLite / OSS-Fuzz, Python).
# Each fuzzer first runs its harness as a Hypothesis test, then hands libFuzzer the test's
# fuzz_one_input (rechain/fuzz/clusterfuzz.py).
cd "$SRC/rechain"
pip3 install .
entry_points="$WORK/rechain-fuzzers"
python3 -m rechain.fuzz.clusterfuzz "$entry_points"
for fuzzer in "$entry_points"/fuzz_*.py; do
    # rechain's JSON Schemas and corpus are package data: bundle the whole package
    compile_python_fuzzer "$fuzzer" --collect-all rechain
done
