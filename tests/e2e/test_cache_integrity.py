"""Issue 11, acceptance 2: kill -9 of a worker mid-compile and of the daemon mid-write, at random
moments, loses no cache entry and corrupts none. Each round: clients compile distinct keys, a
worker is killed, then the daemon; a new daemon on the same cache dir must find every entry
whole, still hit every key reported compiled before the kill, and compile every key again."""
import glob
import hashlib
import os
import random
import re
import signal
import threading
import time

import grpc

from hostile import alive, children, kill_leftovers
from mindir_models import chain, mul_add, request
from msjit.proto import msjit_pb2, msjit_pb2_grpc

ROUNDS = 8
CLIENTS = 3
HEX64 = re.compile(r"[0-9a-f]{64}")


class Clients:
    """CLIENTS threads, each compiling its own sequence of distinct small graphs until stopped
    (or until the daemon is gone); `.compiled` maps every reported key to its request."""

    def __init__(self, address, tag):
        self.compiled, self.requested = {}, []
        self._lock, self._stop = threading.Lock(), threading.Event()
        self.threads = [threading.Thread(target=self._run, args=(address, tag, c), daemon=True)
                        for c in range(CLIENTS)]
        for t in self.threads:
            t.start()

    def _run(self, address, tag, client):
        with grpc.insecure_channel(address) as channel:
            stub = msjit_pb2_grpc.MsjitStub(channel)
            seq = 0
            while not self._stop.is_set():
                seq += 1
                req = request(mul_add((tag, client + 1, seq)))   # distinct in every round, client and step
                with self._lock:
                    self.requested.append(req)
                try:
                    reply = stub.Compile(req, timeout=60)
                except grpc.RpcError:   # its worker or the daemon was killed
                    self._stop.wait(0.05)
                    continue
                with self._lock:
                    self.compiled[reply.key] = req

    def stop(self):
        self._stop.set()
        for t in self.threads:
            t.join(timeout=120)
            assert not t.is_alive(), "a client thread hung"


def check_cache(cache_dir):
    """Every entry whole: each ac/ entry parses, names an artifact that exists and hashes to its
    digest; every cas/ file hashes to its name; no temp file survived the restart."""
    assert not glob.glob(os.path.join(cache_dir, "**", ".tmp-*"), recursive=True), "temp files left after restart"
    for path in glob.glob(os.path.join(cache_dir, "cas", "*", "*")):
        with open(path, "rb") as f:
            assert hashlib.sha256(f.read()).hexdigest() + ".so" == os.path.basename(path), f"corrupt artifact {path}"
    entries = glob.glob(os.path.join(cache_dir, "ac", "*", "*"))
    for path in entries:
        entry = msjit_pb2.CompileReply()
        with open(path, "rb") as f:
            entry.ParseFromString(f.read())   # raises on a torn write
        assert entry.key == os.path.basename(path), f"{path} holds the entry of {entry.key}"
        assert HEX64.fullmatch(entry.artifact_digest) and entry.outputs, f"{path}: a torn entry"
        artifact = os.path.join(cache_dir, "cas", entry.artifact_digest[:2], entry.artifact_digest + ".so")
        assert os.path.exists(artifact), f"{path} names a missing artifact {entry.artifact_digest}"
        assert os.path.getsize(artifact) == entry.artifact_size, f"{path}: artifact size differs"
    return len(entries)


def compile_quietly(stub, req):
    """A compile whose outcome does not matter (its worker may be the one killed)."""
    try:
        stub.Compile(req, timeout=120)
    except grpc.RpcError:
        pass


def kill_a_worker(daemon, rng):
    """SIGKILL a random worker of `daemon` (a compile is running in at least one of them);
    returns how many were killed (0 or 1)."""
    workers = children(daemon.proc.pid)
    if workers:
        os.kill(rng.choice(workers), signal.SIGKILL)
    return min(len(workers), 1)


def kill_the_daemon(daemon):
    workers = children(daemon.proc.pid)
    daemon.proc.kill()
    daemon.proc.wait(timeout=30)
    # Workers must not outlive the daemon that started them.
    deadline = time.monotonic() + 10
    while any(alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    orphans = kill_leftovers(workers)
    assert not orphans, f"worker(s) {orphans} outlived the killed daemon"


def test_kill_9_of_workers_and_the_daemon_at_random_moments_loses_and_corrupts_nothing(make_daemon, tmp_path):
    seed = random.randrange(1 << 30)
    print(f"cache integrity: seed {seed}")
    rng = random.Random(seed)
    flags = ("--jobs", "2", "--crash-retry-after", "0")
    worker_kills = 0
    reported = {}   # every key a client was told is compiled, with its request
    requested = []
    d = make_daemon(*flags, workdir=tmp_path).start()
    started = time.monotonic()
    for r in range(ROUNDS):
        # A worker dies at a random moment while a slow graph and the clients compile.
        slow = request(chain(rng.randrange(500, 1200), width=100 + r))
        slow_thread = threading.Thread(target=compile_quietly, args=(d.stub(), slow), daemon=True)
        clients = Clients(d.address, tag=2 * r + 1)
        slow_thread.start()
        time.sleep(rng.uniform(0.05, 0.8))
        worker_kills += kill_a_worker(d, rng)
        time.sleep(rng.uniform(0.2, 0.6))
        clients.stop()
        slow_thread.join(timeout=120)
        reported.update(clients.compiled)
        requested += clients.requested + [slow]
        # The daemon dies at a random moment while several clients compile distinct keys.
        clients = Clients(d.address, tag=2 * r + 2)
        time.sleep(rng.uniform(0.1, 1.0))
        kill_the_daemon(d)
        clients.stop()
        reported.update(clients.compiled)
        requested += clients.requested
        assert reported, "no compile finished before the kills: nothing was tested"

        d = make_daemon(*flags, workdir=tmp_path).start()
        check_cache(d.cache_dir)
        stub = d.stub()
        for key, req in reported.items():
            reply = stub.Compile(req, timeout=60)
            assert reply.key == key and reply.hit != msjit_pb2.TIER_NONE, f"round {r}: {key} was lost"
        assert stub.Stats(msjit_pb2.StatsRequest()).disk_evictions == 0
    # Every key ever requested, finished or interrupted, compiles (or hits) on the last daemon.
    stub = d.stub()
    for req in requested:
        stub.Compile(req, timeout=120)
    entries = check_cache(d.cache_dir)
    assert worker_kills >= ROUNDS // 2, f"only {worker_kills} workers were running to be killed"
    print(f"cache integrity: {ROUNDS} rounds, {worker_kills} workers and {ROUNDS} daemons killed, "
          f"{len(reported)} keys reported before kills, "
          f"{len(requested)} requested, {entries} entries, {time.monotonic() - started:.1f} s")
