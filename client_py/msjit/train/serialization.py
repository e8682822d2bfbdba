"""Checkpoints: ``save_checkpoint`` / ``load_checkpoint`` / ``load_param_into_net``.

The file is a numpy ``.npz`` archive (name -> array) under the name given (``.ckpt`` appended
when missing, as MindSpore does); it is not MindSpore's protobuf checkpoint format.
"""
import numpy as np

from ..parameter import Parameter
from ..tensor import Tensor

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net"]


def _path(name):
    if not isinstance(name, str) or not name:
        raise ValueError(f"checkpoint: the file name must be a non-empty str, got {name!r}")
    return name if name.endswith(".ckpt") else name + ".ckpt"


def _named_values(save_obj):
    """(name, array) pairs of a Cell, a dict, or a list of {"name", "data"} dicts / Parameters."""
    if hasattr(save_obj, "parameters_and_names"):
        return [(name, p.asnumpy()) for name, p in save_obj.parameters_and_names()]
    if isinstance(save_obj, dict):
        return [(k, np.asarray(v.asnumpy() if isinstance(v, Tensor) else v)) for k, v in save_obj.items()]
    if isinstance(save_obj, (list, tuple)):
        pairs = []
        for item in save_obj:
            if isinstance(item, Parameter):
                pairs.append((item.name, item.asnumpy()))
            elif isinstance(item, dict) and {"name", "data"} <= set(item):
                data = item["data"]
                pairs.append((item["name"], np.asarray(data.asnumpy() if isinstance(data, Tensor) else data)))
            else:
                raise TypeError("save_checkpoint: list entries must be Parameters or {'name': ..., 'data': ...}")
        return pairs
    raise TypeError(f"save_checkpoint: save_obj must be a Cell, a dict or a list, got {type(save_obj).__name__}")


def save_checkpoint(save_obj, ckpt_file_name, integrated_save=True, async_save=False, append_dict=None, **kwargs):
    """Write the parameters of ``save_obj`` (and ``append_dict``'s values) to ``ckpt_file_name``."""
    pairs = _named_values(save_obj) + _named_values(append_dict or {})
    with open(_path(ckpt_file_name), "wb") as f:
        np.savez(f, **dict(pairs))


def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None, specify_prefix=None,
                    choice_func=None, **kwargs):
    """``{name: Parameter}`` from a checkpoint; with ``net``, also loaded into it."""
    name = ckpt_file_name if ckpt_file_name.endswith(".ckpt") else _path(ckpt_file_name)
    prefixes = lambda p: (p,) if isinstance(p, str) else tuple(p or ())   # noqa: E731
    with np.load(name, allow_pickle=False) as data:
        params = {}
        for key in data.files:
            if filter_prefix and key.startswith(prefixes(filter_prefix)):
                continue
            if specify_prefix and not key.startswith(prefixes(specify_prefix)):
                continue
            if choice_func is not None and not choice_func(key):
                continue
            params[key] = Parameter(data[key], name=key)
    if net is not None:
        load_param_into_net(net, params, strict_load)
    return params


def load_param_into_net(net, parameter_dict, strict_load=False, remove_redundancy=False):
    """Copy ``parameter_dict``'s values into ``net``'s Parameters of the same names. Returns
    (names of net parameters not loaded, names of checkpoint entries not used)."""
    if not isinstance(parameter_dict, dict):
        raise TypeError(f"load_param_into_net: parameter_dict must be a dict, got {type(parameter_dict).__name__}")
    not_loaded, used = [], set()
    for name, p in net.parameters_and_names():
        value = parameter_dict.get(name)
        if value is None:
            not_loaded.append(name)
            continue
        array = value.asnumpy() if isinstance(value, Tensor) else np.asarray(value)
        if array.shape != p.shape:
            raise RuntimeError(f"load_param_into_net: {name!r} has shape {p.shape} in the network and "
                               f"{array.shape} in the checkpoint")
        p.set_data(Tensor(array.astype(p.dtype.np, copy=False)))
        used.add(name)
    return not_loaded, [k for k in parameter_dict if k not in used]
