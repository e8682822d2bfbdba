"""``Model.eval``'s metrics: ``Metric`` (clear / update / eval) and the common ones by class or
by name (``metrics={"accuracy", "loss"}``). Values are accumulated in numpy (eager only)."""
import numpy as np

__all__ = ["Metric", "Accuracy", "Loss", "MAE", "MSE", "get_metric_fn"]


def _numpy(x):
    return x.asnumpy() if hasattr(x, "asnumpy") else np.asarray(x)


class Metric:
    """Base: ``clear()``, ``update(*inputs)`` with the network's output(s) and the label(s),
    ``eval()`` the value over every update since ``clear``."""

    def __init__(self):
        self.clear()

    def clear(self):
        raise NotImplementedError

    def update(self, *inputs):
        raise NotImplementedError

    def eval(self):
        raise NotImplementedError

    def _check(self, count, what):
        if count == 0:
            raise RuntimeError(f"{type(self).__name__}.eval: no {what} yet (call update first)")


class Accuracy(Metric):
    """Fraction of samples whose arg-max prediction (or thresholded binary prediction) equals
    the label (an index, or one-hot)."""

    def __init__(self, eval_type="classification"):
        self.eval_type = eval_type
        super().__init__()

    def clear(self):
        self.correct, self.total = 0, 0

    def update(self, *inputs):
        if len(inputs) < 2:
            raise ValueError(f"Accuracy.update needs predictions and labels, got {len(inputs)} inputs")
        y_pred, y = _numpy(inputs[0]), _numpy(inputs[-1])
        if self.eval_type == "multilabel" or y_pred.ndim == y.ndim and y_pred.shape[-1:] == (1,):
            hits = (np.round(y_pred) == y).reshape(len(y), -1).all(axis=1)
        else:
            labels = y.argmax(axis=-1) if y.ndim == y_pred.ndim else y
            hits = y_pred.argmax(axis=-1) == labels.reshape(y_pred.shape[:-1])
        self.correct += int(hits.sum())
        self.total += hits.size

    def eval(self):
        self._check(self.total, "samples")
        return self.correct / self.total


class Loss(Metric):
    """Mean of the loss values passed to ``update``."""

    def clear(self):
        self.sum, self.count = 0.0, 0

    def update(self, *inputs):
        self.sum += float(np.mean(_numpy(inputs[0])))
        self.count += 1

    def eval(self):
        self._check(self.count, "loss")
        return self.sum / self.count


class _Error(Metric):
    def clear(self):
        self.sum, self.count = 0.0, 0

    def update(self, *inputs):
        diff = _numpy(inputs[0]).astype(np.float64) - _numpy(inputs[-1]).reshape(_numpy(inputs[0]).shape)
        self.sum += float(self._reduce(diff).sum())
        self.count += len(diff)

    def eval(self):
        self._check(self.count, "samples")
        return self.sum / self.count


class MAE(_Error):
    """Mean over samples of the mean absolute error."""

    @staticmethod
    def _reduce(diff):
        return np.abs(diff).reshape(len(diff), -1).mean(axis=1)


class MSE(_Error):
    """Mean over samples of the mean squared error."""

    @staticmethod
    def _reduce(diff):
        return np.square(diff).reshape(len(diff), -1).mean(axis=1)


_BY_NAME = {"accuracy": Accuracy, "acc": Accuracy, "loss": Loss, "mae": MAE, "mse": MSE}


def get_metric_fn(name, *args, **kwargs):
    """The metric a name stands for ("accuracy", "loss", "mae", "mse")."""
    if name not in _BY_NAME:
        raise KeyError(f"get_metric_fn: unknown metric {name!r}; known: {', '.join(_BY_NAME)}")
    return _BY_NAME[name](*args, **kwargs)
