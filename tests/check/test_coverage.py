"""Model-based trace planning (runtime.check.plan) reaches every live transition and both
values of every live guard, on every shipped POLICY template and era default, in both
semantics -- or proves that the goal cannot happen under the policy.

The planner runs the reference interpreter; these tests run its traces on the compiled
machine (as `condor-policy check` does) and measure coverage there, so a planner claim
the compiled machine does not confirm fails the test. A goal left must be PROVED
impossible (the region oracle with the relations the startd guarantees between its
predicates, which `_planned` checks at every reference evaluation): an observation such
as "impossible in every situation reached" is not enough, and a gap of the planner
("unreached", "unrealised", ...) fails. Six era defaults and Desktop configurations run
by default, and each template once; every template x era x semantics under `-m explore`.
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler import compile_policy
from compiler.analysis import Analysis
from compiler.config import load_config
from compiler.spec import ERAS, SEMANTICS
from runtime.check.generate import sensor_values, varied
from runtime.check.machines import compiled_machine, config_timers, reference_machine
from runtime.check.plan import EXPLAINED, PROVED, Goal, Plans, planned
from runtime.check.reference import PolicyExprs
from runtime.check.search import Counterexample, search, shrink_trace
from runtime.trace import Step, Trace, dump_trace, read_trace
from tests.check.test_relations import predicate_relations, watching

#: Every shipped POLICY template (spec/config/templates/metaknobs.yaml), with arguments
#: where it needs them; MyCond is defined for the two that name a condition.
TEMPLATES = (
    "Always_Run_Jobs", "Desktop", "Desktop_Hours", "Desktop_Idle", "Hold_If_Cpus_Exceeded",
    "Hold_If_Disk_Exceeded", "Hold_If_Memory_Exceeded", "Hold_If_Runtime_Exceeds(3600)",
    "Limit_Job_Runtimes(3600)", "OnlyRegisteredCheckpointDestinations", "Preempt_If(MyCond)",
    "Preempt_If_Cpus_Exceeded", "Preempt_If_Disk_Exceeded", "Preempt_If_Memory_Exceeded",
    "Preempt_If_Runtime_Exceeds(3600)", "Startd_Publish_CpusUsage", "UWCS_Desktop",
    "Want_Hold_If(MyCond, 7, reason)",
)  # fmt: skip

FAST = [
    (None, "htcondor-current", "manual"), (None, "htcondor-current", "code"),
    ("Desktop", "htcondor-current", "manual"), ("Desktop", "htcondor-current", "code"),
    (None, "condor-6.4", "manual"), (None, "condor-6.8", "code"),
]  # fmt: skip
#: The README run plans every template once, each in one era and semantics turned by its
#: place in TEMPLATES (so all three eras and both semantics are met); `-m explore` runs
#: the whole matrix (a few minutes: it would double the test gate).
#: Hold_If_<resource>_Exceeded and Preempt_If_<resource>_Exceeded differ only in the
#: resource they compare: the README run plans one of each family (Disk for Hold, Cpus for
#: Preempt); the other two of each family are planned under `-m explore`.
SAME_FAMILY = {
    "Hold_If_Cpus_Exceeded", "Hold_If_Memory_Exceeded",
    "Preempt_If_Disk_Exceeded", "Preempt_If_Memory_Exceeded",
}  # fmt: skip
SAMPLED = {
    (t, ERAS[i % len(ERAS)], SEMANTICS[i % len(SEMANTICS)])
    for i, t in enumerate(TEMPLATES)
    if t not in SAME_FAMILY
}


def _marks(case: tuple[str, str, str]) -> list[pytest.MarkDecorator]:
    return [] if case in SAMPLED else [pytest.mark.explore]


SLOW = [
    pytest.param(t, era, s, marks=_marks((t, era, s)))
    for t in TEMPLATES for era in ERAS for s in SEMANTICS
    if (t, era, s) not in FAST
]  # fmt: skip


def test_every_shipped_policy_template_is_listed() -> None:
    from compiler.config import all_templates

    shipped = {t.name.lower() for t in all_templates()["POLICY"].values()}
    listed = {t.partition("(")[0].lower() for t in TEMPLATES}
    assert listed == shipped


@cache
def _setup(template: str | None, era: str, semantics: str):  # type: ignore[no-untyped-def]
    if template is None:
        config = load_config(None, era=era)
    else:
        config = load_config(text=f"use POLICY : {template}\nMyCond = Memory > 1000\n", era=era)
    table = compile_policy(config, era, semantics)
    policy = PolicyExprs.from_config(table.spec, config)
    return config, table, policy


@cache
def _planned(template: str | None, era: str, semantics: str) -> Plans:
    """The plans, made while every reference evaluation checks the relations the
    coverage proofs assume (tests/check/test_relations.py)."""
    config, table, policy = _setup(template, era, semantics)
    with watching(predicate_relations(Analysis(table))) as broken:
        plans = planned(table, policy, timer_values=config_timers(table.spec, config))
    assert not broken, sorted(set(broken))[:5]
    return plans


def _check_coverage(template: str | None, era: str, semantics: str) -> None:
    config, table, policy = _setup(template, era, semantics)
    plans = _planned(template, era, semantics)
    machine, _ = compiled_machine(table)
    reference = reference_machine(table.spec, policy, config_timers(table.spec, config))
    result = search(
        table.spec, policy, machine, reference=reference, plans=plans.traces,
        max_examples=len(plans.traces),
    )  # fmt: skip
    assert result.examples == len(plans.traces)
    crosscheck = [c for c in result.counterexamples if c.name == "reference-crosscheck"]
    assert not crosscheck, crosscheck[0].message
    seen: dict[tuple[str, int], set[str]] = {}
    for rid, index, tv in result.coverage.outcomes:
        seen.setdefault((rid, index), set()).add("T" if tv == "T" else "notT")
    missing: dict[str, str] = {}
    for goal in plans.goals:
        if goal.kind == "fire":
            done = goal.row in result.coverage.fired
        else:
            done = goal.outcome in seen.get((goal.row, goal.trigger), set())
        if done:
            continue
        kind = plans.kinds.get(goal, "covered by the plan, not by the compiled machine")
        if kind not in PROVED:
            missing[goal.describe()] = f"{kind}: {plans.reasons.get(goal, '')}"
    assert not missing, json.dumps(missing, indent=1)


@pytest.mark.parametrize(("template", "era", "semantics"), FAST)
def test_planned_traces_cover_every_live_goal(
    template: str | None, era: str, semantics: str
) -> None:
    _check_coverage(template, era, semantics)


@pytest.mark.slow
@pytest.mark.parametrize(("template", "era", "semantics"), SLOW)
def test_planned_traces_cover_every_live_goal_of_every_template(
    template: str, era: str, semantics: str
) -> None:
    _check_coverage(template, era, semantics)


def test_desktop_reaches_suspension_unretirement_and_preempting_claims() -> None:
    """The rows issue 12 found never fired with random traces (current era, manual)."""
    plans = _planned("Desktop", "htcondor-current", "manual")
    wanted = {"15", "16", "17", "20", "23", "24"}
    wanted |= {"unnumbered:release@Claimed/Suspended", "unnumbered:kill_claim@Claimed/Idle"}
    assert {Goal("fire", r) for r in wanted} <= plans.covered
    # Since the startd evaluates on entering a Retiring activity (reference 3.1), a
    # Desktop slot (MaxJobRetirementTime 0) leaves Drained/Retiring and Claimed/Retiring
    # in the instant it enters them: 35 and 19 cannot fire, and the planner says why.
    assert plans.kinds[Goal("fire", "35")] == "never"  # a proof, not an observation
    assert "leaves Drained/Retiring in the instant it enters" in plans.reasons[Goal("fire", "35")]
    assert plans.kinds[Goal("fire", "19")] in EXPLAINED


def test_a_planned_trace_replays_as_a_trace_file() -> None:
    plans = _planned("Desktop", "htcondor-current", "manual")
    for trace in plans.traces:
        again = read_trace("<planned>", dump_trace(trace))
        assert again.to_dict() == trace.to_dict()
        assert [s.t for s in trace.steps] == sorted(s.t for s in trace.steps)


def test_planned_traces_count_within_the_example_budget() -> None:
    _, table, policy = _setup("Desktop", "htcondor-current", "manual")
    plans = _planned("Desktop", "htcondor-current", "manual")
    machine, _ = compiled_machine(table)
    result = search(table.spec, policy, machine, plans=plans.traces, max_examples=3)
    assert result.examples == 3
    result = search(table.spec, policy, machine, plans=plans.traces[:2], max_examples=6, seed=1)
    assert result.examples == 6  # two planned, four from hypothesis


def test_a_counterexample_on_a_planned_trace_is_shrunk_and_replays() -> None:
    """Suspend and continue guards swapped (test_crosscheck's mutation): the planned
    traces catch it at once, and the trace reported is short."""
    from tests.check.test_crosscheck import swap_guards

    config, table, policy = _setup("Desktop", "htcondor-current", "manual")
    plans = _planned("Desktop", "htcondor-current", "manual")
    broken = swap_guards(table, "14", "15")
    machine, _ = compiled_machine(broken)
    reference = reference_machine(table.spec, policy, config_timers(table.spec, config))
    result = search(
        table.spec, policy, machine, reference=reference, plans=plans.traces,
        max_examples=len(plans.traces), builtins=False,
    )  # fmt: skip
    cx = next(c for c in result.counterexamples if c.name == "reference-crosscheck")
    assert len(cx.trace.steps) <= 8
    again = read_trace("<counterexample>", dump_trace(cx.trace))
    assert again.to_dict() == cx.trace.to_dict()


# -- shrinking and variation ---------------------------------------------------------------

EVENTS = ("match", "claim", "activate", "release", "job_exit")


@settings(max_examples=40)
@given(st.lists(st.sampled_from(EVENTS), min_size=2, max_size=25))
def test_shrink_trace_keeps_only_what_the_failure_needs(names: list[str]) -> None:
    """The failure: an `activate` followed later by a `release`. Shrinking keeps exactly
    two steps, in order, and never returns a trace that does not fail."""

    def fails(trace: Trace) -> bool:
        seen = [s.event for s in trace.steps]
        return "activate" in seen and "release" in seen[seen.index("activate") :]

    trace = Trace("<t>", tuple(Step(i, "event", n) for i, n in enumerate(names)))
    if not fails(trace):
        trace = replace(trace, steps=(*trace.steps, Step(98, "event", "activate"),
                                      Step(99, "event", "release")))  # fmt: skip

    def examine(t: Trace) -> list[Counterexample]:
        return [Counterexample("p", "m", t, (), 0)] if fails(t) else []

    shrunk = shrink_trace(Counterexample("p", "m", trace, (), 0), examine)
    assert fails(shrunk.trace)
    assert [s.event for s in shrunk.trace.steps] == ["activate", "release"]


@settings(max_examples=30)
@given(st.data())
def test_varied_traces_are_trace_files_close_to_a_plan(data: st.DataObject) -> None:
    _, _, policy = _setup("Desktop", "htcondor-current", "manual")
    plans = _planned("Desktop", "htcondor-current", "manual")
    from compiler.classad import unparse

    values = sensor_values({k: unparse(e) for k, e in policy.exprs.items()})
    trace = data.draw(varied(plans.traces, values))
    again = read_trace("<varied>", dump_trace(trace))
    assert again.to_dict() == trace.to_dict()
    times = [s.t for s in trace.steps]
    assert times == sorted(times)
    events = [s.event for s in trace.steps if s.kind == "event"]
    assert any(
        _subsequence(events, [s.event for s in p.steps if s.kind == "event"]) for p in plans.traces
    )


def _subsequence(small: list[str | None], big: list[str | None]) -> bool:
    it = iter(big)
    return all(x in it for x in small)


def test_check_json_keeps_the_coverage_keys_and_gives_reasons() -> None:
    from runtime.check.report import check_policy

    config, _, _ = _setup("Desktop", "htcondor-current", "code")
    report = check_policy(
        config, era="htcondor-current", semantics="code", source="t", max_examples=40
    )
    cov = report.to_dict()["dynamic"]["coverage"]
    for key in ("traces", "transitions_fired", "transitions_live", "transitions_total",
                "never_fired_live", "guards_total", "guards_evaluated",
                "guards_true_and_not_true", "guard_outcomes"):  # fmt: skip
        assert key in cov
    assert set(cov["never_fired_reasons"]) == set(cov["never_fired_live"])
    assert all(cov["never_fired_reasons"].values())
    assert (
        cov["guards_live_true_and_not_true"]
        + len({k.rpartition(" ")[0] for k in cov["guards_not_seen_both"]})
        >= cov["guards_live"]
    )
