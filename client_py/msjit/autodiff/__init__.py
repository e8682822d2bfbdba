"""Reverse-mode automatic differentiation: ``grad``, ``value_and_grad``, ``GradOperation``.

``api``: the public functions and where a call runs; ``body``: a gradient under capture (a
Grad node that msjitd differentiates); ``weights``: ParameterTuple; ``tape`` and ``rules``: PyNative gradients.
"""
from .api import GradOperation, grad, value_and_grad
from .weights import ParameterTuple

__all__ = ["grad", "value_and_grad", "GradOperation", "ParameterTuple"]
