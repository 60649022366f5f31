"""Errors of the diagram stage (all `PolicyError`s, so the CLI prints them and exits 2)."""

from __future__ import annotations

from compiler.errors import PolicyError

#: How to get the `dot` program, shown when it is missing.
INSTALL_HINT = (
    "the Graphviz 'dot' program was not found on PATH; install Graphviz "
    "(Debian/Ubuntu: apt-get install graphviz; Fedora/RHEL: dnf install graphviz; "
    "macOS: brew install graphviz; conda: conda install -c conda-forge graphviz) "
    "or write DOT or Mermaid text instead (-o FILE.dot, -o FILE.mmd), which needs no "
    "Graphviz program"
)


class DiagramError(PolicyError):
    """A diagram cannot be built or written (bad trace step, unknown format, ...)."""


class GraphvizMissing(DiagramError):
    """The `dot` program is needed for SVG/PNG/PDF output and is not installed."""

    def __init__(self, file: str | None = None) -> None:
        super().__init__(INSTALL_HINT, file=file)
