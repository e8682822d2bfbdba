"""Typed errors. Each says what went wrong, where (the user's file:line when known), and what to do."""


class MsjitError(Exception):
    """Base class of every error msjit raises on purpose."""


class UnsupportedSyntaxError(MsjitError, SyntaxError):
    """A construct in a jitted function that capture cannot turn into graph.

    It is a SyntaxError because it is the same kind of failure as Python's own: the compiler
    cannot compile this source. Being one, tracebacks and IDEs show the offending file, line
    and source text like any syntax error. The message starts with ``"<file>:<line>: "``.
    """

    def __init__(self, file, line, what, text=None):
        msg = f"{file}:{line}: {what} is not supported in a jit-compiled function"
        super().__init__(msg, (file, line, 1, text, line, None))
        self.construct = what

    def __str__(self):  # SyntaxError would append " (file, line N)" again
        return self.msg


class ConcreteValueNeeded(UnsupportedSyntaxError):
    """Python needs the value of a tensor under capture (``if x.sum() > 0``, ``float(x)``, a call
    of numpy on it). ast and trace refuse the construct; bytecode breaks the graph there."""


class CompileError(MsjitError):
    """The daemon rejected the graph (INVALID_ARGUMENT); the message names the node and its location."""

    def __init__(self, message, node=None, location=None):
        super().__init__(message)
        self.node = node
        self.location = location


class DaemonError(MsjitError):
    """A call to msjitd failed for a reason other than a bad graph."""


class DaemonUnavailableError(DaemonError):
    """No msjitd answers at the configured address and none could be started."""


class ArtifactNotFoundError(DaemonError):
    """The daemon asked has no artifact for the key (e.g. another daemon of the list compiled it)."""


class RuntimeUnavailableError(MsjitError, ImportError):
    """The in-process runtime extension ``msjit._msjit_rt`` is not built or cannot be imported."""


class JitFallbackWarning(UserWarning):
    """A jitted function could not be captured and runs eagerly (JIT Fallback, fullgraph=False)."""
