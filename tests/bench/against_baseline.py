#!/usr/bin/python3
"""The benchmarks of this folder run twice in one go, with this checkout's Python client and with
the client of an earlier revision, and every row's per-call time and time to prepare printed side
by side as a ratio (new / old). A ratio above 1.10 is flagged.

Usage: against_baseline.py REV [--small] [--iterations N]

Both runs use this checkout's build (daemon, runtime extension, generated protobuf modules): the
comparison is of the Python client, which is what changes between revisions that leave the native
parts alone; the script says so when they differ since REV. Runs alternate (old, new, three times) and
each row keeps its best figure, so a noisy neighbour penalizes neither side.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PY = "/usr/bin/python3"
NATIVE = ("client_py/ext", "proto", "runtime", "passes", "ir", "server")
# A result row: a name, then "<prepare>s|ms", then "<per call>ms|us" (see model_bench/simple_function).
ROW = re.compile(r"^(?P<name>\S.*?)\s+(?P<prep>[\d.]+)(?P<pu>m?s)\s+(?:[\d.]+s\s+)?(?P<call>[\d.]+)(?P<cu>ms|us)\b")
UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6}
ROUNDS = 3


def baseline_tree(rev):
    """The client and tests of ``rev`` in a temporary folder, with this build's native parts."""
    tree = tempfile.mkdtemp(prefix="msjit-baseline-")
    archive = subprocess.run(["git", "-C", ROOT, "archive", rev, "client_py", "tests"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
    shutil.copytree(os.path.join(ROOT, "client_py/msjit/proto"), os.path.join(tree, "client_py/msjit/proto"),
                    dirs_exist_ok=True)
    shutil.copy2(os.path.join(ROOT, "client_py/msjit/_msjit_rt.so"), os.path.join(tree, "client_py/msjit/"))
    changed = subprocess.run(["git", "-C", ROOT, "diff", "--stat", rev, "--", *NATIVE],
                             capture_output=True, text=True).stdout.strip()
    if changed:
        print(f"note: native parts changed since {rev} (both sides use this build's):\n{changed}\n")
    return tree


def run_bench(tree, script, args):
    """{row name: (prepare s, per call s)} of one benchmark run from ``tree``."""
    env = dict(os.environ, PYTHONPATH=os.path.join(tree, "client_py"),
               MSJITD_BIN=os.path.join(ROOT, "bazel-bin/server/msjitd"))
    env.pop("MSJIT_HOME", None)   # each run starts its own private daemon (a cold compile)
    out = subprocess.run([PY, os.path.join(tree, "tests/bench", script), *args], env=env, text=True,
                         capture_output=True, check=True).stdout
    rows, title = {}, ""
    for line in out.splitlines():
        m = ROW.match(line)
        if m and not m["name"].rstrip().endswith("-"):   # (the numpy row has no prepare time)
            rows[f"{title}{m['name'].strip()}"] = (float(m["prep"]) * UNITS[m["pu"]],
                                                   float(m["call"]) * UNITS[m["cu"]])
        elif ":" in line and not line.startswith(" "):
            title = line.split(":")[0].split(" (")[0] + " / "
    return rows


def best(a, b):
    return {k: tuple(min(x, y) for x, y in zip(a[k], b[k])) if k in b else a[k] for k in a}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev")
    parser.add_argument("--small", action="store_true", help="the model benchmarks' small shapes")
    parser.add_argument("--iterations", default="3", help="timed calls per model benchmark row")
    opts = parser.parse_args()
    old = baseline_tree(opts.rev)
    model_args = [opts.iterations] + (["--small"] if opts.small else [])
    benches = [("simple_function.py", []), ("conv.py", model_args), ("attention.py", model_args)]
    slow = 0
    try:
        for script, args in benches:
            results = {"old": {}, "new": {}}
            for _ in range(ROUNDS):
                for side, tree in (("old", old), ("new", ROOT)):
                    rows = run_bench(tree, script, args)
                    results[side] = best(rows, results[side]) if results[side] else rows
            print(f"== {script} {' '.join(args)}")
            print(f"{'row':<78} {'per call new/old':>17} {'prepare new/old':>16}")
            for name, (prep, call) in results["new"].items():
                if name not in results["old"]:
                    continue
                old_prep, old_call = results["old"][name]
                ratio_call, ratio_prep = call / old_call, prep / old_prep
                flag = "  SLOWER" if ratio_call > 1.10 else ""
                slow += bool(flag)
                print(f"{name[:78]:<78} {ratio_call:>16.2f}x {ratio_prep:>15.2f}x{flag}")
    finally:
        shutil.rmtree(old, ignore_errors=True)
    print(f"{slow} rows more than 10% slower per call than {opts.rev}")


if __name__ == "__main__":
    sys.exit(main())
