"""The diagram IR: what a figure shows, with no notion of how it is drawn.

Stage: output of `compiler.diagram.extract`, input of every renderer
(`compiler.diagram.render_dot` today; a Mermaid or text renderer would read the same
model). Everything a reader needs is decided here (which nodes and edges exist, their
labels, status under a policy, the guard text, the steps of a trace); renderers only map
those facts to colours, line styles and syntax. The model holds plain strings and
tuples so that it can be compared in tests and shared freely.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: "activities": one cluster per state holding its activity nodes, numbered edges;
#: "states": one node per state, lettered edges (the manuals' state figure).
DiagramKind = Literal["activities", "states"]

#: numbered: a transition the manual numbers; unnumbered: a row only the code has;
#: letter: a lettered state-level transition; state: an unlettered state-level
#: transition (the 6.4 state figure has no letters; unnumbered state changes).
EdgeKind = Literal["numbered", "unnumbered", "letter", "state"]

#: The status of an edge under a compiled policy (`compiler.table.Status`); None in a
#: spec-only figure.
EdgeStatus = Literal["live", "dead", "always"]


@dataclass(frozen=True, slots=True)
class Node:
    """A state/activity pair (activities figure) or a state (states figure).

    `id` is "Claimed/Busy" or "Claimed"; `cluster` the state's cluster id for an
    activity node (None in the states figure); `steps` the trace steps that entered it
    (step 0 is the start of the trace); `reachable` False when, under the figure's
    policy, no chain of transitions that are not dead leads to it from the start.
    """

    id: str
    label: str
    cluster: str | None
    tooltip: str
    initial: bool = False
    internal: bool = False
    steps: tuple[int, ...] = ()
    reachable: bool = True


@dataclass(frozen=True, slots=True)
class Cluster:
    """A state drawn as a box around its activity nodes (activities figure only)."""

    id: str
    label: str
    nodes: tuple[str, ...]
    tooltip: str
    internal: bool = False


@dataclass(frozen=True, slots=True)
class Edge:
    """One arrow.

    `key` is unique in the figure: the transition id ("14",
    "unnumbered:kill_claim@Claimed/Busy"), the letter ("H"), or "Owner->Matched" for an
    unlettered state-level edge. `target_cluster` is set when the row's target is
    "State/*" (the activity is chosen when it fires): the arrow ends at the state's box,
    `target` then being the box's first possible activity. `transitions` are the
    transition ids the edge stands for; `guard` the (simplified, with a policy) guard
    text, "" for pure events; `trigger` the spec's trigger text; `events` short names of
    the triggers that are not the policy guard (events, commands, timers: a row whose
    guard is false may still fire by them); `steps` the 1-based
    trace steps that took this edge, in order; `reachable` False when its source cannot
    be reached under the policy (so it cannot be taken either, whatever its guard).
    """

    key: str
    source: str
    target: str
    label: str
    kind: EdgeKind
    tooltip: str
    transitions: tuple[str, ...]
    target_cluster: str | None = None
    status: EdgeStatus | None = None
    guard: str = ""
    trigger: str = ""
    events: tuple[str, ...] = ()
    steps: tuple[int, ...] = ()
    reachable: bool = True


@dataclass(frozen=True, slots=True)
class Diagram:
    """One figure, ready for a renderer.

    `policy` names the compiled policy the statuses come from (None for a spec-only
    figure); `start` is the node the start arrow enters; `traced` says whether a trace
    was laid over the figure (then edges and nodes carry `steps`).
    """

    kind: DiagramKind
    era: str
    semantics: str
    title: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    start: str
    clusters: tuple[Cluster, ...] = ()
    policy: str | None = None
    traced: bool = False

    def node(self, node_id: str) -> Node:
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(node_id)

    def edge(self, key: str) -> Edge:
        for edge in self.edges:
            if edge.key == key:
                return edge
        raise KeyError(key)

    @property
    def has_status(self) -> bool:
        return self.policy is not None

    def kinds(self) -> tuple[EdgeKind, ...]:
        """The edge kinds present, in first-seen order (renderers draw a legend of them)."""
        return tuple(dict.fromkeys(edge.kind for edge in self.edges))

    @property
    def has_unreachable(self) -> bool:
        return any(not node.reachable for node in self.nodes)

    def statuses(self) -> tuple[EdgeStatus, ...]:
        return tuple(dict.fromkeys(e.status for e in self.edges if e.status is not None))
