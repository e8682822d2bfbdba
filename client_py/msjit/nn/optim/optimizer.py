"""``nn.Optimizer``: the base of the optimizers (learning rate, weight decay, parameter groups).

An optimizer is a Cell whose ``construct(gradients)`` updates the Parameters and its state
(moments, ``global_step``, ...) with ``ops.assign``. Eagerly that writes in place; under
capture (``jit``, a GRAPH_MODE TrainOneStepCell) the writes become graph outputs stored back
after each run, so the whole training step is one graph.

Learning rates live in Parameters ("learning_rate"), read by reference: changing one with
``set_data`` needs no recompilation. A 1-D learning rate (Tensor or list) is dynamic: step
``global_step`` reads entry ``min(global_step, len - 1)``; a LearningRateSchedule Cell computes
it from ``global_step``.
"""
import numpy as np

from ... import ops
from ...autodiff import ParameterTuple
from ...parameter import Parameter
from ...tensor import Tensor
from ..cell import Cell, _epoch, library_method
from ..learning_rate_schedule import LearningRateSchedule

_GROUP_KEYS = ("params", "lr", "weight_decay", "grad_centralization", "order_params")


def clone_state(params, prefix, init="zeros"):
    """One new Parameter per Parameter of ``params``, named ``prefix.name``, filled with ``init``."""
    fill = 0.0 if init == "zeros" else 1.0 if init == "ones" else init
    return ParameterTuple(Parameter(np.full(p.shape, fill, p.dtype.np), f"{prefix}.{p.name}", p.requires_grad)
                            for p in params)


class Optimizer(Cell):
    """``Optimizer(learning_rate, parameters, weight_decay=0.0, loss_scale=1.0)``. ``parameters``:
    Parameters, or groups ``[{"params": [...], "lr": ..., "weight_decay": ...}, ...]``."""

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        name = type(self).__name__
        parameters = list(parameters) if parameters is not None else []
        if not parameters:
            raise ValueError(f"For '{name}', the argument 'parameters' must not be empty")
        if isinstance(loss_scale, int) and not isinstance(loss_scale, bool):
            loss_scale = float(loss_scale)
        if not isinstance(loss_scale, float):
            raise TypeError(f"For '{name}', the argument 'loss_scale' must be a float, got {type(loss_scale).__name__}")
        if loss_scale <= 0:
            raise ValueError(f"For '{name}', the argument 'loss_scale' must be > 0, got {loss_scale}")
        self.loss_scale = loss_scale
        self.need_scale = loss_scale != 1.0
        self.dynamic_lr = False
        self.dynamic_weight_decay = False
        self.global_step = Parameter(np.zeros((1,), np.int32), "global_step")
        default_wd = self._check_weight_decay(weight_decay)
        self.is_group = isinstance(parameters[0], dict)
        if self.is_group:
            params, lrs, wds = self._parse_groups(parameters, learning_rate, weight_decay)
            self.is_group_lr = any("lr" in g for g in parameters)
            self.decay_flags = tuple(isinstance(wd, Cell) or wd > 0 for wd in wds)
            self.weight_decay = tuple(wds)
        else:
            params = parameters
            for p in params:
                if not isinstance(p, Parameter):
                    raise TypeError(f"For '{name}', the parameters must be Parameters, got {type(p).__name__}")
            self.is_group_lr = False
            self.decay_flags = tuple("beta" not in p.name and "gamma" not in p.name for p in params)
            self.weight_decay = default_wd
            lrs = None
        if self.is_group_lr:
            self.learning_rate = tuple(lrs) if self.dynamic_lr else ParameterTuple(lrs)
            self._lr_of = lrs
        else:
            self.learning_rate = self._build_lr(learning_rate, "learning_rate")
        self.exec_weight_decay = any(self.decay_flags) if self.is_group else \
            isinstance(default_wd, Cell) or default_wd > 0
        self.parameters = self._parameters = ParameterTuple(params)
        if len({id(p) for p in params}) != len(params):
            raise RuntimeError(f"For '{name}', a parameter is given more than once")

    # -- construction helpers -------------------------------------------------------------
    def _check_weight_decay(self, weight_decay):
        """A float (times ``loss_scale``, as the gradients it is added to are still scaled), or a
        Cell mapping ``global_step`` to this step's weight decay (dynamic weight decay)."""
        if isinstance(weight_decay, Cell):
            self.dynamic_weight_decay = True
            return weight_decay
        if isinstance(weight_decay, bool) or not isinstance(weight_decay, (int, float)):
            raise TypeError(f"For '{type(self).__name__}', weight_decay must be a float, int or Cell, "
                            f"got {type(weight_decay).__name__}")
        if weight_decay < 0:
            raise ValueError(f"For '{type(self).__name__}', weight_decay must be >= 0, got {weight_decay}")
        return float(weight_decay) * self.loss_scale

    def _build_lr(self, learning_rate, name):
        """The learning rate as a float32 Parameter: 0-d (fixed) or 1-D (dynamic, per step); or a
        LearningRateSchedule Cell (dynamic)."""
        if isinstance(learning_rate, LearningRateSchedule):
            self.dynamic_lr = True
            return learning_rate
        if isinstance(learning_rate, bool):
            raise TypeError(f"For '{type(self).__name__}', learning_rate must be a float, Tensor or list")
        if isinstance(learning_rate, (int, float)):
            if learning_rate < 0:
                raise ValueError(f"For '{type(self).__name__}', learning_rate must be >= 0, got {learning_rate}")
            value = np.float32(learning_rate)
        elif isinstance(learning_rate, (Tensor, list, tuple, np.ndarray)):
            value = np.asarray(learning_rate.asnumpy() if isinstance(learning_rate, Tensor) else learning_rate,
                               np.float32)
            if value.ndim > 1:
                raise ValueError(f"For '{type(self).__name__}', a Tensor learning_rate must be 0-D or 1-D, "
                                 f"got shape {value.shape}")
            self.dynamic_lr = self.dynamic_lr or value.ndim == 1
        else:
            raise TypeError(f"For '{type(self).__name__}', learning_rate must be an int, float, Tensor or list, "
                            f"got {type(learning_rate).__name__}")
        return Parameter(np.array(value, np.float32), name)

    def _parse_groups(self, groups, learning_rate, default_wd):
        params, lrs, wds = [], [], []
        default_lr = None
        for i, group in enumerate(groups):
            if not isinstance(group, dict):
                raise TypeError(f"For '{type(self).__name__}', parameter groups must all be dicts")
            bad = set(group) - set(_GROUP_KEYS)
            if bad:
                raise KeyError(f"For '{type(self).__name__}', the keys of a parameter group must be in "
                               f"{list(_GROUP_KEYS)}, got {sorted(bad)}")
            if "order_params" in group:
                continue
            if "lr" in group:
                lr = self._build_lr(group["lr"], f"learning_rate_group_{i}")
            else:
                default_lr = default_lr or self._build_lr(learning_rate, "learning_rate")
                lr = default_lr
            wd = self._check_weight_decay(group.get("weight_decay", default_wd))
            for p in group["params"]:
                if not isinstance(p, Parameter):
                    raise TypeError(f"For '{type(self).__name__}', the parameters must be Parameters, "
                                    f"got {type(p).__name__}")
                params.append(p)
                lrs.append(lr)
                wds.append(wd)
        return params, lrs, wds

    # -- pieces of a step -----------------------------------------------------------------
    def _step_value(self):
        """``global_step`` as a value for a schedule Cell: under capture a graph value (the
        Parameter itself could be taken for a constant by code that does not bind it, e.g. indexing)."""
        return ops.stop_gradient(self.global_step)

    def _lr_value(self, lr):
        if isinstance(lr, LearningRateSchedule):
            return ops.reshape(lr(self._step_value()), ())
        if lr.ndim == 0:
            return lr
        index = ops.minimum(self.global_step, lr.shape[0] - 1)
        return ops.reshape(ops.gather(lr, index, 0), ())

    @library_method
    def get_lr(self):
        """The learning rate of this step: one scalar, or a tuple with one per parameter."""
        if self.is_group_lr:
            values = {}
            return tuple(values.setdefault(id(lr), self._lr_value(lr)) for lr in self._lr_of)
        return self._lr_value(self.learning_rate)

    def get_lr_parameter(self, param):
        """The learning-rate Parameter of ``param`` (or a list for a list)."""
        if isinstance(param, (list, tuple)):
            return [self.get_lr_parameter(p) for p in param]
        if not self.is_group_lr:
            return self.learning_rate
        for p, lr in zip(self._parameters, self._lr_of):
            if p is param:
                return lr
        raise ValueError(f"get_lr_parameter: {param.name!r} is not optimized by this optimizer")

    def _wd_value(self, wd):
        if not isinstance(wd, Cell):
            return wd
        value = wd(self._step_value())
        return ops.mul(value, self.loss_scale) if self.need_scale else value

    @library_method
    def get_weight_decay(self):
        """The weight decay of this step: one value, or a tuple with one per parameter (a Cell
        schedule is called with ``global_step``, once per step)."""
        if not self.dynamic_weight_decay:
            return self.weight_decay
        if self.is_group:
            values = {}
            return tuple(values.setdefault(id(wd), self._wd_value(wd)) for wd in self.weight_decay)
        return self._wd_value(self.weight_decay)

    def _decays(self):
        """The weight decay of each parameter this step (None where it does not decay)."""
        wd = self.get_weight_decay()
        wds = wd if self.is_group else (wd,) * len(self._parameters)
        return tuple(w if flag and not (isinstance(w, float) and w <= 0) else None
                     for w, flag in zip(wds, self.decay_flags))

    @library_method
    def decay_weight(self, gradients):
        """``gradient + weight_decay * parameter`` for the parameters that decay."""
        if not self.exec_weight_decay:
            return tuple(gradients)
        return tuple(g if wd is None else ops.add(g, ops.mul(p, wd))
                     for p, g, wd in zip(self._parameters, gradients, self._decays()))

    @library_method
    def scale_grad(self, gradients):
        """Gradients divided by ``loss_scale``."""
        if not self.need_scale:
            return tuple(gradients)
        return tuple(ops.mul(g, 1.0 / self.loss_scale) for g in gradients)

    @library_method
    def gradients_centralization(self, gradients):
        return tuple(gradients)

    def _check_gradients(self, gradients):
        gradients = tuple(gradients)
        if len(gradients) != len(self._parameters):
            raise ValueError(f"For '{type(self).__name__}', expected {len(self._parameters)} gradients (one per "
                             f"parameter), got {len(gradients)}")
        return gradients

    def _lrs(self):
        """The learning rate of each parameter, as scalars."""
        lr = self.get_lr()
        return lr if isinstance(lr, tuple) else (lr,) * len(self._parameters)

    def _increase_step(self):
        ops.assign(self.global_step, ops.add(self.global_step, 1))

    def construct(self, gradients):
        raise NotImplementedError(f"{type(self).__name__} must define construct(gradients)")

    # -- GRAPH_MODE: a top-level call compiles a function of the gradients as separate inputs
    def _graph_call(self, args, kwargs):
        if len(args) != 1 or kwargs:
            raise TypeError(f"{type(self).__name__}: call it with one tuple of gradients")
        graph = self.__dict__["_graph"]
        if graph is None or graph[0] != _epoch[0]:
            from ...jit import JitFunction

            def optimizer_step(*gradients):
                return self(gradients)     # under capture: the Cell is inlined
            graph = (_epoch[0], JitFunction(optimizer_step, self.compile_config()))
            self.__dict__["_graph"] = graph
        return graph[1](*args[0])

    def parameters_and_names(self, name_prefix="", expand=True):
        """Its own Parameters (learning rate, step, state) and those it optimizes, by name."""
        seen = set()
        own = [(n, p) for n, p in super().parameters_and_names(name_prefix, expand)]
        state = [(p.name, p) for v in self.__dict__.values() if isinstance(v, tuple) for p in v
                 if isinstance(p, Parameter)]
        for n, p in own + state:
            if id(p) not in seen:
                seen.add(id(p))
                yield n, p

