"""The Cell API around its state: buffers, ``state_dict``/``load_state_dict``, ``to(dtype)``,
sub-Cell lookup, recursive flags and the single-device no-ops of MindSpore's parallel API.

``CellState`` is a base of ``nn.Cell`` (kept apart so ``cell.py`` stays about registration and
calling). A buffer is a Tensor attribute listed in the state dict, not a Parameter: inside a
compiled graph it is a constant like any other Tensor attribute.
"""
import logging
from collections import OrderedDict, namedtuple

from .. import dtype as D
from ..parameter import Parameter
from ..tensor import Tensor

_log = logging.getLogger(__name__)

class _IncompatibleKeys(namedtuple("_IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns."""
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()


class CellState:
    """Mixed into ``nn.Cell``; expects its ``_params``/``_cells``/``_buffers`` dicts."""

    # -- buffers --------------------------------------------------------------------------
    def register_buffer(self, name, tensor, persistent=True):
        """Add the Tensor ``tensor`` (or None) as buffer ``name`` (``persistent``: in the state dict)."""
        d = self.__dict__
        if "_buffers" not in d:
            raise AttributeError("cannot assign buffer before Cell.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string.But got this type: {type(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in d["_buffers"]:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and (not isinstance(tensor, Tensor) or isinstance(tensor, Parameter)):
            raise TypeError(f"cannot assign '{type(tensor)}' object to buffer '{name}' "
                            "(mindspore Tensor or None required)")
        d["_buffers"][name] = tensor
        (d["_non_persistent"].discard if persistent else d["_non_persistent"].add)(name)
        setattr(self, name, tensor)    # (Cell.__setattr__ keeps _buffers in step and invalidates graphs)

    def _named_members(self, members, prefix, recurse, remove_duplicate=True):
        seen = set()
        cells = self.cells_and_names(name_prefix=prefix) if recurse else [(prefix, self)]
        for cell_prefix, cell in cells:
            for name, v in members(cell):
                if v is None or (remove_duplicate and id(v) in seen):
                    continue
                seen.add(id(v))
                yield (f"{cell_prefix}.{name}" if cell_prefix else name), v

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """(qualified name, buffer) of this Cell's buffers (and its descendants' if ``recurse``)."""
        yield from self._named_members(lambda c: c._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_sub_cell(self, target):
        """The descendant Cell at the dotted path ``target`` ("" is this Cell)."""
        cell = self
        for item in target.split(".") if target else []:
            if not hasattr(cell, item):
                raise AttributeError(f"{type(cell).__name__} has no attribute `{item}`")
            cell = getattr(cell, item)
            if not isinstance(cell, CellState):
                raise AttributeError(f"`{item}` is not an nn.Cell")
        return cell

    def get_buffer(self, target):
        """The buffer at the dotted path ``target``."""
        path, _, name = target.rpartition(".")
        cell = self.get_sub_cell(path)
        if not hasattr(cell, name):
            raise AttributeError(f"{type(cell).__name__} has no attribute `{name}`")
        if name not in cell._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(cell, name)

    # -- state dict -----------------------------------------------------------------------
    def _local_state(self):
        state = [(n, p) for n, p in self._params.items() if p is not None]
        return state + [(n, b) for n, b in self._buffers.items() if b is not None and n not in self._non_persistent]

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """OrderedDict {attribute path: Parameter or buffer} of this Cell and its descendants."""
        if args:
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
        if destination is not None and not isinstance(destination, dict):
            raise TypeError(f"The type of destination must be OrderedDict, but got {type(destination)}")
        if not isinstance(prefix, str):
            raise TypeError(f"The type of prefix must be string, but got {type(prefix)}")
        if not isinstance(keep_vars, bool):
            raise TypeError(f"The type of keep_vars must be bool, but got {type(keep_vars)}")
        destination = OrderedDict() if destination is None else destination
        for name, v in self._local_state():
            destination[prefix + name] = v
        for name, cell in self._cells.items():
            if cell is not None:
                cell.state_dict(destination=destination, prefix=f"{prefix}{name}.", keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict, strict=True):
        """Copy the Parameters and persistent buffers of ``state_dict`` (keys as ``state_dict()``
        gives them) into this Cell; ``strict``: missing or unexpected keys are a RuntimeError.
        Returns ``(missing_keys, unexpected_keys)`` (listed whatever ``strict``)."""
        if not hasattr(state_dict, "keys"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, errors, known = [], [], set()
        for prefix, cell in self.cells_and_names():
            prefix = prefix + "." if prefix else ""
            for name, current in cell._local_state():
                key = prefix + name
                known.add(key)
                if key not in state_dict:
                    missing.append(key)
                    continue
                value = state_dict[key]
                if not isinstance(value, Tensor):
                    errors.append(f'While copying the parameter named "{key}", expected Tensor or Tensor-like '
                                  f"object from checkpoint but received {type(value)}")
                elif value.shape != current.shape:
                    errors.append(f"size mismatch for {key}: copying a param with shape {value.shape} from "
                                  f"checkpoint, the shape in current model is {current.shape}.")
                elif isinstance(current, Parameter):
                    current.set_data(Tensor(value.asnumpy().astype(current.dtype.np)))
                else:
                    cell.register_buffer(name, Tensor(value.asnumpy().astype(current.dtype.np)),
                                         name not in cell._non_persistent)
        unexpected = [k for k in state_dict.keys() if k not in known]
        if strict:
            for what, keys in (("Unexpected", unexpected), ("Missing", missing)):
                if keys:
                    errors.insert(0, f"{what} key(s) in state_dict: " + ", ".join(f'"{k}"' for k in keys) + ". ")
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__,
                                                                                    "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    # -- dtype and flags --------------------------------------------------------------------
    def to(self, *args, **kwargs):
        """Cast the floating-point Parameters (in place, same objects) and buffers of this Cell
        and its descendants to ``dtype``; a device ("cpu", ...) is accepted and ignored."""
        dtype = kwargs.get("dtype")
        for a in args:
            if not isinstance(a, str) and a is not None:
                dtype = a
        if dtype is None:
            return self
        dt = D.as_dtype(dtype)
        if not dt.is_floating:
            raise TypeError(f"Cell.to only accepts floating point dtypes, but got desired dtype={dt}")
        for _, cell in self.cells_and_names():
            for p in cell._params.values():
                if p is not None and p.dtype.is_floating and p.dtype is not dt:
                    p._array = p._array.astype(dt.np)
                    p._version += 1
            for name, b in list(cell._buffers.items()):
                if b is not None and b.dtype.is_floating:
                    cell.register_buffer(name, Tensor(b.asnumpy().astype(dt.np)), name not in cell._non_persistent)
        self._changed()
        return self

    def add_flags_recursive(self, **flags):
        """``add_flags(**flags)`` on this Cell and every descendant."""
        self.add_flags(**flags)
        for cell in self.cells():
            cell.add_flags_recursive(**flags)
        return self

    def set_boost(self, boost_type):
        if boost_type not in ("less_bn",):
            raise ValueError(f"For 'set_boost', the argument 'boost_type' must be 'less_bn', but got {boost_type}.")
        return self.add_flags_recursive(less_bn=True)

    @property
    def param_prefix(self):
        return self._param_prefix.rstrip(".")

    def get_scope(self):
        return self.__dict__.get("_scope")

    # -- compiling ------------------------------------------------------------------------
    def compile(self, *args, **kwargs):
        """GRAPH_MODE: capture the graph of ``construct`` for these inputs without running it."""
        from .. import context
        if context.is_graph_mode():
            self._graph_function().lower(*args, **kwargs)

    def compile_and_run(self, *args, **kwargs):
        return self(*args, **kwargs)

    # -- parallel API: one device ------------------------------------------------------------
    def set_data_parallel(self):
        """Data parallelism over one device: nothing to split."""
        return self

    def shard(self, in_strategy, out_strategy=None, parameter_plan=None):
        _log.info("%s.shard: one device, the strategy is ignored", type(self).__name__)
        return self

    def set_comm_fusion(self, fusion_type, recurse=True):
        """Gradient communication fusion: no communication on one device."""
        if isinstance(fusion_type, bool) or not isinstance(fusion_type, int):
            raise TypeError(f"For 'set_comm_fusion', 'fusion_type' must be an int, "
                            f"but got {type(fusion_type).__name__}")
        return self

    def remove_redundant_parameters(self):
        """Nothing to remove: Parameters are never split across devices here."""

    def parameters_broadcast_dict(self, recurse=True):
        """OrderedDict {name: Parameter} of the Parameters a broadcast would send."""
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse)) or None
