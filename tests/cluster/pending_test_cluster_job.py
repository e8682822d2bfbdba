"""Issue 13, acceptance 1 and 3: redis-server + 3 msjitd with separate cache dirs; 64 client
processes (48 Python, 16 C++ msjit-run) start the same job (20 graphs, each client in its own
order) through different daemons at once: exactly 20 compiles across the cluster, every result
equal to eager. Then every daemon restarts with an empty cache dir and the job runs again:
served from Redis, zero compiles."""
import time

import job_graphs
from cluster_support import describe
from msjit.proto import msjit_pb2

CLIENTS = 64
CPP_EVERY = 4          # every 4th client is a C++ one: 48 Python + 16 msjit-run
JOB_TIMEOUT_S = 150.0  # per job, from the barrier; a client still running then fails the test


def run_job(cluster, clients, count=CLIENTS):
    clients.launch(cluster, count, cpp_every=CPP_EVERY)
    clients.wait_ready()
    start = time.monotonic()
    clients.release()
    results, tiers = clients.finish(JOB_TIMEOUT_S)
    print(f"cluster job: {count} clients in {time.monotonic() - start:.1f} s; Python client "
          f"p50 {sorted(r['seconds'] for r in results)[len(results) // 2]:.2f} s")
    return results, tiers


def test_64_clients_one_compile_per_graph_then_restart_serves_from_redis(make_cluster, make_clients):
    cluster = make_cluster()
    run_job(cluster, make_clients())
    stats = cluster.stats()
    assert cluster.total("compiles", stats) == job_graphs.COUNT, describe(stats)
    assert cluster.total("compile_errors", stats) == 0, describe(stats)
    assert cluster.total("compile_requests", stats) == CLIENTS * job_graphs.COUNT, describe(stats)
    assert cluster.total("shared_unavailable", stats) == 0, describe(stats)
    # Every daemon served its clients: the job really went through all three.
    assert all(s.compile_requests > 0 for s in stats), describe(stats)

    cluster.restart_empty()
    assert cluster.total("disk_entries") == 0
    _, tiers = run_job(cluster, make_clients())
    stats = cluster.stats()
    assert cluster.total("compiles", stats) == 0, describe(stats)
    assert cluster.total("inflight_joins", stats) + cluster.total("shared_hits", stats) \
        + cluster.total("memory_hits", stats) == CLIENTS * job_graphs.COUNT, describe(stats)
    # Each daemon fetched each graph from Redis at most once, and the cluster all 20 at least once.
    assert job_graphs.COUNT <= cluster.total("shared_hits", stats) <= len(stats) * job_graphs.COUNT, describe(stats)
    assert cluster.total("shared_waits", stats) == 0, describe(stats)
    assert set(tiers) <= {msjit_pb2.CacheTier.Name(t) for t in
                          (msjit_pb2.TIER_SHARED, msjit_pb2.TIER_MEMORY, msjit_pb2.TIER_INFLIGHT)}, tiers
