"""The committed figures in diagrams/ are what the code renders now (DOT text, never pixels).

When this fails, run `python tools/regenerate_diagrams.py` and commit diagrams/.
Also checks what the committed figures must show whatever the code says: every era and
both policies are there, and facts the reference states about the default policies.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.diagram import to_dot
from compiler.diagram.catalog import FIGURES, Figure, build, readme_text
from compiler.spec import ERAS
from tests.diagram.dotparse import Graph, bold_of, parse, text_of

DIAGRAMS = Path(__file__).resolve().parents[2] / "diagrams"
HINT = "stale; run `python tools/regenerate_diagrams.py` and commit diagrams/"


@pytest.mark.parametrize("figure", FIGURES, ids=lambda f: f.stem)
def test_committed_dot_matches_a_fresh_render(figure: Figure) -> None:
    committed = DIAGRAMS / f"{figure.stem}.dot"
    assert committed.exists(), f"{committed} missing; {HINT}"
    assert committed.read_text(encoding="utf-8") == to_dot(build(figure)), f"{committed} {HINT}"
    assert (DIAGRAMS / f"{figure.stem}.svg").exists()


def test_readme_is_current_and_embeds_every_figure() -> None:
    readme = (DIAGRAMS / "README.md").read_text(encoding="utf-8")
    assert readme == readme_text(), f"diagrams/README.md {HINT}"
    for figure in FIGURES:
        assert f"({figure.stem}.svg)" in readme


def test_every_era_has_both_figures_for_both_policies() -> None:
    found = {(f.era, f.kind, f.policy) for f in FIGURES}
    for era in ERAS:
        for kind in ("activities", "states"):
            assert {(era, kind, None), (era, kind, "Desktop")} <= found


def _edge(graph: Graph, number: str):  # type: ignore[no-untyped-def]
    (edge,) = [e for e in graph.edges if number in bold_of(e.attrs.get("label", ""))]
    return edge


def _committed(stem: str) -> Graph:
    return parse((DIAGRAMS / f"{stem}.dot").read_text(encoding="utf-8"))


def test_current_default_policy_leaves_owner_at_once() -> None:
    # reference 1.3: default IS_OWNER = False, so 1 always fires and 2 never happens;
    # no backfill manager by default, so 7 cannot fire and Backfill is unreachable.
    graph = _committed("htcondor-current/activities-default")
    assert "always" in text_of(_edge(graph, "1").attrs["label"])
    assert _edge(graph, "2").attrs["style"] == "dashed"
    assert _edge(graph, "7").attrs["style"] == "dashed"
    assert "filled" in graph.nodes["Backfill/Idle"]["style"]  # greyed: unreachable
    assert "unreachable" in graph.nodes["Backfill/Idle"]["tooltip"]


def test_desktop_policy_makes_owner_a_real_state() -> None:
    # reference 1.3: with POLICY : Desktop, IS_OWNER = (START =?= False), so 1 and 2
    # both depend on the machine (neither dead nor always)
    graph = _committed("htcondor-current/activities-desktop")
    for number in ("1", "2"):
        edge = _edge(graph, number)
        assert edge.attrs.get("style") != "dashed"
        assert "always" not in text_of(edge.attrs["label"])
    assert "KeyboardIdle" in _edge(graph, "2").attrs["tooltip"]
