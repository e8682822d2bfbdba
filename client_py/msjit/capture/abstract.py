"""Abstract values: what capture and the shape/dtype rules know about a tensor."""
from typing import NamedTuple

from ..dtype import DType, from_numpy


class ShapedArray(NamedTuple):
    shape: tuple
    dtype: DType

    @property
    def ndim(self):
        return len(self.shape)

    @staticmethod
    def of(array):
        """The abstract value of a concrete numpy array."""
        return ShapedArray(array.shape, from_numpy(array.dtype))

    def __str__(self):  # f32[2,3]
        return f"{self.dtype.name}[{','.join(map(str, self.shape))}]"
