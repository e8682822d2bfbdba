"""``mindspore.train``: ``Model`` (train / eval / predict loops), callbacks, metrics, the
minimal ``mindspore.dataset`` and checkpoints."""
from . import callback, dataset, metrics, serialization
from .callback import Callback, CheckpointConfig, LossMonitor, ModelCheckpoint, RunContext, TimeMonitor
from .metrics import MAE, MSE, Accuracy, Loss, Metric, get_metric_fn
from .model import Model
from .serialization import load_checkpoint, load_param_into_net, save_checkpoint

__all__ = ["Model", "Callback", "LossMonitor", "TimeMonitor", "ModelCheckpoint", "CheckpointConfig", "RunContext",
           "Metric", "Accuracy", "Loss", "MAE", "MSE", "get_metric_fn", "save_checkpoint", "load_checkpoint",
           "load_param_into_net"]
