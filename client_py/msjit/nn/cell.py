"""``nn.Cell``: the unit of a network, and ``SequentialCell``.

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
from ..parameter import Parameter

_epoch = [0]


def _bump():
    _epoch[0] += 1


class _CellMeta(type):
    def __call__(cls, *args, **kwargs):
        cell = super().__call__(*args, **kwargs)
        object.__setattr__(cell, "_ready", True)   # later attribute changes invalidate graphs
        return cell


class Cell(metaclass=_CellMeta):
    """``nn.Cell(auto_prefix=True, flags=None)``: subclass it and define ``construct``."""

    def __init__(self, auto_prefix=True, flags=None):
        d = self.__dict__
        d["_params"] = OrderedDict()
        d["_cells"] = OrderedDict()
        d["training"] = False
        d["_jit_config"] = None
        d["_graph"] = None

    # -- registration ---------------------------------------------------------------------
    def __setattr__(self, name, value):
        d = self.__dict__
        if "_params" not in d:
            raise AttributeError(f"{type(self).__name__}: call super().__init__() before assigning "
                                 f"attribute {name!r}")
        d["_params"].pop(name, None)
        d["_cells"].pop(name, None)
        if isinstance(value, Parameter):
            if value.name is None:
                value.name = name
            d["_params"][name] = value
        elif isinstance(value, Cell):
            d["_cells"][name] = value
        object.__setattr__(self, name, value)
        if d.get("_ready"):
            _bump()

    def __delattr__(self, name):
        self.__dict__["_params"].pop(name, None)
        self.__dict__["_cells"].pop(name, None)
        object.__delattr__(self, name)
        _bump()

    def insert_child_to_cell(self, child_name, child_cell):
        setattr(self, child_name, child_cell)

    def insert_param_to_cell(self, param_name, param):
        setattr(self, param_name, param)

    def cells_and_names(self, cell_name=""):
        """(name, cell) for this Cell and every descendant, each once, depth first."""
        seen = set()

        def walk(prefix, cell):
            if id(cell) in seen:
                return
            seen.add(id(cell))
            yield prefix, cell
            for name, child in cell._cells.items():
                yield from walk(f"{prefix}.{name}" if prefix else name, child)
        yield from walk(cell_name, self)

    def name_cells(self):
        return OrderedDict(self._cells)

    def cells(self):
        return list(self._cells.values())

    def parameters_and_names(self, name_prefix="", expand=True):
        """(qualified name, Parameter) of this Cell's Parameters, and its descendants' if
        ``expand``; each Parameter once."""
        seen = set()
        for prefix, cell in self.cells_and_names(name_prefix):
            for name, p in cell._params.items():
                if id(p) not in seen:
                    seen.add(id(p))
                    yield (f"{prefix}.{name}" if prefix else name), p
            if not expand:
                break

    def get_parameters(self, expand=True):
        return (p for _, p in self.parameters_and_names(expand=expand))

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
        return self.construct(*args, **kwargs)

    def _graph_call(self, args, kwargs):
        graph = self.__dict__["_graph"]
        if graph is None or graph[0] != _epoch[0]:
            from ..jit import JitFunction
            graph = (_epoch[0], JitFunction(self._msjit_inline(), self.compile_config()))
            self.__dict__["_graph"] = graph
        return graph[1](*args, **kwargs)

    def _msjit_inline(self):
        """What a capture inlines for a call of this Cell: its bound ``construct``."""
        return self.construct

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


class _CellContainer(Cell):
    """Cells (given as arguments, or as one list/tuple/OrderedDict) registered in order as
    sub-cells "0", "1", ...: indexable, iterable (capture unrolls loops over them), appendable."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], (list, tuple, dict)):
            args = args[0]
        items = args.items() if isinstance(args, dict) else ((str(i), c) for i, c in enumerate(args))
        for name, cell in items:
            self._check(name, cell)
            setattr(self, name, cell)

    def _check(self, name, cell):
        if not isinstance(cell, Cell):
            raise TypeError(f"{type(self).__name__}: item {name!r} is a {type(cell).__name__}, not a Cell")

    def __getitem__(self, index):
        cells = list(self._cells.values())
        return type(self)(cells[index]) if isinstance(index, slice) else cells[index]

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(list(self._cells.values()))

    def append(self, cell):
        self._check(str(len(self)), cell)
        setattr(self, str(len(self)), cell)
        return self


class SequentialCell(_CellContainer):
    """``SequentialCell(*args)``: Cells (or one list/OrderedDict of them) applied in order."""

    def construct(self, input_data):
        for cell in self._cells.values():
            input_data = cell(input_data)
        return input_data


class CellList(_CellContainer):
    """``CellList(cells)``: a list of Cells whose parameters belong to the owner; iterate it in
    ``construct`` (loops over it are unrolled at capture). It is not itself callable."""

    def construct(self, *args, **kwargs):
        raise TypeError("CellList is a container: iterate over it in construct rather than calling it")
