"""The join rules of compile_policy (compiler/expand.py docstring), one test per rule."""

from __future__ import annotations

import json

import pytest

from compiler import StateTable
from compiler import compile_policy as exported_compile_policy
from compiler.classad import evaluate
from compiler.config import load_config
from compiler.errors import PolicyError
from compiler.policy import compile_policy, policy_differences
from compiler.table import holds

CURRENT = "htcondor-current"


def _table(text: str, era: str = CURRENT, semantics: str = "manual", **kw: object) -> StateTable:
    return compile_policy(load_config(text=text, era=era), era, semantics, **kw)  # type: ignore[arg-type]


def test_package_exports_the_compiler() -> None:
    assert exported_compile_policy is compile_policy
    assert isinstance(compile_policy(era=CURRENT), StateTable)


def test_policy_names_are_replaced_recursively() -> None:
    # PREEMPT refers to SUSPEND and WANT_SUSPEND as slot-ad attributes.
    table = _table(
        "SUSPEND = KeyboardIdle < 60\nWANT_SUSPEND = False\n"
        "PREEMPT = SUSPEND && (WANT_SUSPEND == False)\n"
    )
    row = table.row(13)
    assert "SUSPEND" not in row.guard_text.upper().replace("WANT_SUSPEND", "")
    assert holds(evaluate(row.guard.expr if row.guard else "", {"KeyboardIdle": 5}))
    assert not holds(evaluate(row.guard.expr if row.guard else "", {"KeyboardIdle": 500}))


def test_cycle_is_undefined_and_reported() -> None:
    table = _table("SUSPEND = CONTINUE\nCONTINUE = SUSPEND\nWANT_SUSPEND = True\n")
    assert any("cyclic" in w for w in table.warnings)
    assert table.row(14).status == "dead"  # WANT_SUSPEND && UNDEFINED never holds


def test_aliases_are_case_insensitive() -> None:
    table = _table("isowner = KeyboardIdle < 60\n", era="condor-6.8")
    assert "KeyboardIdle < 60" in table.row(2).simplified


def test_undefined_fatal_knob_is_a_warning_with_d_number() -> None:
    table = _table("START =\n", era="condor-6.8", semantics="code")
    assert any("refuses" in w and "D13" in w for w in table.warnings)
    manual = _table("START =\n", era="condor-6.8", semantics="manual")
    assert not any("refuses" in w and "START" in w for w in manual.warnings)


def test_unparsable_policy_expression_points_at_its_line() -> None:
    with pytest.raises(PolicyError) as err:
        _table("MINUTE = 60\nSTART = (KeyboardIdle >\n")
    assert err.value.line == 2
    assert "START" in err.value.message


def test_local_evaluation_makes_job_attributes_undefined() -> None:
    text = (
        "IS_OWNER = (START =?= False)\n"
        'START = KeyboardIdle > 100 && (TARGET.ImageSize < 10 || Owner == "x" || MadeUp > 1)\n'
    )
    table = _table(text)
    row2 = table.row(2)  # IS_OWNER, evaluated locally
    assert "ImageSize" not in row2.guard_text and "Owner" not in row2.guard_text
    assert "undefined" in row2.guard_text
    assert any("MadeUp" in w and "Owner" not in w.split(":")[-1] for w in table.warnings)
    # The claim (against the job) keeps them.
    claim = table.row(5).triggers[0]
    assert claim is not None and "TARGET.ImageSize" in claim.expanded


def test_local_evaluation_my_attribute_the_slot_ad_lacks_is_undefined() -> None:
    """`MY.x` never falls back to the job: locally, a name the slot ad does not hold under
    this configuration is UNDEFINED (with a warning naming it), one it holds stays."""
    text = "IS_OWNER = (START =?= False)\nSTART = MY.Validated && MY.KeyboardIdle > 100\n"
    table = _table(text)
    row2 = table.row(2)  # IS_OWNER, evaluated locally
    assert "Validated" not in row2.guard_text and "MY.KeyboardIdle" in row2.guard_text
    assert any("MY.Validated" in w and "STARTD_ATTRS" in w for w in table.warnings)
    claim = table.row(5).triggers[0]  # against the job: left to the run-time ads
    assert claim is not None and "MY.Validated" in claim.expanded
    exported = _table(text + "STARTD_ATTRS = Validated\nValidated = True\n")
    assert "Validated" not in " ".join(exported.warnings)
    guard = exported.row(2).guard
    assert guard is not None and "Validated" not in guard.simplified
    assert guard.test({"KeyboardIdle": 5}) and not guard.test({"KeyboardIdle": 500})


def test_exported_names_are_machine_attributes_with_their_value() -> None:
    text = "STARTD_ATTRS = IsDesktop\nIsDesktop = True\nIS_OWNER = (START =?= False)\n"
    text += "START = IsDesktop =!= True || KeyboardIdle > 900\n"
    table = _table(text)
    assert "IsDesktop" not in table.row(1).simplified
    assert "KeyboardIdle > 900" in table.row(1).simplified


def test_vanilla_variant_manual_and_code_rules() -> None:
    text = 'WANT_SUSPEND = False\nWANT_SUSPEND_VANILLA = "yes"\nSUSPEND = KeyboardIdle < 60\n'
    vanilla = {"JobUniverse": 5}
    my = {"KeyboardIdle": 1, "State": "Claimed", "Activity": "Busy"}
    manual = _table(text, semantics="manual").row(14).guard
    code = _table(text, semantics="code").row(14).guard
    assert manual is not None and code is not None
    # Manual: the vanilla knob is used for vanilla jobs (a string never holds).
    assert not holds(evaluate(manual.expr, my, vanilla))
    # Code: used only when it evaluates to a boolean or a number, else WANT_SUSPEND.
    assert "isBoolean" in code.expanded
    assert not holds(evaluate(code.expr, my, vanilla))
    text_ok = text.replace('"yes"', "True")
    for semantics in ("manual", "code"):
        guard = _table(text_ok, semantics=semantics).row(14).guard
        assert guard is not None
        assert holds(evaluate(guard.expr, my, vanilla))
        assert not holds(evaluate(guard.expr, my, {"JobUniverse": 1}))


def test_vm_variant_only_in_current_code() -> None:
    text = "WANT_SUSPEND = False\nWANT_SUSPEND_VM = True\nSUSPEND = True\n"
    assert "13" in (_table(text, semantics="code").row(14).guard_text)
    assert _table(text, semantics="manual").row(14).status == "dead"


def test_want_suspend_any_value_other_than_true() -> None:
    # Current era: PREEMPT is tried from Busy when WANT_SUSPEND is not TRUE, UNDEFINED too.
    table = _table("WANT_SUSPEND = undefined\nPREEMPT = KeyboardIdle < 60\n")
    guard = table.row(13).guard
    assert guard is not None
    assert holds(evaluate(guard.expr, {"KeyboardIdle": 1}))
    # 6.8 manual: `!WANT_SUSPEND`, so an UNDEFINED WANT_SUSPEND blocks it.
    old = _table("WANT_SUSPEND = undefined\nPREEMPT = KeyboardIdle < 60\n", era="condor-6.8")
    assert old.row(13).policy_status == "dead"


def test_assume_shows_the_residual_guards() -> None:
    config = load_config(text="use POLICY : Desktop\n", era=CURRENT)
    table = compile_policy(config, CURRENT, assume={"KeyboardIdle": 10**9})
    assert table.row(2).simplified == "LoadAvg - CondorLoadAvg <= 0.3 =?= false"
    assert table.row(10).policy_status == "dead"
    assert table.assumptions == (("KeyboardIdle", 10**9),)


def test_statuses_of_the_current_default_in_code_semantics() -> None:
    table = compile_policy(era=CURRENT, semantics="code")
    assert table.row(1).status == "always"
    assert table.row(2).status == "dead"
    assert table.row(14).status == "dead"
    assert table.row("unnumbered:delete@Owner/Idle").status == "live"


def test_json_follows_the_documented_schema() -> None:
    data = json.loads(compile_policy(era="condor-6.8").to_json())
    assert {"schema", "era", "semantics", "source", "rows", "warnings"} <= set(data)
    row = data["rows"][0]
    for key in (
        "number",
        "letter",
        "from",
        "to",
        "trigger",
        "guard",
        "simplified",
        "status",
        "citation",
        "triggers",
        "activity_choice",
        "minimised",
        "policy_status",
    ):
        assert key in row
    assert row["status"] in ("live", "dead", "always")


def test_differences_name_the_d_numbers() -> None:
    diffs = {d.id: d for d in policy_differences(era=CURRENT)}
    assert diffs["8"].d_number == "D1"
    assert diffs["10"].d_number == "D3"
    assert "unnumbered:delete@Owner/Idle" in diffs
    assert diffs["unnumbered:delete@Owner/Idle"].manual == "absent"


def test_unknown_era_and_semantics_are_policy_errors() -> None:
    with pytest.raises(PolicyError):
        compile_policy(era="condor-7.0")
    with pytest.raises(PolicyError):
        compile_policy(era=CURRENT, semantics="folklore")


def test_attribute_table() -> None:
    from compiler.attributes import load_attributes

    table = load_attributes()
    assert {"keyboardidle", "state", "jobstart", "clockmin"} <= table.machine()
    assert {"imagesize", "owner", "jobuniverse"} <= table.job()
    assert "cpubusyvalue" in table.machine("htcondor-current")
    assert "cpubusyvalue" not in table.machine("condor-6.8")
    entry = table.get("KEYBOARDIDLE")
    assert entry is not None and entry.when == "always" and entry.meaning


def test_unminimised_guards_are_reported() -> None:
    # Ten two-valued atoms (predicates) in one guard: sympy would silently stop above 8.
    p = ["JobRunning", "HasPreemptingClaim", "MayUnretire", "InRetirement", "RetirementExpired",
         "AllSlotsDrained", "BackfillEnabled", "BackfillClientRunning", "DestinationOwner",
         "DestinationMatched"]  # fmt: skip
    start = " || ".join(f"({p[i]} && !{p[(i + 1) % 10]} && {p[(i + 3) % 10]})" for i in range(10))
    table = _table(f"START = {start}\n")
    claim = table.row(9).triggers[0]
    assert claim is not None and not claim.minimised and claim.notes
    assert table.row(9).to_dict()["minimised"] is False
    assert table.row(1).minimised
