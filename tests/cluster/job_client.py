"""One Python client of the cluster job: `job_client.py SEED [GRAPH_INDEX ...]` (default: all).

Computes the eager results, creates ./ready, waits until its stdin reaches end of file (the test
closes the pipe's write end when every client is ready, so they all start together), then runs
the graphs through mindspore.jit (the daemons from MSJITD_ADDRESS) in its own seeded random
order, each result checked against eager. Writes {"ok", "error", "seconds", "order"} to
./result.json; exits 1 on a wrong result or an error."""
import json
import os
import random
import select
import sys
import time
import traceback

sys.path[:0] = [os.path.join(os.path.dirname(os.path.abspath(__file__)), p) for p in ("../../client_py", ".")]

import job_graphs  # noqa: E402

BARRIER_TIMEOUT_S = 120.0


def wait_for_barrier(fd):
    deadline = time.monotonic() + BARRIER_TIMEOUT_S
    while time.monotonic() < deadline:
        readable, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if readable and not os.read(fd, 64):
            return
    raise TimeoutError(f"the start barrier did not open within {BARRIER_TIMEOUT_S:.0f} s")


def main(seed, indices):
    order = list(indices)
    random.Random(seed).shuffle(order)
    expected = {i: job_graphs.eager(i) for i in order}
    open("ready", "w").close()
    wait_for_barrier(sys.stdin.fileno())
    start = time.monotonic()
    result = {"ok": True, "error": "", "order": order}
    try:
        for i in order:
            job_graphs.assert_equal_outputs(job_graphs.run_jitted(i), expected[i], job_graphs.name(i))
    except Exception:   # reported to the test (the end of this log), which names the client and its daemon
        result.update(ok=False, error=traceback.format_exc(limit=4))
        sys.stderr.write(result["error"])
    result["seconds"] = time.monotonic() - start
    with open("result.json", "w") as f:
        json.dump(result, f)
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    args = sys.argv[1:]
    sys.exit(main(int(args[0]), [int(a) for a in args[1:]] or range(job_graphs.COUNT)))
