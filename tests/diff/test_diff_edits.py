"""diff's counterexample traces diverge (issue 16 part 2), over random single-knob edits of
the manuals' own policies (tests/config/fixtures/manual: the seeds' examples as printed).

An edit redefines one policy knob of one single-slot example: TRUE, FALSE, its negation,
or its first number changed. When `diff` reports rows that differ and at least one of them
leaves a pair the old or the new policy can reach (compiler.analysis.reachable_pairs), the
trace `diff --trace` writes must be found, and replaying it (runtime.trace.replay, the
engine `condor-policy run` uses) with each policy must fire different transitions (or
the same transition into another activity: WANT_VACATE's choice). When
no differing row leaves a reachable pair, no trace can show the difference and none is
asked for. The multi-slot examples (slot-to-slot attributes such as vm1_Activity or
slot1_State) are left out: one slot's trace cannot set another slot's state.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler import StateTable, compile_policy
from compiler.analysis import Analysis, reachable_pairs
from compiler.config import Config, load_config
from runtime.diff import diff_tables
from runtime.diff.trace import divergent_trace
from runtime.trace import replay
from tests.budget import examples

MANUAL = Path(__file__).parent.parent / "config" / "fixtures" / "manual"

#: (era, fixture stem prefix) of the single-slot examples.
EXAMPLES = (
    ("condor-6.4", "01"), ("condor-6.4", "02"), ("condor-6.4", "03"), ("condor-6.4", "04"),
    ("condor-6.8", "01"), ("condor-6.8", "02"), ("condor-6.8", "03"), ("condor-6.8", "04"),
    ("condor-6.8", "05"),
    ("htcondor-current", "01"), ("htcondor-current", "02"), ("htcondor-current", "03"),
    ("htcondor-current", "05"),
)  # fmt: skip
KNOBS = ("START", "SUSPEND", "CONTINUE", "PREEMPT", "KILL", "WANT_SUSPEND", "WANT_VACATE")
EDITS = ("true", "false", "negate", "number")
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


def _text(era: str, prefix: str) -> str:
    """The era's default policy plus the example's fragment (as test_seed_policies)."""
    files = sorted((MANUAL / era).iterdir())
    chosen = next(f for f in files if f.name.startswith(prefix))
    default = files[0].read_text()
    return default if chosen == files[0] else default + "\n" + chosen.read_text()


@cache
def _side(era: str, text: str) -> tuple[StateTable, Config, frozenset[tuple[str, str]]]:
    config = load_config(text=text, era=era)
    table = compile_policy(config, era, "code")
    return table, config, frozenset(reachable_pairs(Analysis(table)))


def _edited(era: str, text: str, knob: str, edit: str) -> str | None:
    """`text` with `knob` redefined by `edit`, or None when the edit changes nothing
    (no number to change)."""
    match edit:
        case "true" | "false":
            return f"{text}\n{knob} = {edit.capitalize()}\n"
        case "negate":
            return f"{text}\n{knob} = !($({knob}))\n"
        case _:
            value = load_config(text=text, era=era).get(knob)
            found = NUMBER.search(value or "")
            if value is None or found is None:
                return None
            bigger = str(int(float(found.group()) * 2 + 7))
            return f"{text}\n{knob} = {value[: found.start()]}{bigger}{value[found.end() :]}\n"


def _check(case: tuple[str, str], knob: str, edit: str) -> None:
    era, prefix = case
    text = _text(era, prefix)
    new_text = _edited(era, text, knob, edit)
    if new_text is None:
        return
    old, old_config, old_reach = _side(era, text)
    new, new_config, new_reach = _side(era, new_text)
    changed = diff_tables(old, new).changed
    reachable = [r for r in changed if r.source in old_reach or r.source in new_reach]
    if not reachable:
        return
    witnesses = [(r.source, *r.witness.as_dicts(), r.witness.now) for r in changed if r.witness]
    found = divergent_trace(old, old_config, new, new_config, witnesses, [r.id for r in changed])
    assert found is not None, f"{era} {prefix} {knob} {edit}: {[r.id for r in reachable]}"
    # the judge: the engine `run` uses, on the trace as written
    fired_old = [(f.id, f.target) for f in replay(found.trace, old).fired]
    fired_new = [(f.id, f.target) for f in replay(found.trace, new).fired]
    assert fired_old != fired_new


@settings(max_examples=examples(4), deadline=None)
@given(case=st.sampled_from(EXAMPLES), knob=st.sampled_from(KNOBS), edit=st.sampled_from(EDITS))
@example(case=("condor-6.8", "05"), knob="WANT_SUSPEND", edit="true")  # a job attribute decides
@example(case=("condor-6.8", "01"), knob="SUSPEND", edit="number")
@example(case=("condor-6.8", "04"), knob="SUSPEND", edit="number")  # the witness's JobStart
@example(case=("condor-6.8", "01"), knob="WANT_VACATE", edit="false")  # an activity choice
@example(case=("htcondor-current", "01"), knob="START", edit="false")
def test_every_divergent_trace_of_a_single_knob_edit_replays_differently(
    case: tuple[str, str], knob: str, edit: str
) -> None:
    _check(case, knob, edit)


@pytest.mark.explore
@settings(max_examples=200, deadline=None)
@given(case=st.sampled_from(EXAMPLES), knob=st.sampled_from(KNOBS), edit=st.sampled_from(EDITS))
def test_every_divergent_trace_of_a_single_knob_edit_replays_differently_many(
    case: tuple[str, str], knob: str, edit: str
) -> None:
    _check(case, knob, edit)
