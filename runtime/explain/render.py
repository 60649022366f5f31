"""The text `condor-policy explain` prints for people (the JSON is `Explanation.to_dict`)."""

from __future__ import annotations

import time as _time

from runtime.explain.clauses import Clause
from runtime.explain.slot import Change, Explanation, Step, Verdict


def render_text(ex: Explanation) -> str:
    lines = [
        f"{ex.pair.state}/{ex.pair.activity} ({ex.era}, {ex.semantics} semantics), "
        f"at {int(ex.now)}",
    ]
    if ex.assumed:
        shown = ", ".join(f"{k} = {_bool(v)}" for k, v in ex.assumed)
        lines.append(f"assumed (not in the ad): {shown}")
    lines.append("")
    lines.append("evaluation pass, in the startd's order:")
    fires = ex.fires
    for step in ex.steps:
        lines += _step(step, step is fires, fires is not None and step.order > fires.order, ex.now)
    if not ex.steps:
        lines.append("  (no policy transition leaves this pair)")
    lines.append("")
    if fires is None:
        lines.append("fires now: none: the slot stays")
    else:
        lines.append(f"fires now: {_name(fires)} -> {fires.target}")
    if ex.others:
        lines.append("")
        lines.append("also leaving this pair, on an event, command or timer:")
        for other in ex.others:
            label = _label(other.number, other.letter)
            lines.append(f"  {label} -> {other.target}: {'; '.join(other.triggers)}")
    if ex.job:
        lines.append("")
        lines.append("the job:")
        for verdict in ex.job:
            lines += _verdict(verdict)
    return "\n".join(lines) + "\n"


def _bool(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _label(number: int | str, letter: str | None) -> str:
    if isinstance(number, int):
        return f"{number}{letter or ''}"
    return str(number).removeprefix("unnumbered:")


def _name(step: Step) -> str:
    return _label(step.number, step.letter)


def _step(step: Step, fires: bool, after: bool, now: float) -> list[str]:
    mark = "  FIRES" if fires else ("  (not reached)" if after else "")
    head = f"  [{step.order}] {_name(step)} -> {step.target}: {step.spec_guard}"
    lines = [f"{head}  ({step.against}) = {_truth(step)}{mark}"]
    lines += _clause(step.clause, 6)
    if step.note:
        lines.append(f"      note: {step.note}")
    if step.change is not None:
        lines.append(f"      would fire with {_edits(step.change)}")
    if step.flips_in is not None:
        verb = "stops holding" if step.holds else "becomes TRUE"
        at = int(now) + step.flips_in
        when = _time.strftime("%Y-%m-%dT%H:%M:%SZ", _time.gmtime(at))
        lines.append(f"      {verb} in {step.flips_in} s ({when}) if only the clock moves")
    return lines


def _truth(step: Step) -> str:
    """The guard's value as the compiled table tests it (what fires), in the words of
    the clauses when the two agree."""
    if step.holds:
        return "TRUE"
    return step.clause.truth if step.clause.truth != "TRUE" else "FALSE"


def _edits(change: Change) -> str:
    return ", and ".join(f"{e.attribute} = {e.to} ({e.clause}); now {e.now}" for e in change.edits)


def _verdict(verdict: Verdict) -> list[str]:
    who = "slot's" if verdict.side == "slot" else "job's"
    word = "accepts" if verdict.accepts else "rejects"
    lines = [f"  the {who} {verdict.name} {word} ({verdict.clause.truth})"]
    lines += _clause(verdict.clause, 6)
    if verdict.change is not None:
        lines.append(f"      would accept with {_edits(verdict.change)}")
    return lines


def _clause(clause: Clause, indent: int) -> list[str]:
    """The deciding leaves, one a line, with the attributes behind them."""
    pad = " " * indent
    lines = []
    for leaf in clause.leaves():
        lines.append(f"{pad}{leaf.truth:<9} {leaf.text}")
        for r in leaf.reads:
            note = f"  ({r.note})" if r.note else ""
            lines.append(f"{pad}            {r.name} = {r.value} [{r.where}]{note}")
    return lines
