"""The `POLICY : Desktop` expressions, fully expanded (reference/transitions.md section
6.3), and the guards the compiler builds from them for the numbered transitions."""

from __future__ import annotations

from compiler.classad import ast as A
from compiler.classad import parse

DESKTOP_TEXT = {
    "START": '((KeyboardIdle > 15 * 60) && ( ((LoadAvg - CondorLoadAvg) <= 0.3) || (State != "Unclaimed" && State != "Owner")) )',
    "IS_OWNER": "(START =?= False)",
    "SUSPEND": "((KeyboardIdle < 60) || ( (IfThenElse(CpuBusyValue is 1, time() - CpuBusyTime, 0) > 120) && ifThenElse(JobStart =!= UNDEFINED, (time() - JobStart), 0) > 90))",
    "WANT_SUSPEND": "((TARGET.ImageSize <  (15 * 1024)) || ((KeyboardIdle < 60) == False) || (TARGET.JobUniverse == 5) ) && ( ((KeyboardIdle < 60) || ( (IfThenElse(CpuBusyValue is 1, time() - CpuBusyTime, 0) > 120) && ifThenElse(JobStart =!= UNDEFINED, (time() - JobStart), 0) > 90)))",
    "WANT_VACATE": "ifThenElse(JobStart =!= UNDEFINED, (time() - JobStart), 0) > 600 || (TARGET.JobUniverse == 5)",
    "CONTINUE": "(((LoadAvg - CondorLoadAvg) <= 0.3) && ((time() - EnteredCurrentActivity) > 10) && (KeyboardIdle > 5 * 60))",
    "PREEMPT": '(((Activity == "Suspended") && ((time() - EnteredCurrentActivity) > 10 * 60)) || (SUSPEND && (WANT_SUSPEND == False)))',
    "KILL": "False",
    "CpuBusy": "((LoadAvg - CondorLoadAvg) >= 0.5)",
}
DESKTOP = {name: parse(text) for name, text in DESKTOP_TEXT.items()}


def substitute(e: A.Expr, names: dict[str, A.Expr]) -> A.Expr:
    """Replace unscoped references to policy names by their expressions (what the
    compiler does before simplifying)."""
    from compiler.classad.ast import map_children

    if isinstance(e, A.AttrRef) and e.scope is None and e.name.upper() in names:
        return names[e.name.upper()]
    return map_children(e, lambda x: substitute(x, names))


_POLICY = {k.upper(): v for k, v in DESKTOP.items()}
for _ in range(3):  # PREEMPT refers to SUSPEND and WANT_SUSPEND, IS_OWNER to START
    _POLICY = {k: substitute(v, _POLICY) for k, v in _POLICY.items()}

#: Guards of the numbered htcondor-current transitions that evaluate policy, expanded.
GUARDS_TEXT = {
    "1 Owner->Unclaimed": "IS_OWNER == False",
    "2 Unclaimed->Owner": "IS_OWNER",
    "10 Claimed/Idle->Preempting": "START =?= False",
    "13 Busy->Retiring": "WANT_SUSPEND =!= True && PREEMPT",
    "14 Busy->Suspended": "WANT_SUSPEND && SUSPEND",
    "15 Suspended->Busy": "CONTINUE",
    "16 Suspended->Retiring": "PREEMPT",
    "20 Retiring->Suspended": "WANT_SUSPEND && SUSPEND",
    "21 Vacating->Killing": "KILL",
    "vacate activity": "WANT_VACATE",
    "start and not suspend": "START && !SUSPEND",
    "continue or preempt": "CONTINUE || PREEMPT",
}
GUARDS = {name: substitute(parse(text), _POLICY) for name, text in GUARDS_TEXT.items()}
ALL = {**{f"expr {k}": v for k, v in DESKTOP.items()}, **GUARDS}
