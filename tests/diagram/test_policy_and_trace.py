"""Policy styling and the trace hook, on hand-made tables (independent of the compiler).

A table here is built row by row with chosen statuses and guard texts, so the tests
pin what the figure does with a status (dead: dashed grey; always: marked; guard in
the SVG tooltip and, with show_guards, under the number), not what a policy compiles to.
"""

from __future__ import annotations

import pytest

from compiler.diagram import DiagramError, extract, resolve_trace, to_dot
from compiler.spec import load_spec
from tests.diagram.dotparse import Edge, Graph, bold_of, parse, text_of
from tests.diagram.helpers import fake_table


def _edge(graph: Graph, number: str) -> Edge:
    found = [e for e in graph.edges if number in bold_of(e.attrs.get("label", ""))]
    assert len(found) == 1, number
    return found[0]


SPEC = load_spec("htcondor-current")


def test_dead_edges_dashed_grey_always_marked_live_plain() -> None:
    table = fake_table(SPEC, {"3": "dead", "7": "dead", "1": "always"})
    graph = parse(to_dot(extract(SPEC, table)))
    for number in ("3", "7"):
        edge = _edge(graph, number)
        assert edge.attrs["style"] == "dashed"
        assert edge.attrs["color"] == edge.attrs["fontcolor"] == "gray60"
        assert "dead" in edge.attrs["class"].split()
    always = _edge(graph, "1")
    assert "always" in text_of(always.attrs["label"])
    assert always.attrs["color"] != "black"
    live = _edge(graph, "14")
    assert "style" not in live.attrs and live.attrs["color"] == "black"
    assert "policy: hand-made" in text_of(graph.attrs["label"])
    assert "can never fire" in text_of(graph.attrs["label"])  # the legend explains dashes


def test_spec_only_figure_has_no_policy_styling() -> None:
    graph = parse(to_dot(extract(SPEC)))
    for edge in graph.edges:
        assert edge.attrs.get("style") not in ("dashed",)
        assert "always" not in text_of(edge.attrs.get("label", ""))
    assert "policy:" not in text_of(graph.attrs["label"])


def test_simplified_guard_is_the_tooltip_and_optionally_the_label() -> None:
    guard = 'KeyboardIdle > 15 * 60 && Owner != "coltrane"'
    table = fake_table(SPEC, {}, {"14": guard})
    plain = _edge(parse(to_dot(extract(SPEC, table))), "14")
    assert guard in plain.attrs["tooltip"].replace("\\n", "\n")
    assert guard not in text_of(plain.attrs["label"])
    shown = _edge(parse(to_dot(extract(SPEC, table), show_guards=True)), "14")
    assert "KeyboardIdle > 15 * 60" in text_of(shown.attrs["label"])
    assert "&amp;&amp;" in shown.attrs["label"]  # HTML-escaped, not raw markup


def test_long_guards_are_shortened_in_labels_but_whole_in_tooltips() -> None:
    guard = " || ".join(f"(Attribute{i} > {i})" for i in range(40))
    table = fake_table(SPEC, {}, {"13": guard})
    edge = _edge(parse(to_dot(extract(SPEC, table), show_guards=True)), "13")
    assert "…" in text_of(edge.attrs["label"])
    assert len(text_of(edge.attrs["label"])) < 200
    assert guard in edge.attrs["tooltip"]


def test_state_figure_letter_is_dead_only_when_all_its_rows_are() -> None:
    # H stands for 10, 17, 18
    some = fake_table(SPEC, {"10": "dead", "17": "dead"})
    all_dead = fake_table(SPEC, {"10": "dead", "17": "dead", "18": "dead"})
    h_some = _edge(parse(to_dot(extract(SPEC, some, kind="states"))), "H")
    h_all = _edge(parse(to_dot(extract(SPEC, all_dead, kind="states"))), "H")
    assert h_some.attrs.get("style") != "dashed"
    assert h_all.attrs["style"] == "dashed"
    assert "10 [dead]" in h_some.attrs["tooltip"] and "18 [live]" in h_some.attrs["tooltip"]


def test_table_of_another_era_is_refused() -> None:
    other = fake_table(load_spec("condor-6.8"), {})
    with pytest.raises(DiagramError, match=r"condor-6\.8"):
        extract(SPEC, other)


# -- trace ----------------------------------------------------------------------------

RUN = [1, 6, 9, 11, 14, 15, 13, 18, 21, 25, 1]


def test_trace_edges_highlighted_with_step_order() -> None:
    graph = parse(to_dot(extract(SPEC, trace=RUN)))
    one = _edge(graph, "1")
    assert "[1,11]" in text_of(one.attrs["label"])
    assert "traced" in one.attrs["class"].split()
    assert float(one.attrs["penwidth"]) >= 3
    assert "[8]" in text_of(_edge(graph, "18").attrs["label"])
    untouched = _edge(graph, "2")
    assert "[" not in text_of(untouched.attrs["label"])
    assert "traced" not in untouched.attrs["class"].split()
    # the visited pairs are filled; the others are not
    assert "filled" in graph.nodes["Preempting/Killing"]["style"]
    assert "filled" not in graph.nodes["Backfill/Busy"].get("style", "")
    assert "trace" in text_of(graph.attrs["label"])


def test_trace_steps_as_t_number_pairs_and_jsonl_mappings() -> None:
    pairs = [(0.0, 1), (5.0, 6), (9.0, "9")]
    lines = [{"t": 0, "number": 1}, {"t": 5, "number": 6}, {"t": 9, "number": 9}]
    expect = (SPEC.transition(1), SPEC.transition(6), SPEC.transition(9))
    assert resolve_trace(SPEC, pairs) == expect
    assert resolve_trace(SPEC, lines) == expect


def test_unnumbered_step_is_resolved_from_where_the_slot_is_and_drawn() -> None:
    run = [1, 6, 9, 11, "unnumbered:kill_claim", 25]
    rows = resolve_trace(SPEC, run)
    assert rows[4].id == "unnumbered:kill_claim@Claimed/Busy"
    graph = parse(to_dot(extract(SPEC, trace=run)))  # drawn though unnumbered=False
    kill = [e for e in graph.edges if text_of(e.attrs.get("label", "")).startswith("kill_claim")]
    assert len(kill) == 1
    assert kill[0].source == "Claimed/Busy" and kill[0].target == "Preempting/Killing"
    assert "[5]" in text_of(kill[0].attrs["label"])


def test_trace_on_the_state_figure_highlights_letters() -> None:
    graph = parse(to_dot(extract(SPEC, trace=RUN, kind="states")))
    assert "[1,11]" in text_of(_edge(graph, "A").attrs["label"])
    assert "[8]" in text_of(_edge(graph, "H").attrs["label"])  # 18 is an H
    assert "[" not in text_of(_edge(graph, "B").attrs["label"])


@pytest.mark.parametrize(
    ("trace", "message"),
    [
        ([1, 99], "step 2: htcondor-current has no transition 99"),
        ([1, "unnumbered:kill_claim"], "step 2: unnumbered:kill_claim from Unclaimed/Idle"),
        ([True], "step 1"),
        ([{"t": 3}], "step 1"),
    ],
)
def test_bad_trace_steps_are_reported(trace: list, message: str) -> None:
    with pytest.raises(DiagramError, match=message):
        extract(SPEC, trace=trace)


def test_show_guards_names_the_other_triggers_so_a_false_guard_on_a_live_edge_reads_right() -> None:
    # 21 (Vacating -> Killing): KILL, or the MachineMaxVacateTime timer (reference 1.3)
    table = fake_table(SPEC, {}, {"21": "false"})
    edge = _edge(parse(to_dot(extract(SPEC, table), show_guards=True)), "21")
    assert "false or: timer MachineMaxVacateTime" in text_of(edge.attrs["label"])
    # 22 vs 23 differ only in their event guard: short ones are named
    e22 = _edge(parse(to_dot(extract(SPEC), show_guards=True)), "22")
    assert "starter_exit if !HasPreemptingClaim" in text_of(e22.attrs["label"])


def test_jsonl_from_pair_picks_the_code_only_row() -> None:
    # the runtime reports "unnumbered:<name>" and the pair it left; that pair decides
    steps = [
        {"t": 0, "number": 1, "from": ["Owner", "Idle"]},
        {"t": 9, "number": "unnumbered:kill_claim", "from": ["Claimed", "Retiring"]},
    ]
    rows = resolve_trace(SPEC, steps)
    assert rows[1].id == "unnumbered:kill_claim@Claimed/Retiring"
