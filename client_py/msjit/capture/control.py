"""Control flow for the ast interpreter (capture.ast): loop signals, and merging the two branches
of a condition on a tensor.

Loops run at capture (unrolled), so they need nothing beyond the ``BREAK``/``CONTINUE`` signals a
block returns. A condition on a one-element tensor cannot pick a branch at capture: both branches
are interpreted, each from the same starting variables, and every variable whose value differs
afterwards is merged with ``ops.where(predicate, then_value, else_value)``. That is only the eager
answer when running the untaken branch changes nothing, so while a branch is captured
``Branches`` refuses side effects: Parameter writes (``builder.assign``), and in-place changes of
Python containers that existed before the branch.
"""
import math

from .. import dtype as D
from .. import ops
from ..errors import UnsupportedSyntaxError
from ..mixin import TensorMixin

MAX_UNROLL = 10_000     # iterations of one loop at capture, beyond which capture gives up


class _Signal:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


BREAK, CONTINUE = _Signal("break"), _Signal("continue")

# Methods that change a Python container in place.
MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update",
                      "setdefault", "popitem", "add", "discard", "difference_update",
                      "intersection_update", "symmetric_difference_update", "__setitem__", "__delitem__",
                      "__iadd__", "__imul__", "__ior__"})


class OneBranch:
    """The value of a variable assigned in only one branch of a condition on a tensor: an error
    when read (which branch ran is only known when the graph runs)."""

    __slots__ = ("name", "file", "line", "text")

    def __init__(self, name, file, line, text):
        self.name, self.file, self.line, self.text = name, file, line, text

    def error(self, used_line):
        return UnsupportedSyntaxError(
            self.file, self.line, f"a condition on a tensor value that assigns variable {self.name!r} in only "
            f"one branch (it is used after the 'if', at line {used_line}; assign it in both branches)",
            self.text)


def predicate(value):
    """A one-element tensor as the 0-d bool predicate of a condition (Python truthiness:
    non-zero is true). ValueError, as eagerly, for any other element count."""
    size = math.prod(value.shape)
    if size != 1:
        raise ValueError(f"the truth value of a tensor with {size} elements is ambiguous (a condition on "
                         "a tensor needs exactly one element)")
    if value.dtype is not D.bool_:
        value = ops.not_equal(value, 0)
    return ops.reshape(value, ()) if value.shape != () else value


def _is_number(v):
    return isinstance(v, (bool, int, float)) and not isinstance(v, type)


def _kind(v):
    if isinstance(v, TensorMixin):
        return f"{v.dtype.name}[{','.join(map(str, v.shape))}] tensor"
    return type(v).__name__


def merge_values(cond, then_value, else_value, what, fail):
    """``then_value if cond else else_value`` for a 0-d bool tensor ``cond``: tensors and numbers
    through ops.where, tuples/lists/dicts element by element, equal constants as they are.
    ``fail(message)`` makes the exception for values that cannot be merged."""
    tv, ev = then_value, else_value
    if tv is ev:
        return tv
    if type(tv) in (tuple, list) and type(tv) is type(ev):
        if len(tv) != len(ev):
            raise fail(f"{what} has {len(tv)} elements in one branch and {len(ev)} in the other")
        return type(tv)(merge_values(cond, a, b, f"{what}[{i}]", fail) for i, (a, b) in enumerate(zip(tv, ev)))
    if type(tv) is dict and type(ev) is dict:
        if list(tv) != list(ev):
            raise fail(f"{what} has keys {list(tv)} in one branch and {list(ev)} in the other")
        return {k: merge_values(cond, tv[k], ev[k], f"{what}[{k!r}]", fail) for k in tv}
    t_tensor, e_tensor = isinstance(tv, TensorMixin), isinstance(ev, TensorMixin)
    if (t_tensor or _is_number(tv)) and (e_tensor or _is_number(ev)):
        if not (t_tensor or e_tensor) and type(tv) is type(ev) and tv == ev:
            return tv
        if t_tensor and e_tensor and (tuple(tv.shape), tv.dtype) != (tuple(ev.shape), ev.dtype):
            raise fail(f"{what} is a {_kind(tv)} in one branch and a {_kind(ev)} in the other")
        return ops.where(cond, tv, ev)
    try:
        same = type(tv) is type(ev) and bool(tv == ev)
    except Exception:   # noqa: BLE001  (objects whose == is not a plain bool)
        same = False
    if same:
        return tv
    raise fail(f"{what} is a {_kind(tv)} in one branch and a {_kind(ev)} in the other")


class Branches:
    """Context of a branch of a condition on a tensor (nested ones stack): Parameter writes raise,
    and so do in-place changes of containers not created inside the branch (``fresh``)."""

    def __init__(self, interpreter):
        self.interpreter = interpreter
        self.depth = 0
        self.fresh = []         # containers created inside a branch (kept alive: compared by id)
        self._fresh_ids = set()

    def __enter__(self):
        self.depth += 1
        if self.depth == 1:
            builder = self.interpreter.builder
            builder.assign = self._forbidden_assign   # instance attribute shadows the method
        return self

    def __exit__(self, *exc):
        self.depth -= 1
        if self.depth == 0:
            del self.interpreter.builder.assign
            self.fresh.clear()
            self._fresh_ids.clear()
        return False

    def _forbidden_assign(self, p, value):
        raise self.interpreter.unsupported_here(
            f"assigning Parameter {p.name!r} inside a branch of a condition on a tensor value (a side "
            "effect: jit captures both branches)")

    def created(self, value):
        """Note a container made inside a branch: changing it there is no side effect."""
        if self.depth and isinstance(value, (list, dict, set)):
            self.fresh.append(value)
            self._fresh_ids.add(id(value))
        return value

    def mutates(self, func):
        """Whether calling ``func`` now changes a container from outside the branch."""
        if not self.depth:
            return False
        owner = getattr(func, "__self__", None)
        return (isinstance(owner, (list, dict, set)) and getattr(func, "__name__", None) in MUTATORS
                and id(owner) not in self._fresh_ids)

    def mutates_inplace(self, value):
        return self.depth > 0 and isinstance(value, (list, dict, set)) and id(value) not in self._fresh_ids
