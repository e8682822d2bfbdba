"""MindSpore's math functions (elementwise, reductions, comparisons, cumulative, linear algebra)
written as decompositions over the core primitives and the basic ops of ``functional``."""
from .. import dtype as D  # noqa: F401
from ..core import bind  # noqa: F401
from . import prims as P  # noqa: F401

__all__ = []

# Tensor methods that are these functions with the tensor first: {method name: function}.
TENSOR_METHODS = {}
