"""The manuals' figures, generated: the numbered state/activity figure and the lettered
state figure of an era, optionally showing what a compiled policy and a trace do.

Stage: spec IR (+ `StateTable`, + trace) -> `extract` -> diagram model (`model`) ->
renderer (`render_dot`, `render_mermaid`; chosen by file extension in `output`). Like the rest of the
compiler it never prints or exits; problems are `DiagramError`s (`GraphvizMissing` when
SVG/PNG/PDF is asked for and the `dot` program is not installed; DOT output needs none).

Public API
----------
`extract(spec, table=None, trace=None, *, kind="activities"|"states", unnumbered=False,
title=None, policy=None) -> Diagram`; `resolve_trace(spec, trace)`; `step_key(text)`;
`to_dot(diagram, *, show_guards=False) -> str`; `render(diagram, suffix, *,
show_guards=False) -> bytes`; `write(diagram, path, *, show_guards=False)`;
the model classes `Diagram`, `Node`, `Cluster`, `Edge`; `FORMATS`.

Adding a renderer: one module with `to_X(diagram: Diagram) -> str` that walks
`diagram.clusters`, `nodes` and `edges` (kind, status, steps say how to style each),
and one entry in `output.FORMATS`. `render_mermaid` (".mmd") was added exactly so.
"""

from compiler.diagram.errors import DiagramError, GraphvizMissing
from compiler.diagram.extract import TraceStep, extract, resolve_trace, step_key
from compiler.diagram.model import Cluster, Diagram, Edge, Node
from compiler.diagram.output import FORMATS, render, write
from compiler.diagram.render_dot import to_dot

__all__ = [
    "FORMATS",
    "Cluster",
    "Diagram",
    "DiagramError",
    "Edge",
    "GraphvizMissing",
    "Node",
    "TraceStep",
    "extract",
    "render",
    "resolve_trace",
    "step_key",
    "to_dot",
    "write",
]
