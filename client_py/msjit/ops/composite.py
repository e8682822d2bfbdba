"""``mindspore.ops.composite``: functions over Python structures of tensors.

``MultitypeFuncGraph`` dispatches on the MindSpore type names of its arguments ("Tensor",
"Number", "Tuple", ...); ``HyperMap`` / ``Map`` apply a function leaf-wise over (nested) tuples
and lists. Both are called directly by capture (``_msjit_records``): they only walk Python
structure, so the functions they dispatch to run on tracers exactly as they run on Tensors.
"""

from ..autodiff import GradOperation, grad, value_and_grad
from ..core import Tracer
from ..parameter import Parameter
from ..tensor import Tensor
from .array_ops import ones_like, zeros_like

__all__ = ["MultitypeFuncGraph", "HyperMap", "Map", "GradOperation", "grad", "value_and_grad", "zeros_like",
           "ones_like", "depend", "get_grad"]


def depend(value, expr):
    """``ops.depend(value, expr)``: ``value``. In MindSpore it orders ``expr`` (a side effect)
    before ``value``'s users; msjit runs a graph's side effects (Parameter updates) in program
    order already, so there is nothing to record."""
    return value


depend._msjit_records = True


def get_grad(gradients, identifier):
    """``ops.get_grad(gradients, identifier)``: the gradient paired with ``identifier`` (an input
    position or a Parameter) in the result of ``grad(..., return_ids=True)``, whose pairs are
    ``(position, gradient)`` and ``(parameter name, gradient)``, alone or in nested tuples."""
    if isinstance(identifier, Parameter):
        key = identifier.name
    elif isinstance(identifier, int):
        key = int(identifier)   # (a bool too, as MindSpore: True is position 1)
    else:
        raise TypeError(f"For `get_grad`, the `x` should be an integer or a Parameter, but got {identifier}")
    found = _find_grad(gradients, key)
    if found is None:
        raise RuntimeError(f"Can not find the gradient for position or Parameter {key!r}")
    return found


def _find_grad(tree, key):
    if not isinstance(tree, (tuple, list)):
        return None
    if len(tree) == 2 and isinstance(tree[1], (Tensor, Tracer)) and isinstance(tree[0], (int, str)):
        return tree[1] if type(tree[0]) is type(key) and tree[0] == key else None
    return next((g for g in (_find_grad(t, key) for t in tree) if g is not None), None)


get_grad._msjit_records = True


def _type_names(value):
    """The MindSpore type names ``value`` matches, most specific first."""
    if isinstance(value, (Tensor, Tracer)):
        return ("Tensor",)
    if isinstance(value, bool):
        return ("Bool", "Number")
    if isinstance(value, int):
        return ("Int", "Number")
    if isinstance(value, float):
        return ("Float", "Number")
    names = {tuple: ("Tuple",), list: ("List",), dict: ("Dictionary", "Dict"), str: ("String",),
             type(None): ("None", "NoneType")}
    for kind, found in names.items():
        if isinstance(value, kind):
            return found
    return ("Function",) if callable(value) else (type(value).__name__,)


def _type_name(t):
    """A registration signature entry: a name, or a type object whose repr is MindSpore-like."""
    return t if isinstance(t, str) else {"tensor": "Tensor", "tuple_": "Tuple", "list_": "List",
                                         "number": "Number"}.get(getattr(t, "name", str(t)), str(t))


class MultitypeFuncGraph:
    """``MultitypeFuncGraph(name)``: one name, several implementations chosen by argument types.

    ``@f.register("Tensor", "Number")`` adds one; a call picks the registration every argument
    matches, preferring the most specific ("Int" before "Number"), then the first registered.
    """

    _msjit_records = True

    def __init__(self, name, read_value=False, doc_url=""):
        self.name, self.entries = name, []

    def register(self, *type_names):
        signature = tuple(_type_name(t) for t in type_names)

        def deco(fn):
            self.entries.append((signature, fn))
            return fn
        return deco

    def __call__(self, *args):
        best, best_score = None, None
        kinds = [_type_names(a) for a in args]
        for signature, fn in self.entries:
            if len(signature) != len(args) or not all(s in k for s, k in zip(signature, kinds)):
                continue
            score = sum(k.index(s) for s, k in zip(signature, kinds))
            if best_score is None or score < best_score:
                best, best_score = fn, score
        if best is None:
            got = ", ".join(k[0] for k in kinds)
            have = "; ".join(f"({', '.join(s)})" for s, _ in self.entries) or "none"
            raise ValueError(f"MultitypeFuncGraph {self.name!r}: no registration matches the argument "
                             f"types ({got}); registered: {have}")
        return best(*args)

    def __repr__(self):
        return f"MultitypeFuncGraph({self.name!r}, {len(self.entries)} registrations)"


class HyperMap:
    """``HyperMap(ops=None, reverse=False)``: ``HyperMap(f)(xs, ys)`` is ``f`` applied to the
    corresponding leaves of the (nested) tuples or lists ``xs``, ``ys``, in their structure;
    without ``ops`` at construction, the function is the call's first argument."""

    _msjit_records = True

    def __init__(self, ops=None, reverse=False):
        self.ops, self.reverse = ops, reverse

    def __call__(self, *args):
        fn = self.ops
        if fn is None:
            if not args:
                raise TypeError("HyperMap: the function to apply is missing (HyperMap()(fn, *sequences))")
            fn, args = args[0], args[1:]
        if not args:
            raise TypeError("HyperMap: no sequence to map over")
        return self._map(fn, args)

    def _map(self, fn, args):
        seqs = [a for a in args if isinstance(a, (tuple, list))]
        if not seqs:
            return fn(*args)
        if len(seqs) != len(args) or len({len(a) for a in args}) != 1:
            got = ", ".join(f"{type(a).__name__}" + (f"[{len(a)}]" if isinstance(a, (tuple, list)) else "")
                            for a in args)
            raise ValueError(f"HyperMap: the arguments must all be tuples or lists of one length, got ({got})")
        indices = range(len(seqs[0]))
        order = reversed(indices) if self.reverse else indices
        out = {i: self._map(fn, [a[i] for a in args]) for i in order}
        return type(seqs[0])(out[i] for i in indices)


class Map(HyperMap):
    """``Map(ops=None, reverse=False)``: like HyperMap one level deep (the elements of the
    sequences are passed to the function as they are)."""

    def _map(self, fn, args):
        if not all(isinstance(a, (tuple, list)) for a in args) or len({len(a) for a in args}) != 1:
            raise ValueError("Map: the arguments must all be tuples or lists of one length")
        indices = range(len(args[0]))
        order = reversed(indices) if self.reverse else indices
        out = {i: fn(*[a[i] for a in args]) for i in order}
        return type(args[0])(out[i] for i in indices)
