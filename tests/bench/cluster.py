#!/usr/bin/python3
"""Issue 13, acceptance 4: 1,000 simulated workers start the same job on a loopback cluster.

A worker is a thread that makes the job's Compile calls (the 20 graphs of
tests/cluster/job_graphs.py, in its own random order) to its daemon, as a training process does on
its first step; workers are spread over processes (default 20 x 50) and daemons (3, round robin)
and start together. Each call's latency is its wall time as the worker sees it, classed by the
tier of the reply. Three runs:
  shared tier on       redis-server + 3 msjitd sharing it, empty caches: one compile per graph
  shared tier on, restarted   every daemon restarted with an empty cache dir: served from Redis
  shared tier off      3 msjitd on their own: each compiles every graph
and, for comparison, the same answers to one worker by itself (no queueing).
usage: tests/bench/cluster.py [--workers 1000] [--processes 20] [--daemons 3] [--seed N]
"""
import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "cluster"), os.path.join(HERE, "..", "..", "client_py")]

# Reply tier -> the row it is reported in.
CLASSES = {"TIER_NONE": "compile", "TIER_SHARED": "shared-tier hit", "TIER_MEMORY": "local hit",
           "TIER_DISK": "local hit", "TIER_INFLIGHT": "joined a compile in flight",
           "TIER_CLUSTER": "waited for another daemon"}
ROWS = ["compile", "shared-tier hit", "local hit", "joined a compile in flight", "waited for another daemon"]
CALL_TIMEOUT_S = 300.0
RUN_TIMEOUT_S = 600.0


def load_requests(graphs):
    from msjit.proto import msjit_pb2

    requests = []
    for name in sorted(os.listdir(graphs)):
        if name.endswith(".request.pb"):
            with open(os.path.join(graphs, name), "rb") as f:
                requests.append(msjit_pb2.CompileRequest.FromString(f.read()))
    return requests


def alone(daemon, requests, rounds=2):
    """One worker by itself, after a job: each graph's local entry is dropped (RemoveCacheEntry),
    then asked for (a shared-tier hit, or without the shared tier a compile) and asked again (a
    local hit). The figures without 1,000 workers queueing. Returns [(tier, ms)]."""
    from msjit.proto import msjit_pb2, msjit_pb2_grpc

    samples = []
    with daemon.credentials.channel(daemon.address) as channel:
        stub = msjit_pb2_grpc.MsjitStub(channel)
        keys = [stub.Compile(r, timeout=CALL_TIMEOUT_S).key for r in requests]
        for _ in range(rounds):
            for key, request in zip(keys, requests):
                stub.RemoveCacheEntry(msjit_pb2.RemoveCacheEntryRequest(key=key), timeout=30)
                for _ in range(2):
                    t0 = time.perf_counter()
                    reply = stub.Compile(request, timeout=CALL_TIMEOUT_S)
                    samples.append((msjit_pb2.CacheTier.Name(reply.hit), (time.perf_counter() - t0) * 1e3))
    return samples


def worker_process(addresses, graphs, first_worker, threads, seed):
    """One process of workers (hidden `--worker` mode): writes samples.json ([tier, ms] per call,
    errors) in its cwd."""
    import grpc
    from job_client import wait_for_barrier
    from msjit.proto import msjit_pb2, msjit_pb2_grpc

    requests = load_requests(graphs)
    channels = [grpc.insecure_channel(a) for a in addresses]
    for channel in channels:   # connecting is not a call's latency
        grpc.channel_ready_future(channel).result(timeout=60)
    stubs = [msjit_pb2_grpc.MsjitStub(c) for c in channels]
    samples, errors, start = [], [], threading.Event()

    def worker(w):
        order = list(range(len(requests)))
        random.Random(seed + w).shuffle(order)
        stub = stubs[w % len(stubs)]
        start.wait()
        for i in order:
            t0, pause = time.perf_counter(), 0.05
            while True:
                try:
                    reply = stub.Compile(requests[i], timeout=CALL_TIMEOUT_S)
                    samples.append((msjit_pb2.CacheTier.Name(reply.hit), (time.perf_counter() - t0) * 1e3))
                    break
                except grpc.RpcError as e:
                    if e.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:   # (busy: asked again, as clients do)
                        errors.append(f"{e.code().name}: {e.details()}")
                        break
                    time.sleep(pause)
                    pause = min(2 * pause, 1.0)

    pool = [threading.Thread(target=worker, args=(first_worker + t,)) for t in range(threads)]
    for t in pool:
        t.start()
    open("ready", "w").close()
    wait_for_barrier(sys.stdin.fileno())
    start.set()
    for t in pool:
        t.join()
    with open("samples.json", "w") as f:
        json.dump({"samples": samples, "errors": errors}, f)


def run_job(cluster, workdir, graphs, args):
    """Start args.workers workers in args.processes processes behind one barrier; returns the
    samples, the errors and the wall time."""
    from cluster_support import Clients

    addresses = [d.address for d in cluster.daemons]
    per_process = -(-args.workers // args.processes)
    with Clients(workdir, args.seed) as group:
        for p in range(args.processes):
            first = p * per_process
            threads = min(per_process, args.workers - first)
            if threads > 0:
                group.spawn("bench", [sys.executable, os.path.abspath(__file__), "--worker", ",".join(addresses),
                                      graphs, str(first), str(threads), str(args.seed)], addresses[0])
        group.wait_ready()
        t0 = time.monotonic()
        group.release()
        failures = group.wait_all(RUN_TIMEOUT_S)
        wall = time.monotonic() - t0
        if failures:
            raise RuntimeError("\n".join(failures))
        samples, errors = [], []
        for c in group.procs:
            with open(os.path.join(c.home, "samples.json")) as f:
                out = json.load(f)
            samples += out["samples"]
            errors += out["errors"]
    return samples, errors, wall


def report(title, samples, errors, wall, stats):
    compiles = sum(s.compiles for s in stats)
    print(f"{title}: {len(samples)} requests, {compiles} compiles, {len(errors)} errors, {wall:.1f} s")
    table(samples, ROWS)
    if errors:
        print(f"  first error: {errors[0]}")
    return compiles


def table(samples, rows):
    import numpy as np

    print(f"  {'answer':<28}{'count':>7}{'p50 ms':>10}{'p99 ms':>10}")
    for row in rows:
        ms = [t for tier, t in samples if CLASSES.get(tier) == row]
        if ms:
            p50, p99 = np.percentile(ms, [50, 99])
            print(f"  {row:<28}{len(ms):>7}{p50:>10.2f}{p99:>10.2f}")
        else:
            print(f"  {row:<28}{0:>7}{'-':>10}{'-':>10}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=1000)
    parser.add_argument("--processes", type=int, default=20)
    parser.add_argument("--daemons", type=int, default=3)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--worker", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        addresses, graphs, first, threads, seed = args.worker
        return worker_process(addresses.split(","), graphs, int(first), int(threads), int(seed))
    args.processes = max(1, min(args.processes, args.workers))

    import job_graphs
    from cluster_support import Cluster

    workdir = tempfile.mkdtemp(prefix="msjit-bench-cluster-")
    try:
        graphs = os.path.join(workdir, "graphs")
        job_graphs.export(graphs)
        print(f"cluster bench: {args.workers} workers ({args.processes} processes), {args.daemons} daemons, "
              f"{job_graphs.COUNT} graphs per worker, seed {args.seed}")
        compiles, by_itself = {}, []
        for shared in (True, False):
            run = os.path.join(workdir, "shared-on" if shared else "shared-off")
            os.makedirs(run)
            with Cluster(run, size=args.daemons, shared=shared) as cluster:
                titles = (["shared tier on", "shared tier on, restarted empty"] if shared else ["shared tier off"])
                for n, title in enumerate(titles):
                    if n:
                        cluster.restart_empty()
                    samples, errors, wall = run_job(cluster, os.path.join(run, f"job{n}"), graphs, args)
                    compiles[title] = report(title, samples, errors, wall, cluster.stats())
                by_itself += alone(cluster.daemons[0], load_requests(graphs))
        print("total compiles: " + ", ".join(f"{t} {c}" for t, c in compiles.items()))
        print("one worker alone (after the jobs; shared-tier hits with it on, compiles with it off):")
        table(by_itself, ROWS[:3])
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
