"""``ParameterTuple``: the tuple of Parameters a gradient is taken with respect to
(``grad(fn, weights=ParameterTuple(net.trainable_params()))``, optimizers' state)."""
from ..initializer import initializer
from ..parameter import Parameter


class ParameterTuple(tuple):
    """``mindspore.ParameterTuple(iterable of Parameters)``: a plain tuple, checked."""

    def __new__(cls, iterable):
        params = tuple(iterable)
        for p in params:
            if not isinstance(p, Parameter):
                raise TypeError("ParameterTuple: the input should be a collection of Parameters, got a "
                                f"{type(p).__name__}")
        return super().__new__(cls, params)

    def clone(self, prefix, init="same"):
        """New Parameters named ``prefix.name``, with each value copied ("same") or made by
        ``init`` (an initializer name, number or Initializer) in its shape and dtype."""
        if not isinstance(prefix, str) or not prefix:
            raise ValueError(f"ParameterTuple.clone: prefix must be a non-empty str, got {prefix!r}")
        clones = []
        for p in self:
            value = p._array.copy() if init == "same" else initializer(init, p.shape, p.dtype)
            clones.append(Parameter(value, f"{prefix}.{p.name}", p.requires_grad))
        return ParameterTuple(clones)
