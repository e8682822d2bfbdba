"""``explain(fn, *args)``: what jit would do with this call, without compiling or running it.

The report names the capture mode and options, the guard the call would be cached under, the
graph captured (as text, with each node's source line) or, when capture fails, the construct
that breaks the graph with its file:line and what happens then (JIT Fallback to eager, or an
error under fullgraph/STRICT) — the visibility ``torch._dynamo.explain`` gives.

capture_mode="bytecode" finds its graph breaks by interpreting the call, so explaining it runs the
call once (Python side effects included), as ``torch._dynamo.explain`` does.
"""
from dataclasses import dataclass, field

from .errors import UnsupportedSyntaxError
from .jit import JitFunction, _guard_key, jit


@dataclass
class GraphBreak:
    location: str       # "file.py:12"
    reason: str
    consequence: str    # "runs eagerly (JIT Fallback)" or "raises (fullgraph)"


@dataclass
class Explanation:
    function: str
    capture_mode: str
    jit_level: str
    guard: tuple
    graphs: list = field(default_factory=list)        # graph texts
    breaks: list = field(default_factory=list)        # GraphBreak
    cached: bool = False                               # a compiled entry already matches the guard
    assumptions: list = field(default_factory=list)   # globals, closure variables, attributes guarded
    side_effects: list = field(default_factory=list)  # "file:line: what" (bytecode)
    regions: list = field(default_factory=list)       # "While at file:line ...": control flow kept in the graph

    def __str__(self):
        lines = [f"{self.function}: capture_mode={self.capture_mode}, jit_level={self.jit_level}",
                 f"guard: {self.guard}",
                 f"compiled entry for this guard: {'yes' if self.cached else 'no'}",
                 f"graphs: {len(self.graphs)}, graph breaks: {len(self.breaks)}"]
        for b in self.breaks:
            lines.append(f"  break at {b.location}: {b.reason} -> {b.consequence}")
        lines.extend(f"  side effect at {s}" for s in self.side_effects)
        lines.extend(f"  guards {a}" for a in self.assumptions)
        lines.extend(f"  region op {r}" for r in self.regions)
        for i, text in enumerate(self.graphs):
            lines.append(f"graph {i}:")
            lines.extend("  " + line for line in text.splitlines())
        return "\n".join(lines)


def _split_location(message):
    """UnsupportedSyntaxError messages start with 'file:line: '."""
    head, sep, rest = message.partition(": ")
    if sep and ":" in head and head.rsplit(":", 1)[1].isdigit():
        return head, rest
    return "<unknown>", message


def explain(fn, *args, **kwargs):
    """Explain how ``fn`` (a plain function or a jitted one) would be captured for these
    arguments. Nothing is compiled and nothing is run eagerly."""
    jitted = fn if isinstance(fn, JitFunction) else jit(fn)
    args, kwargs = jitted._normalize(args, kwargs)
    config = jitted.config
    report = Explanation(function=getattr(jitted.fn, "__qualname__", repr(jitted.fn)),
                         capture_mode=config.capture_mode, jit_level=config.jit_level,
                         guard=_guard_key(args, kwargs), cached=_guard_key(args, kwargs) in jitted._cache)
    if config.capture_mode == "bytecode":
        return _explain_bytecode(jitted, args, kwargs, report)
    try:
        captured = jitted._capture(args, kwargs)
    except UnsupportedSyntaxError as e:
        location, reason = _split_location(str(e))
        consequence = "raises (fullgraph=True)" if config.fullgraph else "runs eagerly (JIT Fallback)"
        report.breaks.append(GraphBreak(location, reason, consequence))
        return report
    report.graphs.append(captured.graph.as_text())
    report.regions = region_ops(captured.graph)
    report.assumptions = _assumptions(captured)
    return report


def region_ops(graph, depth=0):
    """The If and While nodes of ``graph`` and of the regions inside them, outermost first, with
    their source lines: where a tensor condition or loop stays in the compiled graph."""
    out = []
    for n in graph.nodes:
        if n.op_type in ("If", "While"):
            where = f"{n.location[0]}:{n.location[1]}" if n.location else "<unknown>"
            what = ("one branch runs" if n.op_type == "If"
                    else f"{len(n.inputs)} loop-carried values, captures included")
            out.append(f"{'  ' * depth}{n.op_type} at {where} ({what})")
        for region in (v for _, v in sorted(n.attrs.items()) if hasattr(v, "nodes")):
            out.extend(region_ops(region, depth + 1))
    return out


def _assumptions(captured):
    return [f"{view.describe(key)} == {value!r}" for view, key, value in captured.globals_read]   # (see capture.guards)


def _explain_bytecode(jitted, args, kwargs, report):
    consequence = "raises (fullgraph=True)" if jitted.config.fullgraph else "graph split: Python runs it"
    try:
        out = jitted._interpret(args, kwargs, want_captured=True)
    except UnsupportedSyntaxError as e:
        location, reason = _split_location(str(e))
        report.breaks.append(GraphBreak(location, reason, consequence))
        return report
    session = jitted._last_session
    report.graphs = [g.as_text() for g in session.graphs]
    report.breaks = [GraphBreak(f"{b.file}:{b.line}", b.reason, consequence) for b in session.breaks]
    report.side_effects = [str(s) for s in session.side_effects]
    if hasattr(out, "globals_read"):
        report.assumptions = _assumptions(out)
    return report
