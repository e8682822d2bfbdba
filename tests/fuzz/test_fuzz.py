"""The libFuzzer target (fuzz/request_fuzzer.cpp): built by `make fuzz`, it replays every
regression input and seed, then fuzzes a short fixed budget. The long campaign is
`make fuzz-run RUNS=1000000`."""
import glob
import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FUZZER = os.path.join(ROOT, "build", "fuzz", "request_fuzzer")
CORPUS = sorted(glob.glob(os.path.join(ROOT, "fuzz", "corpus", "*")))
REGRESSIONS = sorted(glob.glob(os.path.join(ROOT, "fuzz", "regressions", "*")))
RUNS = 100000  # about 10 s here; `make fuzz-run` is the long campaign


@pytest.fixture(scope="module")
def fuzzer():
    """Builds the target; a machine without clang-16/libFuzzer fails here, saying so."""
    if shutil.which("clang++-16") is None:
        pytest.fail("clang++-16 is missing: `make deps` installs clang-16, libclang-rt-16-dev, libfuzzer-16-dev")
    build = subprocess.run(["make", "-s", "-j2", "fuzz"], cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert build.returncode == 0, f"make fuzz failed:\n{build.stdout[-4000:]}\n{build.stderr[-4000:]}"
    assert os.access(FUZZER, os.X_OK)
    return FUZZER


def replay(fuzzer, paths):
    """Runs `paths` once each; returns {path: [outcome lines]} (MSJIT_FUZZ_VERBOSE output)."""
    env = dict(os.environ, MSJIT_FUZZ_VERBOSE="1")
    run = subprocess.run([fuzzer, *paths], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-4000:]
    outcomes, current = {}, None
    for line in run.stderr.splitlines():
        if line.startswith("Running: "):
            current = os.path.join(ROOT, line[len("Running: "):])
            outcomes.setdefault(current, [])
        elif line.startswith("msjit-fuzz: ") and current:
            outcomes[current].append(line[len("msjit-fuzz: "):])
    return outcomes


def test_regressions_are_refused_or_imported_without_a_crash(fuzzer):
    assert REGRESSIONS, "fuzz/regressions is empty"
    outcomes = replay(fuzzer, REGRESSIONS)
    assert set(outcomes) == set(map(os.path.abspath, REGRESSIONS))
    for path, lines in outcomes.items():
        assert any(l.startswith(("imported", "import refused")) for l in lines), (path, lines)
    # The inputs: refused by the daemon's request check, naming what is wrong.
    by_name = {os.path.basename(p): lines for p, lines in outcomes.items()}
    assert any("64 bits" in l for l in by_name["constant_2e32x2e32.pb"] if l.startswith("request check refused"))
    assert any("over the limit" in l for l in by_name["constant_2e31x2e31.pb"]
               if l.startswith("request check refused"))
    assert any("graph input 'x'" in l for l in by_name["input_2e62x4.pb"] if l.startswith("request check refused"))


def test_every_seed_imports(fuzzer):
    """Seeds are valid requests, so fuzzing starts from inputs that reach the type rules."""
    assert len(CORPUS) >= 10
    for path, lines in replay(fuzzer, CORPUS).items():
        assert "request check passed" in lines and "imported" in lines, (path, lines)


def test_short_fuzz_run_finds_nothing(fuzzer, tmp_path):
    corpus = tmp_path / "corpus"  # new units go to the first folder: not into the checkout
    shutil.copytree(os.path.join(ROOT, "fuzz", "corpus"), corpus)
    run = subprocess.run(
        [fuzzer, f"-runs={RUNS}", "-seed=1", "-max_len=4096", "-dict=fuzz/request.dict", "-print_final_stats=1",
         f"-artifact_prefix={tmp_path}/", str(corpus), os.path.join(ROOT, "fuzz", "regressions")],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-6000:]
    stats = dict(re.findall(r"stat::(\w+):\s+(\d+)", run.stderr))
    assert int(stats["number_of_executed_units"]) >= RUNS
    print(f"fuzzed {stats['number_of_executed_units']} inputs at {stats['average_exec_per_sec']} exec/s")
