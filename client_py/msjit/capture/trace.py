"""capture_mode="trace": run the function once with Tracer arguments and record what happens.

Python control flow is frozen at the values seen while tracing; a tensor used as a Python
value (``if x:``, ``float(x)``, ``np.asarray(x)``) raises UnsupportedSyntaxError at that line.
Node locations come from the innermost stack frame outside the msjit package.
"""
import os
import sys

from .graph import GraphBuilder

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class _TraceBuilder(GraphBuilder):
    def current_location(self):
        frame = sys._getframe(1)
        # abspath: the package may be imported through a path such as "tests/../client_py".
        while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
            frame = frame.f_back
        return None if frame is None else (frame.f_code.co_filename, frame.f_lineno)


def capture_trace(fn, args, kwargs=None, fold_parameters=False):
    """Capture ``fn(*args, **kwargs)`` by running it on tracers. Returns Captured."""
    builder = _TraceBuilder(getattr(fn, "__qualname__", type(fn).__name__), fold_parameters)
    return builder.finish(builder.run(fn, *builder.bind_args(args), **(kwargs or {})))
