"""Each static check and lint: a policy that triggers it and one that does not."""

from __future__ import annotations

from functools import cache

import pytest

from compiler.analysis import Finding, analyse
from compiler.config import load_config
from compiler.policy import compile_policy


@cache
def findings(
    text: str, era: str = "htcondor-current", semantics: str = "manual"
) -> tuple[Finding, ...]:
    config = load_config(text=text, era=era)
    return analyse(compile_policy(config, era, semantics), config)


#: For checks that also report unrelated rows of a policy: the row or pair under test.
SUBJECT = {
    "dead-transition": "14",
    "always-transition": "1",
    "unreachable-pair": "Claimed/Suspended",
}


def codes(text: str, era: str = "htcondor-current") -> set[str]:
    return {
        f.code
        for f in findings(text, era)
        if f.code not in SUBJECT or SUBJECT[f.code] in (*f.rows, *f.pairs)
    }


SUSPENDING = "WANT_SUSPEND = True\nSUSPEND = KeyboardIdle < 60\nCONTINUE = KeyboardIdle > 300\n"

CASES = [
    # code, era, triggering policy, clean policy
    ("dead-transition", "htcondor-current",
     "WANT_SUSPEND = True\nSUSPEND = KeyboardIdle > 900 && KeyboardIdle < 60\n", SUSPENDING),
    ("always-transition", "htcondor-current", "IS_OWNER = False\n", "IS_OWNER = KeyboardIdle < 60\n"),
    ("unreachable-pair", "htcondor-current", "SUSPEND = False\n", SUSPENDING),
    ("flapping", "htcondor-current",
     "WANT_SUSPEND = True\nSUSPEND = KeyboardIdle < 600\nCONTINUE = KeyboardIdle > 300\n", SUSPENDING),
    ("never-evicted", "htcondor-current", "START = KeyboardIdle > 900\nPREEMPT = False\n",
     "START = KeyboardIdle > 900\nPREEMPT = KeyboardIdle < 60\n"),
    ("suspended-forever", "htcondor-current",
     "WANT_SUSPEND = True\nSUSPEND = KeyboardIdle < 60\nCONTINUE = False\nPREEMPT = False\n", SUSPENDING),
    ("vacating-forever", "condor-6.8", "KILL = False\n", ""),
    ("start-job-attributes-is-owner", "condor-6.8",
     'START = KeyboardIdle > 900 || Owner == "coltrane"\n',
     'START = KeyboardIdle > 900 || Owner == "coltrane"\nIsOwner = KeyboardIdle < 60\n'),
    ("undefined-equality", "htcondor-current", "START = IsDesktop == True\n", "START = IsDesktop =?= True\n"),
    ("string-number-comparison", "htcondor-current", 'START = KeyboardIdle == "0"\n', "START = KeyboardIdle == 0\n"),
    ("unknown-attribute", "htcondor-current", "START = KeyboardIdel > 900\n", "START = KeyboardIdle > 900\n"),
    ("undefined-macro", "htcondor-current", "START = KeyboardIdle > 900 $(ExtraCondition)\n",
     "ExtraCondition = && LoadAvg < 1\nSTART = KeyboardIdle > 900 $(ExtraCondition)\n"),
    ("want-suspend-without-suspend", "htcondor-current", "WANT_SUSPEND = KeyboardIdle > 60\nSUSPEND = False\n",
     "WANT_SUSPEND = KeyboardIdle > 60\nSUSPEND = KeyboardIdle < 30\n"),
    ("no-job-starts", "htcondor-current", "START = KeyboardIdle > 900 && KeyboardIdle < 60\n",
     "START = KeyboardIdle > 900\n"),
    ("always-condition", "htcondor-current", "WANT_SUSPEND = True\nSUSPEND = KeyboardIdle >= 0\n",
     SUSPENDING),
    ("stuck-pair", "condor-6.4", "START = KeyboardIdle > 900 && KeyboardIdle < 60\n",
     "START = KeyboardIdle > 900\n"),
]  # fmt: skip


@pytest.mark.parametrize(("code", "era", "bad", "good"), CASES, ids=[c[0] for c in CASES])
def test_check_triggers_on_its_policy_only(code: str, era: str, bad: str, good: str) -> None:
    assert code in codes(bad, era), [f.describe() for f in findings(bad, era)]
    assert code not in codes(good, era), [
        f.describe() for f in findings(good, era) if f.code == code
    ]


def test_dead_transition_names_the_row_and_proves_it() -> None:
    (dead,) = [
        f for f in findings(CASES[0][2]) if f.code == "dead-transition" and f.rows == ("14",)
    ]
    assert dead.severity == "warning"  # a non-trivial guard that can never hold: a bug
    assert "region partition" in dead.proof


def test_flapping_witness_is_in_the_overlap() -> None:
    (flap,) = [f for f in findings(CASES[3][2]) if f.code == "flapping"]
    assert set(flap.rows) == {"14", "15"}
    assert flap.witness is not None
    idle = dict(flap.witness.my)["KeyboardIdle"]
    assert 300 < idle < 600


def test_unknown_attribute_suggests_the_close_name() -> None:
    (hit,) = [f for f in findings(CASES[10][2]) if f.code == "unknown-attribute"]
    assert "KeyboardIdle" in hit.suggestion


def test_undefined_macro_points_at_the_line() -> None:
    (hit,) = [f for f in findings(CASES[11][2]) if f.code == "undefined-macro"]
    assert hit.where == "<input>:1"
    assert "ExtraCondition" in hit.message


def test_undefined_literal_comparison_is_an_error() -> None:
    found = findings("START = TARGET.Owner == UNDEFINED\n")
    assert any(f.code == "undefined-equality" and f.severity == "error" for f in found)


def test_findings_serialise() -> None:
    for f in findings(CASES[3][2]):
        data = f.to_dict()
        assert data["code"] == f.code and isinstance(data["rows"], list)
