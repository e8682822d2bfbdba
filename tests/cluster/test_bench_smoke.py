"""tests/bench/cluster.py at a small size (20 workers in 2 processes): it runs to the end within
its budget and prints its report in the documented form, every request answered, with the
compile counts the shared tier promises."""
import os
import re
import subprocess
import sys

from cluster_support import ROOT

BENCH = os.path.join(ROOT, "tests/bench/cluster.py")
WORKERS, GRAPHS = 20, 20
TITLES = ["shared tier on", "shared tier on, restarted empty", "shared tier off"]
ROWS = ["compile", "shared-tier hit", "local hit", "joined a compile in flight", "waited for another daemon"]


def test_bench_prints_latency_per_tier_for_each_run():
    proc = subprocess.run([sys.executable, BENCH, "--workers", str(WORKERS), "--processes", "2"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert re.fullmatch(rf"cluster bench: {WORKERS} workers \(2 processes\), 3 daemons, {GRAPHS} graphs "
                        r"per worker, seed \d+", lines[0]), lines[0]
    blocks = [lines[1 + n * 7:1 + (n + 1) * 7] for n in range(len(TITLES))]
    compiles = {}
    for title, block in zip(TITLES, blocks):
        head = re.fullmatch(rf"{re.escape(title)}: (\d+) requests, (\d+) compiles, 0 errors, [\d.]+ s", block[0])
        assert head, block[0]
        assert int(head[1]) == WORKERS * GRAPHS
        compiles[title] = int(head[2])
        assert block[1].split() == ["answer", "count", "p50", "ms", "p99", "ms"], block[1]
        counted = 0
        for row, line in zip(ROWS, block[2:]):
            m = re.fullmatch(rf"  {re.escape(row)} +(\d+) +(?:([\d.]+) +([\d.]+)|- +-)", line)
            assert m, line
            counted += int(m[1])
            if m[2]:
                assert float(m[2]) <= float(m[3])
        assert counted == WORKERS * GRAPHS, block
    assert lines[1 + 7 * len(TITLES)] == "total compiles: " + ", ".join(f"{t} {c}" for t, c in compiles.items())
    # One compile per graph with the shared tier, none after a restart, one per daemon without it.
    assert list(compiles.values()) == [GRAPHS, 0, 3 * GRAPHS], compiles
