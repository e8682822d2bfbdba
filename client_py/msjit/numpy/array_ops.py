"""Array manipulation of ``mindspore.numpy``: numpy's argument names over ``msjit.ops``."""
from .. import ops
from ..ops import operands

__all__ = ["reshape", "transpose", "expand_dims", "squeeze", "concatenate", "stack", "hstack", "vstack",
           "split", "array_split", "tile", "repeat", "broadcast_to", "ravel", "flip", "fliplr", "flipud", "roll",
           "swapaxes", "moveaxis", "diag", "diagonal", "tril", "triu", "size", "ndim", "shape"]


def reshape(x, new_shape):
    return ops.reshape(x, new_shape)


def transpose(a, axes=None):
    """Permute axes (None: reverse them)."""
    x = operands.operand("Transpose", a)
    return ops.transpose(x, tuple(reversed(range(x.ndim))) if axes is None else axes)


def expand_dims(a, axis):
    """Insert size-1 axes at ``axis`` (an int or a tuple of positions in the result)."""
    x = operands.operand("ExpandDims", a)
    if isinstance(axis, (int,)) or not hasattr(axis, "__len__"):
        return ops.expand_dims(x, axis)
    ndim = x.ndim + len(axis)
    axes = operands.normalize_axes("ExpandDims", axis, ndim)
    dims = iter(x.shape)
    return ops.reshape(x, tuple(1 if i in axes else next(dims) for i in range(ndim)))


def squeeze(a, axis=None):
    return ops.squeeze(a, axis)


def concatenate(arrays, axis=0):
    """Join along ``axis`` (None: the flattened arrays)."""
    if axis is None:
        return ops.concat([ops.reshape(t, (-1,)) for t in arrays], 0)
    return ops.concat(list(arrays), axis)


def stack(arrays, axis=0):
    return ops.stack(list(arrays), axis)


def hstack(tup):
    return ops.hstack(list(tup))


def vstack(tup):
    return ops.vstack(list(tup))


def split(x, indices_or_sections, axis=0):
    """numpy split: ``n`` equal sections (ValueError when the axis does not divide) or cuts at
    the given indices."""
    t = operands.operand("Split", x)
    if isinstance(indices_or_sections, int):
        n = t.shape[operands.normalize_axes("Split", axis, t.ndim)[0]]
        if indices_or_sections <= 0 or n % indices_or_sections:
            raise ValueError(f"split: an axis of size {n} does not divide into {indices_or_sections} equal sections")
    return ops.tensor_split(t, indices_or_sections, axis)


def array_split(x, indices_or_sections, axis=0):
    return ops.tensor_split(x, indices_or_sections, axis)


def tile(a, reps):
    return ops.tile(a, (reps,) if isinstance(reps, int) else reps)


def repeat(a, repeats, axis=None):
    return ops.repeat_interleave(a, repeats, axis)


def broadcast_to(array, shape):
    return ops.broadcast_to(array, shape)


def ravel(x):
    return ops.reshape(x, (-1,))


def flip(m, axis=None):
    """Reverse along ``axis`` (None: every axis)."""
    x = operands.operand("Flip", m)
    dims = tuple(range(x.ndim)) if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
    return ops.flip(x, dims)


def fliplr(m):
    return ops.fliplr(m)


def flipud(m):
    return ops.flipud(m)


def roll(a, shift, axis=None):
    return ops.roll(a, shift, axis)


def swapaxes(x, axis1, axis2):
    return ops.swapaxes(x, axis1, axis2)


def moveaxis(a, source, destination):
    return ops.moveaxis(a, source, destination)


def diag(v, k=0):
    """A 1-D ``v`` on the diagonal of a matrix, or the diagonal of a 2-D ``v`` (``k`` = 0)."""
    x = operands.operand("Diag", v)
    if k:
        raise ValueError("diag: only k=0 is supported")
    return ops.diag(x) if x.ndim == 1 else ops.diagonal(x)


def diagonal(a, offset=0, axis1=0, axis2=1):
    return ops.diagonal(a, offset, axis1, axis2)


def tril(m, k=0):
    return ops.tril(m, k)


def triu(m, k=0):
    return ops.triu(m, k)


def size(a, axis=None):
    x = operands.operand("Size", a)
    return x.size if axis is None else x.shape[axis]


def ndim(a):
    return operands.operand("Rank", a).ndim


def shape(a):
    return operands.operand("Shape", a).shape
