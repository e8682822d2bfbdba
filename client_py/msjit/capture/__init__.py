"""Capture: turn a Python function into a graph over abstract values.

Kept import-light on purpose (no submodule imports here): ``ops`` needs ``capture.graph.Tracer``
while ``capture.ast`` needs ``ops``, so the package must not pull its modules in eagerly.

- ``abstract``: ShapedArray, the abstract value (shape, dtype) every rule works on.
- ``graph``: Tracer (a value under capture), GraphBuilder, Graph, Captured.
- ``ast``: capture_mode="ast" (and, for now, "bytecode"): interpret the function's syntax tree.
- ``trace``: capture_mode="trace": run the function once with tracers.
"""
