"""Lints of a schedd configuration's transforms and submit requirements (stage: static
analysis of the schedd policy; pure, nothing printed).

`lint(config) -> list[Finding]` (compiler.analysis.findings' record and severities), for
`check` to report next to the startd findings:

* `submit-requirement-never-true` (violation): no job can satisfy the requirement, so
  the schedd rejects every submission (a warning: warns about every one);
* `submit-requirement-always-true` (warning): the requirement rejects nothing;
* `transform-never-matches` (warning): the transform's REQUIREMENTS is never TRUE;
* `requirements-is-a-macro` (warning): `REQUIREMENTS = expr` in a native transform
  defines a temporary macro (xform_utils.cpp `is_xform_statement` wants a blank, not `=`,
  after the keyword), so the transform applies to every job;
* `unknown-job-attribute` (warning): a name that is no documented job attribute (spec/
  attributes.yaml) and that no transform sets, with the closest known name.

"Never" and "always" are decided by compiler.analysis.sat over job attributes of any
value (no domains), so "never" is a proof; only expressions whose top is a comparison,
a logical operator or a boolean literal are judged (a number also counts as a boolean in
both places, which the truth values of the analysis do not model).
"""

from __future__ import annotations

from compiler.analysis.findings import Finding
from compiler.classad import ClassAdSyntaxError, parse
from compiler.classad import ast as A
from compiler.config import Config
from compiler.errors import close_matches
from compiler.schedd.requirements import SubmitRequirement, submit_requirements
from compiler.schedd.transforms import Action, Transform, job_transforms

_BOOLEAN_OPS = frozenset({"&&", "||", "==", "!=", "=?=", "=!=", "<", "<=", ">", ">="})
_SPECIAL = frozenset({"currenttime", "my", "target", "self", "parent", "other"})


def _judged(expr: A.Expr) -> bool:
    if isinstance(expr, A.Binary):
        return expr.op in _BOOLEAN_OPS
    if isinstance(expr, A.Unary):
        return expr.op == "!"
    return isinstance(expr, A.Boolean)


def _where(config: Config, knob: str) -> str:
    found = config.definition(knob)
    if found is None or not found.origin.line:
        return ""
    return f"{found.origin.file}:{found.origin.line}"


def _known_job_names() -> dict[str, str]:
    from compiler.analysis.lints import documented_names
    from compiler.attributes import load_attributes

    names = {n.lower(): n for n in documented_names()}
    for entry in load_attributes().entries:
        names.setdefault(entry.name.lower(), entry.name)
    return names


def _set_by_transforms(transforms: tuple[Transform, ...]) -> set[str]:
    out: set[str] = set()
    for transform in transforms:
        for statement in transform.statements:
            if not isinstance(statement, Action) or statement.regex is not None:
                continue
            if statement.keyword in ("SET", "DEFAULT", "EVALSET"):
                out.add(statement.attr.lower())
            elif statement.keyword in ("COPY", "RENAME") and statement.rhs:
                out.add(statement.rhs.strip().lower())
    return out


def _unscoped_names(expr: A.Expr) -> list[str]:
    """Attribute names looked up in the job: unscoped or TARGET-scoped references."""
    out = []
    for node in A.walk(expr):
        if isinstance(node, A.AttrRef) and node.scope in (None, "TARGET"):
            out.append(node.name)
    return out


def _truth_findings(
    label: str, expr: A.Expr, where: str, *, warning: bool, transform: bool
) -> list[Finding]:
    from compiler.analysis.sat import always, satisfiable

    if not _judged(expr):
        return []
    if satisfiable(expr, want=("T",), domains={}).verdict == "unsat":
        if transform:
            return [
                Finding(
                    "transform-never-matches",
                    "warning",
                    f"{label}: REQUIREMENTS is never TRUE, so the transform is never applied",
                    where=where,
                )
            ]
        what = "warns about" if warning else "rejects"
        return [
            Finding(
                "submit-requirement-never-true",
                "violation",
                f"{label} can never be TRUE: the schedd {what} every job",
                where=where,
            )
        ]
    if not transform and always(expr, domains={}).verdict == "unsat":
        return [
            Finding(
                "submit-requirement-always-true",
                "warning",
                f"{label} is TRUE for every job: it never rejects anything",
                where=where,
            )
        ]
    return []


def _requirement_findings(
    config: Config, entry: SubmitRequirement, known: dict[str, str], set_names: set[str]
) -> list[Finding]:
    knob = f"SUBMIT_REQUIREMENT_{entry.name}"
    where = _where(config, knob)
    found = _truth_findings(
        knob, entry.requirement, where, warning=entry.is_warning, transform=False
    )
    for expr, name in ((entry.requirement, knob), (entry.reason, f"{knob}_REASON")):
        if expr is not None:
            found += _unknown_names(name, expr, _where(config, name), known, set_names)
    return found


def _unknown_names(
    label: str, expr: A.Expr, where: str, known: dict[str, str], set_names: set[str]
) -> list[Finding]:
    found: list[Finding] = []
    seen: set[str] = set()
    for name in _unscoped_names(expr):
        key = name.lower()
        if key in seen or key in known or key in set_names or key in _SPECIAL:
            continue
        seen.add(key)
        close = close_matches(key, known, n=1, cutoff=0.8)
        found.append(
            Finding(
                "unknown-job-attribute",
                "warning",
                f"{label}: {name} is no documented job attribute and no transform sets it "
                "(a job without it makes the expression UNDEFINED)",
                where=where,
                suggestion=f"did you mean {known[close[0]]}?" if close else "",
            )
        )
    return found


def _transform_findings(
    config: Config, transform: Transform, known: dict[str, str], set_names: set[str]
) -> list[Finding]:
    knob = f"JOB_TRANSFORM_{transform.name}"
    where = _where(config, knob)
    found: list[Finding] = []
    for statement in transform.statements:
        if not isinstance(statement, Action) and statement.name.upper() == "REQUIREMENTS":
            place = statement.where
            at = f"{place.file}:{place.line}" if place.file and place.line else where
            found.append(
                Finding(
                    "requirements-is-a-macro",
                    "warning",
                    f"{knob}: 'REQUIREMENTS = ...' defines a temporary macro; the transform "
                    "applies to every job",
                    where=at,
                    suggestion="write 'REQUIREMENTS expr' (no '=')",
                )
            )
    if transform.requirements is not None:
        found += _truth_findings(knob, transform.requirements, where, warning=False, transform=True)
        found += _unknown_names(knob, transform.requirements, where, known, set_names)
    for statement in transform.statements:
        if (
            isinstance(statement, Action)
            and statement.keyword in ("EVALSET", "EVALMACRO")
            and statement.rhs
            and "$" not in statement.rhs
        ):
            try:
                expr = parse(statement.rhs)
            except ClassAdSyntaxError:
                continue
            place = statement.where
            at = f"{place.file}:{place.line}" if place.file and place.line else where
            found += _unknown_names(knob, expr, at, known, set_names)
    return found


def lint(config: Config) -> list[Finding]:
    """Every lint finding of the schedd policy in `config` (read with
    subsystem="SCHEDD"); problems that make the policy unusable are raised as positioned
    errors by the readers instead."""
    transforms = job_transforms(config)
    requirements = submit_requirements(config)
    known = _known_job_names()
    set_names = _set_by_transforms(transforms)
    found: list[Finding] = []
    for transform in transforms:
        found += _transform_findings(config, transform, known, set_names)
    for entry in requirements:
        found += _requirement_findings(config, entry, known, set_names)
    return found
