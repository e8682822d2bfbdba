"""Operations on a real msjitd: Prometheus text at --metrics-listen (parsed here, counters checked
against real compiles and hits, HTTP error cases, a flood of slow clients) and msjitctl's
stats --json, cache ls and cache rm against the same daemon."""
import json
import math
import os
import re
import socket
import subprocess
import time

import grpc
import pytest

from daemon_process import wait_healthy
from mindir_models import mul_add, request
from msjit.proto import msjit_pb2
from msjit.rpc import Credentials
from support import ROOT

MSJITCTL = os.path.join(ROOT, "bazel-bin/client_cpp/msjitctl")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- a small Prometheus text-format (0.0.4) parser: strict enough to fail on what a scraper refuses

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"'
SAMPLE = re.compile(rf"^({NAME})(?:\{{((?:{LABEL})(?:,{LABEL})*)?,?\}})? (\S+)$")
FAMILY_SUFFIXES = {"histogram": ("_bucket", "_sum", "_count"), "counter": ("",), "gauge": ("",)}


def parse_prometheus(text):
    """{(name, ((label, value), ...)): float} and {family: type}; asserts the format's rules:
    HELP then TYPE once per family, before its samples; counters end in _total; histogram buckets
    are cumulative and the +Inf bucket equals _count."""
    assert text.endswith("\n")
    samples, types, helped = {}, {}, set()
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name = line.split(" ", 3)[2]
            assert re.fullmatch(NAME, name) and name not in helped, line
            helped.add(name)
        elif line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            assert name in helped and name not in types and kind in FAMILY_SUFFIXES, line
            if kind == "counter":
                assert name.endswith("_total"), f"counter {name} must end in _total"
            types[name] = kind
        else:
            assert line and not line.startswith("#"), f"unexpected line {line!r}"
            m = SAMPLE.match(line)
            assert m, f"not a sample line: {line!r}"
            name, value = m.group(1), m.group(m.lastindex)
            labels = tuple(re.findall(LABEL, m.group(2) or ""))
            family = [f for f, kind in types.items()
                      if any(name == f + sfx for sfx in FAMILY_SUFFIXES[kind])]
            assert family, f"sample {name} before its TYPE line"
            assert (name, labels) not in samples, f"duplicate sample {line!r}"
            samples[(name, labels)] = float(value)  # accepts +Inf, NaN
    for family, kind in types.items():
        if kind == "histogram":
            buckets = sorted((float(dict(l)["le"]), v) for (n, l), v in samples.items()
                             if n == family + "_bucket")
            assert buckets[-1][0] == math.inf
            counts = [v for _, v in buckets]
            assert counts == sorted(counts), f"{family} buckets are not cumulative"
            assert counts[-1] == samples[(family + "_count", ())]
            assert (family + "_sum", ()) in samples
    return samples, types


def value(samples, name, **labels):
    return samples[(name, tuple(sorted(labels.items())))]


# --- HTTP on a raw socket: requests no library would send

def exchange(port, data, timeout=15.0, wait_reply=True):
    """Sends `data`, returns (status, headers, body) of the reply read until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        chunks = []
        while wait_reply:
            chunk = s.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    raw = b"".join(chunks)
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    assert headers["Connection"] == "close" and int(headers["Content-Length"]) == len(body)
    return int(lines[0].split(" ")[1]), headers, body.decode()


def scrape(port):
    status, headers, body = exchange(port, b"GET /metrics HTTP/1.1\r\nHost: msjitd\r\n\r\n")
    assert status == 200
    assert headers["Content-Type"].startswith("text/plain; version=0.0.4")
    return parse_prometheus(body)[0], body


@pytest.fixture
def served(make_daemon):
    """A daemon on a unix socket with metrics on a free loopback port: (daemon, metrics port)."""
    port = free_port()
    return make_daemon("--metrics-listen", f"127.0.0.1:{port}").start(), port


def test_metrics_parse_and_counters_follow_compiles_and_hits(served):
    d, port = served
    before, _ = scrape(port)
    assert value(before, "msjit_compiles_total") == 0
    assert value(before, "msjit_workers") >= 1
    stub = d.stub()
    cold = stub.Compile(request(mul_add()))
    warm = stub.Compile(request(mul_add()))
    assert (cold.hit, warm.hit) == (msjit_pb2.TIER_NONE, msjit_pb2.TIER_MEMORY)
    stats = stub.Stats(msjit_pb2.StatsRequest())
    after, text = scrape(port)
    assert value(after, "msjit_compiles_total") == stats.compiles == 1
    assert value(after, "msjit_requests_total", rpc="Compile") == stats.compile_requests == 2
    assert value(after, "msjit_requests_total", rpc="Stats") == 1
    assert value(after, "msjit_cache_hits_total", tier="memory") == stats.memory_hits == 1
    for tier in ("disk", "shared", "cluster", "inflight"):
        assert value(after, "msjit_cache_hits_total", tier=tier) == 0
    assert value(after, "msjit_compile_errors_total") == 0
    assert value(after, "msjit_queue_depth") == 0
    assert value(after, "msjit_cache_entries", tier="disk") == stats.disk_entries == 1
    assert value(after, "msjit_compile_duration_seconds_count") == 1
    assert 0 < value(after, "msjit_compile_duration_seconds_sum") <= cold.compile_ms / 1000 + 1e-6
    assert value(after, "msjit_compile_request_duration_seconds_count") == 2
    assert value(after, "msjit_shared_enabled") == 0
    assert value(after, "msjit_shared_call_duration_seconds_count") == 0
    # An unauthenticated endpoint: counters only, never keys or paths.
    for secret in (cold.key, cold.artifact_digest, d.cache_dir, d.workdir):
        assert secret not in text
    # A bad graph moves the error counter.
    bad = request(mul_add())
    bad.model.graph.node[0].op_type = "NoSuchOp"
    with pytest.raises(grpc.RpcError):
        stub.Compile(bad)
    assert value(scrape(port)[0], "msjit_compile_errors_total") >= 1


def test_http_errors_404_405_431_408_400(served):
    d, port = served
    assert exchange(port, b"GET /nope HTTP/1.1\r\n\r\n")[0] == 404
    assert exchange(port, b"GET / HTTP/1.0\r\n\r\n")[0] == 404
    status, headers, _ = exchange(port, b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
    assert status == 405 and headers["Allow"] == "GET"
    assert exchange(port, b"DELETE /metrics HTTP/1.1\r\n\r\n")[0] == 405
    huge = b"GET /metrics HTTP/1.1\r\nX-Padding: " + b"a" * 9000 + b"\r\n\r\n"
    assert exchange(port, huge)[0] == 431
    assert exchange(port, b"what is this\r\n\r\n")[0] == 400
    assert exchange(port, b"GET /metrics?name[]=x HTTP/1.1\r\n\r\n")[0] == 200  # a query is ignored
    # A head never finished: 408 after the read timeout (~5 s), not a connection held forever.
    start = time.monotonic()
    status, _, _ = exchange(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n", timeout=20)
    assert status == 408 and 4 <= time.monotonic() - start < 15
    assert d.proc.poll() is None


def test_a_flood_of_slow_connections_does_not_stop_compiles(served):
    d, port = served
    slow = []
    try:
        for _ in range(80):  # more than the endpoint's connection bound (32)
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.sendall(b"GET /metrics HTTP/1.1\r\n")  # and never the rest
            slow.append(s)
        start = time.monotonic()
        reply = d.stub().Compile(request(mul_add()), timeout=60)
        assert reply.hit == msjit_pb2.TIER_NONE and time.monotonic() - start < 30
        wait_healthy(d.address, timeout=10)
        # The slow ones time out and free their slots: scrapes succeed again, while they stay open.
        deadline = time.monotonic() + 20
        while True:
            try:
                samples, _ = scrape(port)
                break
            except (AssertionError, OSError):
                assert time.monotonic() < deadline, "metrics never served again after a slow flood"
                time.sleep(0.5)
        assert value(samples, "msjit_compiles_total") == 1
        # Those beyond the bound were answered 503 at once, those within it 408 at their timeout.
        answers = set()
        for s in slow:
            s.settimeout(10)
            try:
                answers.add(s.recv(64).split(b" ")[1])
            except (OSError, IndexError):
                answers.add(b"closed")
        assert answers <= {b"503", b"408", b"closed"} and b"408" in answers
    finally:
        for s in slow:
            s.close()
    assert d.proc.poll() is None


def test_metrics_listen_on_a_taken_port_refuses_to_start(make_daemon, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        d = make_daemon("--metrics-listen", f"127.0.0.1:{port}")
        with pytest.raises(RuntimeError):
            d.start()
        assert d.proc.wait(timeout=30) == 1
    with open(d.log) as f:
        assert "--metrics-listen" in f.read()


# --- msjitctl against the same daemon

def msjitctl(d, *args, env=None):
    return subprocess.run([MSJITCTL, "--address", d.address, *args], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL, env=env)


def test_msjitctl_stats_json_has_every_field_and_matches_stats(served):
    d, _ = served
    d.stub().Compile(request(mul_add()))
    proc = msjitctl(d, "stats", "--json")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    stats = d.stub().Stats(msjit_pb2.StatsRequest())
    fields = msjit_pb2.StatsReply.DESCRIPTOR.fields
    assert set(got) == {f.name for f in fields}  # zeros and empty strings included
    for f in fields:
        want = getattr(stats, f.name)
        if f.name == "uptime_s":
            assert abs(got[f.name] - want) < 30
        elif f.type == f.TYPE_STRING:
            assert got[f.name] == want
        elif f.type == f.TYPE_DOUBLE:
            assert got[f.name] == pytest.approx(want)
        elif f.name not in ("workers",):  # uint64: a JSON string in proto3's mapping
            # msjitctl's own Stats call came first, so the one later counter is Stats' own count.
            assert int(got[f.name]) == want, f.name
    assert int(got["compiles"]) == 1 and got["cache_dir"] == d.cache_dir
    plain = msjitctl(d, "stats")  # the human table still works
    assert plain.returncode == 0 and "compile requests" in plain.stdout


def test_msjitctl_cache_ls_and_rm(served):
    d, port = served
    stub = d.stub()
    reply = stub.Compile(request(mul_add()))
    other = stub.Compile(request(mul_add((4, 4))))
    table = msjitctl(d, "cache", "ls")
    assert table.returncode == 0, table.stderr
    rows = [line.split() for line in table.stdout.splitlines()]
    assert rows[0] == ["KEY", "DIGEST", "SIZE", "TIERS"]
    by_key = {row[0]: row for row in rows[1:]}
    assert set(by_key) == {reply.key, other.key}
    assert by_key[reply.key][1:] == [reply.artifact_digest[:12], str(reply.artifact_size), "memory,disk"]
    listed = json.loads(msjitctl(d, "cache", "ls", "--json").stdout)["entries"]
    assert {e["key"] for e in listed} == {reply.key, other.key}
    entry = next(e for e in listed if e["key"] == reply.key)
    assert entry["artifact_digest"] == reply.artifact_digest and int(entry["artifact_size"]) == reply.artifact_size
    assert entry["in_memory"] is True and entry["on_disk"] is True
    assert len(json.loads(msjitctl(d, "cache", "ls", "--json", "--limit", "1").stdout)["entries"]) == 1

    removed = msjitctl(d, "cache", "rm", reply.key)
    assert removed.returncode == 0, removed.stderr
    assert "removed from the local tiers" in removed.stdout
    assert not os.path.exists(reply.artifact_path)
    assert reply.key not in msjitctl(d, "cache", "ls").stdout
    assert os.path.exists(other.artifact_path)
    # The next compile of it is a miss: compiles += 1.
    again = stub.Compile(request(mul_add()))
    assert again.hit == msjit_pb2.TIER_NONE and again.key == reply.key
    assert stub.Stats(msjit_pb2.StatsRequest()).compiles == 3
    assert value(scrape(port)[0], "msjit_requests_total", rpc="RemoveCacheEntry") == 1

    gone = msjitctl(d, "cache", "rm", "f" * 64)
    assert gone.returncode == 1 and "was not in the local tiers" in gone.stdout
    bad = msjitctl(d, "cache", "rm", "../../etc/passwd")
    assert bad.returncode == 1 and "hex SHA-256" in bad.stderr
    # --shared without a shared tier is refused before anything is removed.
    shared = msjitctl(d, "cache", "rm", again.key, "--shared")
    assert shared.returncode == 1 and "--shared-cache" in shared.stderr
    assert again.key in msjitctl(d, "cache", "ls").stdout


@pytest.mark.parametrize("args", [["cache"], ["cache", "ls", "--limit", "x"], ["cache", "ls", "--shared"],
                                  ["stats", "--shared"], ["cache", "rm"], ["stats", "--bogus"],
                                  ["compile", "f", "--json"]])
def test_msjitctl_bad_usage_exits_2(daemon, args):
    proc = msjitctl(daemon, *args)
    assert proc.returncode == 2 and proc.stderr.startswith("msjitctl: ")


def test_cache_admin_rpcs_need_the_token(make_daemon, tmp_path):
    token = tmp_path / "token"
    token.write_text("s3cret-token-for-operations\n")
    listen = f"127.0.0.1:{free_port()}"
    good = Credentials("s3cret-token-for-operations", None, None, None, None)
    d = make_daemon("--auth-token-file", str(token), listen=listen, credentials=good).start()
    key = d.stub().Compile(request(mul_add())).key
    wrong = Credentials("wrong", None, None, None, None)
    for call, req in (("ListCache", msjit_pb2.ListCacheRequest()),
                      ("RemoveCacheEntry", msjit_pb2.RemoveCacheEntryRequest(key=key))):
        with pytest.raises(grpc.RpcError) as refused:
            getattr(d.stub(wrong), call)(req, timeout=10)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert [e.key for e in d.stub().ListCache(msjit_pb2.ListCacheRequest(), timeout=10).entries] == [key]
    env = dict(os.environ, MSJITD_TOKEN_FILE=str(token))
    assert msjitctl(d, "cache", "rm", key, env=env).returncode == 0
    assert not d.stub().ListCache(msjit_pb2.ListCacheRequest(), timeout=10).entries


def test_cache_rm_shared_drops_the_key_from_redis_and_metrics_show_the_shared_tier(make_daemon, tmp_path):
    from redis_server import start_redis

    redis = start_redis(tmp_path)
    try:
        signing_key = tmp_path / "signing.key"
        signing_key.write_text("operations signing key\n")
        flags = ["--shared-cache", redis.url, "--shared-cache-signing-key-file", str(signing_key)]
        (tmp_path / "a").mkdir()
        (tmp_path / "b").mkdir()
        port = free_port()
        a = make_daemon(*flags, "--metrics-listen", f"127.0.0.1:{port}", workdir=tmp_path / "a").start()
        b = make_daemon(*flags, workdir=tmp_path / "b").start()
        reply = a.stub().Compile(request(mul_add()))
        entry = "msjit:ac:" + reply.key
        assert redis.command("EXISTS", entry) == 1
        samples, _ = scrape(port)
        assert value(samples, "msjit_shared_enabled") == 1
        assert value(samples, "msjit_shared_call_duration_seconds_count") > 0
        assert value(samples, "msjit_shared_stores_total") == 1

        removed = msjitctl(a, "cache", "rm", reply.key, "--shared")
        assert removed.returncode == 0, removed.stderr
        assert "removed from the local tiers; removed from the shared tier" in removed.stdout
        assert redis.command("EXISTS", entry) == 0
        # Daemon b never saw it and Redis no longer has it: a real compile there, not a shared hit.
        again = b.stub().Compile(request(mul_add()))
        assert again.hit == msjit_pb2.TIER_NONE
        assert b.stub().Stats(msjit_pb2.StatsRequest()).compiles == 1
    finally:
        redis.kill()
