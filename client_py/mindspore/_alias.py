"""Module aliases: ``mindspore.nn`` IS ``msjit.nn``, and so is every submodule below it.

An import of ``mindspore.nn.optim.adam`` imports ``msjit.nn.optim.adam`` and returns that very
module object (no second copy of its classes), so submodules msjit adds later are importable
under the MindSpore path with no change here. Installed once by ``mindspore/__init__.py``.
"""
import importlib
import importlib.abc
import importlib.util
import sys

ALIASES = {}     # "mindspore.nn" -> "msjit.nn"


class _Loader(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self.saved = module.__spec__, module.__loader__
        return module

    def exec_module(self, module):
        # Already executed under its msjit name; import set __spec__ / __loader__ to the alias's.
        module.__spec__, module.__loader__ = self.saved


class AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        for prefix, real in ALIASES.items():
            if fullname == prefix or fullname.startswith(prefix + "."):
                name = real + fullname[len(prefix):]
                try:
                    found = importlib.util.find_spec(name)
                except ModuleNotFoundError:
                    found = None
                if found is None:
                    return None
                return importlib.util.spec_from_loader(fullname, _Loader(name),
                                                       is_package=found.submodule_search_locations is not None)
        return None


def alias(name, real):
    """Make ``import name[.sub]`` give the module ``real[.sub]``."""
    ALIASES[name] = real
    if not any(isinstance(f, AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, AliasFinder())
