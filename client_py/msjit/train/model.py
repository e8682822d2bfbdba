"""``mindspore.Model``: the high-level train / eval / predict loop over a dataset.

``train`` builds ``nn.TrainOneStepCell(nn.WithLossCell(network, loss_fn), optimizer)`` once
(or wraps ``network`` alone when it computes its own loss) and calls it per batch; every
batch is ``(data..., label)``. The cells decide where the step runs (eager, or compiled in
GRAPH_MODE / with jit), as when a program calls them itself.
"""
import numpy as np

from .. import nn
from ..tensor import Tensor
from .callback import RunContext, cb_params
from .metrics import Loss, Metric, get_metric_fn

__all__ = ["Model"]


class Model:
    """``Model(network, loss_fn=None, optimizer=None, metrics=None, eval_network=None)``."""

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None, eval_indexes=None,
                 amp_level="O0", boost_level="O0", **kwargs):
        if not isinstance(network, nn.Cell):
            raise TypeError(f"Model: network must be a Cell, got {type(network).__name__}")
        self.network, self.loss_fn, self.optimizer = network, loss_fn, optimizer
        self.eval_network = eval_network
        self._metrics = _metrics(metrics)
        self._train_network = None

    @property
    def train_network(self):
        """As MindSpore builds it: TrainOneStepCell(WithLossCell(network, loss_fn), optimizer);
        without an optimizer, WithLossCell(network, loss_fn) or ``network`` itself (a network
        that already trains, such as a TrainOneStepCell)."""
        if self._train_network is None:
            missing = [n for n in ("WithLossCell", "TrainOneStepCell") if not hasattr(nn, n)]
            if missing:
                raise NotImplementedError(f"Model.train needs nn.{' and nn.'.join(missing)}, not in msjit.nn yet")
            net = nn.WithLossCell(self.network, self.loss_fn) if self.loss_fn is not None else self.network
            self._train_network = net if self.optimizer is None else nn.TrainOneStepCell(net, self.optimizer)
        return self._train_network

    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False, sink_size=-1, initial_epoch=0):
        """Run ``epoch`` passes over ``train_dataset``, one optimizer step per batch."""
        self._train(epoch, train_dataset, _callbacks(callbacks), initial_epoch)

    def fit(self, epoch, train_dataset, valid_dataset=None, valid_frequency=1, callbacks=None, dataset_sink_mode=False,
            valid_dataset_sink_mode=False, sink_size=-1, initial_epoch=0):
        """``train``, evaluating on ``valid_dataset`` after every ``valid_frequency`` epochs (the
        results in the callbacks' ``run_context.original_args().eval_results``)."""
        callbacks = _callbacks(callbacks)

        def validate(context):
            params = context.original_args()
            if valid_dataset is not None and (params.cur_epoch_num - initial_epoch) % valid_frequency == 0:
                params.eval_results = self.eval(valid_dataset, callbacks)
                self.train_network.set_train(True)
        self._train(epoch, train_dataset, callbacks, initial_epoch, validate)

    def _train(self, epoch, train_dataset, callbacks, initial_epoch, after_epoch=None):
        if not isinstance(epoch, int) or isinstance(epoch, bool) or epoch < 1:
            raise ValueError(f"Model.train: epoch must be an int >= 1, got {epoch!r}")
        net = self.train_network
        net.set_train(True)
        params = cb_params(train_network=net, network=self.network, epoch_num=epoch, batch_num=_size(train_dataset),
                           cur_epoch_num=initial_epoch, cur_step_num=0, net_outputs=None, optimizer=self.optimizer,
                           loss_fn=self.loss_fn, train_dataset=train_dataset, mode="train", eval_results=None)
        context = RunContext(params)
        _fire(callbacks, "on_train_begin", context)
        for e in range(initial_epoch, epoch):
            params.cur_epoch_num = e + 1
            _fire(callbacks, "on_train_epoch_begin", context)
            for batch in _batches(train_dataset):
                params.cur_step_num += 1
                _fire(callbacks, "on_train_step_begin", context)
                params.net_outputs = net(*batch)
                _fire(callbacks, "on_train_step_end", context)
                if context.get_stop_requested():
                    break
            if after_epoch is not None:
                after_epoch(context)
            _fire(callbacks, "on_train_epoch_end", context)
            if context.get_stop_requested():
                break
        _fire(callbacks, "on_train_end", context)

    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode=False):
        """The metrics over ``valid_dataset``: ``{name: value}`` (the "loss" metric needs loss_fn)."""
        if not self._metrics:
            raise ValueError("Model.eval: the Model's 'metrics' can not be None or empty; set metrics, e.g. "
                             "Model(net, loss_fn, optimizer, metrics={'accuracy'})")
        for m in self._metrics.values():
            m.clear()
        self.network.set_train(False)
        callbacks = _callbacks(callbacks)
        context = RunContext(cb_params(network=self.network, valid_dataset=valid_dataset, cur_step_num=0,
                                       net_outputs=None, mode="eval"))
        _fire(callbacks, "on_eval_begin", context)
        for batch in _batches(valid_dataset):
            *data, label = batch
            if self.eval_network is not None:
                outputs = self.eval_network(*batch)
                loss, outputs = outputs[0], outputs[1]
            else:
                outputs = self.network(*data)
                loss = self.loss_fn(outputs, label) if self.loss_fn is not None else None
            for m in self._metrics.values():
                if isinstance(m, Loss):
                    if loss is None:
                        raise ValueError("Model.eval: the 'loss' metric needs a loss_fn")
                    m.update(loss)
                else:
                    m.update(outputs, label)
            context.original_args().cur_step_num += 1
            context.original_args().net_outputs = (loss, outputs, label)
            _fire(callbacks, "on_eval_step_end", context)
        _fire(callbacks, "on_eval_end", context)
        return {name: m.eval() for name, m in self._metrics.items()}

    def predict(self, *predict_data, **kwargs):
        """The network's output on ``predict_data`` (in inference mode)."""
        self.network.set_train(False)
        return self.network(*predict_data)


def _metrics(metrics):
    if metrics is None:
        return {}
    if isinstance(metrics, dict):
        items = metrics.items()
    elif isinstance(metrics, (set, list, tuple)):
        items = ((name, name) for name in metrics)
    else:
        raise TypeError(f"Model: metrics must be a dict of name to Metric or a set of names, got {metrics!r}")
    out = {}
    for name, m in items:
        out[name] = get_metric_fn(m) if isinstance(m, str) else m
        if not isinstance(out[name], Metric) and not all(hasattr(out[name], f) for f in ("clear", "update", "eval")):
            raise TypeError(f"Model: metric {name!r} must be a Metric, got {type(m).__name__}")
    return out


def _callbacks(callbacks):
    if callbacks is None:
        return []
    return list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]


def _fire(callbacks, hook, context):
    for cb in callbacks:
        getattr(cb, hook, lambda _: None)(context)


def _size(dataset):
    if hasattr(dataset, "get_dataset_size"):
        return dataset.get_dataset_size()
    return len(dataset) if hasattr(dataset, "__len__") else None


def _batches(dataset):
    """Each batch as a list of Tensors: a dataset's tuple iterator, or any iterable of tuples."""
    rows = dataset.create_tuple_iterator() if hasattr(dataset, "create_tuple_iterator") else dataset
    for row in rows:
        row = row if isinstance(row, (tuple, list)) else (row,)
        yield [Tensor(v) if isinstance(v, (np.ndarray, np.generic)) else v for v in row]
