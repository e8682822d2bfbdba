"""Training wrappers: WithLossCell, WithEvalCell, ForwardValueAndGrad, TrainOneStepCell.

``TrainOneStepCell(net, optimizer)`` is one training step: the loss and its gradients with
respect to the optimizer's Parameters (one ``value_and_grad``), then ``optimizer(grads)``.
Called in GRAPH_MODE (or inside ``jit``) forward, backward and update are one graph.
"""
from ... import ops
from ...autodiff import GradOperation, value_and_grad
from ..cell import Cell


def _identity(value):
    """TrainOneStepCell's ``grad_reducer`` on one device: the gradients unchanged."""
    return value


_identity._msjit_records = True   # capture calls it as Python on tracers


class WithLossCell(Cell):
    """``WithLossCell(backbone, loss_fn)``: ``loss_fn(backbone(data), label)``."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone, self._loss_fn = backbone, loss_fn

    def construct(self, data, label):
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self):
        return self._backbone


class WithEvalCell(Cell):
    """``WithEvalCell(network, loss_fn, add_cast_fp32=False)``: ``(loss, outputs, label)``."""

    def __init__(self, network, loss_fn, add_cast_fp32=False):
        super().__init__(auto_prefix=False)
        self._network, self._loss_fn, self.add_cast_fp32 = network, loss_fn, add_cast_fp32

    def construct(self, data, label):
        outputs = self._network(data)
        if self.add_cast_fp32:
            label, outputs = ops.cast(label, "float32"), ops.cast(outputs, "float32")
        return self._loss_fn(outputs, label), outputs, label


class ForwardValueAndGrad(Cell):
    """``ForwardValueAndGrad(network, weights=None, get_all=False, get_by_list=False,
    sens_param=False)``: ``(network(*inputs), gradients)``, the gradients chosen as by
    ``GradOperation(get_all, get_by_list, sens_param)`` (with ``sens_param`` the last input is
    the sensitivity)."""

    def __init__(self, network, weights=None, get_all=False, get_by_list=False, sens_param=False):
        super().__init__(auto_prefix=False)
        if get_by_list and weights is None:
            raise TypeError("ForwardValueAndGrad: weights must be given when get_by_list is True")
        self.network, self.weights = network, weights
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param
        self._grads = {}     # number of inputs -> value_and_grad over them

    def construct(self, *inputs):
        if self.sens_param:   # the loss, then the gradients weighted by the given sensitivity
            grad_op = GradOperation(self.get_all, self.get_by_list, sens_param=True)
            return self.network(*inputs[:-1]), grad_op(self.network, self.weights)(*inputs)
        fn = self._grads.get(len(inputs))
        if fn is None:
            position = tuple(range(len(inputs))) if self.get_all else (None if self.get_by_list else 0)
            weights = self.weights if self.get_by_list else None
            fn = self._grads[len(inputs)] = value_and_grad(self.network, position, weights)
        return fn(*inputs)


class TrainOneStepCell(Cell):
    """``TrainOneStepCell(network, optimizer, sens=None, return_grad=False)``: one step of
    ``optimizer`` on the loss ``network(*inputs)``; returns the loss (and ``{parameter name:
    gradient}`` with ``return_grad``). ``sens`` scales the gradients (the loss's sensitivity, 1.0 by default)."""

    def __init__(self, network, optimizer, sens=None, return_grad=False):
        super().__init__(auto_prefix=False)
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.grad = GradOperation(get_by_list=True, sens_param=True)
        self.sens = 1.0 if sens is None else sens
        self.return_grad = return_grad
        self.reducer_flag = False
        self.grad_reducer = _identity
        self._value_and_grad = value_and_grad(network, None, self.weights)

    def construct(self, *inputs):
        loss, grads = self._value_and_grad(*inputs)
        if self.sens != 1.0:   # d(sens * loss) = sens * d(loss)
            grads = tuple(ops.mul(g, self.sens) for g in grads)
        self.optimizer(grads)
        if self.return_grad:    # MindSpore: {parameter name: gradient}
            return loss, {p.name: g for p, g in zip(self.weights, grads)}
        return loss
