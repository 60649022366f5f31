"""No false alarms: a witness is a slot ad the startd can publish (the relations between
attributes it guarantees, docs/findings.md), checked with the HTCondor oracle; standard
attribute names are known; a property naming an attribute no ad has is an error."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler.analysis import Analysis, analyse
from compiler.classad import ast as A
from compiler.classad import parse
from compiler.config import load_config
from compiler.policy import compile_policy
from compiler.simplify.domains import STARTD_RELATIONS
from runtime.check.properties import PropertiesError, parse_properties
from runtime.check.report import ad_names
from tests.simplify.helpers import oracle_eval

RELATION = "CondorLoadAvg <= LoadAvg"


@cache
def analysis(text: str = "", era: str = "htcondor-current") -> Analysis:
    config = load_config(text=text, era=era)
    return Analysis(compile_policy(config, era, "code"))


def _plain(ad: dict[str, Any]) -> dict[str, Any]:
    from compiler.classad.values import ERROR, UNDEFINED

    return {
        k: UNDEFINED if isinstance(v, A.UndefinedLit) else ERROR if isinstance(v, A.ErrorLit) else v
        for k, v in ad.items()
    }


def oracle_true(text: str, my: dict[str, Any], target: dict[str, Any] | None = None) -> bool:
    return oracle_eval(parse(text), _plain(my), _plain(target or {})) == ("bool", True)


def test_the_load_relation_is_the_one_documented() -> None:
    assert [r.text for r in STARTD_RELATIONS] == [RELATION]
    assert all("src/condor_startd.V6/" in r.citation for r in STARTD_RELATIONS)


def test_htcondor_load_above_the_total_is_no_witness() -> None:
    """Plain satisfiability finds CondorLoadAvg > LoadAvg; no startd publishes it."""
    from compiler.analysis import satisfiable

    guard = parse("CondorLoadAvg > LoadAvg + 0.2")
    assert satisfiable(guard).verdict == "sat"  # the domains alone allow it
    assert analysis().sat(guard).verdict != "sat"


@settings(max_examples=60, deadline=None)
@given(
    low=st.sampled_from([-1, -0.5, 0, 0.3, 0.5, 1, 2]),
    high=st.sampled_from([0, 0.25, 0.5, 1, 4]),
    idle=st.sampled_from([0, 60, 300, 900]),
    shape=st.sampled_from(
        [
            "LoadAvg - CondorLoadAvg <= {low} && CondorLoadAvg >= {high}",
            "LoadAvg - CondorLoadAvg < {low} || KeyboardIdle < {idle}",
            "CondorLoadAvg > {high} && LoadAvg < {high} + {low} && KeyboardIdle > {idle}",
            "!(LoadAvg - CondorLoadAvg > {low}) && LoadAvg <= {high}",
        ]
    ),
)
@example(
    low=-0.5, high=0.5, idle=0, shape="LoadAvg - CondorLoadAvg < {low} || KeyboardIdle < {idle}"
)
def test_every_witness_satisfies_the_relations(
    low: float, high: float, idle: int, shape: str
) -> None:
    """Whatever the guard, a witness the analysis gives is TRUE for the guard and for the
    load relation, both by the HTCondor oracle (a guard the relation makes impossible
    gets no witness at all)."""
    text = shape.format(low=low, high=high, idle=idle)
    found = analysis().sat(parse(text))
    if found.verdict != "sat":
        return
    assert found.witness is not None
    my, target = found.witness.as_dicts()
    assert oracle_true(text, my, target), (text, found.witness.describe())
    if {"LoadAvg", "CondorLoadAvg"} <= set(my):
        assert oracle_true(RELATION, my), (text, found.witness.describe())


def test_negative_owner_load_cannot_flap() -> None:
    # Flapping here needs KeyboardIdle > 300 (CONTINUE) and an owner load below 0 (the
    # only way SUSPEND holds then): impossible on a real slot.
    text = (
        "WANT_SUSPEND = True\nSUSPEND = (LoadAvg - CondorLoadAvg) < 0 || KeyboardIdle < 60\n"
        "CONTINUE = KeyboardIdle > 300\n"
    )
    config = load_config(text=text)
    found = analyse(compile_policy(config, "htcondor-current", "code"), config)
    assert not [f for f in found if f.code == "flapping"], [f.describe() for f in found]
    # ... while an owner load above the threshold does flap, with a real witness
    text = text.replace("(LoadAvg - CondorLoadAvg) < 0", "(LoadAvg - CondorLoadAvg) > 0.5")
    config = load_config(text=text)
    (flap,) = [
        f
        for f in analyse(compile_policy(config, "htcondor-current", "code"), config)
        if f.code == "flapping"
    ]
    assert flap.witness is not None
    my, _ = flap.witness.as_dicts()
    assert oracle_true(f"({RELATION}) && LoadAvg - CondorLoadAvg > 0.5 && KeyboardIdle > 300", my)


@pytest.mark.parametrize(
    ("cpu_busy", "possible"),
    [("KeyboardIdle < 60", True), ("(LoadAvg - CondorLoadAvg) >= 0.5", False), ("False", False)],
)
def test_6x_cpu_busy_time_counts_only_while_cpu_busy(cpu_busy: str, possible: bool) -> None:
    """6.x: CpuBusyTime > 0 only while the configuration's CpuBusy holds on the same ad
    (V6_8_7 Resource::compute_cpu_busy / cpu_busy_time)."""
    an = analysis(f"CpuBusy = {cpu_busy}\n", "condor-6.8")
    guard = "CpuBusyTime > 120 && LoadAvg - CondorLoadAvg <= 0.3"
    found = an.sat(parse(guard))
    assert (found.verdict == "sat") is possible, found
    if found.witness is not None:
        my, target = found.witness.as_dicts()
        assert oracle_true(f"({guard}) && ({cpu_busy})", my, target), found.witness.describe()


def test_current_latched_cpu_busy_time_is_a_timestamp_without_relation() -> None:
    an = analysis("CpuBusy = KeyboardIdle < 60\n")
    assert an.sat(parse("CpuBusyTime > 120 && KeyboardIdle > 900")).verdict == "sat"


# -- names ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "START = GPUs > 0 && TARGET.RequestGPUs > 0\n",
        "START = !isUndefined(TARGET.ProjectName)\n",
        "START = TotalGPUs >= 1 || DetectedGPUs > 0\n",
    ],
)
def test_standard_attributes_are_known(text: str) -> None:
    config = load_config(text=text)
    found = analyse(compile_policy(config, "htcondor-current", "code"), config)
    assert not [f for f in found if f.code == "unknown-attribute"], [f.describe() for f in found]


def test_a_misspelt_attribute_still_gets_its_suggestion() -> None:
    config = load_config(text="START = KeybordIdle > 900\n")
    (hit,) = [
        f
        for f in analyse(compile_policy(config, "htcondor-current", "code"), config)
        if f.code == "unknown-attribute"
    ]
    assert "KeyboardIdle" in hit.suggestion


def _props(text: str) -> None:
    config = load_config(text="use POLICY : Desktop\n")
    table = compile_policy(config, "htcondor-current", "code")
    parse_properties(text, "p.txt", table.spec, ad_names(table, config))


def test_property_naming_an_unknown_attribute_is_an_error() -> None:
    with pytest.raises(PropertiesError) as err:
        _props("always: Claimed/Busy and KeybordIdle < 60 => leaves Busy within 2 polls\n")
    text = err.value.format()
    assert "p.txt:1:26: unknown attribute 'KeybordIdle'" in text
    assert "did you mean 'KeyboardIdle'?" in text


@pytest.mark.parametrize(
    "text",
    [
        "always: Claimed/Busy and KeyboardIdle < 60 => leaves Busy within 2 polls\n",
        "always: Claimed/Busy and MY.GPUs > 4 => leaves Busy within 2 polls\n",
        'always: Claimed and ProjectName == "x" => avoids Busy\n',
        "always: Claimed and ActivationTimer > 5 => avoids Busy\n",  # a macro of Desktop
    ],
)
def test_properties_may_name_published_and_standard_attributes(text: str) -> None:
    _props(text)
