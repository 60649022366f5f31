"""Choose a renderer by the output file's extension and produce the file's bytes.

Stage: `Diagram` -> bytes for a path. `FORMATS` is the whole dispatch: an extension maps
to a function `(diagram, show_guards) -> bytes`. Adding a renderer means one module
that reads the model and one entry here; the Mermaid renderer (`render_mermaid.py`,
".mmd") was added exactly so, and extract and model did not change for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from compiler.diagram import render_dot, render_mermaid
from compiler.diagram.errors import DiagramError
from compiler.diagram.model import Diagram

Renderer = Callable[[Diagram, bool], bytes]


def _dot_text(diagram: Diagram, show_guards: bool) -> bytes:
    return render_dot.to_dot(diagram, show_guards=show_guards).encode("utf-8")


def _graphviz(fmt: str) -> Renderer:
    def render(diagram: Diagram, show_guards: bool) -> bytes:
        return render_dot.pipe(render_dot.to_dot(diagram, show_guards=show_guards), fmt)

    return render


def _mermaid_text(diagram: Diagram, show_guards: bool) -> bytes:
    return render_mermaid.to_mermaid(diagram, show_guards=show_guards).encode("utf-8")


#: Output extension -> renderer. ".dot"/".gv"/".mmd" need no Graphviz program.
FORMATS: Mapping[str, Renderer] = {
    ".mmd": _mermaid_text,
    ".dot": _dot_text,
    ".gv": _dot_text,
    ".svg": _graphviz("svg"),
    ".png": _graphviz("png"),
    ".pdf": _graphviz("pdf"),
}


def render(diagram: Diagram, suffix: str, *, show_guards: bool = False) -> bytes:
    """The bytes of `diagram` in the format named by `suffix` (".svg", "png", ...)."""
    key = "." + suffix.lower().lstrip(".")
    renderer = FORMATS.get(key)
    if renderer is None:
        known = ", ".join(sorted(FORMATS))
        raise DiagramError(f"unknown diagram format {suffix!r} (known: {known})")
    return renderer(diagram, show_guards)


def write(diagram: Diagram, path: str | Path, *, show_guards: bool = False) -> Path:
    """Render `diagram` to `path`, the format chosen by its extension; returns the path."""
    target = Path(path)
    if not target.suffix:
        raise DiagramError(
            f"the output file needs an extension naming the format ({', '.join(sorted(FORMATS))})",
            file=str(target),
        )
    try:
        data = render(diagram, target.suffix, show_guards=show_guards)
    except DiagramError as err:
        err.file = err.file or str(target)
        raise
    try:
        target.write_bytes(data)
    except OSError as err:
        raise DiagramError(f"cannot write: {err.strerror}", file=str(target)) from None
    return target
