"""Issue 11, acceptance 5: 64 client processes x 1,000 Compile requests over a 16-key mix against
one msjitd on a unix socket (loopback only, bounded in count and time). Every request must be
served, each distinct key compiled exactly once (the warm-up), everything else a memory hit.
Prints hit latency next to the in-process cached call of a msjit.jit function."""
import json
import os
import subprocess
import sys
import time

import numpy as np

from daemon_process import Daemon
from load_support import DISTINCT, key_mix
from msjit.proto import msjit_pb2

PROCESSES = 64
REQUESTS = 1000
CLIENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "load_client.py")


def run_clients(address, workdir, seed):
    procs, outs = [], []
    try:
        for i in range(PROCESSES):
            outs.append(os.path.join(workdir, f"latency-{i}.f64"))
            procs.append(subprocess.Popen([sys.executable, CLIENT, address, str(seed + i), str(REQUESTS), outs[-1]],
                                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True))
        summaries = [json.loads(p.communicate(timeout=600)[0]) for p in procs]
        assert all(p.returncode == 0 for p in procs), [p.returncode for p in procs]
    finally:
        for p in procs:   # a failed or timed-out run leaves no client behind
            if p.poll() is None:
                p.kill()
                p.wait()
    return summaries, np.concatenate([np.fromfile(o) for o in outs])


def sequential_hit_ms(stub, count=500):
    """Hit latencies of one client with the daemon to itself (what a request costs without queueing)."""
    mix = key_mix()
    times = np.empty(count)
    for i in range(count):
        start = time.perf_counter()
        stub.Compile(mix[i % len(mix)], timeout=30)
        times[i] = (time.perf_counter() - start) * 1e3
    return times


def fma(a, b, c):
    return a * b + c


def in_process_cached_call_ms(address, monkeypatch, calls=2000):
    """p50 of a msjit.jit function's cached call (the artifact runs in this process)."""
    import msjit
    from msjit import rpc
    monkeypatch.setenv("MSJITD_ADDRESS", address)
    rpc.reset_client()
    try:
        f = msjit.jit(fma)
        args = [msjit.Tensor(np.ones((2, 3), np.float32)) for _ in range(3)]
        f(*args)   # compiles
        times = np.empty(calls)
        for i in range(calls):
            start = time.perf_counter()
            f(*args)
            times[i] = (time.perf_counter() - start) * 1e3
        return float(np.percentile(times, 50))
    finally:
        rpc.reset_client()


def test_64_processes_x_1000_requests_hit_the_cache(tmp_path, monkeypatch):
    d = Daemon(tmp_path).start()
    try:
        stub = d.stub()
        for req in key_mix():   # warm-up: the only compiles of the run
            assert stub.Compile(req, timeout=120).hit == msjit_pb2.TIER_NONE
        alone = sequential_hit_ms(stub)
        seed = int(time.time())
        print(f"load: client seeds {seed}..{seed + PROCESSES - 1}")
        start = time.monotonic()
        summaries, latencies = run_clients(d.address, str(tmp_path), seed)
        wall = time.monotonic() - start
        errors = sum(s["errors"] for s in summaries)
        first = next((s["first_error"] for s in summaries if s["first_error"]), "")
        assert errors == 0, f"{errors} failed requests, first: {first}"
        assert sum(s["misses"] for s in summaries) == 0
        total = PROCESSES * REQUESTS
        assert len(latencies) == total
        s = stub.Stats(msjit_pb2.StatsRequest(), timeout=30)
        assert s.compiles == DISTINCT, s
        assert s.compile_requests == DISTINCT + len(alone) + total, s
        assert s.memory_hits + s.disk_hits == len(alone) + total and s.compile_errors == 0, s
        cached = in_process_cached_call_ms(d.address, monkeypatch)
        p50, p99 = np.percentile(latencies, [50, 99])
        print(f"load: {total} requests, {errors} errors, {s.compiles} compiles, hit p50 {p50:.2f} ms "
              f"p99 {p99:.2f} ms ({total / wall:.0f} req/s over {wall:.1f} s); "
              f"one client alone: hit p50 {np.percentile(alone, 50):.2f} ms; "
              f"in-process cached call p50 {cached:.3g} ms")
    finally:
        assert d.stop() == 0
