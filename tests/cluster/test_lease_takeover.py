"""Issue 13, acceptance 2: the daemon holding a compile's lease dies mid-compile (SIGKILL, with its
workers); another daemon takes the lapsed lease over and compiles, every client (those of the dead
daemon fail over through their MSJITD_ADDRESS list) gets the right answer, none hangs.

Deterministic: the holder's compile worker is stopped (SIGSTOP) once its lease shows in Redis,
so the compile cannot finish before the kill while the holder itself keeps renewing the lease."""
import os
import signal
import time

import job_graphs
from cluster_support import describe, wait_until

LEASE_S = 2
FINISH_TIMEOUT_S = 90.0   # from the kill: lease lapse + one compile + failovers, with room to spare


def test_killing_the_lease_holder_mid_compile_another_daemon_completes_it(make_cluster, make_clients):
    cluster = make_cluster(lease_s=LEASE_S, extra=["--jobs", "1"])   # (one compile worker: the one to freeze)
    holder = cluster.daemons[0]
    first = make_clients()
    first.launch(cluster, 1, indices=[job_graphs.SLOW])   # daemon 0 first: it takes the lease
    first.wait_ready()
    first.release()
    wait_until(cluster.lease_keys, 60, "daemon 0's lease in Redis")
    workers = wait_until(lambda: cluster.workers_of(holder, "compile"), 30, "the lease holder's compile worker")
    os.kill(workers[0], signal.SIGSTOP)   # freeze the compile; daemon 0 still renews its lease
    try:
        s = cluster.stats()[0]
        assert s.compiles == 0 and s.queued >= 1, describe([s])
        others = make_clients()
        # Daemons 0, 1, 2, 0, 1; Python and C++ clients alternate.
        others.launch(cluster, 5, indices=[job_graphs.SLOW], cpp_every=2)
        others.wait_ready()
        others.release()
        # Every request arrived (Stats count a join or a wait when it ends, so requests are what can be
        # seen now). Mostly 3, 2, 1 per daemon; a client whose health check of its first daemon was
        # slow may have gone to the next one.
        wait_until(lambda: cluster.totals()["compile_requests"] == 6, 60, "every client's request at a daemon",
                   state=lambda: describe(cluster.stats()))
        assert len(cluster.lease_keys()) == 1 and cluster.stats()[0].compiles == 0   # still mid-compile
    finally:
        cluster.kill(holder)   # (also on failure: a stopped worker would not stop on SIGTERM)
    killed = time.monotonic()
    first.finish(FINISH_TIMEOUT_S)
    others.finish(max(1.0, FINISH_TIMEOUT_S - (time.monotonic() - killed)))
    print(f"lease takeover: every client answered {time.monotonic() - killed:.1f} s after the kill")

    stats = cluster.stats()   # the two survivors
    total = cluster.totals(stats)
    assert total["shared_takeovers"] >= 1 and total["compiles"] == 1, describe(stats)
    assert total["compile_errors"] == 0, describe(stats)
    # The survivors served their own clients and those that failed over from daemon 0.
    assert total["compile_requests"] == 6, describe(stats)
    wait_until(lambda: not cluster.lease_keys(), 10, "the survivor's lease released")
