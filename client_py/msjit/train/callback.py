"""``mindspore.train.callback``: ``Callback`` (hooks ``Model.train`` calls), ``RunContext``
(what they see) and ``LossMonitor`` (prints the loss, as MindSpore's does)."""
import sys
from types import SimpleNamespace

import numpy as np

__all__ = ["Callback", "RunContext", "LossMonitor"]


class RunContext:
    """Holds the training state (``original_args()``: cur_epoch_num, cur_step_num, net_outputs,
    epoch_num, batch_num, train_network, ...); ``request_stop()`` ends training after the step."""

    def __init__(self, cb_params):
        self._params = cb_params
        self._stop = False

    def original_args(self):
        return self._params

    def request_stop(self):
        self._stop = True

    def get_stop_requested(self):
        return self._stop


class Callback:
    """Override any of: on_train_begin / on_train_epoch_begin / on_train_step_begin /
    on_train_step_end / on_train_epoch_end / on_train_end (each takes a RunContext), or the
    older names begin / epoch_begin / step_begin / step_end / epoch_end / end, which the new
    ones call by default; ``on_eval_*`` likewise for ``Model.eval``."""

    def begin(self, run_context): pass
    def epoch_begin(self, run_context): pass
    def step_begin(self, run_context): pass
    def step_end(self, run_context): pass
    def epoch_end(self, run_context): pass
    def end(self, run_context): pass

    def on_train_begin(self, run_context): self.begin(run_context)
    def on_train_epoch_begin(self, run_context): self.epoch_begin(run_context)
    def on_train_step_begin(self, run_context): self.step_begin(run_context)
    def on_train_step_end(self, run_context): self.step_end(run_context)
    def on_train_epoch_end(self, run_context): self.epoch_end(run_context)
    def on_train_end(self, run_context): self.end(run_context)

    def on_eval_begin(self, run_context): pass
    def on_eval_step_end(self, run_context): pass
    def on_eval_end(self, run_context): pass


class LossMonitor(Callback):
    """Writes ``epoch: E step: S, loss is L`` to stdout every ``per_print_times`` steps (a user
    facing report, as in MindSpore; not a log record)."""

    def __init__(self, per_print_times=1):
        if not isinstance(per_print_times, int) or per_print_times < 0:
            raise ValueError(f"LossMonitor: per_print_times must be an int >= 0, got {per_print_times!r}")
        self.per_print_times = per_print_times

    def on_train_step_end(self, run_context):
        p = run_context.original_args()
        loss = p.net_outputs[0] if isinstance(p.net_outputs, (tuple, list)) else p.net_outputs
        loss = float(np.mean(loss.asnumpy() if hasattr(loss, "asnumpy") else loss))
        step = (p.cur_step_num - 1) % p.batch_num + 1
        if self.per_print_times and step % self.per_print_times == 0:
            sys.stdout.write(f"epoch: {p.cur_epoch_num} step: {step}, loss is {loss}\n")


def cb_params(**kwargs):
    return SimpleNamespace(**kwargs)
