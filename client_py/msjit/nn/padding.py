"""Padding and resizing Cells: ConstantPad1d/2d/3d, ZeroPad2d, ReflectionPad1d/2d/3d,
ReplicationPad1d/2d/3d (``ops.pad`` over the trailing 1, 2 or 3 axes) and Upsample
(``ops.interpolate``)."""
from .. import ops
from .cell import Cell

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad2d", "ReflectionPad1d", "ReflectionPad2d",
           "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "Upsample"]


class _PadNd(Cell):
    """``padding``: an int (every side of the trailing ``_dims`` axes) or (before, after) pairs
    from the last axis backwards, as ``ops.pad``."""

    _dims, _mode = 1, "constant"

    def __init__(self, padding, value=None):
        super().__init__()
        name = type(self).__name__
        if isinstance(padding, int) and not isinstance(padding, bool):
            padding = (padding,) * (2 * self._dims)
        if not isinstance(padding, (tuple, list)) or len(padding) % 2 or len(padding) > 2 * self._dims or any(
                not isinstance(p, int) for p in padding):
            raise ValueError(f"{name}: padding must be an int or a tuple of at most {2 * self._dims} ints, "
                             f"got {padding!r}")
        self.padding, self.value = tuple(padding), value

    def construct(self, x):
        return ops.pad(x, self.padding, self._mode, self.value)


def _pad_cell(name, dims, mode, with_value):
    def __init__(self, padding, *value):
        if with_value != bool(value):
            raise TypeError(f"{name}: takes (padding{', value' if with_value else ''})")
        _PadNd.__init__(self, padding, value[0] if value else (0.0 if mode == "constant" else None))
    return type(name, (_PadNd,), {"__init__": __init__, "_dims": dims, "_mode": mode, "__module__": __name__,
                                  "__doc__": f"``{name}(padding{', value' if with_value else ''})``: {mode} padding "
                                             f"of the trailing {dims} axes."})


for _name, _dims, _mode, _value in (
        ("ConstantPad1d", 1, "constant", True), ("ConstantPad2d", 2, "constant", True),
        ("ConstantPad3d", 3, "constant", True), ("ZeroPad2d", 2, "constant", False),
        ("ReflectionPad1d", 1, "reflect", False), ("ReflectionPad2d", 2, "reflect", False),
        ("ReflectionPad3d", 3, "reflect", False), ("ReplicationPad1d", 1, "replicate", False),
        ("ReplicationPad2d", 2, "replicate", False), ("ReplicationPad3d", 3, "replicate", False)):
    globals()[_name] = _pad_cell(_name, _dims, _mode, _value)


class Upsample(Cell):
    """``Upsample(size=None, scale_factor=None, mode="nearest", align_corners=None,
    recompute_scale_factor=None)``: ``ops.interpolate`` with these options."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def construct(self, x):
        return ops.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                               self.recompute_scale_factor)
