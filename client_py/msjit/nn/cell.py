"""``nn.Cell``: the unit of a network (the containers are in ``container``).

A Cell registers the Parameters and sub-Cells assigned to its attributes. Calling it runs
``construct``: eagerly in PYNATIVE_MODE; in GRAPH_MODE a top-level call compiles ``construct``
(as ``jit`` with the Cell's JitConfig) and calls nested inside a capture are inlined into the
graph being built. Parameters are read by reference, so compiled graphs never hold copies.

Any change of a Cell's attributes or training flag after construction (``set_train``,
``net.x = ...``) bumps a global epoch that is part of every compiled Cell's guard: the next call
recaptures (the daemon's cache makes an unchanged graph cheap to get again).
"""
from collections import OrderedDict
from dataclasses import replace

from .. import context
from ..core import current_builder
from ..config import CompileConfig, JitConfig
from ..parameter import Parameter, is_value_tensor
from ..tensor import Tensor
from .cell_state import CellState

_epoch = [0]


def _bump():
    _epoch[0] += 1


def library_method(fn):
    """Mark a helper method that user ``construct`` code may call with tensors (LossBase.get_loss,
    Optimizer.get_lr, ...): capture runs it as Python on tracers instead of refusing it."""
    fn._msjit_records = True
    return fn


class _CellMeta(type):
    def __call__(cls, *args, **kwargs):
        cell = super().__call__(*args, **kwargs)
        object.__setattr__(cell, "_ready", True)   # later attribute changes invalidate graphs
        return cell


def _cast_floats(v, dt):
    """``v`` (a tensor or a tuple/list of them) with its floating tensors cast to ``dt``."""
    from ..ops import cast
    from ..ops.operands import is_tensor
    if is_tensor(v):
        return cast(v, dt) if v.dtype.is_floating else v
    return type(v)(_cast_floats(i, dt) for i in v) if isinstance(v, (tuple, list)) else v


class HookHandle:
    """Returned by ``register_forward_hook``: ``remove()`` unregisters the hook."""

    def __init__(self, cell, which, key):
        self._cell, self._which, self._key = cell, which, key

    def remove(self):
        cell = self._cell
        hooks = cell._hooks[self._which]
        hooks[:] = [h for h in hooks if h[0] is not self._key]
        cell.__dict__["_wrapped"] = cell._cast_to is not None or any(cell._hooks)
        _bump()


class Cell(CellState, metaclass=_CellMeta):
    """``nn.Cell(auto_prefix=True, flags=None)``: subclass it and define ``construct``."""

    def __init__(self, auto_prefix=True, flags=None):
        d = self.__dict__
        d["_params"] = OrderedDict()
        d["_cells"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistent"] = set()   # buffers left out of state_dict
        d["training"] = False
        d["requires_grad"] = False
        d["_auto_prefix"] = bool(auto_prefix)
        d["_param_prefix"] = ""     # "seq.0.": this Cell's place in the Cells it was attached to
        d["_jit_config"] = None
        d["_graph"] = None
        d["_cast_to"] = None
        d["_hooks"] = ([], [])      # forward pre-hooks, forward hooks: [(id, fn, with_kwargs)]
        d["_wrapped"] = False       # to_float or hooks: calls go through _wrapped_construct

    # -- registration ---------------------------------------------------------------------
    def __setattr__(self, name, value):
        d = self.__dict__
        if "_params" not in d:
            raise AttributeError(f"{type(self).__name__}: call super().__init__() before assigning "
                                 f"attribute {name!r}")
        current = d["_params"].get(name)
        if current is not None and is_value_tensor(value):
            current.set_data(value)   # MindSpore: a Tensor assigned to a Parameter attribute is its new data
            return
        d["_params"].pop(name, None)
        d["_cells"].pop(name, None)
        if name in d["_buffers"]:   # a buffer stays one while it is given Tensors (or None)
            if value is None or (is_value_tensor(value)):
                d["_buffers"][name] = value
            else:
                del d["_buffers"][name]
        if isinstance(value, Parameter):
            if value.name is None:
                value.name = name
            d["_params"][name] = value
        elif isinstance(value, Cell):
            d["_cells"][name] = value
            if d["_auto_prefix"]:             # MindSpore's names: "fc.weight", "seq.0.bias"
                value.update_parameters_name(d["_param_prefix"] + name + ".")
        object.__setattr__(self, name, value)
        if d.get("_ready"):
            _bump()

    def __delattr__(self, name):
        self.__dict__["_params"].pop(name, None)
        self.__dict__["_cells"].pop(name, None)
        self.__dict__["_buffers"].pop(name, None)
        object.__delattr__(self, name)
        _bump()

    def insert_child_to_cell(self, child_name, child_cell):
        if not isinstance(child_name, str) or not child_name or "." in child_name:
            raise KeyError(f"insert_child_to_cell: child name must be a non-empty str without '.', "
                           f"got {child_name!r}")
        if child_cell is not None and not isinstance(child_cell, Cell):
            raise TypeError(f"insert_child_to_cell: child cell must be a Cell, got {type(child_cell).__name__}")
        setattr(self, child_name, child_cell)

    def update_parameters_name(self, prefix="", recurse=True):
        """Prefix the names of this Cell's Parameters (and its descendants' if ``recurse``)."""
        if not isinstance(prefix, str):
            raise TypeError(f"update_parameters_name: prefix must be a str, got {type(prefix).__name__}")
        for p in self.get_parameters(expand=recurse):
            p.name = prefix + (p.name or "")
        for _, cell in (self.cells_and_names() if recurse else [("", self)]):
            cell.__dict__["_param_prefix"] = prefix + cell._param_prefix

    def insert_param_to_cell(self, param_name, param, check_name_contain_dot=True):
        if check_name_contain_dot and "." in param_name:
            raise KeyError(f"insert_param_to_cell: the parameter name {param_name!r} must not contain '.'")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"insert_param_to_cell: expected a Parameter, got {type(param).__name__}")
        setattr(self, param_name, param)

    def cells_and_names(self, cells=None, name_prefix=""):
        """(name, cell) for this Cell and every descendant, each once, depth first; ``cells``: a
        set of Cells already listed (skipped)."""
        seen = set() if cells is None else cells

        def walk(prefix, cell):
            if cell in seen:
                return
            seen.add(cell)
            yield prefix, cell
            for name, child in cell._cells.items():
                yield from walk(f"{prefix}.{name}" if prefix else name, child)
        yield from walk(name_prefix, self)

    def name_cells(self):
        return OrderedDict(self._cells)

    def cells(self):
        return list(self._cells.values())

    def parameters_and_names(self, name_prefix="", expand=True):
        """(qualified name, Parameter) of this Cell's Parameters, and its descendants' if
        ``expand``; each Parameter once."""
        seen = set()
        for prefix, cell in self.cells_and_names(name_prefix=name_prefix):
            for name, p in cell._params.items():
                if id(p) not in seen:
                    seen.add(id(p))
                    yield (f"{prefix}.{name}" if prefix else name), p
            if not expand:
                break

    def get_parameters(self, expand=True):
        return (p for _, p in self.parameters_and_names(expand=expand))

    def parameters_dict(self, recurse=True):
        """OrderedDict {Parameter name: Parameter}."""
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def trainable_params(self, recurse=True):
        return [p for p in self.get_parameters(recurse) if p.requires_grad]

    def untrainable_params(self, recurse=True):
        return [p for p in self.get_parameters(recurse) if not p.requires_grad]

    # -- modes ----------------------------------------------------------------------------
    def set_train(self, mode=True):
        """Training (True) or inference (False) for this Cell and its descendants."""
        for _, cell in self.cells_and_names():
            cell.__dict__["training"] = bool(mode)
        _bump()
        return self

    @property
    def cls_name(self):
        return type(self).__name__

    def set_inputs(self, *inputs, **kwargs):
        """Declare the input signature (MindSpore's dynamic shapes): kept, shapes stay static here."""
        self.__dict__["_inputs"] = (inputs, kwargs)

    def get_inputs(self):
        return self.__dict__.get("_inputs", ((), {}))[0] or None

    def recompute(self, **kwargs):
        """Activation recomputation hint: the compiler's rematerialization (jit_level O1) decides."""
        return self

    def init_parameters_data(self, auto_parallel_mode=False):
        """Parameters are initialized when created. As MindSpore, {original Parameter: initialized
        Parameter}: here each Parameter maps to itself."""
        return {p: p for p in self.get_parameters()}

    def add_flags(self, **flags):
        self.__dict__.setdefault("_flags", {}).update(flags)
        return self

    def get_flags(self):
        return dict(self.__dict__.get("_flags", {}))

    def set_grad(self, requires_grad=True):
        """Mark this Cell as differentiated (a flag: gradients never depend on it here)."""
        self.__dict__["requires_grad"] = bool(requires_grad)
        return self

    def apply(self, fn):
        """``fn(cell)`` for every descendant (children first) and this Cell; returns self."""
        for cell in self.cells():
            cell.apply(fn)
        fn(self)
        return self

    def to_float(self, dst_type):
        """Run this Cell with its floating-point Tensor inputs cast to ``dst_type``."""
        from .. import dtype as D
        dt = D.as_dtype(dst_type)
        if dt not in (D.float16, D.float32, D.float64):
            raise ValueError(f"to_float: dst_type must be a float dtype, got {dst_type}")
        for _, cell in self.cells_and_names():
            cell.__dict__["_cast_to"] = dt
            cell.__dict__["_wrapped"] = True
        _bump()
        return self

    def set_jit_config(self, jit_config):
        if not isinstance(jit_config, JitConfig):
            raise TypeError(f"set_jit_config: expected a JitConfig, got {type(jit_config).__name__}")
        self.__dict__["_jit_config"] = jit_config
        _bump()

    @property
    def jit_config_dict(self):
        return dict(self._jit_config.jit_config_dict) if self._jit_config else {}

    def compile_config(self):
        """The CompileConfig a GRAPH_MODE call uses: the Cell's JitConfig, else the context's
        ``jit_config``, else jit's defaults; the syntax level falls back to the context's."""
        cfg = self._jit_config or context.get_context("jit_config")
        base = cfg.to_config() if cfg else CompileConfig()
        level = (cfg.jit_config_dict["jit_syntax_level"] if cfg else "") or \
            context.SYNTAX_LEVEL_NAMES[context.get_context("jit_syntax_level")]
        return replace(base, fullgraph=level == "STRICT")

    # -- calling --------------------------------------------------------------------------
    def construct(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define construct()")

    def __call__(self, *args, **kwargs):
        builder = current_builder()
        if builder is not None:               # inside a capture: inline into its graph
            return builder.call_cell(self, args, kwargs)
        if context.is_graph_mode():
            return self._graph_call(args, kwargs)
        return self._msjit_inline()(*args, **kwargs)

    def _graph_call(self, args, kwargs):
        return self._graph_function()(*args, **kwargs)

    def _graph_function(self):
        """The JitFunction of GRAPH_MODE calls (a new one after any change of the Cells)."""
        graph = self.__dict__["_graph"]
        if graph is None or graph[0] != _epoch[0]:
            from ..jit import JitFunction
            graph = (_epoch[0], JitFunction(self._msjit_inline(), self.compile_config()))
            self.__dict__["_graph"] = graph
        return graph[1]

    @staticmethod
    def _changed():
        """Invalidate the compiled graphs of every Cell (their attributes changed)."""
        _bump()

    def _msjit_inline(self):
        """What a capture inlines for a call of this Cell: its bound ``construct`` (behind the
        casts of ``to_float`` and the forward hooks, when there are any)."""
        return self._wrapped_construct if self.__dict__["_wrapped"] else self.construct

    def _wrapped_construct(self, *args, **kwargs):
        """``construct`` between the forward pre-hooks and hooks, on inputs cast to the
        ``to_float`` dtype (its float outputs cast too; Parameters keep their dtype)."""
        pre_hooks, hooks = self._hooks
        for _, fn, with_kwargs in pre_hooks:
            result = fn(self, args, kwargs) if with_kwargs else fn(self, args)
            if result is not None:
                if with_kwargs:
                    args, kwargs = result
                else:
                    args = result if isinstance(result, tuple) else (result,)
        dt = self._cast_to
        if dt is not None:
            args = _cast_floats(args, dt)
        out = self.construct(*args, **kwargs)
        if dt is not None:
            out = _cast_floats(out, dt)
        for _, fn, with_kwargs in hooks:
            result = fn(self, args, kwargs, out) if with_kwargs else fn(self, args, out)
            out = out if result is None else result
        return out

    def _add_hook(self, which, hook_fn, prepend, with_kwargs):
        if not callable(hook_fn):
            raise TypeError(f"{type(self).__name__}: the hook must be callable, got {type(hook_fn).__name__}")
        entry = (object(), hook_fn, bool(with_kwargs))
        hooks = self._hooks[which]
        hooks.insert(0 if prepend else len(hooks), entry)
        self.__dict__["_wrapped"] = True
        _bump()
        return HookHandle(self, which, entry[0])

    def register_forward_pre_hook(self, hook_fn, *, prepend=False, with_kwargs=False):
        """``hook_fn(cell, args)`` before each call (``(cell, args, kwargs)`` with_kwargs); a
        non-None result replaces the arguments. Returns a handle with ``remove()``."""
        return self._add_hook(0, hook_fn, prepend, with_kwargs)

    def register_forward_hook(self, hook_fn, *, prepend=False, with_kwargs=False, always_call=False):
        """``hook_fn(cell, args, output)`` after each call (``(cell, args, kwargs, output)``
        with_kwargs); a non-None result replaces the output. Returns a handle with ``remove()``."""
        return self._add_hook(1, hook_fn, prepend, with_kwargs)

    def _msjit_guard(self):
        """Part of the guard key when this Cell is a constant argument of a jitted function."""
        return _epoch[0]

    def extend_repr(self):
        return ""

    def __repr__(self):
        lines = [f"{type(self).__name__}<{self.extend_repr()}"]
        for name, cell in self._cells.items():
            lines.append(f"  ({name}): " + repr(cell).replace("\n", "\n  "))
        return "\n".join(lines) + (">" if len(lines) == 1 else "\n  >")
