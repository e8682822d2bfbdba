"""tests/cluster fixtures: a started loopback cluster (redis-server + 3 msjitd) and client groups,
all stopped at teardown whatever the test did."""
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cluster_support import Cluster, Clients  # noqa: E402


@pytest.fixture
def make_cluster(tmp_path):
    started = []

    def make(**options):
        workdir = tmp_path / f"cluster{len(started)}"
        workdir.mkdir()
        started.append(Cluster(workdir, **options))
        return started[-1]

    yield make
    for c in started:
        c.close()


@pytest.fixture
def make_clients(tmp_path):
    """Client groups (each with its own barrier), seeded from the clock; the seed is printed so a
    failing order can be replayed."""
    groups = []
    seed = int(time.time())

    def make():
        workdir = tmp_path / f"clients{len(groups)}"
        workdir.mkdir()
        groups.append(Clients(workdir, seed + 1000 * len(groups)))
        print(f"cluster clients: seed {groups[-1].seed}")
        return groups[-1]

    yield make
    for g in groups:
        g.close()
