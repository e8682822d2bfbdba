"""Tensor: a concrete, numpy-backed value. Operators come from TensorMixin (shared with Tracer)."""
import numpy as np

from . import dtype as D
from .mixin import TensorMixin


class Tensor(TensorMixin):
    """``Tensor(input_data=None, dtype=None, shape=None, init=None, const_arg=False)`` as in MindSpore.

    Without ``dtype`` the type comes from the data, except that Python floats (and lists of
    them) become float32; Python ints become int64. The data is always copied. Without data,
    ``shape`` and ``dtype`` give zeros, or with ``init`` (an Initializer or its name) the
    initializer's values, made at once (MindSpore defers them to ``init_data()``; the values
    are the same). A shape with ``None`` (or -1) dimensions is a dynamic-shape declaration for
    ``Cell.set_inputs``: it has no values and ops on it raise.
    """

    __slots__ = ("_array", "_init", "_const_arg")

    def __new__(cls, input_data=None, dtype=None, shape=None, *args, **kwargs):
        if input_data is None and _is_dynamic(shape) and cls is Tensor:
            cls = DynamicShapeTensor
        return object.__new__(cls)

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, const_arg=False, device=None):
        if not isinstance(const_arg, bool):
            raise TypeError(f"For 'Tensor', the type of 'const_arg' should be 'bool', but got type "
                            f"'{type(const_arg).__name__}'.")
        if const_arg:
            self._const_arg = True
        if input_data is None:
            array = _from_spec(self, dtype, shape, init)
            if array is not None:
                self._array = array
            return
        if shape is not None or init is not None:
            raise ValueError(f"Tensor: when initializing a tensor with 'input_data', 'shape' and 'init' must be "
                             f"None, got shape={shape!r}, init={init!r}")
        if isinstance(input_data, Tensor):
            input_data = input_data._array
        if dtype is not None:
            array = np.array(input_data, dtype=D.as_dtype(dtype).np)
        else:
            array = np.array(input_data)
            if array.dtype == np.float64 and not isinstance(input_data, (np.ndarray, np.generic)):
                array = array.astype(np.float32)
            D.from_numpy(array.dtype)  # TypeError for unsupported element types
        self._array = array

    @staticmethod
    def from_numpy(array):
        """A Tensor sharing ``array``'s memory (a non-contiguous array is copied contiguous first)."""
        if not isinstance(array, np.ndarray):
            raise TypeError(f"Tensor.from_numpy: expected a NumPy array, got {type(array).__name__}")
        D.from_numpy(array.dtype)  # TypeError for unsupported element types
        return Tensor._wrap(array if array.flags.c_contiguous else np.ascontiguousarray(array))

    @property
    def init(self):
        """The Initializer still to apply by ``init_data()`` (None once applied or without one)."""
        return getattr(self, "_init", None)

    @property
    def has_init(self):
        """True for a tensor made from ``init`` whose ``init_data()`` has not been called."""
        return getattr(self, "_init", None) is not None

    def init_data(self, slice_index=None, shape=None, opt_shard_group=None):
        """This tensor, its initializer marked applied (its values were made at construction)."""
        if getattr(self, "_init", None) is None:
            raise TypeError("init_data must be set Tensor.init, init can't be None")
        self._init = None
        return self

    @property
    def const_arg(self):
        """Whether jit treats this tensor as a constant (``set_const_arg``)."""
        return getattr(self, "_const_arg", False)

    def set_const_arg(self, const_arg=True):
        """Mark (or unmark) this tensor as a constant argument of jit functions; returns self."""
        if not isinstance(const_arg, bool):
            raise TypeError(f"For 'set_const_arg', the type of 'const_arg' should be 'bool', but got type "
                            f"'{type(const_arg).__name__}'.")
        self._const_arg = const_arg
        return self

    @staticmethod
    def _wrap(array):
        """A Tensor over ``array`` without copying or checking: the runtime's per-output fast path."""
        t = object.__new__(Tensor)
        t._array = array
        return t

    @property
    def shape(self):
        return self._array.shape

    @property
    def dtype(self):
        return D.from_numpy(self._array.dtype)

    def asnumpy(self):
        """The underlying numpy array (shared, not copied, as in MindSpore on CPU)."""
        return self._array

    def __array__(self, dtype=None):
        return self._array if dtype is None else self._array.astype(dtype)

    def __bool__(self):
        return bool(self._array)

    def __float__(self):
        return float(self._array)

    def __int__(self):
        return int(self._array)

    def __index__(self):
        """An integer tensor of one element as a Python int (``range(t)``, ``lst[t]``)."""
        if self._array.dtype.kind not in "iub" or self._array.size != 1:
            raise TypeError(f"only integer tensors of a single element can be converted to an index, "
                            f"got {self.dtype} of shape {self.shape}")
        return int(self._array.reshape(()))

    def __len__(self):
        if not self._array.ndim:
            raise TypeError("len() of a 0-d tensor")
        return len(self._array)

    def __iter__(self):
        """The rows (``x[0]``, ``x[1]``, ...), each an op so gradients flow through them."""
        if not self._array.ndim:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(len(self._array)))

    def __str__(self):
        return str(self._array)

    def __repr__(self):
        return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value=\n{self._array})"


def _is_dynamic(shape):
    return isinstance(shape, (tuple, list)) and any(d is None or d == -1 for d in shape)


def _from_spec(tensor, dtype, shape, init):
    """The array of ``Tensor(shape=..., dtype=..., init=...)``; a dynamic shape (``tensor`` is a
    DynamicShapeTensor then, see ``Tensor.__new__``) has none."""
    if shape is None or dtype is None:
        if init is not None:
            raise ValueError("Tensor: init, dtype and shape must have values at the same time, got "
                             f"init={init!r}, dtype={dtype!r}, shape={shape!r}")
        raise TypeError("Tensor: input_data must be an array, a sequence or a scalar, got None "
                        "(or give shape and dtype)")
    dt = D.as_dtype(dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if _is_dynamic(shape):
        if init is not None or type(tensor) is not DynamicShapeTensor:
            raise ValueError(f"Tensor: init (and a Tensor subclass) needs a static shape, got shape {shape}")
        tensor._spec = (tuple(-1 if d is None else int(d) for d in shape), dt)
        return None
    if init is None:
        return np.zeros(shape, dt.np)
    from .initializer import initializer   # (initializer builds on Tensor)
    tensor._init = init
    return initializer(init, shape, dt)._array


class DynamicShapeTensor(Tensor):
    """``Tensor(shape=[None, 3], dtype=...)``: a dynamic-shape input declaration for
    ``Cell.set_inputs``; shape (-1 for dynamic dimensions) and dtype, no values."""

    __slots__ = ("_spec",)

    @property
    def _array(self):
        raise ValueError(f"Tensor(shape={list(self.shape)}, dtype={self.dtype}) declares a dynamic shape "
                         f"(for Cell.set_inputs) and has no values: it cannot be used as an op operand "
                         f"or converted to numpy")

    @property
    def shape(self):
        return self._spec[0]

    @property
    def dtype(self):
        return self._spec[1]

    def __repr__(self):
        return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value=\n)"

    def __reduce_ex__(self, protocol):
        return Tensor, (None, self.dtype, self.shape)

    def __copy__(self):
        return self     # (immutable: a declaration)

    def __deepcopy__(self, memo):
        return self

    __str__ = __repr__
