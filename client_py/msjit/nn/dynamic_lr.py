"""MindSpore's dynamic learning rates: lists with one learning rate per step, to pass to an
optimizer (which reads entry ``global_step`` each step). Each rate depends on the step's epoch
``floor(step / step_per_epoch)``."""
import math

__all__ = ["piecewise_constant_lr", "exponential_decay_lr", "natural_exp_decay_lr", "inverse_decay_lr",
           "cosine_decay_lr", "polynomial_decay_lr", "warmup_lr"]


def _check(fn, positive_ints=(), positive_floats=(), non_negative_floats=(), **values):
    for name in positive_ints:
        v = values[name]
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            raise ValueError(f"For '{fn}', '{name}' must be a positive int, but got {v!r}")
    for name in positive_floats + non_negative_floats:
        v = values[name]
        if not isinstance(v, float):
            raise TypeError(f"For '{fn}', '{name}' must be a float, but got {type(v).__name__}")
        if v < 0 or (v == 0 and name in positive_floats):
            raise ValueError(f"For '{fn}', '{name}' must be {'positive' if name in positive_floats else '>= 0'}, "
                             f"but got {v}")


def _per_epoch(total_step, step_per_epoch, rate_of_epoch):
    return [rate_of_epoch(i // step_per_epoch) for i in range(total_step)]


def piecewise_constant_lr(milestone, learning_rates):
    """``learning_rates[i]`` for the steps before ``milestone[i]`` (milestones increasing)."""
    if not isinstance(milestone, (tuple, list)) or not isinstance(learning_rates, (tuple, list)):
        raise TypeError("For 'piecewise_constant_lr', milestone and learning_rates must be lists or tuples")
    if len(milestone) != len(learning_rates):
        raise ValueError(f"For 'piecewise_constant_lr', the size of 'milestone' must be same with the size of "
                         f"'learning_rates', but got {len(milestone)} and {len(learning_rates)}")
    lr, start = [], 0
    for i, (end, rate) in enumerate(zip(milestone, learning_rates)):
        _check("piecewise_constant_lr", (f"milestone[{i}]",), **{f"milestone[{i}]": end})
        if not isinstance(rate, float):
            raise TypeError(f"For 'piecewise_constant_lr', learning_rates[{i}] must be a float, got {rate!r}")
        if end < start:
            raise ValueError(f"For 'piecewise_constant_lr', milestone[{i}] {end} is smaller than the one before")
        lr += [rate] * (end - start)
        start = end
    return lr


def _decay(name, learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair, rate):
    _check(name, ("total_step", "step_per_epoch", "decay_epoch"), ("learning_rate", "decay_rate"),
           learning_rate=learning_rate, decay_rate=decay_rate, total_step=total_step, step_per_epoch=step_per_epoch,
           decay_epoch=decay_epoch)
    if not isinstance(is_stair, bool):
        raise TypeError(f"For '{name}', 'is_stair' must be a bool, but got {type(is_stair).__name__}")
    return _per_epoch(total_step, step_per_epoch, rate)


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """``learning_rate * decay_rate ** (epoch / decay_epoch)`` (the exponent floored if ``is_stair``)."""
    def rate(epoch):
        p = epoch / decay_epoch
        return learning_rate * decay_rate ** (math.floor(p) if is_stair else p)
    return _decay("exponential_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                  is_stair, rate)


def natural_exp_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """``learning_rate * e ** (-decay_rate * epoch)`` (epoch floored to a multiple of
    ``decay_epoch`` if ``is_stair``)."""
    def rate(epoch):
        t = epoch // decay_epoch * decay_epoch if is_stair else epoch
        return learning_rate * math.e ** (-decay_rate * t)
    return _decay("natural_exp_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                  is_stair, rate)


def inverse_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """``learning_rate / (1 + decay_rate * epoch / decay_epoch)`` (the ratio floored if ``is_stair``)."""
    def rate(epoch):
        p = epoch // decay_epoch if is_stair else epoch / decay_epoch
        return learning_rate / (1 + decay_rate * p)
    return _decay("inverse_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                  is_stair, rate)


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    """``min_lr + (max_lr - min_lr) (1 + cos(pi * min(epoch, decay_epoch) / decay_epoch)) / 2``."""
    _check("cosine_decay_lr", ("total_step", "step_per_epoch", "decay_epoch"), ("max_lr",), ("min_lr",),
           min_lr=min_lr, max_lr=max_lr, total_step=total_step, step_per_epoch=step_per_epoch, decay_epoch=decay_epoch)
    if min_lr >= max_lr:
        raise ValueError(f"For 'cosine_decay_lr', the 'max_lr' must be greater than the 'min_lr', but got "
                         f"'max_lr' value: {max_lr}, 'min_lr' value: {min_lr}.")
    half = 0.5 * (max_lr - min_lr)
    return _per_epoch(total_step, step_per_epoch,
                      lambda e: min_lr + half * (1 + math.cos(math.pi * min(e, decay_epoch) / decay_epoch)))


def polynomial_decay_lr(learning_rate, end_learning_rate, total_step, step_per_epoch, decay_epoch, power,
                        update_decay_epoch=False):
    """``(learning_rate - end) (1 - t / D) ** power + end``: ``t = min(epoch, decay_epoch)`` and
    ``D = decay_epoch``, or with ``update_decay_epoch`` ``t = epoch`` and ``D`` the smallest
    multiple of ``decay_epoch`` at least ``epoch``."""
    _check("polynomial_decay_lr", ("total_step", "step_per_epoch", "decay_epoch"), ("learning_rate", "power"),
           ("end_learning_rate",), learning_rate=learning_rate, end_learning_rate=end_learning_rate,
           total_step=total_step, step_per_epoch=step_per_epoch, decay_epoch=decay_epoch, power=power)
    if not isinstance(update_decay_epoch, bool):
        raise TypeError("For 'polynomial_decay_lr', 'update_decay_epoch' must be a bool")
    delta = learning_rate - end_learning_rate

    def rate(epoch):
        if update_decay_epoch:
            t, d = epoch, decay_epoch * max(math.ceil(epoch / decay_epoch), 1)
        else:
            t, d = min(epoch, decay_epoch), decay_epoch
        return delta * (1 - t / d) ** power + end_learning_rate
    return _per_epoch(total_step, step_per_epoch, rate)


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch):
    """``learning_rate * min(epoch, warmup_epoch) / warmup_epoch``."""
    _check("warmup_lr", ("total_step", "step_per_epoch", "warmup_epoch"), (), ("learning_rate",),
           learning_rate=learning_rate, total_step=total_step, step_per_epoch=step_per_epoch,
           warmup_epoch=warmup_epoch)
    return _per_epoch(total_step, step_per_epoch, lambda e: learning_rate * min(e, warmup_epoch) / warmup_epoch)
