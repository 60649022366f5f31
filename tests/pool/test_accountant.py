"""The accountant (issue 14): seed 003 3.4's numbers, and where HEAD's Accountant.cpp
differs (shared/reference/pool.md section 1; D1, D2, D3, D17, D20 of section 5), in both
semantics. Expected values are the seed's and the reference's arithmetic, not the code's.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.cli import main
from runtime.pool import (
    FactorKnobs,
    decay,
    effective_priority,
    facts,
    priority_factor,
    read_history,
    replay_history,
)

DAY = 86400.0
CODE, MANUAL = facts("code"), facts("manual")


def test_seed_rup_10_halves_every_half_life() -> None:
    # seed 003 3.4.1: "a user whose RUP was 10 removes all his jobs, the user's RUP would be
    # 5 one day later, 2.5 two days later, and so on"
    for known in (CODE, MANUAL):
        one = decay(10.0, 0.0, DAY, DAY, known)
        two = decay(one, 0.0, DAY, DAY, known)
        assert (one, two) == (5.0, 2.5)


def test_d1_the_code_never_goes_below_one_half() -> None:
    seen_code, seen_manual = [10.0], [10.0]
    for _ in range(6):
        seen_code.append(decay(seen_code[-1], 0.0, DAY, DAY, CODE))
        seen_manual.append(decay(seen_manual[-1], 0.0, DAY, DAY, MANUAL))
    assert seen_code == [10, 5, 2.5, 1.25, 0.625, 0.5, 0.5]
    assert seen_manual == [10, 5, 2.5, 1.25, 0.625, 0.3125, 0.15625]
    # fractional usage below 0.5 settles at 0.5 in the code, at the usage in the seed
    assert decay(0.5, 0.25, 100 * DAY, DAY, CODE) == 0.5
    assert math.isclose(decay(0.5, 0.25, 100 * DAY, DAY, MANUAL), 0.25)


def test_a_zero_or_negative_interval_changes_nothing() -> None:
    for known in (CODE, MANUAL):
        assert decay(7.0, 100.0, 0, DAY, known) == 7.0
        assert decay(7.0, 100.0, -5, DAY, known) == 7.0


@settings(max_examples=60, deadline=None)
@given(
    rup=st.floats(0.5, 1e4),
    usage=st.floats(0.5, 1e4),
    a=st.floats(1, 10 * DAY),
    b=st.floats(1, 10 * DAY),
    semantics=st.sampled_from(["code", "manual"]),
)
def test_two_steps_equal_one_step_under_constant_usage(
    rup: float, usage: float, a: float, b: float, semantics: str
) -> None:
    """Seed 3.4.4: the update over a+b equals the update over a then over b
    (0.5^(a/h) 0.5^(b/h) = 0.5^((a+b)/h)); above 0.5 the code's clamp never bites."""
    known = facts(semantics)
    twice = decay(decay(rup, usage, a, DAY, known), usage, b, DAY, known)
    once = decay(rup, usage, a + b, DAY, known)
    assert math.isclose(twice, once, rel_tol=1e-9, abs_tol=1e-9)
    # and the RUP moves towards the usage, never past it
    assert min(rup, usage) - 1e-9 <= once <= max(rup, usage) + 1e-9


def test_steady_state_rup_is_the_usage() -> None:
    for known in (CODE, MANUAL):
        assert math.isclose(decay(0.5, 3.0, 60 * DAY, DAY, known), 3.0, rel_tol=1e-12)


def test_d17_eup_of_a_rup_below_one_half() -> None:
    assert effective_priority(0.25, 2.0, MANUAL) == 0.5
    assert effective_priority(0.25, 2.0, CODE) == 1.0
    assert effective_priority(5.0, 2.0, CODE) == effective_priority(5.0, 2.0, MANUAL) == 10.0


def test_d2_d3_factors() -> None:
    none = FactorKnobs()
    assert priority_factor("u@x", None, none, CODE) == 1000.0  # DEFAULT_PRIO_FACTOR, 8.2+
    assert priority_factor("u@x", None, none, MANUAL) == 1.0  # "the priority factor ... is 1.0"
    assert priority_factor("u@x", 0.5, none, CODE) == 1.0  # SetPriorityFactor keeps >= 1
    assert priority_factor("u@x", 0.5, none, MANUAL) == 0.5
    assert priority_factor("u@x", None, FactorKnobs(default_prio_factor=10.0), CODE) == 10.0


def test_d20_nice_users_remote_users_and_groups() -> None:
    none = FactorKnobs()
    for known in (CODE, MANUAL):
        assert priority_factor("nice-user.ann@x", None, none, known) == 1e10
    local = FactorKnobs(accountant_local_domain="cs.wisc.edu")
    # the code boosts remote users by REMOTE_PRIO_FACTOR's default (1e7) once a local
    # domain is set; the seed only "if configured"
    assert priority_factor("u@elsewhere.org", None, local, CODE) == 1e7
    assert priority_factor("u@elsewhere.org", None, local, MANUAL) == 1.0
    configured = FactorKnobs(remote_prio_factor=50.0, accountant_local_domain="cs.wisc.edu")
    assert priority_factor("u@elsewhere.org", None, configured, MANUAL) == 50.0
    assert priority_factor("u@cs.wisc.edu", None, configured, CODE) == 1000.0
    group = FactorKnobs(group_prio_factors={"group_physics": 3.0})
    assert priority_factor("group_physics.u@x", None, group, CODE, group="group_physics") == 3.0


def test_history_replays_each_step(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "history.yaml"
    path.write_text(
        "half_life: 86400\n"
        "initial: {alice@x: 10}\n"
        "factors: {bob@x: 2}\n"
        "steps:\n  - {dt: 86400, in_use: {}}\n  - {dt: 86400, in_use: {bob@x: 4}}\n"
        "config: 'DEFAULT_PRIO_FACTOR = 1'\n"
    )
    assert main(["userprio", str(path), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"rup", "eup", "factor"}
    assert out["rup"]["alice@x"] == [5.0, 2.5]
    # bob starts at 0.5 (3.4.1); no usage then 4 slots: code 0.5 (floor), 0.5/2 + 4/2
    assert out["rup"]["bob@x"] == [0.5, 2.25]
    assert out["eup"]["bob@x"] == [1.0, 4.5] and out["factor"] == {"alice@x": 1.0, "bob@x": 2.0}
    assert main(["userprio", str(path), "--format", "json", "--semantics", "manual"]) == 0
    manual = json.loads(capsys.readouterr().out)
    assert manual["rup"]["bob@x"] == [0.25, 2.125]
    assert main(["userprio", str(path)]) == 0
    text = capsys.readouterr().out
    assert text.index("alice@x") < text.index("bob@x")  # sorted by effective priority
    assert "Number of users: 2" in text


def test_half_life_from_the_configuration() -> None:
    history = read_history(
        {
            "steps": [{"dt": 3600, "in_use": {}}],
            "initial": {"u": 8},
            "config": "PRIORITY_HALFLIFE = 3600",
        },
        CODE,
    )
    assert history.half_life == 3600
    assert replay_history(history, CODE).rup["u"] == (4.0,)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("steps: 3\n", "'steps' must be a list"),
        ("steps: [{in_use: {}}]\n", "steps[0] must be a mapping with 'dt'"),
        ("steps: [{dt: x}]\n", "steps[0].dt must be a number"),
        ("steps: []\nfactors: {u: high}\n", "factors.u must be a number"),
        ("steps: []\nhalflife: 3\n", "unknown key 'halflife'"),
    ],
)
def test_bad_histories_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    assert main(["userprio", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and str(path) in err and "Traceback" not in err


def test_d18_group_records() -> None:
    """D18: the code keeps a record per HGQ group under the bare group name (the root
    `<none>` too), charged with the usage of the submitters assigned to it; a dotless
    `group_physics@example.com` is a plain submitter, charged to the root. The seed shows
    groups only as such submitters: no record of their own."""
    document = {
        "half_life": DAY,
        "config": "GROUP_NAMES = group_physics, group_chem\n",
        "steps": [
            {"dt": DAY, "in_use": {"group_physics.alice@example.com": 4,
                                   "group_physics.bob@example.com": 2,
                                   "group_physics@example.com": 8}},
        ],
        "initial": {},
    }  # fmt: skip
    code = replay_history(read_history(document, CODE), CODE).to_json()["rup"]
    # one half-life from 0.5 towards the usage: 0.5 * 0.5 + 0.5 * usage
    assert code["group_physics"] == [0.25 + 0.5 * 6]
    assert code["<none>"] == [0.25 + 0.5 * 8]
    assert code["group_chem"] == [0.5]  # no usage: stays at the floor
    assert code["group_physics@example.com"] == [0.25 + 0.5 * 8]
    manual = replay_history(read_history(document, MANUAL), MANUAL).to_json()["rup"]
    assert set(manual) == {
        "group_physics.alice@example.com",
        "group_physics.bob@example.com",
        "group_physics@example.com",
    }
