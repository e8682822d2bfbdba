"""``mindspore.common.parameter``: ``Parameter`` and ``ParameterTuple``."""
from msjit import Parameter, ParameterTuple

__all__ = ["Parameter", "ParameterTuple"]
