"""What tests/deploy share: the manifests of deploy/k8s parsed, the credentials deploy/make-secrets.sh
generates (run for real), a pod's volumes laid out in a temp dir so the real binaries run with
the manifests' own paths and flags, and processes that are always stopped."""
import base64
import os
import re
import socket
import subprocess
import sys
import time

import pytest
import yaml

from support import terminate

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEPLOY = os.path.join(ROOT, "deploy")
K8S = os.path.join(DEPLOY, "k8s")


def built(path):
    """A binary of the Bazel build (tests run against what `make build` made)."""
    full = os.path.join(ROOT, "bazel-bin", path)
    if not os.access(full, os.X_OK):
        pytest.fail(f"{full} is not built: run `make build`")
    return full


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def manifest_files():
    return sorted(os.path.join(K8S, f) for f in os.listdir(K8S) if f.endswith(".yaml"))


def load_docs(path):
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d]


def manifests():
    """Every object of deploy/k8s, in file order."""
    return [doc for path in manifest_files() for doc in load_docs(path)]


def find(docs, kind, name):
    hits = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(hits) == 1, f"expected one {kind} {name}, found {len(hits)}"
    return hits[0]


def pod_spec(workload):
    return workload["spec"]["template"]["spec"]


def redis_conf(docs):
    """{directive: value} of the redis.conf in the redis-config ConfigMap."""
    text = find(docs, "ConfigMap", "redis-config")["data"]["redis.conf"]
    return dict(line.split(None, 1) for line in text.splitlines() if line.strip() and not line.startswith("#"))


def memory_bytes(text):
    """Bytes of a Redis ("3gb") or Kubernetes ("4Gi") memory size."""
    units = {"gb": 1 << 30, "mb": 1 << 20, "Gi": 1 << 30, "Mi": 1 << 20}
    number, unit = re.fullmatch(r"(\d+)([A-Za-z]+)", text).groups()
    return int(number) * units[unit]


def generate_secrets(workdir):
    """{secret name: {key: bytes}} from a real run of deploy/make-secrets.sh."""
    out = subprocess.run([os.path.join(DEPLOY, "make-secrets.sh")], cwd=str(workdir), capture_output=True,
                         timeout=60, check=True).stdout
    docs = [d for d in yaml.safe_load_all(out) if d]
    assert all(d["kind"] == "Secret" for d in docs)
    return {d["metadata"]["name"]: {k: base64.b64decode(v) for k, v in d["data"].items()} for d in docs}


def lay_out_volumes(docs, spec, container, secrets, root):
    """Writes what each volume of `container` would hold (ConfigMaps from `docs`, Secrets from
    `secrets`, emptyDir and PVC empty) under `root`; returns {mountPath: local dir}. Fails on a
    volume whose ConfigMap/Secret does not exist, so a dangling reference cannot pass."""
    volumes = {v["name"]: v for v in spec["volumes"]} if "volumes" in spec else {}
    mounts = {}
    for mount in container.get("volumeMounts", []):
        local = os.path.join(str(root), mount["name"])
        os.makedirs(local, mode=0o700, exist_ok=True)
        volume = volumes.get(mount["name"], {})
        if "configMap" in volume:
            files = {k: v.encode() for k, v in find(docs, "ConfigMap", volume["configMap"]["name"])["data"].items()}
        elif "secret" in volume:
            name = volume["secret"]["secretName"]
            assert name in secrets, f"volume {mount['name']}: no Secret {name}"
            files = secrets[name]
        else:
            files = {}
        items = (volume.get("secret") or volume.get("configMap") or {}).get("items")
        if items:
            files = {item["path"]: files[item["key"]] for item in items}
        for key, data in files.items():
            with open(os.path.join(local, key), "wb") as f:
                f.write(data)
            os.chmod(os.path.join(local, key), 0o600)
        mounts[mount["mountPath"]] = local
    return mounts


def remap(text, mapping):
    """`text` with every key of `mapping` replaced by its value in one pass, longest key first (a
    mount path never replaces part of a longer one, nor of a value already put in)."""
    if not mapping:
        return text
    pattern = "|".join(re.escape(k) for k in sorted(mapping, key=len, reverse=True))
    return re.sub(pattern, lambda m: mapping[m.group(0)], text)


def wait_for(check, timeout, what, process=None):
    """Polls `check()` (truthy = done) every 50 ms up to `timeout` seconds; fails naming `what`
    (with the output of `process`, a Process, which also fails it at once if it exits)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        if process is not None and process.proc.poll() is not None:
            pytest.fail(f"{what}: exited with status {process.proc.returncode}:\n{process.output()}")
        time.sleep(0.05)
    pytest.fail(f"{what}: not within {timeout} s" + (f":\n{process.output()}" if process else ""))


class Process:
    """A started program, stopped with SIGTERM (SIGKILL after 20 s) by stop()."""

    def __init__(self, argv, log, env=None):
        self.log = log
        with open(log, "wb") as f:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
                                         env=env)

    def stop(self):
        terminate(self.proc, grace=20)

    def output(self):
        with open(self.log, errors="replace") as f:
            return f.read()


def run(argv, env=None, timeout=30, cwd=None):
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout, cwd=cwd)


REDIS_SERVER, REDIS_CLI = "/usr/bin/redis-server", "/usr/bin/redis-cli"
REDIS_PORT_IN_POD = 6379


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


def compile_and_find_in_redis(env, token_file, redis, daemon, workdir):
    """Compiles a graph with msjitctl under `env` (the daemon's client settings): refused without
    the token, compiled with it, and then stored in `redis` (the shared tier) under msjit:."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
    from mindir_models import mul_add

    graph = os.path.join(str(workdir), "mul_add.mindir")
    with open(graph, "wb") as f:
        f.write(mul_add(dims=(3, 5)).SerializeToString())
    msjitctl = built("client_cpp/msjitctl")
    env = {k: v for k, v in env.items() if k != "MSJITD_TOKEN_FILE"}
    refused = run([msjitctl, "compile", graph], env=env, timeout=60)
    assert refused.returncode != 0 and "token" in (refused.stdout + refused.stderr).lower(), refused
    compiled = run([msjitctl, "compile", graph], env=dict(env, MSJITD_TOKEN_FILE=token_file), timeout=120)
    assert compiled.returncode == 0, (compiled.stdout, compiled.stderr, daemon.output())
    # Over TLS, with the password, signed with the key: the shared tier took it.
    wait_for(lambda: redis.cli("--scan", "--pattern", "msjit:*").stdout.split(), 15,
             "msjitd stores the compiled entry in Redis", daemon)
