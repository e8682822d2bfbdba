"""One load-test client process: `load_client.py ADDRESS SEED REQUESTS OUT`. Sends REQUESTS
Compile calls over the key mix (load_support.py) in a seeded random order on its own channel, writes
each call's latency in ms (float64) to OUT and prints one JSON line: requests, errors, misses."""
import json
import os
import random
import sys
import time

sys.path[:0] = [os.path.join(os.path.dirname(__file__), p) for p in ("../../client_py", "..", "../e2e")]

import grpc  # noqa: E402
import numpy as np  # noqa: E402

from load_support import key_mix  # noqa: E402
from msjit.proto import msjit_pb2, msjit_pb2_grpc  # noqa: E402


def main(address, seed, count, out):
    mix = key_mix()
    order = [mix[i % len(mix)] for i in range(count)]
    random.Random(seed).shuffle(order)
    latencies = np.empty(count)
    errors = misses = 0
    first_error = ""
    with grpc.insecure_channel(address) as channel:
        stub = msjit_pb2_grpc.MsjitStub(channel)
        grpc.channel_ready_future(channel).result(timeout=60)   # connecting is not a request's latency
        for i, req in enumerate(order):
            start = time.perf_counter()
            try:
                reply = stub.Compile(req, timeout=60)
                misses += reply.hit != msjit_pb2.TIER_MEMORY
            except grpc.RpcError as err:
                errors += 1
                first_error = first_error or f"{err.code()}: {err.details()}"
            latencies[i] = (time.perf_counter() - start) * 1e3
    latencies.tofile(out)
    print(json.dumps({"requests": count, "errors": errors, "misses": misses, "first_error": first_error}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
