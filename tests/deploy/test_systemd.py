"""deploy/msjitd.service and its cluster drop-in: `systemd-analyze verify`, then the real msjitd
started with the ExecStart systemd would run (specifiers and directories pointed at temp paths,
credentials from deploy/make-secrets.sh), answering health, and for the cluster drop-in
compiling into the manifests' Redis over TLS."""
import os
import re
import shlex
import shutil

import pytest

from deploy_support import DEPLOY, Process, built, compile_and_find_in_redis, free_port, remap, run, wait_for

UNIT = os.path.join(DEPLOY, "msjitd.service")
DROP_IN = os.path.join(DEPLOY, "msjitd.service.d", "cluster.conf")
INSTALLED_MSJITD = "/usr/local/bin/msjitd"
# What each credential file of the drop-in holds, as make-secrets.sh names it (README's layout).
CREDENTIAL_SOURCES = {
    "/etc/msjit/token": ("msjitd-token", "token"),
    "/etc/msjit/tls.crt": ("msjit-tls", "tls.crt"),
    "/etc/msjit/tls.key": ("msjit-tls", "tls.key"),
    "/etc/msjit/ca.crt": ("redis-tls", "ca.crt"),
    "/etc/msjit/redis-password": ("redis-auth", "password"),
    "/etc/msjit/signing.key": ("msjitd-signing-key", "signing.key"),
}


def service_settings(*paths):
    """[(key, value)] of the [Service] sections of `paths` in order, continuation lines joined."""
    settings = []
    for path in paths:
        with open(path) as f:
            text = re.sub(r"\\\n", " ", f.read())
        section = None
        for line in text.splitlines():
            line = line.strip()
            if line.startswith("[") and line.endswith("]"):
                section = line[1:-1]
            elif section == "Service" and line and line[0] not in "#;":
                key, _, value = line.partition("=")
                settings.append((key.strip(), value.strip()))
    return settings


def exec_start(settings):
    """The one command systemd runs: an empty ExecStart= resets the list (drop-ins do that)."""
    commands = []
    for key, value in settings:
        if key == "ExecStart":
            commands = [value] if value else []
    assert len(commands) == 1, commands
    return shlex.split(commands[0])


def test_units_verify(tmp_path):
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    # verify checks that ExecStart's binary exists: point it at the built one.
    units = tmp_path / "units"
    (units / "msjitd.service.d").mkdir(parents=True)
    for src, dst in ((UNIT, units / "msjitd.service"), (DROP_IN, units / "msjitd.service.d" / "cluster.conf")):
        with open(src) as f:
            dst.write_text(f.read().replace(INSTALLED_MSJITD, built("server/msjitd")))
    verify = ["systemd-analyze", "verify", "./msjitd.service"]
    result = run(verify, cwd=str(units), timeout=60)
    # Unknown keys and bad values are only warnings to verify (exit 0): none allowed.
    assert result.returncode == 0 and not (result.stdout + result.stderr).strip(), result.stdout + result.stderr
    debug = run(verify, env=dict(os.environ, SYSTEMD_LOG_LEVEL="debug"), cwd=str(units), timeout=60)
    assert f"DropIn Path: {units}/msjitd.service.d/cluster.conf" in debug.stdout + debug.stderr, "drop-in not loaded"


def test_drop_in_credentials_are_loaded_and_used():
    settings = service_settings(UNIT, DROP_IN)
    loaded = dict(value.split(":", 1) for key, value in settings if key == "LoadCredential")
    assert set(loaded.values()) == set(CREDENTIAL_SOURCES), "README/test layout of /etc/msjit changed"
    used = {arg[len("%d/"):] for arg in exec_start(settings) if arg.startswith("%d/")}
    assert used == set(loaded), (used, set(loaded))


class UnitDaemon:
    """msjitd as systemd would start it from `unit_files`, with its directories, %d and the
    cluster addresses mapped to temp paths and loopback ports."""

    def __init__(self, unit_files, root, secrets=None, redis_port=None):
        settings = service_settings(*unit_files)
        self.port = free_port()
        creds = root / "credentials"
        creds.mkdir()
        for key, value in settings:
            if key == "LoadCredential":
                name, source = value.split(":", 1)
                secret, item = CREDENTIAL_SOURCES[source]
                (creds / name).write_bytes(secrets[secret][item])
        self.creds = str(creds)
        mapping = {INSTALLED_MSJITD: built("server/msjitd"), "%d": self.creds,
                   "/var/cache/msjitd": str(root / "cache"), "/run/msjitd": str(root / "run"),
                   "0.0.0.0:7420": f"127.0.0.1:{self.port}", "0.0.0.0:9420": f"127.0.0.1:{free_port()}",
                   "redis.internal.example:6379": f"127.0.0.1:{redis_port}"}
        (root / "run").mkdir(mode=0o700)
        argv = [remap(arg, mapping) for arg in exec_start(settings)]
        self.socket = os.path.join(str(root / "run"), "msjitd.sock")
        self.process = Process(argv, str(root / "msjitd.log"))

    def health(self, address, env=None):
        return run([built("client_cpp/msjitctl"), "--address", address, "health"], env=env, timeout=10)


def test_base_unit_serves_its_socket(tmp_path):
    d = UnitDaemon([UNIT], tmp_path)
    try:
        wait_for(lambda: d.health("unix://" + d.socket).returncode == 0, 15, "health on the unit's socket", d.process)
        assert os.stat(d.socket).st_mode & 0o777 == 0o600
    finally:
        d.process.stop()


def test_cluster_drop_in_serves_tls_and_shares_through_redis(tmp_path, secrets, redis):
    d = UnitDaemon([UNIT, DROP_IN], tmp_path, secrets, redis.port)
    env = dict(os.environ, MSJITD_ADDRESS=f"127.0.0.1:{d.port}", MSJITD_TLS_CA=os.path.join(d.creds, "ca.crt"))
    try:
        wait_for(lambda: d.health(env["MSJITD_ADDRESS"], env).returncode == 0, 15, "health over TLS", d.process)
        compile_and_find_in_redis(env, os.path.join(d.creds, "token"), redis, d.process, tmp_path)
    finally:
        d.process.stop()
