"""Hierarchical group quotas (issue 14): seed 003 3.4.8's four examples with the seed's
numbers (`--semantics manual`) and the code's (reference/pool.md 2.3's table, D5, D6,
D19), and properties of the allocation (never more than the pool, never more than a group
asked for, surplus only where a group accepts it).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.cli import main
from runtime.pool import quota_report

PHYSICS = """GROUP_NAMES = group_physics, group_physics.experiment1, group_physics.experiment2
GROUP_QUOTA_group_physics = 100
GROUP_QUOTA_group_physics.experiment1 = 20
GROUP_QUOTA_group_physics.experiment2 = 70
"""
CHEMISTRY = """GROUP_NAMES = group_chemistry, group_chemistry.lab1, group_chemistry.lab2
GROUP_QUOTA_group_chemistry = 100
GROUP_QUOTA_group_chemistry.lab1 = 40
GROUP_QUOTA_group_chemistry.lab2 = 80
"""
ECON = """GROUP_NAMES = group_econ, group_econ.project1, group_econ.project2, group_econ.project3
GROUP_QUOTA_DYNAMIC_group_econ = .6
GROUP_QUOTA_DYNAMIC_group_econ.project1 = .2
GROUP_QUOTA_DYNAMIC_group_econ.project2 = .15
GROUP_QUOTA_DYNAMIC_group_econ.project3 = .2
"""
STAT = """GROUP_NAMES = group_stat, group_stat.project1, group_stat.project2, group_stat.project3
GROUP_QUOTA_DYNAMIC_group_stat = .5
GROUP_QUOTA_DYNAMIC_group_stat.project1 = .4
GROUP_QUOTA_DYNAMIC_group_stat.project2 = .3
GROUP_QUOTA_DYNAMIC_group_stat.project3 = .4
"""
NO_OVERSUBSCRIPTION = "NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION = False\n"


def _quotas(config: str, semantics: str, total: float = 100) -> dict[str, float]:
    report = quota_report({"config": config, "total_slots": total}, semantics=semantics)
    return {name: row["quota"] for name, row in report.items()}


def _close(got: dict[str, float], want: dict[str, float]) -> bool:
    return got.keys() == want.keys() and all(
        math.isclose(got[k], want[k], rel_tol=1e-12, abs_tol=1e-9) for k in want
    )


# The seed's numbers (3.4.8): "the unused quota of 10 machines is assigned to the
# group_physics submitters"; chemistry scaled by 100/120 then truncated, "fractional
# remainders ... summed and assigned to the next higher level"; econ 12, 9, 12 and 60-33=27;
# stat 18, 13, 18 and "the 0.1818 + .6364 + .1818 = 1.0 remaining machine" to group_stat.
SEED = {
    "physics": (PHYSICS, {"<none>": 0, "group_physics": 10, "group_physics.experiment1": 20,
                          "group_physics.experiment2": 70}),
    "chemistry": (CHEMISTRY, {"<none>": 0, "group_chemistry": 1, "group_chemistry.lab1": 33,
                              "group_chemistry.lab2": 66}),
    "econ": (ECON, {"<none>": 40, "group_econ": 27, "group_econ.project1": 12,
                    "group_econ.project2": 9, "group_econ.project3": 12}),
    "stat": (STAT, {"<none>": 50, "group_stat": 1, "group_stat.project1": 18,
                    "group_stat.project2": 13, "group_stat.project3": 18}),
}  # fmt: skip

# reference/pool.md 2.3: the code with NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION = False
CODE_STRICT = {
    "physics": {"<none>": 0, "group_physics": 10, "group_physics.experiment1": 20,
                "group_physics.experiment2": 70},
    "chemistry": {"<none>": 0, "group_chemistry": 0, "group_chemistry.lab1": 100 * 40 / 120,
                  "group_chemistry.lab2": 100 * 80 / 120},
    "econ": {"<none>": 40, "group_econ": 27, "group_econ.project1": 12,
             "group_econ.project2": 9, "group_econ.project3": 12},
    "stat": {"<none>": 50, "group_stat": 0, "group_stat.project1": 0.4 * (50 / 1.1),
             "group_stat.project2": 0.3 * (50 / 1.1), "group_stat.project3": 0.4 * (50 / 1.1)},
}  # fmt: skip

# D5/D19, the code's default (oversubscription on): static children not scaled, a non-root
# parent keeps its whole incoming quota
CODE_DEFAULT = {
    "physics": {"<none>": 0, "group_physics": 100, "group_physics.experiment1": 20,
                "group_physics.experiment2": 70},
    "chemistry": {"<none>": 0, "group_chemistry": 100, "group_chemistry.lab1": 40,
                  "group_chemistry.lab2": 80},
    "econ": {"<none>": 40, "group_econ": 60, "group_econ.project1": 12,
             "group_econ.project2": 9, "group_econ.project3": 12},
    "stat": {"<none>": 50, "group_stat": 50, "group_stat.project1": 0.4 * (50 / 1.1),
             "group_stat.project2": 0.3 * (50 / 1.1), "group_stat.project3": 0.4 * (50 / 1.1)},
}  # fmt: skip


@pytest.mark.parametrize("example", sorted(SEED))
def test_the_seeds_four_examples_in_both_readings(example: str) -> None:
    config, seed = SEED[example]
    assert _close(_quotas(config, "manual"), seed)
    assert _close(_quotas(config + NO_OVERSUBSCRIPTION, "code"), CODE_STRICT[example])
    assert _close(_quotas(config, "code"), CODE_DEFAULT[example])


def test_d6_stat_limits_are_truncated_and_the_surplus_reaches_group_stat() -> None:
    """reference 2.6: with the projects asking for exactly 18, 13, 18 their fractions are
    surplus inside group_stat, which its own submitters receive (allocation ~1, limit 1)."""
    demand = {"group_stat.project1": 18, "group_stat.project2": 13, "group_stat.project3": 18,
              "group_stat": 5}  # fmt: skip
    report = quota_report(
        {"config": STAT + NO_OVERSUBSCRIPTION, "total_slots": 100, "demand": demand},
        semantics="code",
    )
    assert [report[f"group_stat.project{k}"]["limit"] for k in (1, 2, 3)] == [18, 13, 18]
    assert math.isclose(report["group_stat"]["allocation"], 1.0, rel_tol=1e-9)
    assert report["group_stat"]["limit"] == 1


def test_the_root_negotiates_last_and_the_least_served_group_first() -> None:
    usage = {"group_econ.project1": 6, "group_econ.project2": 9}
    report = quota_report({"config": ECON, "total_slots": 100, "usage": usage}, semantics="code")
    order = sorted(report, key=lambda g: report[g]["order"])
    assert order[-1] == "<none>"
    # usage/quota: econ 0/60, project3 0/12, project1 6/12, project2 9/9
    assert order.index("group_econ.project1") < order.index("group_econ.project2")
    assert order.index("group_econ.project3") < order.index("group_econ.project1")


GROUPS = ["a", "a.x", "a.y", "b"]


@settings(max_examples=60, deadline=None)
@given(
    total=st.integers(0, 200),
    quotas=st.lists(st.one_of(st.integers(0, 120), st.floats(0, 1)), min_size=4, max_size=4),
    demand=st.lists(st.integers(0, 150), min_size=5, max_size=5),
    accept=st.lists(st.booleans(), min_size=4, max_size=4),
    semantics=st.sampled_from(["code", "manual"]),
    oversubscribe=st.booleans(),
    weighted=st.booleans(),
)
def test_allocations_respect_the_pool_the_demand_and_surplus_rules(
    total: int,
    quotas: list[float],
    demand: list[int],
    accept: list[bool],
    semantics: str,
    oversubscribe: bool,
    weighted: bool,
) -> None:
    lines = [f"GROUP_NAMES = {', '.join(GROUPS)}",
             f"NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION = {oversubscribe}",
             f"NEGOTIATOR_USE_SLOT_WEIGHTS = {weighted}"]  # fmt: skip
    for name, quota, takes in zip(GROUPS, quotas, accept, strict=True):
        knob = "GROUP_QUOTA" if isinstance(quota, int) else "GROUP_QUOTA_DYNAMIC"
        lines += [f"{knob}_{name} = {quota}", f"GROUP_ACCEPT_SURPLUS_{name} = {takes}"]
    asks = dict(zip(["<none>", *GROUPS], demand, strict=True))
    report = quota_report(
        {"config": "\n".join(lines) + "\n", "total_slots": total, "demand": asks},
        semantics=semantics,
    )
    allocated = {g: row["allocation"] for g, row in report.items()}
    if not weighted and semantics == "code":  # D7: whole slots only
        assert all(a == int(a) for a in allocated.values()), allocated
    if not oversubscribe:  # D5: with oversubscription the limits hold subtrees, not this
        assert sum(allocated.values()) <= total + 1e-6  # never more than the pool
    for group, row in report.items():
        assert -1e-9 <= row["allocation"] <= asks[group] + 1e-6  # never more than asked
        assert row["limit"] >= 0 and row["order"] >= 1
        # no limit above the quota of itself or an ancestor refusing surplus (strict
        # enforcement; nothing is in use here)
        node = group
        while node != "<none>":
            index = GROUPS.index(node)
            if not accept[index]:
                quota = quotas[index]
                cap = quota if isinstance(quota, int) else report[node]["subtree_quota"]
                assert row["limit"] <= cap + 1e-6, (group, node)
            node = node.rpartition(".")[0] or "<none>"
    for group, takes in zip(GROUPS, accept, strict=True):
        parent = group.rpartition(".")[0] or "<none>"
        if not takes and parent == "<none>" and not oversubscribe:
            # surplus only where accepted: a top-level group refusing it shares only its
            # own subtree's leftovers (pool.md 2.4), never its siblings' or the root's
            subtree = sum(
                a for g, a in allocated.items() if g == group or g.startswith(group + ".")
            )
            assert subtree <= report[group]["subtree_quota"] + 1e-6


def test_quotas_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "quotas.yaml"
    path.write_text(
        json.dumps({"config": STAT, "total_slots": 100, "demand": {"group_stat.project2": 20}})
    )
    assert main(["quotas", str(path), "--format", "json", "--semantics", "manual"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["group_stat"]) == {"quota", "subtree_quota", "allocation", "limit", "order"}
    assert report["group_stat.project2"]["quota"] == 13
    assert main(["quotas", str(path)]) == 0
    assert "group_stat.project2" in capsys.readouterr().out
    bad = tmp_path / "bad.yaml"
    bad.write_text("total_slots: 10\ndemand: {nosuch: 3}\n")
    assert main(["quotas", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "no group 'nosuch'" in err and "Traceback" not in err


UNWEIGHTED = "NEGOTIATOR_USE_SLOT_WEIGHTS = False\n"
OVER_DEMANDED = {"group_stat.project1": 100, "group_stat.project2": 100,
                 "group_stat.project3": 100}  # fmt: skip


@pytest.mark.parametrize("stat_demand", [5, 0])
def test_d7_unweighted_slots_hand_the_remainders_out_by_round_robin(stat_demand: int) -> None:
    """reference 2.5/D7, every project over-demanded: the code floors the projects'
    allocations to 18, 13, 18; their fractions sum to 1.0000000000000018 >= 1, so one whole
    slot goes by round robin to group_stat itself when its own submitters ask (the projects
    do not accept surplus), to nobody otherwise. The seed: 18/13/18 and "the 0.1818 + .6364
    + .1818 = 1.0 remaining machine" to group_stat as its quota."""
    demand = {**OVER_DEMANDED, "group_stat": stat_demand}
    document = {"config": STAT + NO_OVERSUBSCRIPTION + UNWEIGHTED, "total_slots": 100,
                "demand": demand}  # fmt: skip
    code = quota_report(document, semantics="code")
    assert [code[f"group_stat.project{k}"]["allocation"] for k in (1, 2, 3)] == [18, 13, 18]
    assert [code[f"group_stat.project{k}"]["limit"] for k in (1, 2, 3)] == [18, 13, 18]
    assert code["group_stat"]["allocation"] == (1 if stat_demand else 0)
    assert code["group_stat"]["quota"] == 0  # the slot is surplus, not quota
    # weighted slots (the default): no rounding, the fractions stay where they fell
    weighted = quota_report({**document, "config": STAT + NO_OVERSUBSCRIPTION}, semantics="code")
    assert math.isclose(weighted["group_stat.project2"]["allocation"], 0.3 * 50 / 1.1)
    manual = quota_report(document, semantics="manual")
    assert [manual[f"group_stat.project{k}"]["quota"] for k in (1, 2, 3)] == [18, 13, 18]
    assert manual["group_stat"]["quota"] == 1


def test_round_robin_serves_the_larger_subtree_quota_first() -> None:
    """The projects accept surplus and ask for more than their quotas, the root asks for
    exactly its 50: the only surplus is the projects' fractions, 1.0000000000000018, one
    whole slot. A pass gives each asker at most max(1, floor(1 / 3)) = 1, larger subtree
    quota first (project1 and project3, 18.18, before project2, 13.6; equal keys in tree
    order) and stops when the surplus is below that: project1 gets it."""
    config = STAT + NO_OVERSUBSCRIPTION + UNWEIGHTED + "GROUP_ACCEPT_SURPLUS = True\n"
    demand = {**OVER_DEMANDED, "<none>": 50}
    report = quota_report(
        {"config": config, "total_slots": 100, "demand": demand}, semantics="code"
    )
    got = [report[f"group_stat.project{k}"]["allocation"] for k in (1, 2, 3)]
    assert got == [19, 13, 18]
    assert report["group_stat"]["allocation"] == 0
    assert report["<none>"]["allocation"] == 50
