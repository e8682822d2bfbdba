"""Guards: what a captured graph assumed about Python state, checked before each cached call.

A capture reads Python state (globals, closure cells, attributes, items of lists, tuples and dicts)
and bakes what it read into the graph, as constants or as the graph's structure (a length, a
truthiness, a key membership, an iteration). Each such read records one guard ``(view, key,
expected)``: ``view.get(key)`` must still give ``expected`` (Python constants by type and value,
anything else by identity). A changed value means: capture again (see jit.py).

Contents are guarded only for containers reached from outside the call (a global, a closure cell,
an attribute, or an item of such a container): those are *tracked*, with a label naming the path
they were read through (``global 'CONFIG'['a']``), so a failed guard names the changed item.
Containers passed as arguments are part of the call's guard key by value; containers built during
the call cannot change behind the graph's back. Guards are checked in read order, so an item guard
is only ever reached while the path to its container still holds.

All guards of a graph compile into one generated function (``compile_check``): a cached call pays
for one Python call and one comparison per guard.
"""
import types

from ..mixin import TensorMixin
from ..core import Tracer
from .callables import in_collection, is_library

UNSET = object()    # a name, attribute or key that is not there
_CONTAINERS = (list, tuple, dict, set, frozenset)
_OPAQUE = (TensorMixin, types.FunctionType, types.BuiltinFunctionType, types.MethodType)
# Callables that look at an object itself, never at its contents.
_IDENTITY_ONLY = frozenset({isinstance, issubclass, type, id, callable, hash})


def is_guardable(value):
    """Python constants a graph can depend on by value: numbers, strings, None and tuples of them."""
    if isinstance(value, tuple):
        return all(is_guardable(v) for v in value)
    return value is None or type(value) in (bool, int, float, complex, str)


def same(now, value):
    """Python constants compare by type and value (recursively in tuples); anything else by identity."""
    if now is value:
        return True
    if isinstance(value, tuple) and is_guardable(value):
        return (type(now) is type(value) and len(now) == len(value)
                and all(same(a, b) for a, b in zip(now, value)))
    return is_guardable(value) and type(now) is type(value) and now == value


# -- views: where a guarded value is read from. ``code`` is the same read as Python source, for
# the generated check (``h`` is the view's target, ``k`` the key, ``U`` stands for UNSET). -------

class GlobalsView:
    kind = "global"
    __slots__ = ("target",)

    def __init__(self, namespace):
        self.target = namespace

    def get(self, name):
        return self.target.get(name, UNSET)

    def code(self, h, k):
        return f"{h}.get({k}, U)"

    def describe(self, name):
        return f"global {name!r}"


class CellView:
    """A closure cell seen as a namespace holding one name."""
    kind = "closure variable"
    __slots__ = ("target",)

    def __init__(self, cell):
        self.target = cell

    def get(self, name):
        try:
            return self.target.cell_contents
        except ValueError:
            return UNSET

    def code(self, h, k):
        return f"{h}.cell_contents"      # (an emptied cell raises: the check fails, get() explains)

    def describe(self, name):
        return f"closure variable {name!r}"


class AttributeView:
    """An object's attributes seen as a namespace; ``label`` names the object, when tracked."""
    kind = "attribute"
    __slots__ = ("target", "label")

    def __init__(self, obj, label=None):
        self.target, self.label = obj, label

    def get(self, name):
        return getattr(self.target, name, UNSET)

    def code(self, h, k):
        return f"getattr({h}, {k}, U)"

    def describe(self, name):
        if self.label:
            return f"{self.label}.{name}"
        if isinstance(self.target, (types.ModuleType, type)):
            return f"attribute {self.target.__name__}.{name}"
        return f"attribute {name!r}"


class ItemView:
    """``container[key]`` of a tracked list, tuple or dict (a missing dict key reads as UNSET)."""
    kind = "item of"
    __slots__ = ("target", "label")

    def __init__(self, container, label):
        self.target, self.label = container, label

    def get(self, key):
        try:
            return self.target[key] if not isinstance(self.target, dict) else self.target.get(key, UNSET)
        except (IndexError, TypeError):
            return UNSET

    def code(self, h, k):
        return f"{h}.get({k}, U)" if isinstance(self.target, dict) else f"{h}[{k}]"

    def describe(self, key):
        return f"{self.label}[{key!r}]"


class _WholeView:
    """A property of a whole tracked container (the key is unused: None)."""
    __slots__ = ("target", "label")
    template = ""

    def __init__(self, container, label):
        self.target, self.label = container, label

    def code(self, h, k):
        return self.template.format(h=h, k=k)


class LenView(_WholeView):
    kind = "length of"
    template = "len({h})"

    def get(self, key):
        return len(self.target)

    def describe(self, key):
        return f"len({self.label})"


class TruthView(_WholeView):
    kind = "truth of"
    template = "bool({h})"

    def get(self, key):
        return bool(self.target)

    def describe(self, key):
        return f"bool({self.label})"


class KeysView(_WholeView):
    """The keys of a dict (or a set's items), in order: compared by value."""
    kind = "keys of"
    template = "tuple({h})"

    def get(self, key):
        return tuple(self.target)

    def describe(self, key):
        return f"{self.label} keys"


class ContainsView(_WholeView):
    kind = "membership in"
    template = "({k} in {h})"

    def get(self, key):
        return key in self.target

    def describe(self, key):
        return f"{key!r} in {self.label}"


# -- recording ---------------------------------------------------------------------------------

class Guards:
    """The guards one capture records (shared by the builders of its regions and Grad bodies),
    and the tracked containers and objects with their labels."""

    def __init__(self):
        self._guards = {}       # (id(target), view type, key) -> (view, key, expected)
        self._tracked = {}      # id(value) -> (value, label); holding value keeps its id unique

    def values(self):
        return self._guards.values()

    def follow(self, previous):
        """Go on tracking what ``previous`` (the guards of the graph piece before a graph break)
        tracked, so this piece guards its reads of those containers too."""
        self._tracked.update(previous._tracked)

    def __bool__(self):
        return bool(self._guards)

    def label(self, value):
        entry = self._tracked.get(id(value))
        return entry[1] if entry is not None else None

    def _add(self, view, key, expected):
        try:
            ident = (id(view.target), type(view), key)
            hash(ident)
        except TypeError:       # (an unhashable key of an 'in' test)
            ident = (id(view.target), type(view), id(key))
        self._guards.setdefault(ident, (view, key, expected))

    def _track(self, value, label):
        """Remember a container or object read from outside the call, so reads of its contents
        are guarded too (constants need nothing more: they are immutable)."""
        if not is_guardable(value) and not isinstance(value, _OPAQUE + (type, types.ModuleType)) \
                and type(value) is not Tracer:
            self._tracked.setdefault(id(value), (value, label))

    def _guard(self, view, key, value):
        if type(value) is Tracer:
            return
        self._add(view, key, value)
        self._track(value, view.describe(key))

    # reads by name --------------------------------------------------------------------------
    def read_global(self, namespace, name, value):
        if not isinstance(value, types.ModuleType):
            self._guard(GlobalsView(namespace), name, value)

    def read_closure(self, cell, name, value):
        self._guard(CellView(cell), name, value)

    def read_attr(self, obj, name, value):
        """``obj.name``. Attributes of modules and classes are guarded when they hold constants or
        containers; of other objects (Cells too: a jitted bound method does not key on the Cell)
        unless callable (bound methods are new objects each time)."""
        if isinstance(obj, (TensorMixin, types.FunctionType)) or is_guardable(obj) or type(value) is Tracer \
                or type(obj) in _CONTAINERS + (str,):
            return
        if isinstance(obj, (types.ModuleType, type)):
            if is_guardable(value) or isinstance(value, _CONTAINERS):
                self._guard(AttributeView(obj), name, value)
        elif not callable(value):
            self._guard(AttributeView(obj, self.label(obj)), name, value)

    # reads of a tracked container's contents --------------------------------------------------
    def read_item(self, container, key, value):
        """``container[key]`` gave ``value`` (a slice: each item it covers, and the length)."""
        label = self.label(container)
        if label is None or not isinstance(container, (list, tuple, dict)):
            return
        if isinstance(key, slice):
            self._add(LenView(container, label), None, len(container))
            for i in range(*key.indices(len(container))):
                self._guard(ItemView(container, label), i, container[i])
        else:
            self._guard(ItemView(container, label), key, value)

    def read_get(self, container, key):
        """``dict.get(key)``: the item, or its absence."""
        label = self.label(container)
        if label is not None and isinstance(container, dict):
            self._guard(ItemView(container, label), key, container.get(key, UNSET))

    def read_len(self, container):
        label = self.label(container)
        if label is not None and isinstance(container, _CONTAINERS):
            self._add(LenView(container, label), None, len(container))

    def read_truth(self, value):
        """``value`` is tested for truth (returned, for use in an expression)."""
        label = self.label(value)
        if label is not None and isinstance(value, _CONTAINERS):
            self._add(TruthView(value, label), None, bool(value))
        return value

    def read_contains(self, container, item, result):
        label = self.label(container)
        if label is not None and isinstance(container, _CONTAINERS):
            self._add(ContainsView(container, label), item, bool(result))

    def read_compare(self, kind, left, right, result):
        """``left <kind> right`` gave ``result`` (kind: the ast class name, In, NotIn, Is, Eq...):
        'in' looks at membership, 'is' at identity only, any other comparison at whole values."""
        if kind in ("In", "NotIn"):
            self.read_contains(right, left, bool(result) == (kind == "In"))
        elif kind not in ("Is", "IsNot"):
            self.read_args((left, right))
        return result

    def read_iter(self, value):
        """Iterating (or unpacking) ``value``: a sequence's length and items, a dict's or set's
        keys. Returns ``value``."""
        label = self.label(value)
        if label is None or not isinstance(value, _CONTAINERS):
            return value
        if isinstance(value, (list, tuple)):
            self._add(LenView(value, label), None, len(value))
            view = ItemView(value, label)
            for i, item in enumerate(value):
                self._guard(view, i, item)
        else:
            self._add(KeysView(value, label), None, tuple(value))
        return value

    def read_whole(self, value, _seen=None):
        """Code that may look at all of ``value`` (a builtin, a library function, ``==``):
        every item of it, through nested tracked containers. Returns ``value``."""
        label = self.label(value)
        seen = _seen if _seen is not None else set()
        if label is None or not isinstance(value, _CONTAINERS) or id(value) in seen:
            return value
        seen.add(id(value))
        self.read_iter(value)
        items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
        if isinstance(value, dict):
            view = ItemView(value, label)
            for k, item in value.items():
                self._guard(view, k, item)
        for item in items:
            self.read_whole(item, seen)
        return value

    def read_args(self, args, kwargs=None):
        """Arguments handed to code capture does not interpret: it may read all of them."""
        for a in args:
            if id(a) in self._tracked:
                self.read_whole(a)
        for a in (kwargs or {}).values():
            if id(a) in self._tracked:
                self.read_whole(a)

    def read_call(self, func, args, kwargs):
        """``func(*args, **kwargs)`` met by capture. User functions, jitted functions and Cells are
        interpreted (their own reads are guarded); anything else (a builtin, a container method,
        msjit, numpy) runs as Python and may read all of its arguments."""
        target = getattr(func, "__func__", func)
        if in_collection(func, _IDENTITY_ONLY) or hasattr(func, "_msjit_source_fn") \
                or getattr(func, "_msjit_inline", None) is not None \
                or isinstance(target, types.FunctionType) and not is_library(func):
            return
        owner = getattr(func, "__self__", None)
        if owner is not None and id(owner) in self._tracked and isinstance(owner, _CONTAINERS):
            name = getattr(func, "__name__", "")
            if name == "get" and isinstance(owner, dict) and args:
                self.read_get(owner, args[0])
            elif name == "keys":
                self.read_iter(owner)
            elif name in ("__len__",):
                self.read_len(owner)
            else:
                self.read_whole(owner)
        elif func is len and len(args) == 1:
            self.read_len(args[0])
            return
        elif func in (getattr, hasattr) and len(args) >= 2 and isinstance(args[1], str):
            self.read_attr(args[0], args[1], getattr(args[0], args[1], UNSET))
            return
        self.read_args(args, kwargs)


# -- checking ----------------------------------------------------------------------------------

def compile_check(guards):
    """One generated function ``check() -> bool``: True while every guard holds."""
    env, conditions = {"U": UNSET, "same": same}, []
    for i, (view, key, expected) in enumerate(guards):
        h, k, e = f"h{i}", f"k{i}", f"e{i}"
        env[h], env[k], env[e] = view.target, key, expected
        fetch = view.code(h, k)
        if isinstance(view, KeysView):
            conditions.append(f"{fetch} == {e}")
        elif type(expected) in (bool, int, float, complex, str):
            env[f"t{i}"] = type(expected)
            conditions.append(f"((v := {fetch}) is {e} or (type(v) is t{i} and v == {e}))")
        elif is_guardable(expected) and expected is not None:
            conditions.append(f"same({fetch}, {e})")
        else:
            conditions.append(f"{fetch} is {e}")
    body = " and\n            ".join(conditions) or "True"
    source = f"def check():\n    try:\n        return ({body})\n    except Exception:\n        return False\n"
    exec(compile(source, "<msjit guards>", "exec"), env)
    return env["check"]


def what_changed(guards):
    """The first guard that no longer holds, described (``global 'FACTORS'[0] changed: 2.0 -> 3.0``)."""
    for view, key, expected in guards:
        try:
            now = view.get(key)
        except Exception as e:    # (the path to it changed shape)
            return f"{view.describe(key)} cannot be read: {type(e).__name__}: {e}"
        if not (now == expected if isinstance(view, KeysView) else same(now, expected)):
            return f"{view.describe(key)} changed: {_text(expected)} -> {_text(now)}"
    return None


def _text(value):
    return "<missing>" if value is UNSET else repr(value)
