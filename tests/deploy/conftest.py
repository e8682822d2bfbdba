"""Fixtures of tests/deploy: the manifests, fresh credentials from deploy/make-secrets.sh, and a
redis-server run from the StatefulSet's redis.conf (one per test module, always stopped)."""
import os

import pytest

from deploy_support import REDIS_CLI, REDIS_SERVER, ManifestRedis, generate_secrets, manifests, wait_for


@pytest.fixture(scope="module")
def docs():
    return manifests()


@pytest.fixture(scope="module")
def secrets(tmp_path_factory):
    return generate_secrets(tmp_path_factory.mktemp("secrets"))


@pytest.fixture(scope="module")
def redis(docs, secrets, tmp_path_factory):
    for tool in (REDIS_SERVER, REDIS_CLI):
        if not os.access(tool, os.X_OK):
            pytest.skip(f"{tool} is not installed (Debian's redis-server and redis-tools)")
    r = ManifestRedis(docs, secrets, tmp_path_factory.mktemp("redis"))
    try:
        wait_for(lambda: r.cli("PING").stdout.strip() == "PONG", 10, "redis-server answers PING over TLS", r.process)
        yield r
    finally:
        r.process.stop()
