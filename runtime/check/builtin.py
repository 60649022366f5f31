"""Built-in conformance properties: the manuals' rules, checked on every generated run.

Stage: check. Each property is a pure function `(Context, moments) -> Violation | None`
with the rule and its source in the docstring. Policy expressions are evaluated here
from the configuration (runtime.check.reference.PolicyExprs) against the slot ad rebuilt
from the trace, never through the compiled table, so a wrong table cannot vouch for
itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from compiler import holds
from compiler.classad import ERROR, UNDEFINED, evaluate
from compiler.classad.ast import Expr
from compiler.spec import EraSpec
from runtime.check.judge import Violation
from runtime.check.observe import Moment
from runtime.check.reference import PolicyExprs
from runtime.trace import EPOCH, Step

#: Events that may end a job before its retirement time (seed 002: "The only exception is
#: a "fast" shutdown, which bypasses retirement completely"; fast drain, fast vacate and
#: the schedd's own release or lost lease likewise are not the startd's policy).
FAST: frozenset[tuple[str, str | None]] = frozenset(
    {("shutdown", "fast"), ("drain", "fast"), ("vacate", "fast"), ("lease_expired", None),
     ("release", None)}
)  # fmt: skip


@dataclass(frozen=True)
class Context:
    spec: EraSpec
    policy: PolicyExprs
    steps: Sequence[Step]
    #: the machine's own published ad per moment index, when the machine offers it
    published: Mapping[int, Mapping[str, Any]] | None = None

    def value(self, name: str, moments: Sequence[Moment], k: int, local: bool = False) -> Any:
        """Policy `name` just before moment k's transition: the machine values of moment k,
        the pair (and its entry stamps) of the moment before."""
        before = moments[k - 1] if k > 0 else moments[k]
        ad = moments[k].ad()
        for key in ("State", "Activity", "EnteredCurrentState", "EnteredCurrentActivity"):
            ad[key] = before.ad()[key]
        job = None if local else (dict(before.job) or None)
        now = EPOCH + moments[k].t
        ad.update(self.policy.ad_entries())
        if self.policy.exprs.get(name.upper()) is None:
            return UNDEFINED
        return evaluate(self.policy.guard(name, job, ad, now), ad, job, now=now)


Builtin = Callable[[Context, Sequence[Moment]], "Violation | None"]


def _fires(moments: Sequence[Moment]) -> list[tuple[int, Moment]]:
    return [(k, m) for k, m in enumerate(moments) if m.fired is not None]


def suspend_needs_want_suspend_and_suspend(
    ctx: Context, moments: Sequence[Moment]
) -> Violation | None:
    """Claimed/Suspended is entered (from Busy or Retiring) only when WANT_SUSPEND and
    SUSPEND are both TRUE at that poll (seed 001 3.5.9 SUSPEND; seed 002 Claimed State:
    "If both the WANT_SUSPEND and SUSPEND expressions evaluate to TRUE")."""
    for k, m in _fires(moments):
        assert m.fired is not None
        if m.fired.target != ("Claimed", "Suspended"):
            continue
        if m.fired.source not in (("Claimed", "Busy"), ("Claimed", "Retiring")):
            return Violation("builtin: suspended-only-from-busy-or-retiring", k,
                             f"Claimed/Suspended entered from {'/'.join(m.fired.source)}")  # fmt: skip
        want, sus = ctx.value("WANT_SUSPEND", moments, k), ctx.value("SUSPEND", moments, k)
        if not (holds(want) and holds(sus)):
            return Violation(
                "builtin: suspend-needs-want-suspend-and-suspend", k,
                f"transition {m.fired.number} at t={m.t} suspended the job with WANT_SUSPEND="
                f"{_show(want)}, SUSPEND={_show(sus)}",
            )  # fmt: skip
    return None


def continue_needs_continue(ctx: Context, moments: Sequence[Moment]) -> Violation | None:
    """Suspended -> Busy only when CONTINUE is TRUE (seed 001 3.5.9 CONTINUE)."""
    for k, m in _fires(moments):
        assert m.fired is not None
        if m.fired.source == ("Claimed", "Suspended") and m.fired.target == ("Claimed", "Busy"):
            value = ctx.value("CONTINUE", moments, k)
            if not holds(value):
                return Violation("builtin: continue-needs-continue", k,
                                 f"resumed at t={m.t} with CONTINUE={_show(value)}")  # fmt: skip
    return None


def kill_only_from_vacating(ctx: Context, moments: Sequence[Moment]) -> Violation | None:
    """KILL is consulted only in Preempting/Vacating: a policy evaluation (a tick) moves a
    slot into Preempting/Killing only from Vacating and only with KILL TRUE, or by
    WANT_VACATE FALSE on entering Preempting (seed 001 3.5.9 KILL, WANT_VACATE)."""
    for k, m in _fires(moments):
        assert m.fired is not None
        if m.fired.source != ("Preempting", "Vacating") or m.fired.target != (
            "Preempting",
            "Killing",
        ):
            continue
        step = ctx.steps[m.step] if m.step < len(ctx.steps) else None
        if step is None or step.kind != "tick" or m.fired.advancing:
            continue  # an event or a timer (vacate -fast, lease, vacate time limit)
        value = ctx.value("KILL", moments, k)
        if not holds(value):
            return Violation("builtin: kill-only-when-kill", k,
                             f"Vacating -> Killing at t={m.t} by evaluation with KILL={_show(value)}")  # fmt: skip
    return None


def preempting_ends_in_owner_or_claimed_idle(
    ctx: Context, moments: Sequence[Moment]
) -> Violation | None:
    """Preempting always ends in Owner/Idle or Claimed/Idle (seed 001 3.5.8.5: "the
    machine enters either the Owner state ... or the Claimed/Idle state")."""
    allowed = {("Owner", "Idle"), ("Claimed", "Idle"), ("Preempting", "Killing")}
    for k, m in _fires(moments):
        assert m.fired is not None
        if m.fired.source[0] == "Preempting" and m.fired.target not in allowed:
            return Violation("builtin: preempting-ends-in-owner-or-claimed-idle", k,
                             f"Preempting left for {'/'.join(m.fired.target)} at t={m.t}")  # fmt: skip
    return None


def owner_leaves_only_when_is_owner_false(
    ctx: Context, moments: Sequence[Moment]
) -> Violation | None:
    """Owner -> Unclaimed (transition 1) only when IS_OWNER is not TRUE, evaluated locally
    (seed 002 Owner State; 6.x: START locally not FALSE, the default IsOwner)."""
    for k, m in _fires(moments):
        assert m.fired is not None
        if m.fired.source == ("Owner", "Idle") and m.fired.target == ("Unclaimed", "Idle"):
            value = ctx.value("IS_OWNER", moments, k, local=True)
            if "IS_OWNER" not in ctx.spec.transition(1).guard.upper():
                # condor-6.4 manual: START locally not FALSE (IS_OWNER did not exist yet)
                value = ctx.value("START", moments, k, local=True) is False
            if holds(value):
                return Violation("builtin: owner-leaves-only-when-is-owner-false", k,
                                 f"Owner -> Unclaimed at t={m.t} with IS_OWNER={_show(value)}")  # fmt: skip
    return None


def requirements_false_when_unavailable(
    ctx: Context, moments: Sequence[Moment]
) -> Violation | None:
    """The slot publishes Requirements FALSE in Matched and Preempting (seed 001 3.5.3:
    "the Requirements expression is set to FALSE"; reference section 5). Checked on the
    machine's own published ad, when the machine offers one."""
    if not ctx.published:
        return None
    for k, ad in ctx.published.items():
        m = moments[k]
        if m.state not in ("Matched", "Preempting") or "Requirements" not in ad:
            continue
        value = ad["Requirements"]
        if isinstance(value, Expr):
            value = evaluate(value, dict(ad), None, now=EPOCH + m.t)
        if value is not False:
            return Violation("builtin: requirements-false-when-unavailable", k,
                             f"Requirements is {_show(value)} in {m.state} at t={m.t}")  # fmt: skip
    return None


def retirement_honoured(ctx: Context, moments: Sequence[Moment]) -> Violation | None:
    """No running job is evicted (Claimed -> Preempting) before its retirement time runs
    out, except by a fast shutdown, fast drain, fast vacate, the schedd's release or a
    lost lease (seed 001 3.5.9 MAXJOBRETIREMENTTIME; seed 002 Claimed State). Eras
    without retirement (condor-6.4) have nothing to check."""
    if not any(p.pair.activity == "Retiring" for p in ctx.spec.pairs):
        return None
    allowance = bool(dict(ctx.spec.options).get("retirement_vacate_allowance"))
    for k, m in _fires(moments):
        assert m.fired is not None
        before = moments[k - 1] if k else m
        if m.fired.source[0] != "Claimed" or m.fired.target[0] != "Preempting":
            continue
        if before.job_start is None or m.fired.source == ("Claimed", "Idle"):
            continue
        step = ctx.steps[m.step] if m.step < len(ctx.steps) else None
        if step is not None and step.kind == "event" and (step.event, step.how) in FAST:
            continue
        if m.fired.advancing:
            continue  # a timer (the lease) fired while the clock advanced
        if step is not None and step.kind == "event" and step.event in ("job_exit", "starter_exit"):
            continue  # the job is over: nothing is evicted
        if _quick_drain(ctx.steps, m.step):
            continue  # a quick (or fast) drain grants no retirement time
        mjrt = ctx.value("MaxJobRetirementTime", moments, k)
        limit = float(mjrt) if isinstance(mjrt, int | float) and not isinstance(mjrt, bool) else 0.0
        own = dict(before.job).get("MaxJobRetirementTime")
        if isinstance(own, int | float) and not isinstance(own, bool) and own < limit:
            limit = float(own)
        if allowance:
            vacate = ctx.value("MachineMaxVacateTime", moments, k)
            if isinstance(vacate, int | float) and not isinstance(vacate, bool):
                limit -= float(vacate)
        if m.run_time < limit:
            return Violation(
                "builtin: retirement-honoured", k,
                f"the job was evicted at t={m.t} after {m.run_time}s of run time, before its "
                f"retirement time ({limit:g}s) ran out",
            )  # fmt: skip
    return None


def _quick_drain(steps: Sequence[Step], upto: int) -> bool:
    """A quick or fast drain is in force at step `upto` (started, not cancelled)."""
    active = False
    for step in steps[: upto + 1]:
        if step.kind == "event" and step.event == "drain":
            active = active or step.how in ("quick", "fast")
        elif step.kind == "event" and step.event == "cancel_drain":
            active = False
    return active


def _show(v: Any) -> str:
    if v is UNDEFINED:
        return "UNDEFINED"
    if v is ERROR:
        return "ERROR"
    return str(v)


BUILTINS: tuple[tuple[str, Builtin], ...] = (
    ("suspend-needs-want-suspend-and-suspend", suspend_needs_want_suspend_and_suspend),
    ("continue-needs-continue", continue_needs_continue),
    ("kill-only-when-kill", kill_only_from_vacating),
    ("preempting-ends-in-owner-or-claimed-idle", preempting_ends_in_owner_or_claimed_idle),
    ("owner-leaves-only-when-is-owner-false", owner_leaves_only_when_is_owner_false),
    ("requirements-false-when-unavailable", requirements_false_when_unavailable),
    ("retirement-honoured", retirement_honoured),
)
