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
    compiles = {}
    for n, title in enumerate(TITLES):
        block = lines[1 + n * 7:1 + (n + 1) * 7]
        head = re.fullmatch(rf"{re.escape(title)}: (\d+) requests, (\d+) compiles, 0 errors, [\d.]+ s", block[0])
        assert head, block[0]
        assert int(head[1]) == WORKERS * GRAPHS
        compiles[title] = int(head[2])
        assert sum(table_counts(block[1:], ROWS).values()) == WORKERS * GRAPHS, block
    rest = lines[1 + 7 * len(TITLES):]
    assert rest[0] == "total compiles: " + ", ".join(f"{t} {c}" for t, c in compiles.items())
    # One compile per graph with the shared tier, none after a restart, one per daemon without it.
    assert list(compiles.values()) == [GRAPHS, 0, 3 * GRAPHS], compiles
    assert rest[1].startswith("one worker alone")
    # Two rounds over the graphs: a shared-tier hit (shared tier on) or a compile (off), then a local hit.
    assert table_counts(rest[2:], ROWS[:3]) == {"compile": 2 * GRAPHS, "shared-tier hit": 2 * GRAPHS,
                                                "local hit": 4 * GRAPHS}, rest
    assert len(rest) == 2 + 1 + 3


def table_counts(lines, rows):
    """{row: count} of a printed table (a header line, then one line per row), checking its form."""
    assert lines[0].split() == ["answer", "count", "p50", "ms", "p99", "ms"], lines[0]
    counts = {}
    for row, line in zip(rows, lines[1:], strict=True):
        m = re.fullmatch(rf"  {re.escape(row)} +(\d+) +(?:([\d.]+) +([\d.]+)|- +-)", line)
        assert m, line
        counts[row] = int(m[1])
        assert not m[2] or float(m[2]) <= float(m[3]), line
    return counts
