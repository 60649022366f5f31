"""The reference interpreter against the compiled machine: they agree on generated
traces, and a deliberately broken table (two guards swapped) is caught with a shrunk
counterexample that `condor-policy run` could replay."""

from __future__ import annotations

from functools import cache

import pytest
from msgspec.structs import replace as sreplace  # the table and its rows

from compiler import StateTable, compile_policy
from compiler.config import load_config
from runtime.check.machines import compiled_machine, config_timers, reference_machine
from runtime.check.reference import PolicyExprs
from runtime.check.search import search
from runtime.trace import dump_trace, read_trace

DESKTOP = "use POLICY : Desktop\n"


@cache
def setup(era: str, semantics: str, text: str):  # type: ignore[no-untyped-def]
    config = load_config(text=text, era=era)
    table = compile_policy(config, era, semantics)
    policy = PolicyExprs.from_config(table.spec, config)
    return config, table, policy


def swap_guards(table: StateTable, a: str, b: str) -> StateTable:
    """The mutation: trigger 0 of rows a and b exchange their compiled guards."""
    ra, rb = table.row(a), table.row(b)
    ga, gb = ra.triggers[0], rb.triggers[0]
    rows = tuple(
        sreplace(r, triggers=(gb, *r.triggers[1:])) if r.id == a
        else sreplace(r, triggers=(ga, *r.triggers[1:])) if r.id == b
        else r
        for r in table.rows
    )  # fmt: skip
    return sreplace(table, rows=rows)


def run(
    table: StateTable, era: str, semantics: str, text: str, examples: int, builtins: bool = True
):  # type: ignore[no-untyped-def]
    config, _, policy = setup(era, semantics, text)
    machine, _ = compiled_machine(table)
    reference = reference_machine(table.spec, policy, config_timers(table.spec, config))
    return search(
        table.spec, policy, machine, reference=reference, max_examples=examples, seed=3,
        builtins=builtins,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("era", "semantics", "text"),
    [("htcondor-current", "manual", DESKTOP), ("htcondor-current", "code", DESKTOP),
     ("condor-6.8", "code", ""), ("condor-6.4", "manual", "")],
)  # fmt: skip
def test_compiled_machine_agrees_with_the_reference(era: str, semantics: str, text: str) -> None:
    _, table, _ = setup(era, semantics, text)
    result = run(table, era, semantics, text, 40)
    assert result.examples >= 40
    assert [c.name for c in result.counterexamples] == []
    assert len(result.coverage.fired) >= 8  # the traces do reach claims and jobs


def test_swapped_guards_are_caught_and_shrunk() -> None:
    era, semantics = "htcondor-current", "manual"
    _, table, _ = setup(era, semantics, DESKTOP)
    broken = swap_guards(table, "14", "15")  # suspend <-> continue
    result = run(broken, era, semantics, DESKTOP, 100, builtins=False)
    names = [c.name for c in result.counterexamples]
    assert "reference-crosscheck" in names, names
    cx = next(c for c in result.counterexamples if c.name == "reference-crosscheck")
    assert any(f.number in (14, 15) for f in cx.fired) or "14" in cx.message or "15" in cx.message
    assert len(cx.trace.steps) <= 12  # shrunk: a handful of steps
    assert cx.trace.to_dict()["polling"] == "explicit"
    # the counterexample is a trace file: `condor-policy run` reads back the same trace
    again = read_trace("<counterexample>", dump_trace(cx.trace))
    assert again.to_dict() == cx.trace.to_dict()
    assert (again.era, again.semantics) == (era, semantics)


@pytest.mark.parametrize(
    ("era", "semantics", "text"),
    [("htcondor-current", "code", DESKTOP), ("condor-6.8", "manual", ""),
     ("htcondor-current", "manual", "WANT_SUSPEND = True\nSUSPEND = KeyboardIdle < 60\n"
      "CONTINUE = KeyboardIdle > 300\nPREEMPT = KeyboardIdle < 30\n")],
)  # fmt: skip
def test_no_transition_proved_dead_ever_fires(era: str, semantics: str, text: str) -> None:
    """Static and dynamic agree: what the analysis proves dead, no generated run fires."""
    from compiler.analysis import analyse

    config, table, _ = setup(era, semantics, text)
    dead = {r for f in analyse(table, config) if f.code == "dead-transition" for r in f.rows}
    result = run(table, era, semantics, text, 60)
    assert not result.counterexamples
    assert dead and not (dead & result.coverage.fired), dead & result.coverage.fired
