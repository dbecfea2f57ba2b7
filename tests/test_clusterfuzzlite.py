"""ClusterFuzzLite: the config, each harness as a Hypothesis test and through
``fuzz_one_input``, and ``build.sh`` run offline with stand-ins for the OSS-Fuzz tools."""

from __future__ import annotations

import importlib.util
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rechain.fuzz import clusterfuzz, registry
from rechain.fuzz.regressions import fuzz_cases, fuzz_meta

yaml = pytest.importorskip("yaml", reason="pyyaml (the test extra)")

REPO = Path(__file__).resolve().parents[1]
CFLITE = REPO / ".clusterfuzzlite"
NAMES = clusterfuzz.reference_names()
KNOWN_OPEN = {(meta["target"], meta["exception"]) for meta in map(fuzz_meta, fuzz_cases())
              if meta.get("status") == "open"}
needs_atheris = pytest.mark.skipif(importlib.util.find_spec("atheris") is None,
                                   reason="atheris is not installed")


def test_the_project_builds_python_fuzzers_from_the_oss_fuzz_image() -> None:
    assert yaml.safe_load((CFLITE / "project.yaml").read_text()) == {"language": "python"}
    docker = (CFLITE / "Dockerfile").read_text()
    assert "FROM gcr.io/oss-fuzz-base/base-builder-python" in docker
    assert os.access(CFLITE / "build.sh", os.X_OK)


def test_four_workflows_one_per_mode() -> None:
    modes = {}
    for path in sorted((REPO / ".github" / "workflows").glob("cflite_*.yml")):
        workflow = yaml.safe_load(path.read_text())
        steps = [s for job in workflow["jobs"].values() for s in job["steps"]]
        build = next(s for s in steps if "build_fuzzers" in s["uses"])
        run = next(s for s in steps if "run_fuzzers" in s["uses"])
        assert build["with"]["language"] == "python", path.name
        assert build["with"].get("sanitizer", "address") == run["with"].get("sanitizer",
                                                                              "address")
        modes[run["with"]["mode"]] = workflow[True]  # yaml reads the key `on` as True
    assert set(modes) == {"code-change", "batch", "prune", "coverage"}
    assert "pull_request" in modes["code-change"]
    assert all("schedule" in modes[m] for m in ("batch", "prune", "coverage"))


@pytest.mark.parametrize("name", NAMES)
def test_each_harness_is_a_hypothesis_test_and_takes_libfuzzer_bytes(name: str) -> None:
    test = clusterfuzz.hypothesis_test(name, max_examples=15)
    try:
        test()
    except clusterfuzz.ContractBreachError as breach:
        if not any(target == name and exception in str(breach)
                   for target, exception in KNOWN_OPEN):
            raise
        pytest.xfail(f"known open bug: {breach}")
    entry = clusterfuzz.fuzz_one_input(name)
    for data in (b"", b"\n\n", b'{"type":"user","uuid":"u1","parentUuid":null}\n', bytes(300)):
        entry(data)


def test_a_contract_breach_fails_the_test_and_the_fuzz_entry(tmp_path, monkeypatch) -> None:
    (tmp_path / "breaks_harness.py").write_text(textwrap.dedent('''
        def one_input(data: bytes) -> None:
            if len(data) > 3:
                raise KeyError("planted")
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(registry.TARGETS, "planted",
                        registry.Target("planted", "breaks_harness:one_input"))
    with pytest.raises(clusterfuzz.ContractBreachError, match="KeyError"):
        clusterfuzz.hypothesis_test("planted", max_examples=200)()
    entry = clusterfuzz.fuzz_one_input("planted")
    entry(b"")  # too short for the planted bug: passes
    rng, breaches = random.Random(0), 0
    for _ in range(40):  # libFuzzer-like random buffers: some draw inputs past 3 bytes
        try:
            entry(rng.randbytes(500))
        except clusterfuzz.ContractBreachError:
            breaches += 1
    assert breaches > 0


STAND_INS = {
    # pip3: rechain is installed in this interpreter already; record the call
    "pip3": '#!/bin/sh\necho "pip3 $*" >> "$CALLS"\n',
    # compile_python_fuzzer FUZZER [PYINSTALLER ARGS]: OSS-Fuzz packs FUZZER with PyInstaller
    # into $OUT/<name>; the stand-in writes an executable that runs it with this Python
    "compile_python_fuzzer": textwrap.dedent('''\
        #!/bin/sh
        echo "compile_python_fuzzer $*" >> "$CALLS"
        name=$(basename "$1" .py)
        printf '#!/bin/sh\\nexec %s %s "$@"\\n' "$PYTHON" "$1" > "$OUT/$name"
        chmod +x "$OUT/$name"
    '''),
}


@needs_atheris
def test_build_sh_builds_a_fuzzer_per_harness_that_runs(tmp_path) -> None:
    src, out, work, bin_dir = (tmp_path / name for name in ("src", "out", "work", "bin"))
    for directory in (src, out, work, bin_dir):
        directory.mkdir()
    (src / "rechain").symlink_to(REPO)
    for name, body in STAND_INS.items():
        (bin_dir / name).write_text(body)
        (bin_dir / name).chmod(0o755)
    calls = tmp_path / "calls"
    env = {**os.environ, "SRC": str(src), "OUT": str(out), "WORK": str(work),
           "CALLS": str(calls), "PYTHON": sys.executable,
           "PATH": f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}"
                   f"{os.environ['PATH']}"}
    built = subprocess.run(["bash", str(CFLITE / "build.sh")], env=env, capture_output=True,
                           text=True, timeout=600, check=False)
    assert built.returncode == 0, built.stderr
    recorded = calls.read_text().splitlines()
    assert recorded[0] == "pip3 install ."
    assert all(line.endswith("--collect-all rechain") for line in recorded[1:])
    fuzzers = sorted(p.name for p in out.iterdir())
    assert fuzzers == sorted(f"fuzz_{n.replace('-', '_').replace('.', '_')}" for n in NAMES)

    ran = subprocess.run([str(out / "fuzz_parse_line"), "-max_total_time=5", "-seed=1"],
                         env=env, capture_output=True, text=True, timeout=600, check=False)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert "Done" in ran.stderr and "cov:" in ran.stderr  # libFuzzer ran, with coverage
