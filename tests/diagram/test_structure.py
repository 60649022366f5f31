"""The figures say what the manuals say: read back from DOT text, never from pixels.

Expected endpoints are typed in from the reference tables (shared/reference/
transitions.md sections 1.1-1.3 and 2), not taken from the spec or the renderer, so a
wrong spec row or a wrong arrow both fail here. "Preempting/*" targets end at the
Preempting box (`lhead=cluster_Preempting`).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

import spec.eras as spec_eras
from compiler.diagram import extract, to_dot
from compiler.spec import ERAS, SEMANTICS, load_spec, load_spec_file
from tests.diagram.dotparse import Graph, bold_of, parse, text_of
from tests.diagram.helpers import ENDPOINTS, OI

# reference section 2
LETTERS_68 = {
    "A": ("Owner", "Unclaimed"), "B": ("Unclaimed", "Owner"), "C": ("Unclaimed", "Matched"),
    "D": ("Unclaimed", "Claimed"), "E": ("Unclaimed", "Backfill"), "F": ("Matched", "Owner"),
    "G": ("Matched", "Claimed"), "H": ("Claimed", "Preempting"), "I": ("Preempting", "Claimed"),
    "J": ("Preempting", "Owner"), "K": ("Backfill", "Owner"), "L": ("Backfill", "Matched"),
    "M": ("Backfill", "Claimed"),
}  # fmt: skip
LETTERS = {
    "condor-6.4": {},
    "condor-6.8": LETTERS_68,
    "htcondor-current": {
        **LETTERS_68,
        "N": ("Owner", "Drained"), "O": ("Drained", "Owner"), "P": ("Unclaimed", "Drained"),
    },
}  # fmt: skip
STATES = {
    "condor-6.4": ["Owner", "Unclaimed", "Matched", "Claimed", "Preempting"],
    "condor-6.8": ["Owner", "Unclaimed", "Matched", "Claimed", "Preempting", "Backfill"],
    "htcondor-current": [
        "Owner", "Unclaimed", "Matched", "Claimed", "Preempting", "Backfill", "Drained",
    ],
}  # fmt: skip

CASES = [(era, sem) for era in ERAS for sem in SEMANTICS]


def _graph(era: str, semantics: str, kind: str = "activities", **kw: object) -> Graph:
    spec = load_spec(era, semantics)  # type: ignore[arg-type]
    return parse(to_dot(extract(spec, kind=kind, **kw)))  # type: ignore[arg-type]


def _transition_edges(graph: Graph) -> list:
    """The arrows a reader sees (not the start arrow, not invisible layout edges)."""
    return [e for e in graph.edges if e.source != "__start" and e.attrs.get("style") != "invis"]


def _drawn_target(graph: Graph, edge) -> str:  # type: ignore[no-untyped-def]
    """ "State/*" when the arrow ends at a state's box, else the target node."""
    lhead = edge.attrs.get("lhead")
    if lhead is None:
        return str(edge.target)
    state = lhead.removeprefix("cluster_")
    assert graph.node_cluster[edge.target] == lhead, "lhead box must hold the target node"
    return f"{state}/*"


@pytest.mark.parametrize(("era", "semantics"), CASES)
def test_every_number_is_one_edge_with_the_reference_endpoints(era: str, semantics: str) -> None:
    graph = _graph(era, semantics)
    seen: Counter[int] = Counter()
    for edge in _transition_edges(graph):
        numbers = [int(b) for b in bold_of(edge.attrs.get("label", "")) if b.isdigit()]
        assert len(numbers) == 1, edge
        number = numbers[0]
        seen[number] += 1
        assert (edge.source, _drawn_target(graph, edge)) == ENDPOINTS[era][number], number
    assert seen == Counter(dict.fromkeys(ENDPOINTS[era], 1))


@pytest.mark.parametrize(("era", "semantics"), CASES)
def test_every_pair_is_a_node_in_its_state_box(era: str, semantics: str) -> None:
    graph = _graph(era, semantics)
    pairs = {p for ends in ENDPOINTS[era].values() for p in ends if not p.endswith("/*")}
    assert set(STATES[era]) == {c.removeprefix("cluster_") for c in graph.clusters}
    for pair in pairs:
        assert graph.node_cluster[pair] == "cluster_" + pair.split("/")[0]
        assert text_of(graph.nodes[pair]["label"]) == pair.split("/")[1]
    visible = {n for n, a in graph.nodes.items() if a.get("style") != "invis"}
    activity_nodes = visible - {"__start"}
    assert activity_nodes == pairs


@pytest.mark.parametrize("era", ERAS)
def test_start_arrow_enters_owner_idle(era: str) -> None:
    graph = _graph(era, "manual")
    starts = [e for e in graph.edges if e.source == "__start"]
    assert [(e.target) for e in starts] == [OI]
    assert graph.node_cluster["__start"] is None


@pytest.mark.parametrize(("era", "semantics"), CASES)
def test_unnumbered_rows_only_on_request_each_once_and_dotted(era: str, semantics: str) -> None:
    spec = load_spec(era, semantics)  # type: ignore[arg-type]
    code_only = [t for t in spec.transitions if not t.numbered]
    plain = _graph(era, semantics)
    assert len(_transition_edges(plain)) == len(ENDPOINTS[era])
    graph = _graph(era, semantics, unnumbered=True)
    extra = [e for e in _transition_edges(graph) if not bold_of(e.attrs.get("label", ""))]
    assert len(extra) == len(code_only)
    for edge in extra:
        assert edge.attrs["style"] == "dotted"
        assert float(edge.attrs["penwidth"]) <= 1
    for row in code_only:  # every code-only row: its name on an edge from its source
        name = str(row.number).removeprefix("unnumbered:")
        assert any(
            e.source == str(row.source) and text_of(e.attrs["label"]) == name for e in extra
        ), row.id


def test_code_semantics_with_unnumbered_draws_the_internal_delete_state() -> None:
    graph = _graph("htcondor-current", "code", unnumbered=True)
    assert "cluster_Delete" in graph.clusters
    assert "dashed" in graph.clusters["cluster_Delete"]["style"]
    assert "cluster_Delete" not in _graph("htcondor-current", "code").clusters


@pytest.mark.parametrize(("era", "semantics"), CASES)
def test_state_figure_letters(era: str, semantics: str) -> None:
    graph = _graph(era, semantics, kind="states")
    assert set(graph.nodes) - {"__start"} == set(STATES[era])
    edges = _transition_edges(graph)
    if LETTERS[era]:
        found = {}
        for edge in edges:
            (letter,) = bold_of(edge.attrs["label"])
            assert letter not in found, letter
            found[letter] = (edge.source, edge.target)
        assert found == LETTERS[era]
    else:  # the 1999 figure has no letters: one plain arrow per pair of states
        pairs = Counter((e.source, e.target) for e in edges)
        expected = {
            (s.split("/")[0], t.split("/")[0])
            for s, t in ENDPOINTS[era].values()
            if s.split("/")[0] != t.split("/")[0]
        }
        assert pairs == Counter(dict.fromkeys(expected, 1))
        assert all(not bold_of(e.attrs.get("label", "")) for e in edges)
        # each arrow names the numbered transitions it stands for
        owner_back = next(e for e in edges if (e.source, e.target) == ("Preempting", "Owner"))
        assert text_of(owner_back.attrs["label"]) == "(17, 19)"


def test_numbers_and_letters_are_bold_like_the_manuals() -> None:
    for kind in ("activities", "states"):
        graph = _graph("htcondor-current", "manual", kind=kind)
        for edge in _transition_edges(graph):
            assert bold_of(edge.attrs["label"]), edge


@pytest.mark.parametrize("era", ERAS)
def test_dot_text_is_deterministic_and_timeless(era: str) -> None:
    first = to_dot(extract(load_spec(era)))
    fresh = load_spec_file(Path(spec_eras.__file__).parent / f"{era}.yaml")  # not cached
    second = to_dot(extract(fresh))
    assert first == second
    for word in ("2024", "2025", "2026", "version", "Generated"):
        assert word not in first
