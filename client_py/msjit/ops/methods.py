"""Tensor operators and methods, attached to TensorMixin (so to Tensor and Tracer) by ``install``
(with ``methods_data``'s data, dtype and layout methods).

Most methods are a functional op with the tensor as its first argument: those are listed by
name in each ops module's ``TENSOR_METHODS`` and attached as the function itself. The ones
here differ from their functional op in signature or meaning. Methods that need the value
(``item``, ``tolist``, ``numpy``) go through ``__array__``, which a Tracer refuses
(ConcreteValueNeeded). ``x += y`` rebinds ``x`` to ``x + y`` (no ``__iadd__``), as MindSpore.
"""
import importlib

import numpy as np

from .. import dtype as D
from .. import ops
from ..core import current_builder
from ..mixin import TensorMixin
from ..parameter import Parameter
from ..tensor import Tensor
from .index_update import setitem
from .methods_data import DataMethods
from .operands import assign


def _math(name):
    """A math function of ``msjit.ops`` (or its module while ops is not fully registered)."""
    fn = getattr(ops, name, None)
    return fn if fn is not None else getattr(importlib.import_module(".math_elementwise", __package__), name)


def _reflected(scalar, tensor):
    """The left operand ``scalar`` of a reflected operator as a 0-d tensor of the dtype the pair
    promotes to (what ``binary_operands`` gives it), so the op sees two tensors."""
    kind = D.scalar_kind(scalar)
    return Tensor(scalar, D.scalar_result_type(tensor.dtype, kind)) if kind is not None else scalar


def _dims(args):
    """``f(2, 3)`` or ``f((2, 3))`` -> (2, 3)."""
    return tuple(args[0]) if len(args) == 1 and not isinstance(args[0], (int, np.integer)) else args


class _Methods:
    # -- operators ---------------------------------------------------------------------------------
    def __add__(self, other):
        return ops.add(self, other)

    def __radd__(self, other):
        return ops.add(other, self)

    def __sub__(self, other):
        return ops.sub(self, other)

    def __rsub__(self, other):
        return ops.sub(other, self)

    def __mul__(self, other):
        return ops.mul(self, other)

    def __rmul__(self, other):
        return ops.mul(other, self)

    def __truediv__(self, other):
        return ops.div(self, other)

    def __rtruediv__(self, other):
        return ops.div(other, self)

    def __floordiv__(self, other):
        return _math("floor_divide")(self, other)

    def __rfloordiv__(self, other):
        return _math("floor_divide")(_reflected(other, self), self)

    def __mod__(self, other):
        return _math("remainder")(self, other)

    def __rmod__(self, other):
        return _math("remainder")(_reflected(other, self), self)

    def __matmul__(self, other):
        return ops.matmul(self, other)

    def __rmatmul__(self, other):
        return ops.matmul(other, self)

    def __neg__(self):
        return ops.neg(self)

    def __pos__(self):
        return self

    def __pow__(self, other):
        return ops.pow(self, other)

    def __rpow__(self, other):
        return ops.pow(other, self)

    def __abs__(self):
        return ops.abs(self)

    def __and__(self, other):
        return ops.logical_and(self, other)

    __rand__ = __and__

    def __or__(self, other):
        return ops.logical_or(self, other)

    __ror__ = __or__

    def __xor__(self, other):
        """Bitwise xor; defined here for bool tensors (NotEqual), as no primitive does bits."""
        for v in (self, other):
            dt = v.dtype if isinstance(v, TensorMixin) else (D.bool_ if isinstance(v, (bool, np.bool_)) else None)
            if dt is not D.bool_:
                raise TypeError(f"BitwiseXor: only bool tensors are supported, got {dt or type(v).__name__}")
        return ops.not_equal(self, other)

    __rxor__ = __xor__

    def __invert__(self):
        return ops.logical_not(self)

    def __eq__(self, other):
        return ops.equal(self, other) if _comparable(other) else NotImplemented

    def __ne__(self, other):
        return ops.not_equal(self, other) if _comparable(other) else NotImplemented

    def __lt__(self, other):
        return ops.less(self, other)

    def __le__(self, other):
        return ops.less_equal(self, other)

    def __gt__(self, other):
        return ops.greater(self, other)

    def __ge__(self, other):
        return ops.greater_equal(self, other)

    def __getitem__(self, index):
        return ops.getitem(self, index)

    def __setitem__(self, index, value):
        setitem(self, index, value)

    # -- math with a method signature of its own ---------------------------------------------------
    def pow(self, exponent):
        return ops.pow(self, exponent)

    # -- shape -------------------------------------------------------------------------------------
    @property
    def T(self):
        return ops.transpose(self, tuple(reversed(range(self.ndim))))

    @property
    def mT(self):
        return ops.swapaxes(self, -2, -1)

    def reshape(self, *shape):
        return ops.reshape(self, _dims(shape))

    def view(self, *shape):
        """A reshape; ``view(dtype)`` reinterprets the bytes (eager only)."""
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer, tuple, list)):
            dt = D.as_dtype(shape[0])
            array = self.__array__()
            return Tensor(array.view(dt.np))
        return ops.reshape(self, _dims(shape))

    def view_as(self, other):
        return ops.reshape(self, other.shape)

    reshape_as = view_as

    def transpose(self, *axes):
        """``transpose(dim0, dim1)`` swaps two axes (MindSpore 2.10); ``transpose(*perm)`` or
        ``transpose(perm)`` permutes, ``transpose()`` reverses the axes."""
        if len(axes) == 2 and all(isinstance(a, (int, np.integer)) for a in axes):
            return ops.swapaxes(self, *axes)
        perm = _dims(axes)
        return ops.transpose(self, perm or tuple(reversed(range(self.ndim))))

    def gather(self, *args, **kwargs):
        """``gather(dim, index)`` (element-wise along ``dim``, MindSpore 2.10) or the older
        ``gather(input_indices, axis, batch_dims=0)`` (whole slices, ops.gather)."""
        if "dim" in kwargs or args and isinstance(args[0], (int, np.integer)) and not isinstance(args[0], bool):
            named = dict(zip(("dim", "index"), args), **kwargs)
            return ops.gather_elements(self, named["dim"], named["index"])
        return ops.gather(self, *args, **kwargs)

    def split(self, split_size_or_sections=None, axis=0, *, split_size=None, dim=None):
        return ops.split(self, split_size if split_size is not None else split_size_or_sections,
                         axis if dim is None else dim)

    def chunk(self, chunks, axis=0, *, dim=None):
        return ops.chunk(self, chunks, axis if dim is None else dim)

    def index_select(self, axis=None, index=None, *, dim=None):
        return ops.index_select(self, axis if dim is None else dim, index)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return ops.diagonal(self, offset, axis1, axis2)

    def repeat_interleave(self, repeats, dim=None, *, output_size=None):
        return ops.repeat_interleave(self, repeats, dim)

    def broadcast_to(self, *shape):
        return ops.broadcast_to(self, _dims(shape))

    def permute(self, *axis):
        return ops.transpose(self, _dims(axis))

    def expand(self, *size):
        return ops.broadcast_to(self, _dims(size))

    def expand_as(self, other):
        return ops.broadcast_to(self, other.shape)

    def repeat(self, *repeats):
        """Tile by ``repeats`` (at least one per dim; extra ones add leading axes)."""
        repeats = _dims(repeats)
        if len(repeats) < self.ndim:
            raise RuntimeError(f"repeat: {len(repeats)} repeats {repeats} for a tensor of rank {self.ndim}; "
                               "need at least one per dim")
        if any(int(r) < 0 for r in repeats):
            raise RuntimeError(f"repeat: repeats must be non-negative, got {repeats}")
        return ops.tile(self, repeats)

    def flatten(self, *args, start_dim=0, end_dim=-1, order="C"):
        """``flatten(start_dim=0, end_dim=-1)`` (MindSpore 2.10) or ``flatten(order='C', *, ...)``."""
        if args and isinstance(args[0], str):
            order, args = args[0], args[1:]
        if args:
            start_dim, end_dim = (tuple(args) + (end_dim,))[:2]
        return ops.flatten(self, order, start_dim=start_dim, end_dim=end_dim)

    def ravel(self):
        return ops.reshape(self, (-1,))

    def squeeze(self, *axis):
        axis = _dims(axis) if axis else None
        return ops.squeeze(self, axis[0] if axis is not None and len(axis) == 1 else axis)

    def unsqueeze(self, dim):
        return ops.expand_dims(self, dim)

    def where(self, condition, y):
        return ops.where(condition, self, y)

    def scatter_add(self, *args, **kwargs):
        """``scatter_add(dim, index, src)``: element-wise along ``dim``; ``scatter_add(indices,
        updates)``: whole slices along axis 0 (ops.scatter_add)."""
        if len(args) + len(kwargs) == 2:
            return ops.scatter_add(self, *args, **kwargs)
        from .scatter_ops import _dim_scatter
        named = dict(zip(("dim", "index", "src"), args), **kwargs)
        return _dim_scatter("ScatterAdd", self, named["dim"], named["index"], named["src"], add=True)

    def index_add(self, *args, alpha=1, **kwargs):
        """``index_add(dim, index, source, *, alpha=1)`` or ``index_add(indices, y, axis)``."""
        if "dim" in kwargs or args and isinstance(args[0], (int, np.integer)):
            named = dict(zip(("dim", "index", "source"), args), **kwargs)
            source = named["source"] if alpha == 1 else ops.mul(named["source"], alpha)
            return ops.index_add(self, named["index"], source, named["dim"])
        return ops.index_add(self, *args, **kwargs)
    def fill(self, value):
        return ops.broadcast_to(ops.cast(value, self.dtype), self.shape) if isinstance(value, TensorMixin) \
            else ops.full_like(self, value)

    def new_full(self, size, fill_value, *, dtype=None):
        return ops.full(size, fill_value, dtype=dtype or self.dtype)

    def new_zeros(self, *size, dtype=None):
        return ops.full(_dims(size), 0, dtype=dtype or self.dtype)

    def new_ones(self, *size, dtype=None):
        return ops.full(_dims(size), 1, dtype=dtype or self.dtype)

    new_empty = new_zeros

    def t(self):
        """The transpose of a matrix (a vector or scalar as it is)."""
        if self.ndim > 2:
            raise ValueError(f"t: expects a tensor of rank <= 2, got shape {self.shape}")
        return ops.transpose(self, (1, 0)) if self.ndim == 2 else self

    def index_put(self, indices, values, accumulate=False):
        """``self`` with ``values`` written (or added) at the advanced index ``indices`` (a tuple of tensors)."""
        from .index_update import positions, scatter_flat
        return scatter_flat(self, positions(self, tuple(indices)), values, add=accumulate)

    def fill_diagonal(self, fill_value, wrap=False):
        """``self`` with the main diagonal (all indices equal) set to ``fill_value``; ``wrap``
        continues it below a tall matrix every ``ncols + 1`` rows, as numpy."""
        from .index_update import scatter_flat
        n = min(self.shape) if self.ndim else 0
        if self.ndim == 2:
            rows, cols = self.shape
            stop = rows * cols if wrap else min(rows, cols) * cols
            flat = np.arange(0, stop, cols + 1)
        else:
            flat = np.ravel_multi_index((np.arange(n),) * self.ndim, self.shape)
        return scatter_flat(self, flat, fill_value)

    def sum_to_size(self, *size):
        """Sum broadcast axes away so the result has shape ``size``."""
        size = _dims(size)
        lead = self.ndim - len(size)
        axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(size) if d == 1 and self.shape[lead + i] != 1)
        out = ops.sum(self, axes, True) if axes else self
        return ops.reshape(out, size)

    # -- in place: through __setitem__ (eager write, Tracer rebind, Parameter assign) ----------------
    def fill_(self, value):
        setitem(self, Ellipsis, value)
        return self

    def zero_(self):
        return self.fill_(0)

    def copy_(self, src):
        return self.fill_(src)

    def add_(self, other, *, alpha=1):
        setitem(self, Ellipsis, ops.add(self, other if alpha == 1 else ops.mul(other, alpha)))
        return self

    def sub_(self, other, *, alpha=1):
        setitem(self, Ellipsis, ops.sub(self, other if alpha == 1 else ops.mul(other, alpha)))
        return self

    def take(self, indices, axis=None, mode="clip"):
        """numpy ``take``: entries at ``indices`` along ``axis`` (None: of the flattened tensor);
        out-of-range indices are clipped ("clip"), wrapped ("wrap") or an error ("raise")."""
        x = ops.reshape(self, (-1,)) if axis is None else self
        axis = 0 if axis is None else axis
        n = x.shape[axis]
        if mode not in ("clip", "wrap", "raise"):
            raise ValueError(f"take: mode must be 'clip', 'wrap' or 'raise', got {mode!r}")
        if mode != "raise":
            if isinstance(indices, TensorMixin):
                indices = ops.minimum(ops.maximum(indices, 0), n - 1) if mode == "clip" else \
                    _math("remainder")(indices, n)
            else:
                indices = np.clip(indices, 0, n - 1) if mode == "clip" else np.mod(indices, n)
        return ops.gather(x, indices, axis)


def _in_place(name):
    """``x.name_(...)``: ``x.name(...)`` written back into ``x`` (see fill_); returns ``x``."""
    def method(self, *args, **kwargs):
        setitem(self, Ellipsis, getattr(self, name)(*args, **kwargs))
        return self
    method.__name__ = method.__qualname__ = name + "_"
    return method


# In-place forms of methods: x.add_(y) is x[...] = x.add(y).
_IN_PLACE = ("add", "sub", "mul", "div", "clamp", "floor", "exp", "log", "sigmoid", "tanh", "sign", "remainder",
             "floor_divide", "scatter", "scatter_add", "index_fill", "index_add", "index_put", "masked_fill")


def _comparable(other):
    """== and != are elementwise against tensors, arrays and numbers; anything else (None, a
    string) compares unequal by identity, as Python objects do."""
    return isinstance(other, (TensorMixin, np.ndarray, int, float, bool, np.generic))


# Functional ops of ``functional`` that are also methods with the tensor first.
_FUNCTIONAL = ("exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "abs", "square", "sin", "cos")


def _set_data(param, data, slice_shape=False):
    """Parameter.set_data: an ``assign`` under capture (or of a value that is not concrete),
    else the eager copy."""
    if current_builder() is not None or not isinstance(data, (Tensor, np.ndarray, list, tuple, int, float)):
        return assign(param, data)
    return _copy_into(param, data, slice_shape)


_copy_into = Parameter.set_data


def install(tables):
    """Attach the operators above (methods and properties) and every ``{method name: function}``
    of ``tables``; Parameter.set_data learns capture."""
    Parameter.set_data = _set_data
    for cls in (_Methods, DataMethods):
        for name, value in vars(cls).items():
            if callable(value) or isinstance(value, property):
                setattr(TensorMixin, name, value)
    for name in _FUNCTIONAL:
        setattr(TensorMixin, name, getattr(ops, name))
    for name in _IN_PLACE:
        if name + "_" not in vars(_Methods):
            setattr(TensorMixin, name + "_", _in_place(name))
    for table in tables:
        for name, fn in table.items():
            setattr(TensorMixin, name, fn)
