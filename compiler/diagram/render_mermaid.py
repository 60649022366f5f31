"""Render a diagram model as a Mermaid flowchart (text; GitHub and many wikis draw it).

Stage: `compiler.diagram.model.Diagram` -> Mermaid text. The second renderer, added as
one module plus one `output.FORMATS` entry (".mmd"), to keep the model honest: it reads
only the model. Mermaid has no tooltips on edges and no edge into a box, so an arrow to
"State/*" goes to the state's subgraph (Mermaid allows links to subgraph ids), guards
are left out unless `show_guards`, and styles are Mermaid's three arrow kinds: `-->`
(live), `-.->` (dead or code-only), `==>` (always, or a trace step).
"""

from __future__ import annotations

import re

from compiler.diagram.model import Diagram, Edge

#: Mermaid arrow per look; a trace or "always" is thick, dead/code-only dotted.
ARROWS = {"plain": "-->", "dotted": "-.->", "thick": "==>"}


def to_mermaid(diagram: Diagram, *, show_guards: bool = False) -> str:
    lines = [f"%% {diagram.title}", "flowchart TB"]
    if diagram.policy is not None:
        lines[0] += f" - policy: {diagram.policy}"
    lines.append('  initial((" "))')
    members: dict[str | None, list[str]] = {}
    for node in diagram.nodes:
        members.setdefault(node.cluster, []).append(node.id)
    labels = {node.id: node.label for node in diagram.nodes}
    for cluster in diagram.clusters:
        lines.append(f'  subgraph {_id("state", cluster.id)}["{_text(cluster.label)}"]')
        for node_id in members.get(cluster.id, []):
            lines.append(f'    {_id("pair", node_id)}("{_text(labels[node_id])}")')
        lines.append("  end")
    for node_id in members.get(None, []):
        lines.append(f'  {_id("pair", node_id)}("{_text(labels[node_id])}")')
    lines.append(f"  initial --> {_id('pair', diagram.start)}")
    for edge in diagram.edges:
        target = (
            _id("state", edge.target_cluster)
            if edge.target_cluster is not None
            else _id("pair", edge.target)
        )
        label = _label(edge, show_guards)
        arrow = ARROWS[_look(edge)]
        text = f"|{label}|" if label else ""
        lines.append(f"  {_id('pair', edge.source)} {arrow}{text} {target}")
    for node in diagram.nodes:
        if not node.reachable:
            lines.append(f"  style {_id('pair', node.id)} fill:#eee,color:#888")
        elif node.steps:
            lines.append(f"  style {_id('pair', node.id)} fill:#cae1ff")
    return "\n".join(lines) + "\n"


def _look(edge: Edge) -> str:
    if edge.steps or edge.status == "always":
        return "thick"
    if edge.status == "dead" or edge.kind == "unnumbered":
        return "dotted"
    return "plain"


def _label(edge: Edge, show_guards: bool) -> str:
    parts = [edge.label] if edge.label else []
    if edge.status == "always":
        parts.append("always")
    if edge.status == "dead":
        parts.append("dead")
    if edge.steps:
        parts.append("[" + ",".join(map(str, edge.steps)) + "]")
    if show_guards and edge.guard:
        parts.append(edge.guard if len(edge.guard) <= 60 else edge.guard[:59] + "…")
    return _text(" ".join(parts))


def _id(prefix: str, name: str) -> str:
    return f"{prefix}_" + re.sub(r"[^A-Za-z0-9_]", "_", name)


def _text(text: str) -> str:
    """Mermaid label text: Mermaid's numeric entity codes for the characters its
    syntax uses (`#` first, since the codes themselves start with it)."""
    return (
        text.replace("#", "#35;")
        .replace("&", "#38;")
        .replace('"', "#34;")
        .replace("|", "#124;")
        .replace("<", "#60;")
        .replace(">", "#62;")
    )
