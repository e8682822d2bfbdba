"""How ``mindspore`` modules mirror msjit's: ``reexport(globals(), module, ...)``.

Copies each module's public names (its ``__all__``, else every name not starting with "_") into
the calling module and lets ``module.__getattr__`` find any name added to those modules later
(``ops.GradOperation`` is set on msjit.ops after import). Objects are shared, never copied or
wrapped, so a function is the very op function capture recognizes.
"""
import types


def public_names(module):
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    return list(names)


def reexport(namespace, *modules, extra=()):
    """Fill ``namespace`` (a module's globals) from ``modules`` (and the names ``extra`` of the
    first module, for names it has outside its ``__all__``); returns the names copied.

    Submodule objects are skipped: msjit's implementation modules (``ops.prims``) are not
    MindSpore names, and MindSpore's (``ops.functional``) are the mirror's own."""
    copied = []
    wanted = [(m, n) for m in modules for n in public_names(m)] + [(modules[0], n) for n in extra]
    for module, name in wanted:
        value = getattr(module, name)
        if isinstance(value, types.ModuleType) or name in copied:
            continue
        namespace.setdefault(name, value)
        copied.append(name)

    def __getattr__(name):   # (never a submodule: ``from . import x`` must import our own x)
        for module in modules:
            value = getattr(module, name, None) if not name.startswith("_") else None
            if value is not None and not isinstance(value, types.ModuleType):
                return value
        raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
    namespace["__getattr__"] = __getattr__
    return copied
