"""What the load test and its client processes share: the key mix (16 distinct small graphs)."""
from mindir_models import mul_add, request

DISTINCT = 16


def key_mix():
    return [request(mul_add((n + 1, 3))) for n in range(DISTINCT)]

