"""Optimizers against numpy implementations of MindSpore 2.10's update rules (CPU results).

Each case runs several steps on two Parameters, "w" (decays) and "gamma" (excluded from the
weight decay of an ungrouped optimizer, as in MindSpore), eagerly, inside ``ms.jit`` and as a
GRAPH_MODE call, each compiled once; state (moments, global_step, beta powers) is checked too.
"""
import numpy as np
import pytest

import msjit as ms
from msjit import Parameter, Tensor, nn, ops

pytestmark = pytest.mark.usefixtures("module_daemon_home")
STEPS = 3


# ---- numpy references: state dicts per parameter, hyper-parameters per case -------------------
def sgd_ref(p, g, s, lr, wd, momentum=0.0, dampening=0.0, nesterov=False, loss_scale=1.0):
    g = (g + wd * p) / loss_scale
    if momentum > 0:
        s["accum"] = g if "accum" not in s else momentum * s["accum"] + (1 - dampening) * g
        g = g + momentum * s["accum"] if nesterov else s["accum"]
    return p - lr * g


def momentum_ref(p, g, s, lr, wd, momentum=0.9, loss_scale=1.0):
    g = (g + wd * p) / loss_scale
    s["moment"] = momentum * s.get("moment", 0.0) + g
    return p - lr * s["moment"]


def adam_ref(p, g, s, lr, wd, beta1=0.9, beta2=0.999, eps=1e-8, use_nesterov=False, use_amsgrad=False,
             loss_scale=1.0):
    g = (g + wd * p) / loss_scale
    s["t"] = s.get("t", 0) + 1
    m = s["m"] = beta1 * s.get("m", 0.0) + (1 - beta1) * g
    v = s["v"] = beta2 * s.get("v", 0.0) + (1 - beta2) * g * g
    if use_amsgrad:
        v = s["vhat"] = np.maximum(s.get("vhat", 0.0), v)
    lr_t = lr * np.sqrt(1 - beta2 ** s["t"]) / (1 - beta1 ** s["t"])
    if use_nesterov:
        m = m * beta1 + (1 - beta1) * g
    return p - lr_t * m / (eps + np.sqrt(v))


def adamw_ref(p, g, s, lr, wd, beta1=0.9, beta2=0.999, eps=1e-6):
    m = s["m"] = beta1 * s.get("m", 0.0) + (1 - beta1) * g
    v = s["v"] = beta2 * s.get("v", 0.0) + (1 - beta2) * g * g
    return p - lr * (m / (np.sqrt(v) + eps) + wd * p)


# (id, optimizer class, kwargs, reference, reference kwargs)
CASES = [
    ("sgd", nn.SGD, {"learning_rate": 0.1}, sgd_ref, {}),
    ("sgd_momentum", nn.SGD, {"learning_rate": 0.1, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.05},
     sgd_ref, {"momentum": 0.9, "dampening": 0.3}),
    ("sgd_nesterov", nn.SGD, {"learning_rate": 0.1, "momentum": 0.8, "nesterov": True, "loss_scale": 2.0},
     sgd_ref, {"momentum": 0.8, "nesterov": True, "loss_scale": 2.0}),
    ("momentum", nn.Momentum, {"learning_rate": 0.1, "momentum": 0.9, "weight_decay": 0.1}, momentum_ref, {}),
    ("momentum_tensor_lr", nn.Momentum, {"learning_rate": Tensor(np.float32(0.05)), "momentum": 0.7},
     momentum_ref, {"momentum": 0.7}),
    ("adam", nn.Adam, {"learning_rate": 0.01, "weight_decay": 0.1}, adam_ref, {}),
    ("adam_nesterov", nn.Adam, {"learning_rate": 0.01, "use_nesterov": True, "beta1": 0.8},
     adam_ref, {"use_nesterov": True, "beta1": 0.8}),
    ("adam_amsgrad", nn.Adam, {"learning_rate": 0.01, "use_amsgrad": True, "eps": 1e-6},
     adam_ref, {"use_amsgrad": True, "eps": 1e-6}),
    ("adamw", nn.AdamWeightDecay, {"learning_rate": 0.01, "weight_decay": 0.1}, adamw_ref, {}),
]
IDS = [c[0] for c in CASES]


def problem(seed):
    rng = np.random.default_rng(seed)
    values = [rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(4).astype(np.float32)]
    grads = [[rng.standard_normal(v.shape).astype(np.float32) for v in values] for _ in range(STEPS)]
    return values, grads


def reference(ref, ref_kwargs, values, grads, lrs, wds):
    """Parameters after each step (float64), with per-parameter learning rates (one per step) and decays."""
    params = [v.astype(np.float64) for v in values]
    states = [{} for _ in params]
    history = []
    for step, gs in enumerate(grads):
        params = [ref(p, g.astype(np.float64), s, lr[step], wd, **ref_kwargs)
                  for p, g, s, lr, wd in zip(params, gs, states, lrs, wds)]
        history.append(params)
    return history


def make(cls, kwargs, values, groups=None):
    params = [Parameter(Tensor(values[0].copy()), "w"), Parameter(Tensor(values[1].copy()), "gamma")]
    return params, cls(groups(params) if groups else params, **kwargs)


def ungrouped(kwargs):
    """Learning rate per step and weight decay per parameter ("gamma" does not decay)."""
    lr = kwargs["learning_rate"]
    lr = float(lr.asnumpy()) if isinstance(lr, Tensor) else lr
    wd = kwargs.get("weight_decay", 0.0)
    return [[lr] * STEPS] * 2, [wd, 0.0]


def check(history, params, where):
    for p, want in zip(params, history):
        np.testing.assert_allclose(p.asnumpy(), want, rtol=2e-5, atol=2e-6, err_msg=f"{where}: {p.name}")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_optimizer_eager_matches_reference(case):
    _, cls, kwargs, ref, ref_kwargs = case
    values, grads = problem(0)
    params, opt = make(cls, kwargs, values)
    history = reference(ref, ref_kwargs, values, grads, *ungrouped(kwargs))
    for step, gs in enumerate(grads):
        assert all(opt(tuple(Tensor(g) for g in gs)))
        check(history[step], params, f"eager step {step}")
    assert opt.global_step.asnumpy().tolist() == [STEPS]
    if cls is nn.Adam:
        np.testing.assert_allclose(opt.beta1_power.asnumpy(), kwargs.get("beta1", 0.9) ** STEPS, rtol=1e-6)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_optimizer_inside_jit_matches_reference(case):
    _, cls, kwargs, ref, ref_kwargs = case
    values, grads = problem(1)
    params, opt = make(cls, kwargs, values)
    history = reference(ref, ref_kwargs, values, grads, *ungrouped(kwargs))

    @ms.jit
    def update(g_w, g_gamma):
        return opt((g_w, g_gamma))
    for step, gs in enumerate(grads):
        update(*(Tensor(g) for g in gs))
        check(history[step], params, f"jit step {step}")
    assert (update.stats.compiles, update.stats.fallbacks) == (1, 0)
    assert opt.global_step.asnumpy().tolist() == [STEPS]


@pytest.mark.parametrize("case", [CASES[1], CASES[3], CASES[5], CASES[8]], ids=[IDS[1], IDS[3], IDS[5], IDS[8]])
def test_optimizer_graph_mode_matches_reference(graph_mode, case):
    _, cls, kwargs, ref, ref_kwargs = case
    values, grads = problem(2)
    params, opt = make(cls, kwargs, values)
    history = reference(ref, ref_kwargs, values, grads, *ungrouped(kwargs))
    for step, gs in enumerate(grads):
        opt(tuple(Tensor(g) for g in gs))
        check(history[step], params, f"GRAPH_MODE step {step}")
    assert (opt._graph[1].stats.compiles, opt._graph[1].stats.fallbacks) == (1, 0)


def test_parameter_groups_learning_rates_and_decays():
    values, grads = problem(3)

    def groups(params):
        return [{"params": [params[0]], "lr": 0.2, "weight_decay": 0.1}, {"params": [params[1]]}]
    params, opt = make(nn.Momentum, {"learning_rate": 0.1, "momentum": 0.9, "weight_decay": 0.05}, values, groups)
    assert opt.is_group and opt.is_group_lr
    assert opt.get_lr_parameter(params[0]).name == "learning_rate_group_0"
    # grouped: the group's decay applies to every parameter of it, "gamma" included
    history = reference(momentum_ref, {}, values, grads, [[0.2] * STEPS, [0.1] * STEPS], [0.1, 0.05])
    for step, gs in enumerate(grads):
        opt(tuple(Tensor(g) for g in gs))
    check(history[-1], params, "groups")


def test_dynamic_learning_rate_list_and_set_data():
    values, grads = problem(4)
    params, opt = make(nn.SGD, {"learning_rate": [0.1, 0.05]}, values)
    assert opt.dynamic_lr
    history = reference(sgd_ref, {}, values, grads, [[0.1, 0.05, 0.05]] * 2, [0.0, 0.0])

    @ms.jit
    def update(g_w, g_gamma):
        return opt((g_w, g_gamma))
    for step, gs in enumerate(grads):
        update(*(Tensor(g) for g in gs))
        check(history[step], params, f"dynamic lr step {step}")
    # a fixed learning rate is a Parameter read by reference: set_data needs no recompilation
    params, opt = make(nn.SGD, {"learning_rate": 0.1}, values)

    @ms.jit
    def jitted(g_w, g_gamma):
        return opt((g_w, g_gamma))
    jitted(*(Tensor(g) for g in grads[0]))
    opt.learning_rate.set_data(Tensor(np.float32(0.0)))
    before = params[0].asnumpy().copy()
    jitted(*(Tensor(g) for g in grads[1]))
    np.testing.assert_array_equal(params[0].asnumpy(), before)
    assert jitted.stats.compiles == 1


def test_optimizer_state_names_and_parameters():
    values, _ = problem(5)
    params, opt = make(nn.Adam, {}, values)
    assert [p.name for p in opt.moment1] == ["moment1.w", "moment1.gamma"]
    assert [p.name for p in opt.moment2] == ["moment2.w", "moment2.gamma"]
    assert list(opt.parameters) == params and opt.learning_rate.name == "learning_rate"
    names = [n for n, _ in opt.parameters_and_names()]
    assert names[:2] == ["global_step", "learning_rate"] and "moment1.w" in names
    _, mom = make(nn.Momentum, {"learning_rate": 0.1, "momentum": 0.9}, values)
    assert [p.name for p in mom.moments] == ["moments.w", "moments.gamma"]
    _, sgd = make(nn.SGD, {}, values)
    assert [p.name for p in sgd.accum] == ["accum.w", "accum.gamma"]
    _, adamw = make(nn.AdamWeightDecay, {}, values)
    assert [p.name for p in adamw.moments1] == ["adam_m.w", "adam_m.gamma"]
    assert isinstance(nn.SGD, type) and issubclass(nn.Adam, nn.Optimizer) and nn.optim.SGD is nn.SGD


@pytest.mark.parametrize("make_bad, error", [
    (lambda ps: nn.SGD([], 0.1), ValueError),
    (lambda ps: nn.SGD(ps, -0.1), ValueError),
    (lambda ps: nn.SGD(ps, 0.1, weight_decay=-1.0), ValueError),
    (lambda ps: nn.SGD(ps, 0.1, loss_scale=0.0), ValueError),
    (lambda ps: nn.SGD(ps, 0.1, nesterov=True), ValueError),
    (lambda ps: nn.Momentum(ps, 0.1, 1), TypeError),
    (lambda ps: nn.Momentum(ps, 0.1, -0.5), ValueError),
    (lambda ps: nn.Adam(ps, beta1=1.0), ValueError),
    (lambda ps: nn.Adam(ps, eps=0.0), ValueError),
    (lambda ps: nn.Adam(ps, use_foo=True), KeyError),
    (lambda ps: nn.SGD([{"params": ps, "momentum": 0.9}]), KeyError),
    (lambda ps: nn.SGD(ps, "fast"), TypeError),
])
def test_optimizer_argument_errors(make_bad, error):
    values, _ = problem(6)
    params = [Parameter(Tensor(v), n) for v, n in zip(values, ("w", "gamma"))]
    with pytest.raises(error):
        make_bad(params)


class UserMomentum(nn.Optimizer):
    """MindSpore's documented way to write an optimizer: the base's helpers in construct."""

    def __init__(self, params, learning_rate, momentum=0.9):
        super().__init__(learning_rate, params, weight_decay=0.1)
        self.momentum = Parameter(Tensor(np.float32(momentum)), name="momentum")
        self.moments = self.parameters.clone(prefix="moments", init="zeros")

    def construct(self, gradients):
        lr = self.get_lr()
        gradients = self.scale_grad(self.decay_weight(gradients))
        for param, moment, grad in zip(self.parameters, self.moments, gradients):
            ops.assign(moment, moment * self.momentum + grad)
            ops.assign(param, param - lr * moment)
        return True


@pytest.mark.parametrize("how", ["eager", "jit", "graph_mode"])
def test_user_defined_optimizer(how):
    values, grads = problem(7)
    params, opt = make(UserMomentum, {"learning_rate": 0.1}, values)
    history = reference(momentum_ref, {}, values, grads, [[0.1] * STEPS] * 2, [0.1, 0.0])

    @ms.jit
    def update(g_w, g_gamma):
        return opt((g_w, g_gamma))
    if how == "graph_mode":
        ms.set_context(mode=ms.GRAPH_MODE)
    try:
        for step, gs in enumerate(grads):
            if how == "jit":
                update(*(Tensor(g) for g in gs))
            else:
                opt(tuple(Tensor(g) for g in gs))
            check(history[step], params, f"{how} step {step}")
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    stats = update.stats if how == "jit" else opt._graph[1].stats if how == "graph_mode" else None
    assert stats is None or (stats.compiles, stats.fallbacks) == (1, 0)


# ---- dynamic learning rates -----------------------------------------------------------------
LR_LISTS = [   # (list, per-step reference with e = step // step_per_epoch (2 here))
    (lambda: nn.exponential_decay_lr(0.1, 0.9, 10, 2, 3), lambda e: 0.1 * 0.9 ** (e / 3)),
    (lambda: nn.exponential_decay_lr(0.1, 0.9, 10, 2, 3, True), lambda e: 0.1 * 0.9 ** (e // 3)),
    (lambda: nn.natural_exp_decay_lr(0.1, 0.5, 10, 2, 3), lambda e: 0.1 * np.exp(-0.5 * e)),
    (lambda: nn.natural_exp_decay_lr(0.1, 0.5, 10, 2, 3, True), lambda e: 0.1 * np.exp(-0.5 * (e // 3 * 3))),
    (lambda: nn.inverse_decay_lr(0.1, 0.5, 10, 2, 3), lambda e: 0.1 / (1 + 0.5 * e / 3)),
    (lambda: nn.cosine_decay_lr(0.01, 0.1, 10, 2, 3), lambda e: 0.01 + 0.045 * (1 + np.cos(np.pi * min(e, 3) / 3))),
    (lambda: nn.polynomial_decay_lr(0.1, 0.01, 10, 2, 3, 2.0), lambda e: 0.09 * (1 - min(e, 3) / 3) ** 2 + 0.01),
    (lambda: nn.polynomial_decay_lr(0.1, 0.01, 10, 2, 2, 2.0, True),
     lambda e: 0.09 * (1 - e / (2 * max(np.ceil(e / 2), 1))) ** 2 + 0.01),
    (lambda: nn.warmup_lr(0.1, 10, 2, 3), lambda e: 0.1 * min(e, 3) / 3),
]


@pytest.mark.parametrize("i", range(len(LR_LISTS)))
def test_dynamic_lr_lists(i):
    make, ref = LR_LISTS[i]
    np.testing.assert_allclose(make(), [ref(step // 2) for step in range(10)], rtol=1e-12)


def test_piecewise_constant_lr_and_errors():
    assert nn.piecewise_constant_lr([2, 5], [0.1, 0.05]) == [0.1, 0.1, 0.05, 0.05, 0.05]
    with pytest.raises(ValueError):
        nn.piecewise_constant_lr([2, 5], [0.1])
    with pytest.raises(ValueError):
        nn.cosine_decay_lr(0.2, 0.1, 10, 2, 3)
    with pytest.raises(TypeError):
        nn.warmup_lr(1, 10, 2, 3)


SCHEDULES = [   # (schedule, reference of the float step)
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 4), lambda t: 0.1 * 0.9 ** (t / 4)),
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 4, True), lambda t: 0.1 * 0.9 ** (t // 4)),
    (lambda: nn.NaturalExpDecayLR(0.1, 0.2, 4, True), lambda t: 0.1 * np.exp(-0.2 * (t // 4 * 4))),
    (lambda: nn.InverseDecayLR(0.1, 0.5, 4), lambda t: 0.1 / (1 + 0.5 * t / 4)),
    (lambda: nn.CosineDecayLR(0.01, 0.1, 5), lambda t: 0.01 + 0.045 * (1 + np.cos(np.pi * min(t, 5) / 5))),
    (lambda: nn.PolynomialDecayLR(0.1, 0.01, 5, 0.5), lambda t: 0.09 * (1 - min(t, 5) / 5) ** 0.5 + 0.01),
    (lambda: nn.PolynomialDecayLR(0.1, 0.01, 5, 0.5, True),
     lambda t: 0.09 * (1 - t / (5 * max(np.ceil(t / 5), 1))) ** 0.5 + 0.01),
    (lambda: nn.WarmUpLR(0.1, 5), lambda t: 0.1 * min(t, 5) / 5),
]


@pytest.mark.parametrize("i", range(len(SCHEDULES)))
def test_learning_rate_schedule(i):
    make, ref = SCHEDULES[i]
    schedule = make()
    for step in (0, 3, 7, 12):
        got = schedule(Tensor(np.array([step], np.int32))).asnumpy()
        np.testing.assert_allclose(got, [ref(step)], rtol=1e-6)


def test_optimizer_with_schedule_inside_jit():
    values, grads = problem(8)
    params, opt = make(nn.SGD, {"learning_rate": nn.WarmUpLR(0.3, 2)}, values)
    assert opt.dynamic_lr and isinstance(opt.learning_rate, nn.LearningRateSchedule)
    history = reference(sgd_ref, {}, values, grads, [[0.0, 0.15, 0.3]] * 2, [0.0, 0.0])

    @ms.jit
    def update(g_w, g_gamma):
        return opt((g_w, g_gamma))
    for step, gs in enumerate(grads):
        update(*(Tensor(g) for g in gs))
        check(history[step], params, f"schedule step {step}")
    assert (update.stats.compiles, update.stats.fallbacks) == (1, 0)
