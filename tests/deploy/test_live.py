"""deploy/k8s run for real on loopback: Debian's redis-server with the StatefulSet's redis.conf,
volumes and probes, then msjitd with the Deployment's args, volumes, env and probes against it,
all with credentials from a real run of deploy/make-secrets.sh."""
import os
import re
import socket
import urllib.request

import pytest

from deploy_support import (Process, built, compile_and_find_in_redis, find, free_port, lay_out_volumes, memory_bytes,
                            pod_spec, redis_conf, remap, run, wait_for)


def test_redis_runs_with_the_manifest_settings(redis, docs):
    conf = redis_conf(docs)
    assert redis.config("maxmemory") == str(memory_bytes(conf["maxmemory"])) != "0"
    assert redis.config("maxmemory-policy") == conf["maxmemory-policy"] == "allkeys-lru"
    assert redis.config("requirepass") == redis.password
    assert redis.config("port") == "0"  # no plaintext port
    assert redis.config("tls-port") == str(redis.port)


def test_redis_refuses_clients_without_the_password_or_tls(redis):
    assert "NOAUTH" in redis.cli("PING", password=False).stdout
    with socket.create_connection(("127.0.0.1", redis.port), timeout=5) as s:
        s.sendall(b"AUTH " + redis.password.encode() + b"\r\nPING\r\n")
        try:
            reply = s.recv(100)
        except (ConnectionResetError, socket.timeout):
            reply = b""
    assert b"PONG" not in reply and b"+OK" not in reply


def test_redis_probes_pass(redis):
    for kind in ("readinessProbe", "livenessProbe"):
        result = run(["sh", "-c", redis.probe_script(redis.container[kind])], timeout=10)
        assert result.returncode == 0, (kind, result.stdout, result.stderr)


def test_redis_probe_fails_on_a_wrong_password(redis, tmp_path):
    # The probes can fail: the same script with a wrong password file exits non-zero.
    wrong = tmp_path / "password"
    wrong.write_text("not-the-password\n")
    script = redis.probe_script(redis.container["readinessProbe"]).replace(
        os.path.join(redis.mounts["/etc/redis/auth"], "password"), str(wrong))
    assert run(["sh", "-c", script], timeout=10).returncode != 0


class ManifestMsjitd:
    """The Deployment's msjitd (the container image's entrypoint is msjitd) with its args, env and
    volumes, listening on loopback ports and using `redis` as its shared tier."""

    def __init__(self, docs, secrets, redis, root):
        spec = pod_spec(find(docs, "Deployment", "msjitd"))
        self.container = spec["containers"][0]
        self.port, self.metrics_port = free_port(), free_port()
        self.annotations = find(docs, "Deployment", "msjitd")["spec"]["template"]["metadata"]["annotations"]
        self.mounts = lay_out_volumes(docs, spec, self.container, secrets, root)
        self.mapping = dict(self.mounts, **{
            "0.0.0.0:7420": f"127.0.0.1:{self.port}", "127.0.0.1:7420": f"127.0.0.1:{self.port}",
            "0.0.0.0:9420": f"127.0.0.1:{self.metrics_port}",
            "redis.msjit.svc.cluster.local:6379": f"127.0.0.1:{redis.port}",
            "/usr/local/bin/msjitctl": built("client_cpp/msjitctl")})
        self.env = dict(os.environ, **{e["name"]: remap(e["value"], self.mapping) for e in self.container["env"]})
        args = [remap(a, self.mapping) for a in self.container["args"]]
        self.process = Process([built("server/msjitd"), *args], os.path.join(str(root), "msjitd.log"))

    def probe(self, kind, env=None):
        command = [remap(a, self.mapping) for a in self.container[kind]["exec"]["command"]]
        return run(command, env=env or self.env, timeout=10)


@pytest.fixture(scope="module")
def msjitd(docs, secrets, redis, tmp_path_factory):
    d = ManifestMsjitd(docs, secrets, redis, tmp_path_factory.mktemp("msjitd"))
    try:
        wait_for(lambda: d.probe("readinessProbe").returncode == 0, 20, "msjitd's readiness probe passes",
                 d.process)
        yield d
    finally:
        d.process.stop()


def test_msjitd_probes_pass_and_need_tls(msjitd):
    assert msjitd.probe("livenessProbe").returncode == 0
    # The daemon serves only TLS: a plaintext health check (what a native grpc probe would send) fails.
    plain = {k: v for k, v in msjitd.env.items() if not k.startswith("MSJITD_TLS_")}
    assert msjitd.probe("readinessProbe", env=plain).returncode != 0, msjitd.process.output()


def test_msjitd_compiles_with_the_token_and_stores_in_redis(msjitd, redis, tmp_path):
    compile_and_find_in_redis(msjitd.env, msjitd.env["MSJITD_TOKEN_FILE"], redis, msjitd.process, tmp_path)


def test_msjitd_serves_metrics_where_the_pod_annotations_say(msjitd):
    path = msjitd.annotations["prometheus.io/path"]
    with urllib.request.urlopen(f"http://127.0.0.1:{msjitd.metrics_port}{path}", timeout=10) as reply:
        assert reply.status == 200
        text = reply.read().decode()
    assert re.search(r"^msjit_\w+(\{[^}]*\})? \S+$", text, re.M), text[:500]
