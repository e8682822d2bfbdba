"""deploy/k8s run for real on loopback: Debian's redis-server with the StatefulSet's redis.conf,
volumes and probes, then msjitd with the Deployment's args, volumes, env and probes against it,
all with credentials from a real run of deploy/make-secrets.sh."""
import os
import socket
import sys

import pytest

from deploy_support import (Process, built, find, free_port, generate_secrets, lay_out_volumes, manifests,
                            pod_spec, remap, run, wait_for)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "e2e"))

REDIS_SERVER, REDIS_CLI = "/usr/bin/redis-server", "/usr/bin/redis-cli"
REDIS_PORT_IN_POD = 6379


@pytest.fixture(scope="module")
def docs():
    return manifests()


@pytest.fixture(scope="module")
def secrets(tmp_path_factory):
    return generate_secrets(tmp_path_factory.mktemp("secrets"))


class ManifestRedis:
    """The StatefulSet's Redis: its container's volumes laid out in a temp dir, on a free port."""

    def __init__(self, docs, secrets, root):
        spec = pod_spec(find(docs, "StatefulSet", "redis"))
        self.container = spec["containers"][0]
        self.mounts = lay_out_volumes(docs, spec, self.container, secrets, root)
        self.port = free_port()
        self.password = secrets["redis-auth"]["password"].decode().strip()
        self.ca = os.path.join(self.mounts["/etc/redis/tls"], "ca.crt")
        command = [remap(arg, self.mounts) for arg in self.container["command"]]
        assert command[0] == "redis-server", command
        conf = command[1]
        with open(conf) as f:  # its include, TLS files and dir name mount paths too
            text = remap(f.read(), self.mounts)
        with open(conf, "w") as f:
            f.write(text)
        # Loopback and a free port instead of the pod's; no snapshots in a test.
        argv = [REDIS_SERVER, conf, *command[2:], "--bind", "127.0.0.1", "--tls-port", str(self.port),
                "--save", "", "--appendonly", "no"]
        self.process = Process(argv, os.path.join(str(root), "redis.log"))

    def cli(self, *args, password=True):
        env = dict(os.environ, REDISCLI_AUTH=self.password) if password else {
            k: v for k, v in os.environ.items() if k != "REDISCLI_AUTH"}
        return run([REDIS_CLI, "--tls", "--cacert", self.ca, "-h", "127.0.0.1", "-p", str(self.port),
                    "--no-auth-warning", *args], env=env, timeout=10)

    def config(self, name):
        lines = self.cli("CONFIG", "GET", name).stdout.splitlines()
        assert len(lines) == 2 and lines[0] == name, lines
        return lines[1]

    def probe_script(self, probe):
        """A probe's shell command with this Redis's paths and port."""
        command = probe["exec"]["command"]
        assert command[:2] == ["sh", "-c"], command
        return remap(command[2], dict(self.mounts, **{f"-p {REDIS_PORT_IN_POD}": f"-p {self.port}"}))


@pytest.fixture(scope="module")
def redis(docs, secrets, tmp_path_factory):
    for tool in (REDIS_SERVER, REDIS_CLI):
        if not os.access(tool, os.X_OK):
            pytest.skip(f"{tool} is not installed (Debian's redis-server and redis-tools)")
    r = ManifestRedis(docs, secrets, tmp_path_factory.mktemp("redis"))
    try:
        wait_for(lambda: r.cli("PING").stdout.strip() == "PONG", 10, "redis-server answers PING over TLS",
                 r.process)
        yield r
    finally:
        r.process.stop()


def test_redis_runs_with_the_manifest_settings(redis):
    assert redis.config("maxmemory") == str(3 << 30)
    assert redis.config("maxmemory-policy") == "allkeys-lru"
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
        self.port = free_port()
        self.mounts = lay_out_volumes(docs, spec, self.container, secrets, root)
        self.mapping = dict(self.mounts, **{
            "0.0.0.0:7420": f"127.0.0.1:{self.port}", "127.0.0.1:7420": f"127.0.0.1:{self.port}",
            "0.0.0.0:9420": f"127.0.0.1:{free_port()}",
            "redis.msjit.svc.cluster.local:6379": f"127.0.0.1:{redis.port}",
            "/usr/local/bin/msjitctl": built("client_cpp/msjitctl")})
        self.token_file = os.path.join(self.mounts["/etc/msjit/token"], "token")
        self.env = dict(os.environ, **{e["name"]: remap(e["value"], self.mapping) for e in self.container["env"]})
        self.env.pop("MSJITD_TOKEN_FILE", None)
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
    from mindir_models import mul_add

    graph = tmp_path / "mul_add.mindir"
    graph.write_bytes(mul_add(dims=(3, 5)).SerializeToString())
    msjitctl = built("client_cpp/msjitctl")
    refused = run([msjitctl, "compile", str(graph)], env=msjitd.env, timeout=60)
    assert refused.returncode != 0 and "token" in (refused.stdout + refused.stderr).lower(), refused
    compiled = run([msjitctl, "compile", str(graph)], env=dict(msjitd.env, MSJITD_TOKEN_FILE=msjitd.token_file),
                   timeout=120)
    assert compiled.returncode == 0, (compiled.stdout, compiled.stderr, msjitd.process.output())
    # The shared tier took it: over TLS, with the password, under the default prefix.
    wait_for(lambda: redis.cli("--scan", "--pattern", "msjit:*").stdout.split(), 15,
             "msjitd stores the compiled entry in Redis", msjitd.process)
