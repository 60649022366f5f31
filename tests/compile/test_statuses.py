"""`compile`, `diagram` and `check` agree on what can happen under a policy.

For every shipped POLICY template and each era's default policy, in both semantics:
* a row out of a pair that `check`'s static analysis (compiler.analysis, its own
  satisfiability proofs per trigger) finds unreachable is "dead" in the compiled table,
  and the analysis reaches exactly the pairs the table's live rows reach;
* the diagram greys exactly the pairs the table cannot reach, and draws each row's edge
  with the row's status;
* a row (that can fire) is "always" exactly when the analysis proves its combined policy
  guard never FALSE, UNDEFINED or ERROR in its pair (check's always-transition finding);
* a row whose every trigger has a guard that simplifies to `false` is "dead"; a row whose
  combined policy guard simplifies to `true` is "always".
The analysis decides reachability from its own proofs, not from the row statuses, so a
status that disagreed with it would fail here.
"""

from __future__ import annotations

import pytest

from compiler.analysis import Analysis, reachable_pairs
from compiler.config import all_templates, load_config
from compiler.diagram import extract
from compiler.errors import PolicyError
from compiler.policy import compile_policy
from compiler.policy import reachable_pairs as compiled_reach
from compiler.spec import ERAS, SEMANTICS
from compiler.table import StateTable
from tests.oracle import classad2
from tests.paths import shared_path

#: Templates that need arguments to be used at all (HTCondor refuses them bare).
_NEEDS_ARGUMENTS = {"preempt_if", "want_hold_if"}


def _policies() -> list[str | None]:
    names = sorted(t.name for t in all_templates().get("POLICY", {}).values())
    return [None, *(n for n in names if n.lower() not in _NEEDS_ARGUMENTS)]


#: The policies whose "always" rows are compared with the analysis in the quick run.
_ALWAYS_QUICK = (None, "Desktop", "UWCS_Desktop", "Always_Run_Jobs")

CASES = [
    pytest.param(era, semantics, policy, id=f"{era}-{semantics}-{policy or 'default'}")
    for era in ERAS
    for semantics in SEMANTICS
    for policy in _policies()
]


def _table(era: str, semantics: str, policy: str | None) -> StateTable:
    config = None if policy is None else load_config(text=f"use POLICY : {policy}\n", era=era)
    return compile_policy(config, era, semantics)


@pytest.mark.parametrize(("era", "semantics", "policy"), CASES)
def test_compile_diagram_and_check_agree(era: str, semantics: str, policy: str | None) -> None:
    table = _table(era, semantics, policy)
    analysis = Analysis(table)
    by_check = frozenset(reachable_pairs(analysis))
    _check_and_compile_agree(table, by_check)
    if policy in _ALWAYS_QUICK:  # every template: the slow test below
        _always_agrees(table, analysis)
    _diagram_draws_the_table(table, by_check)
    _literal_guards_decide_the_status(table)


def _check_and_compile_agree(table: StateTable, by_check: frozenset[tuple[str, str]]) -> None:
    by_table = {(p.state, p.activity) for p in compiled_reach(table.spec, table.rows)}
    assert by_table == by_check, sorted(by_table ^ by_check)
    for row in table.rows:
        if row.source not in by_check:
            assert row.status == "dead", f"row {row.id} out of unreachable {row.source}"


def _always_agrees(table: StateTable, analysis: Analysis) -> None:
    """A combined policy guard is "always" exactly when the analysis proves it never
    FALSE, UNDEFINED or ERROR in its pair (check's always-transition finding)."""
    for row in table.rows:
        if row.guard is None or row.status == "dead":
            continue
        proof = analysis.sat(row.guard.expr, analysis.assume(row.source), want=("F", "U", "E"))
        assert (proof.verdict == "unsat") == (row.guard.status == "always"), row.id
        assert (row.status == "always") == (row.guard.status == "always"), row.id


def _diagram_draws_the_table(table: StateTable, by_check: frozenset[tuple[str, str]]) -> None:
    diagram = extract(table.spec, table, unnumbered=True)
    reached = {f"{s}/{a}" for s, a in by_check}
    for node in diagram.nodes:
        assert node.reachable == (node.id in reached), node.id
    statuses = {row.id: row.status for row in table.rows}
    for edge in diagram.edges:
        if edge.key in statuses:
            assert edge.status == statuses[edge.key], edge.key


def _literal_guards_decide_the_status(table: StateTable) -> None:
    for row in table.rows:
        guards = [g for g in row.triggers if g is not None]
        every_false = all(g.simplified == "false" for g in guards)
        if row.transition.triggers and len(guards) == len(row.triggers) and every_false:
            assert row.status == "dead", row.id
        if row.guard is not None and row.guard.simplified == "true" and row.status != "dead":
            assert row.status == "always", row.id


def test_ospool_pilot_rows_8_and_10_are_always_under_the_manual() -> None:
    """The OSPool pilot's START reads `!isUndefined(TARGET.ProjectName)`: evaluated
    locally (the manual's rows 8 and 10, seed 002) it is FALSE, so `START =?= false`
    holds whenever it is evaluated. The htcondor wheel agrees on a slot ad of this
    configuration (no job ad; OSG_NODE_VALIDATED is not published by it)."""
    path = shared_path("realworld-configs", "osgvo-docker-pilot-main.config")
    config = load_config(path)
    table = compile_policy(config, "htcondor-current", "manual")
    for number in ("8", "10"):
        row = table.row(number)
        assert row.status == "always" and row.policy_status == "always", number
    start = config.get("START")
    assert start is not None
    ad = classad2.ClassAd({"State": "Claimed", "Activity": "Idle", "KeyboardIdle": 0})
    assert classad2.ExprTree(f"({start}) =?= false").eval(ad) is True
    # The code semantics evaluates START against the claim's job: not always there.
    assert compile_policy(config, "htcondor-current", "code").row("10").status == "live"


#: The cases whose "always" rows test_compile_diagram_and_check_agree does not compare.
_ALWAYS_SLOW = [case for case in CASES if case.values[2] not in _ALWAYS_QUICK]


@pytest.mark.slow
@pytest.mark.parametrize(("era", "semantics", "policy"), _ALWAYS_SLOW)
def test_always_agrees_for_every_template(era: str, semantics: str, policy: str | None) -> None:
    table = _table(era, semantics, policy)
    _always_agrees(table, Analysis(table))


@pytest.mark.slow
@pytest.mark.parametrize("semantics", SEMANTICS)
def test_agreement_on_the_real_world_configurations(semantics: str) -> None:
    """The same agreement on every real configuration HTCondor loads (../shared)."""
    checked = 0
    for path in sorted(shared_path("realworld-configs").glob("*.conf*")):
        try:
            table = compile_policy(load_config(path), "htcondor-current", semantics)
        except PolicyError:  # SOURCES.md: HTCondor refuses these as well
            continue
        analysis = Analysis(table)
        _check_and_compile_agree(table, frozenset(reachable_pairs(analysis)))
        _always_agrees(table, analysis)
        _literal_guards_decide_the_status(table)
        checked += 1
    assert checked >= 25
