"""``mindspore.train.callback``: ``Callback`` (hooks ``Model.train`` calls), ``RunContext``
(what they see), ``LossMonitor`` and ``TimeMonitor`` (print as MindSpore's do) and
``ModelCheckpoint`` with ``CheckpointConfig`` (save every n steps, keep the newest k)."""
import os
import sys
import time
from types import SimpleNamespace

import numpy as np

__all__ = ["Callback", "RunContext", "LossMonitor", "TimeMonitor", "CheckpointConfig", "ModelCheckpoint"]


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


class TimeMonitor(Callback):
    """Writes each epoch's time and per-step time to stdout."""

    def __init__(self, data_size=None, data_time=False):
        self.data_size = data_size

    def on_train_epoch_begin(self, run_context):
        self.start = time.time()

    def on_train_epoch_end(self, run_context):
        ms = (time.time() - self.start) * 1000
        steps = self.data_size or run_context.original_args().batch_num or 1
        sys.stdout.write(f"epoch time: {ms:.3f} ms, per step time: {ms / steps:.3f} ms\n")


class CheckpointConfig:
    """When ``ModelCheckpoint`` saves (every ``save_checkpoint_steps`` steps) and how many files
    it keeps (``keep_checkpoint_max``); ``append_info`` entries are saved along."""

    def __init__(self, save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
                 keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False, saved_network=None,
                 append_info=None, **kwargs):
        if not isinstance(save_checkpoint_steps, int) or save_checkpoint_steps < 1:
            raise ValueError("CheckpointConfig: save_checkpoint_steps must be an int >= 1, got "
                             f"{save_checkpoint_steps!r}")
        self.save_checkpoint_steps, self.keep_checkpoint_max = save_checkpoint_steps, keep_checkpoint_max
        self.saved_network, self.append_info = saved_network, append_info


class ModelCheckpoint(Callback):
    """Saves the network's parameters (not the optimizer's state, which MindSpore also saves) as
    ``{directory}/{prefix}-{epoch}_{step}.ckpt`` every
    ``config.save_checkpoint_steps`` steps (step counted within the epoch, as MindSpore names
    them), keeping the newest ``config.keep_checkpoint_max`` files."""

    def __init__(self, prefix="CKP", directory=None, config=None):
        self.prefix, self.directory = prefix, directory or os.getcwd()
        self.config = config or CheckpointConfig()
        self.saved = []

    def on_train_step_end(self, run_context):
        p = run_context.original_args()
        if p.cur_step_num % self.config.save_checkpoint_steps == 0:
            self._save(p)

    def _save(self, p):
        from .serialization import save_checkpoint
        step = (p.cur_step_num - 1) % (p.batch_num or p.cur_step_num) + 1
        os.makedirs(self.directory, exist_ok=True)
        path = os.path.join(self.directory, f"{self.prefix}-{p.cur_epoch_num}_{step}.ckpt")
        save_checkpoint(self.config.saved_network or p.network, path, append_dict=self.config.append_info)
        self.saved.append(path)
        while self.config.keep_checkpoint_max and len(self.saved) > self.config.keep_checkpoint_max:
            old = self.saved.pop(0)
            if os.path.exists(old):
                os.remove(old)


def cb_params(**kwargs):
    return SimpleNamespace(**kwargs)
