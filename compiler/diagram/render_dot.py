"""Render a diagram model as Graphviz DOT (and, through the `dot` program, SVG/PNG/PDF).

Stage: `compiler.diagram.model.Diagram` -> DOT text (`to_dot`) -> image bytes
(`pipe`). This module only maps the model's facts to Graphviz syntax and styles, from
the tables below: a transition's kind (numbered/unnumbered/letter/state) picks its
base look, its status under a policy (dead/always) and a trace adjust it. It decides
nothing about what is shown. Output is deterministic: the model's order is kept and
nothing time- or version-dependent is written.

Look (like the manuals): states are boxes holding their activities, transition numbers
and letters are bold; dead transitions dashed and grey; always-true ones green and
marked "always"; code-only (unnumbered) rows thin and dotted; a trace's path thick and
blue with its step numbers. Every edge carries a tooltip (SVG hover text) with its
trigger and the (simplified) guard; `show_guards=True` also prints the guard under the
number. Rows entering "State/*" end at the top of the state's box (`lhead`,
`compound=true`, aimed at an invisible anchor node "State/*" inside the box).
"""

from __future__ import annotations

import html
import re
import textwrap
from collections.abc import Mapping

import graphviz

from compiler.diagram.errors import DiagramError, GraphvizMissing
from compiler.diagram.model import Cluster, Diagram, Edge, EdgeKind, EdgeStatus, Node

FONT = "Helvetica"
#: Colours (named so the DOT text reads well).
INK = "black"
DEAD = "gray60"
ALWAYS = "darkgreen"
TRACE = "royalblue3"
CODE_ONLY = "gray35"

#: Base edge attributes per kind.
KIND_STYLE: Mapping[EdgeKind, Mapping[str, str]] = {
    "numbered": {"color": INK, "fontcolor": INK, "penwidth": "1.2"},
    "unnumbered": {"color": CODE_ONLY, "fontcolor": CODE_ONLY, "style": "dotted", "penwidth": "1"},
    "letter": {"color": INK, "fontcolor": INK, "penwidth": "1.2"},
    "state": {"color": INK, "fontcolor": INK, "penwidth": "1"},
}
#: Attributes a policy status adds (over the kind's); "live" adds nothing.
STATUS_STYLE: Mapping[EdgeStatus, Mapping[str, str]] = {
    "live": {},
    "dead": {"color": DEAD, "fontcolor": DEAD, "style": "dashed"},
    "always": {"color": ALWAYS, "fontcolor": ALWAYS, "penwidth": "2"},
}
#: Attributes for what cannot be reached from the start under the policy.
UNREACHABLE_NODE: Mapping[str, str] = {
    "style": "rounded,filled",
    "fillcolor": "gray93",
    "color": "gray60",
    "fontcolor": "gray50",
}
UNREACHABLE_EDGE: Mapping[str, str] = {"color": "gray70", "fontcolor": "gray55"}
#: Attributes for an edge a trace took (over everything else).
TRACE_STYLE: Mapping[str, str] = {"color": TRACE, "fontcolor": TRACE, "penwidth": "3"}

#: Legend text per kind / status, shown under the title for what the figure contains.
KIND_LEGEND: Mapping[EdgeKind, str] = {
    "numbered": "bold numbers: the manual's transition numbers",
    "unnumbered": "dotted, named: transitions only the startd code has (no number)",
    "letter": "bold letters: the manual's lettered state transitions",
    "state": "(n): the numbered transitions an arrow between two states stands for",
}
STATUS_LEGEND: Mapping[EdgeStatus, str] = {
    "live": "",
    "dead": "dashed grey: can never fire under this policy",
    "always": "green, 'always': the policy guard is always true",
}

#: A no-break space each side of a label: the labels of two edges running side by side
#: (3 and 4, Unclaimed/Idle <-> Benchmarking) otherwise touch and read as "34".
PAD = "&#160;"

LEGEND_WIDTH = 90
GUARD_WIDTH = 34
GUARD_LINES = 4


def to_dot(diagram: Diagram, *, show_guards: bool = False) -> str:
    """The DOT source of `diagram` (no Graphviz program needed)."""
    return to_digraph(diagram, show_guards=show_guards).source


def to_digraph(diagram: Diagram, *, show_guards: bool = False) -> graphviz.Digraph:
    graph = graphviz.Digraph(name=_name(diagram))
    graph.attr(
        rankdir="TB",
        compound="true",
        newrank="true",
        nodesep="0.5",
        ranksep="0.55",
        fontname=FONT,
        labelloc="t",
        labeljust="c",
        label=_title(diagram),
        tooltip=graphviz.nohtml(_escape(diagram.title)),
    )
    graph.attr("node", fontname=FONT, fontsize="12", shape="box", style="rounded")
    graph.attr("edge", fontname=FONT, fontsize="11", arrowsize="0.7")
    graph.node(
        "__start",
        label="",
        shape="circle",
        style="filled",
        fillcolor=INK,
        width="0.12",
        tooltip="start",
    )
    by_cluster: dict[str | None, list[Node]] = {}
    for node in diagram.nodes:
        by_cluster.setdefault(node.cluster, []).append(node)
    entered_boxes = {e.target_cluster for e in diagram.edges if e.target_cluster is not None}
    spine = _spine(diagram)
    for cluster in diagram.clusters:
        members = by_cluster.get(cluster.id, [])
        with graph.subgraph(name=cluster_name(cluster.id)) as sub:
            _cluster(sub, cluster, reachable=any(n.reachable for n in members))
            if cluster.id in entered_boxes and members:
                _anchor(sub, cluster.id, members[0].id)
            for node in members:
                _node(sub, node, diagram, spine)
    for node in by_cluster.get(None, ()):
        _node(graph, node, diagram, spine)
    graph.edge("__start", diagram.start, tooltip="start", penwidth="1.2", color=INK)
    for edge in diagram.edges:
        target = anchor_name(edge.target_cluster) if edge.target_cluster else edge.target
        graph.edge(edge.source, target, **_edge_attrs(edge, diagram, show_guards))
    return graph


def anchor_name(state: str) -> str:
    """The invisible node at the top of a state's box that "State/*" arrows aim at."""
    return f"{state}/*"


def _anchor(sub: graphviz.Digraph, state: str, first: str) -> None:
    """An invisible point above the box's first activity: arrows into "State/*" then
    end at the top of the box, not at its side next to one activity (which read as
    entering that activity)."""
    name = anchor_name(state)
    sub.node(name, label="", shape="point", style="invis", width="0", height="0")
    sub.edge(name, first, style="invis")


def cluster_name(state: str) -> str:
    """The DOT subgraph name of a state's box (Graphviz wants the "cluster" prefix)."""
    return f"cluster_{state}"


def pipe(dot_source: str, fmt: str) -> bytes:
    """Lay out `dot_source` with the `dot` program and return the image in `fmt`."""
    try:
        return graphviz.Source(dot_source).pipe(format=fmt)
    except graphviz.ExecutableNotFound:
        raise GraphvizMissing() from None
    except graphviz.CalledProcessError as err:  # a bug of ours, but say what dot said
        detail = (err.stderr or b"").decode("utf-8", "replace").strip()
        raise DiagramError(f"graphviz dot failed: {detail}") from None


# -- pieces ---------------------------------------------------------------------------


def _name(diagram: Diagram) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", f"{diagram.era}_{diagram.kind}")


def _title(diagram: Diagram) -> str:
    rows = [f'<font point-size="16"><b>{html.escape(diagram.title)}</b></font>']
    if diagram.policy is not None:
        rows.append(f"policy: {html.escape(diagram.policy)}")
    legend = [KIND_LEGEND[k] for k in diagram.kinds() if KIND_LEGEND[k]]
    legend += [STATUS_LEGEND[s] for s in diagram.statuses() if STATUS_LEGEND[s]]
    if diagram.has_unreachable:
        legend.append("grey boxes: unreachable from the start under this policy")
    if diagram.traced:
        legend.append("thick blue [n]: the trace's path and its step numbers")
    for line in _legend_lines(legend):  # a few short lines, not one as wide as the figure
        rows.append(f'<font point-size="10">{html.escape(line)}</font>')
    return "<" + "<br/>".join(rows) + ">"


def _legend_lines(items: list[str], width: int = LEGEND_WIDTH) -> list[str]:
    lines: list[str] = []
    for item in items:
        if lines and len(lines[-1]) + 2 + len(item) <= width:
            lines[-1] += "; " + item
        else:
            lines.append(item)
    return lines


def _cluster(sub: graphviz.Digraph, cluster: Cluster, *, reachable: bool) -> None:
    sub.attr(
        label=f"<<b>{html.escape(cluster.label)}</b>>",
        tooltip=graphviz.nohtml(_escape(cluster.tooltip)),
        style="rounded,dashed" if cluster.internal else "rounded",
        # at the box's left corner, where fewer arrows enter than at its top middle
        labeljust="l",
        color="gray40" if reachable else "gray70",
        fontcolor=INK if reachable else "gray50",
        fontname=FONT,
        fontsize="13",
        # room for the title at the left corner: arrows into one-activity boxes (Matched)
        # otherwise run through it
        margin="16",
    )


def _spine(diagram: Diagram) -> set[str]:
    """The start node and where the first transition out of it leads (Owner/Idle and
    Unclaimed/Idle): put in one Graphviz `group` they stay in one column, so 1 and 2
    are short and side by side instead of two long parallel arrows across the figure."""
    first = next((e for e in diagram.edges if e.source == diagram.start), None)
    return {diagram.start} if first is None else {diagram.start, first.target}


def _node(graph: graphviz.Digraph, node: Node, diagram: Diagram, spine: set[str]) -> None:
    attrs: dict[str, str] = {"tooltip": graphviz.nohtml(_escape(node.tooltip))}
    if node.id in spine:
        attrs["group"] = "spine"
    if diagram.kind == "states":
        attrs["label"] = f"<<b>{html.escape(node.label)}</b>>"
    else:
        attrs["label"] = graphviz.nohtml(node.label)
    if node.internal:
        attrs["style"] = "rounded,dashed"
    if not node.reachable:
        attrs.update(UNREACHABLE_NODE)
    if node.steps:
        # filled only: the step numbers are on the edges (and in the tooltip); as node
        # labels too they crowded the cluster titles
        attrs.update(style="rounded,filled", fillcolor="lightsteelblue1", color=TRACE)
        attrs["tooltip"] = graphviz.nohtml(
            _escape(f"{node.tooltip}\ntrace steps: {_steps(node.steps)}")
        )
    attrs["id"] = _svg_id("node", node.id)
    graph.node(node.id, **attrs)


def _edge_attrs(edge: Edge, diagram: Diagram, show_guards: bool) -> dict[str, str]:
    attrs: dict[str, str] = dict(KIND_STYLE[edge.kind])
    if edge.status is not None:
        attrs.update(STATUS_STYLE[edge.status])
        if edge.kind == "unnumbered" and edge.status == "dead":
            attrs["style"] = "dotted"
    if not edge.reachable and edge.status != "dead":
        attrs.update(UNREACHABLE_EDGE)
    if edge.steps:
        attrs.update(TRACE_STYLE)
    if edge.target_cluster is not None:
        attrs["lhead"] = cluster_name(edge.target_cluster)
    attrs["label"] = _edge_label(edge, show_guards)
    attrs["tooltip"] = graphviz.nohtml(_escape(edge.tooltip))
    attrs["labeltooltip"] = attrs["tooltip"]
    attrs["id"] = _svg_id("edge", edge.key)
    classes = ["transition", edge.kind, edge.status or ""]
    classes += ["" if edge.reachable else "unreachable", "traced" if edge.steps else ""]
    attrs["class"] = " ".join(c for c in classes if c)
    return attrs


def _edge_label(edge: Edge, show_guards: bool) -> str:
    if not edge.label and not edge.steps and edge.status != "always":
        return ""
    match edge.kind:
        case "numbered" | "letter":
            head = f"{PAD}<b>{html.escape(edge.label)}</b>{PAD}"
        case "unnumbered":
            head = f'{PAD}<font point-size="9"><i>{html.escape(edge.label)}</i></font>{PAD}'
        case "state":
            head = f'{PAD}<font point-size="9">{html.escape(edge.label)}</font>{PAD}'
        case _:
            raise DiagramError(f"unknown edge kind {edge.kind!r}")
    parts = [head] if edge.label else []
    if edge.status == "always":
        parts.append('<font point-size="9">always</font>')
    if edge.steps:
        parts.append(f"[{_steps(edge.steps)}]")
    text = " ".join(parts)
    if show_guards and (edge.guard or edge.events):
        text += '<br/><font point-size="9">' + _guard_lines(edge.guard, edge.events) + "</font>"
    return f"<{text}>"


def _guard_lines(guard: str, events: tuple[str, ...]) -> str:
    """The guard, shortened to GUARD_LINES lines, then the other triggers on one line
    ("or: match, timer MATCH_TIMEOUT"): a guard shown as "false" on a live edge would
    otherwise puzzle the reader."""
    lines = textwrap.wrap(guard, GUARD_WIDTH, break_long_words=True, break_on_hyphens=False)
    if len(lines) > GUARD_LINES:
        lines = [*lines[: GUARD_LINES - 1], lines[GUARD_LINES - 1][: GUARD_WIDTH - 1] + "…"]
    if events:
        others = ", ".join(events)
        if len(others) > GUARD_WIDTH + 10:
            others = others[: GUARD_WIDTH + 9] + "…"
        lines.append(("or: " if guard else "") + others)
    return "<br/>".join(html.escape(line) for line in lines)


def _steps(steps: tuple[int, ...]) -> str:
    return ",".join(str(s) for s in steps)


def _escape(text: str) -> str:
    """A plain DOT string: backslashes kept literally, newlines as DOT's `\\n`."""
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _svg_id(prefix: str, key: str) -> str:
    return f"{prefix}-" + re.sub(r"[^A-Za-z0-9_.-]", "_", key)
