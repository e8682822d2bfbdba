"""A loopback cluster for tests/cluster and tests/bench/cluster.py: one real redis-server and N
real msjitd sharing it (separate cache dirs, one signing key, unix sockets), and groups of client
processes that start together behind a barrier. Everything started here is stopped by ``close()``
(or the ``with`` block), even when a test fails."""
import collections
import json
import os
import random
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
ROOT = os.path.dirname(TESTS)
for _p in (os.path.join(ROOT, "client_py"), TESTS, HERE):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import job_graphs  # noqa: E402
from daemon_process import Daemon  # noqa: E402
from redis_server import start_redis  # noqa: E402
from support import processes  # noqa: E402

from msjit.proto import msjit_pb2, msjit_pb2_grpc  # noqa: E402

PYTHON = "/usr/bin/python3"   # Debian's: the one with numpy, grpc and protobuf
JOB_CLIENT = os.path.join(HERE, "job_client.py")
MSJIT_RUN = os.path.join(ROOT, "bazel-bin/client_cpp/msjit-run")


def wait_until(predicate, timeout, what, pause=0.05, state=None):
    """Poll ``predicate`` until it returns a true value (returned) or ``timeout`` s pass
    (TimeoutError, with ``state()`` if given: what the test saw last)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {timeout:.0f} s" + (f"\n{state()}" if state else ""))
        time.sleep(pause)


class Cluster:
    """redis-server + ``size`` msjitd with --shared-cache (or, ``shared=False``, without: each daemon
    on its own). ``restart_empty()`` replaces every daemon by a fresh one with an empty cache dir."""

    def __init__(self, workdir, size=3, lease_s=None, shared=True, extra=()):
        self.workdir = str(workdir)
        self.size, self.generation = size, 0
        self.flags = list(extra) + (["--lease-s", str(lease_s)] if lease_s else [])
        self.redis = None
        self.daemons = []
        try:
            if shared:
                self.redis = start_redis(self.workdir)
                key_file = os.path.join(self.workdir, "signing.key")
                with open(key_file, "w") as f:
                    f.write(os.urandom(32).hex() + "\n")
                os.chmod(key_file, 0o600)
                self.flags += ["--shared-cache", self.redis.url, "--shared-cache-signing-key-file", key_file]
            self._start_daemons()
        except BaseException:
            self.close()
            raise

    def _start_daemons(self):
        self.generation += 1
        for n in range(self.size):
            workdir = os.path.join(self.workdir, f"g{self.generation}d{n}")   # (short: a socket path)
            os.makedirs(workdir)
            self.daemons.append(Daemon(workdir, *self.flags))
            self.daemons[-1].start()

    def restart_empty(self):
        self.stop_daemons()
        self._start_daemons()

    def stop_daemons(self):
        for d in self.daemons:
            d.stop()
        self.daemons = []

    def close(self):
        try:
            self.stop_daemons()
        finally:
            if self.redis is not None:
                self.redis.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def addresses(self, first=0, failover=True):
        """MSJITD_ADDRESS for a client of daemon ``first``: the others follow it as failover targets."""
        ring = [d.address for d in self.daemons[first:] + self.daemons[:first]]
        return ",".join(ring if failover else ring[:1])

    def stats(self, timeout=10.0):
        """Each daemon's StatsReply (a channel per call, closed: tests poll this)."""
        replies = []
        for d in self.daemons:
            with d.credentials.channel(d.address) as channel:
                replies.append(msjit_pb2_grpc.MsjitStub(channel).Stats(msjit_pb2.StatsRequest(), timeout=timeout))
        return replies

    def totals(self, stats=None):
        """Every counter of Stats summed over the daemons: {field: sum}."""
        stats = stats or self.stats()
        fields = [f.name for f in msjit_pb2.StatsReply.DESCRIPTOR.fields if f.type == f.TYPE_UINT64]
        return {f: sum(getattr(s, f) for s in stats) for f in fields}

    def workers_of(self, daemon, mode=None):
        """pids of the daemon's worker processes (its children), or of those in ``mode`` (compile)."""
        return [pid for pid, _, ppid, argv in processes()
                if ppid == daemon.proc.pid and (mode is None or f"--mode\0{mode}" in "\0".join(argv))]

    def kill(self, daemon):
        """SIGKILL the daemon and its workers (a host that died); it stays out of ``daemons``."""
        victims = [daemon.proc.pid] + self.workers_of(daemon)
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        daemon.proc.wait(timeout=10)
        self.daemons.remove(daemon)

    def lease_keys(self):
        """The compile leases held in Redis now (msjit:lease:<key>, the default prefix)."""
        return self.redis.command("KEYS", "msjit:lease:*")


def describe(stats):
    """One line per daemon: what a failed assertion should show."""
    fields = ("compile_requests", "compiles", "memory_hits", "disk_hits", "inflight_joins", "shared_hits",
              "shared_waits", "shared_takeovers", "shared_unavailable", "compile_errors")
    return "\n".join(f"daemon {n}: " + ", ".join(f"{f}={getattr(s, f)}" for f in fields)
                     for n, s in enumerate(stats))


class Clients:
    """Client processes started behind one barrier: each creates ``ready`` in its own directory
    (its cwd and MSJIT_HOME), then reads its stdin, a pipe that ``release()`` closes, to the end.
    ``launch`` starts job clients: Python ones run job_client.py, C++ ones msjit-run over the
    exported graphs; ``spawn`` starts any command (the benchmark's workers)."""

    def __init__(self, workdir, seed):
        self.workdir = str(workdir)
        self.seed = seed
        self.procs = []   # Client records
        self._read, self._write = os.pipe()
        self._exported = None

    def _exports(self):
        if self._exported is None:
            self._exported = job_graphs.export(os.path.join(self.workdir, "graphs"), len(job_graphs.ALL))
        return self._exported

    def expected(self, index):
        return self._exports()[1][index]

    def spawn(self, kind, argv, address, daemon=None, indices=()):
        n = len(self.procs)
        home = os.path.join(self.workdir, f"c{n}")
        os.makedirs(home)
        env = dict(os.environ, MSJITD_ADDRESS=address, MSJIT_HOME=home, PYTHONPATH=os.path.join(ROOT, "client_py"))
        with open(os.path.join(home, "log"), "wb") as out:
            # A session of its own: close() kills the client's whole group (a C++ client's msjit-run too).
            proc = subprocess.Popen(argv(n, home) if callable(argv) else argv, stdin=self._read, stdout=out,
                                    stderr=subprocess.STDOUT, env=env, cwd=home, start_new_session=True)
        self.procs.append(Client(n, kind, daemon, proc, home, indices))
        return self.procs[-1]

    def launch(self, cluster, count, indices=None, cpp_every=0, failover=True):
        """Start ``count`` job clients, round robin over the daemons (the others as failover);
        every ``cpp_every``-th one (if non-zero) is a C++ client."""
        indices = list(range(job_graphs.COUNT) if indices is None else indices)
        for _ in range(count):
            n = len(self.procs)
            first = n % len(cluster.daemons)
            if cpp_every and n % cpp_every == cpp_every - 1:
                argv = lambda n, home: self._cpp_argv(n, home, indices)  # noqa: E731
                kind = "cpp"
            else:
                argv, kind = [PYTHON, JOB_CLIENT, str(self.seed + n), *map(str, indices)], "python"
            self.spawn(kind, argv, cluster.addresses(first, failover), first, indices)

    def _cpp_argv(self, n, home, indices):
        """A C++ client: a shell waits on the barrier, then runs msjit-run over the graphs in this
        client's seeded random order (one msjit-run per graph, as a job's steps would)."""
        order = list(indices)
        random.Random(self.seed + n).shuffle(order)
        steps = []
        for i in order:
            request, inputs = self._exports()[0][i]
            steps.append(f"'{MSJIT_RUN}' '{request}' '{inputs}' '{home}/{i}.outputs.pb' >> '{home}/printed' || exit 1")
        script = "touch ready; read -r _; " + "; ".join(steps)
        return ["/bin/sh", "-c", script]

    def wait_ready(self, timeout=120.0):
        def ready():
            for c in self.procs:
                if c.proc.poll() is not None:
                    raise AssertionError(f"{c} exited ({c.proc.returncode}) before the start:\n{c.log()}")
            return all(os.path.exists(os.path.join(c.home, "ready")) for c in self.procs)
        wait_until(ready, timeout, "every client ready")

    def release(self):
        """Open the barrier: every client's stdin reaches end of file at once."""
        if self._write is not None:
            os.close(self._write)
            self._write = None

    def wait_all(self, timeout):
        """Wait (at most ``timeout`` s in all) for every client: the failures (still running or a
        non-zero exit, with the end of its log)."""
        deadline = time.monotonic() + timeout
        failures = []
        for c in self.procs:
            try:
                c.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                failures.append(f"{c} still running after {timeout:.0f} s")
                continue
            if c.proc.returncode != 0:
                failures.append(f"{c} exited {c.proc.returncode}:\n{c.log()}")
        return failures

    def finish(self, timeout):
        """Wait for every job client; assert each ran to right answers. Returns the Python
        clients' results and the tiers the C++ clients printed ("TIER_DISK")."""
        failures, results, tiers = self.wait_all(timeout), [], []
        for c in self.procs:
            if c.proc.returncode != 0:
                continue
            if c.kind == "python":
                with open(os.path.join(c.home, "result.json")) as f:
                    results.append(json.load(f))
            else:
                failures += self._check_cpp(c)
                with open(os.path.join(c.home, "printed")) as f:   # "tier=TIER_DISK compile_ms=..."
                    tiers += [word[5:] for word in f.read().split() if word.startswith("tier=")]
        assert not failures, "\n".join(failures)
        return results, tiers

    def _check_cpp(self, c):
        failures = []
        for i in c.indices:
            try:
                job_graphs.assert_equal_outputs(job_graphs.read_outputs(os.path.join(c.home, f"{i}.outputs.pb")),
                                                self.expected(i), f"{c}: {job_graphs.name(i)}")
            except (AssertionError, OSError) as e:
                failures.append(str(e))
        return failures

    def close(self):
        """Kill whatever still runs (a failed test leaves no client behind)."""
        self.release()
        if self._read is not None:
            os.close(self._read)
            self._read = None
        for c in self.procs:
            if c.proc.poll() is None:
                os.killpg(c.proc.pid, signal.SIGKILL)
            c.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Client(collections.namedtuple("Client", "n kind daemon proc home indices")):
    def __str__(self):
        return f"client {self.n} ({self.kind}, daemon {self.daemon})"

    def log(self, lines=30):
        with open(os.path.join(self.home, "log"), errors="replace") as f:
            return "".join(f.readlines()[-lines:])
