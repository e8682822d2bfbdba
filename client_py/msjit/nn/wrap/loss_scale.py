"""Loss scaling: TrainOneStepWithLossScaleCell and the loss-scale update Cells.

The gradients are computed for ``loss * scale`` and divided by ``scale``; when one of them is
not finite (overflow) the optimizer step is skipped and a DynamicLossScaleUpdateCell lowers the
scale. Eagerly the skip is a Python branch; under capture the update runs and every Parameter
the optimizer wrote is selected back to its value before the step where ``overflow`` holds.
"""
import numpy as np

from ... import ops
from ...ops.operands import is_tracer
from ...parameter import Parameter
from ...tensor import Tensor
from ..cell import Cell, library_method
from .cell_wrapper import TrainOneStepCell

__all__ = ["TrainOneStepWithLossScaleCell", "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell"]


class FixedLossScaleUpdateCell(Cell):
    """``FixedLossScaleUpdateCell(loss_scale_value)``: the scale never changes."""

    def __init__(self, loss_scale_value):
        super().__init__()
        self.loss_scale_value = loss_scale_value

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        return overflow


class DynamicLossScaleUpdateCell(Cell):
    """``DynamicLossScaleUpdateCell(loss_scale_value, scale_factor, scale_window)``: on overflow
    the scale is divided by ``scale_factor`` (not below 1); after ``scale_window`` steps without
    overflow it is multiplied by it."""

    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        self.loss_scale_value = loss_scale_value
        self.scale_factor, self.scale_window = float(scale_factor), int(scale_window)
        self.cur_iter = Parameter(np.array(1, np.int32), name="current_iterator_step")
        self.last_overflow_iter = Parameter(np.array(0, np.int32), name="last_overflow_iterator_step")

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        lowered = ops.where(overflow, ops.maximum(ops.div(loss_scale, self.scale_factor), 1.0), loss_scale)
        should_inc = ops.less_equal(self.scale_window, ops.sub(self.cur_iter, self.last_overflow_iter))
        ops.assign(self.last_overflow_iter, ops.where(ops.logical_or(overflow, should_inc), self.cur_iter,
                                                      self.last_overflow_iter))
        grow = ops.logical_and(should_inc, ops.logical_not(overflow))
        ops.assign(loss_scale, ops.where(grow, ops.mul(lowered, self.scale_factor), lowered))
        ops.assign(self.cur_iter, ops.add(self.cur_iter, 1))
        return overflow


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """``TrainOneStepWithLossScaleCell(network, optimizer, scale_sense)``: ``scale_sense`` a
    Tensor (fixed scale) or an update Cell. Returns ``(loss, overflow, scale)``."""

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(network, optimizer, sens=None)
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            self.scale_sense = Parameter(np.array(scale_sense.get_loss_scale(), np.float32), name="scale_sense")
        elif isinstance(scale_sense, Tensor):
            if scale_sense.shape not in ((), (1,)):
                raise ValueError("For 'TrainOneStepWithLossScaleCell', the shape of 'scale_sense' must be (1,) or (), "
                                 f"but got {scale_sense.shape}")
            self.scale_sense = Parameter(scale_sense.asnumpy().astype(np.float32), name="scale_sense")
        else:
            raise TypeError("For 'TrainOneStepWithLossScaleCell', the 'scale_sense' must be Cell or Tensor, but got "
                            f"'scale_sense' type: {type(scale_sense).__name__}")

    def set_sense_scale(self, sens):
        if not isinstance(sens, Tensor):
            raise TypeError(f"For 'TrainOneStepWithLossScaleCell', the type of 'sens' must be Tensor, but got "
                            f"{type(sens).__name__}")
        self.scale_sense.set_data(sens)

    @library_method
    def start_overflow_check(self, pre_cond, compute_input):
        return Tensor(np.zeros(8, np.int32)), compute_input

    @library_method
    def get_overflow_status(self, status, compute_output):
        """True when an element of the gradients is not finite (``g * 0`` is NaN exactly then)."""
        probe = None
        for g in compute_output:
            s = ops.sum(ops.mul(g, 0.0))
            probe = s if probe is None else ops.add(probe, ops.cast(s, probe.dtype))
        return ops.not_equal(probe, probe)

    @library_method
    def process_loss_scale(self, overflow):
        if self.loss_scaling_manager is None:
            return overflow
        return self.loss_scaling_manager(self.scale_sense, overflow)

    def construct(self, *inputs):
        scale = ops.stop_gradient(self.scale_sense)   # this step's scale (the Parameter may change below)
        loss, grads = self._value_and_grad(*inputs)
        # the gradients of loss * scale, unscaled as MindSpore does (grad * (1 / scale))
        grads = tuple(ops.mul(ops.mul(g, ops.cast(scale, g.dtype)), ops.cast(ops.div(1.0, scale), g.dtype))
                      for g in grads)
        grads = self.grad_reducer(grads)
        cond = self.get_overflow_status(None, grads)
        overflow = self.process_loss_scale(cond)
        self._step_unless(overflow, grads)
        return loss, cond, scale

    def _step_unless(self, overflow, grads):
        if not is_tracer(overflow):
            if not bool(overflow.asnumpy()):
                self.optimizer(grads)
            return
        state = [p for _, p in self.optimizer.parameters_and_names()]
        before = [ops.stop_gradient(p) for p in state]
        self.optimizer(grads)
        for p, old in zip(state, before):
            ops.assign(p, ops.where(overflow, old, p))
