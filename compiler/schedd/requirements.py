"""Submit requirements and submit warnings (stage: configuration -> checked requirement
list -> a job's verdict).

Facts from HTCondor 23.0 (cite, do not copy):

* src/condor_schedd.V6/schedd.cpp `Scheduler::reconfig` reads `SUBMIT_REQUIREMENT_NAMES`
  (a StringList: commas and blanks separate; the name `NAMES` is skipped), and for each
  name `SUBMIT_REQUIREMENT_<name>` (not defined: ignored), `SUBMIT_REQUIREMENT_<name>_REASON`
  and `SUBMIT_REQUIREMENT_<name>_IS_WARNING` (`param_boolean`, default false). The schedd
  silently drops a requirement or reason that does not parse; here that is a positioned
  error, as it is a mistake the administrator wants to hear about.
* `Scheduler::checkSubmitRequirements` evaluates each requirement in listed order with
  the schedd ad as MY and the job as TARGET (also named SCHEDD and JOB). A value that is
  not a boolean, integer or real (UNDEFINED, ERROR, a string) rejects the job with "Submit requirement <name>
  evaluated to non-boolean."; a list or record value (not self-contained, so dropped by
  `Value::SafetyCheck`) rejects it with "Submit requirement <name> failed to evaluate.".
  FALSE (or 0) fails the requirement: its message is the `_REASON` when that evaluates to
  a string, else "Submit requirement <name> not met."; a warning's message is pushed and
  evaluation goes on, anything else rejects the job and stops.
* condor_submit prints only the newest message of the error stack
  (src/condor_submit.V6/submit.cpp, `CondorError::message`): the rejecting requirement's,
  or, when the job is accepted, the last failed warning's.
* src/condor_schedd.V6/qmgmt.cpp (the submit transaction's check): transforms run first,
  then the requirements, per job of the cluster; the first rejected job fails the whole
  transaction (the cluster).

What this module must not do: read files or print.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from compiler.classad import ERROR, UNDEFINED, ClassAdSyntaxError, evaluate, parse
from compiler.classad import ast as A
from compiler.config import Config
from compiler.config.errors import ConfigError
from compiler.errors import PolicyError


class SubmitRequirementError(PolicyError):
    """A submit requirement the configuration gets wrong (positioned at its definition)."""


@dataclass(frozen=True, slots=True)
class SubmitRequirement:
    """One entry of SUBMIT_REQUIREMENT_NAMES as the schedd keeps it."""

    name: str
    requirement: A.Expr
    text: str
    reason: A.Expr | None = None
    reason_text: str | None = None
    is_warning: bool = False


@dataclass(frozen=True, slots=True)
class Problem:
    """One message pushed on the submit's error stack (`code` as the schedd pushes it:
    0 warning, 1 non-boolean, 2 not met, 3 failed to evaluate)."""

    requirement: str
    code: int
    message: str

    @property
    def is_warning(self) -> bool:
        return self.code == 0


@dataclass(frozen=True, slots=True)
class RequirementsResult:
    """The outcome of `checkSubmitRequirements` for one job: `rejected_by` names the
    requirement that rejected it (None: accepted); `problems` is the error stack in push
    order; `notes` says what the schedd only logs (a reason that is not a string)."""

    rejected_by: str | None
    problems: tuple[Problem, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def accepted(self) -> bool:
        return self.rejected_by is None


def _names(text: str | None) -> list[str]:
    return [n for n in re.split(r"[\s,]+", text or "") if n]


def param_boolean(text: str | None, default: bool = False) -> bool:
    """`param_boolean` (condor_config.cpp `string_is_boolean_param`): a leading
    true/false/1/0 with nothing after it but blanks, else the text evaluated as a ClassAd
    expression (a number is TRUE when not 0), else the default."""
    text = (text or "").strip()
    for literal, value in (("true", True), ("1", True), ("false", False), ("0", False)):
        if text[: len(literal)].lower() == literal and not text[len(literal) :].strip():
            return value
    if not text:
        return default
    try:
        result = evaluate(parse(text), {}, None)
    except ClassAdSyntaxError:
        return default
    if isinstance(result, bool):
        return result
    if isinstance(result, int | float):
        return result != 0
    return default


def _expr(config: Config, name: str, what: str) -> tuple[A.Expr, str] | None:
    text = config.get(name)
    if text is None:
        return None
    try:
        return parse(text), text
    except ClassAdSyntaxError as err:
        reason = getattr(err, "message", str(err))
        raise config.error_at(
            name,
            f"{name} is not a valid ClassAd expression ({reason}): '{text}'; "
            f"the schedd ignores {what}",
            SubmitRequirementError,
        ) from None


#: Literal node types and the ClassAd type name a message gives them.
_LITERAL_TYPES: dict[type, str] = {
    A.Integer: "an integer",
    A.Real: "a real",
    A.Boolean: "a boolean",
    A.UndefinedLit: "undefined",
    A.ErrorLit: "error",
    A.ListExpr: "a list",
    A.RecordExpr: "a record",
}


def submit_requirements(config: Config) -> tuple[SubmitRequirement, ...]:
    """SUBMIT_REQUIREMENT_NAMES read as `Scheduler::reconfig` reads it."""
    found: list[SubmitRequirement] = []
    try:
        listed = _names(config.get("SUBMIT_REQUIREMENT_NAMES"))
    except ConfigError:
        raise
    for name in listed:
        if name == "NAMES":
            continue
        knob = f"SUBMIT_REQUIREMENT_{name}"
        parsed = _expr(config, knob, "the requirement")
        if parsed is None:
            continue  # "Submit requirement <name> not defined, ignoring."
        requirement, text = resolve_aliases(parsed[0]), parsed[1]
        reason_knob = f"{knob}_REASON"
        reason = _expr(config, reason_knob, "the reason and uses the default message")
        if reason is not None:
            kind = _LITERAL_TYPES.get(type(reason[0]))
            if kind is not None:
                raise config.error_at(
                    reason_knob,
                    f"{reason_knob} must be a ClassAd expression that gives a string, "
                    f"but it is {kind}: '{reason[1]}' (write it in double quotes)",
                    SubmitRequirementError,
                )
        found.append(
            SubmitRequirement(
                name,
                requirement,
                text,
                resolve_aliases(reason[0]) if reason else None,
                reason[1] if reason else None,
                param_boolean(config.get(f"{knob}_IS_WARNING")),
            )
        )
    return tuple(found)


Evaluator = Callable[[A.Expr, Mapping[str, object], Mapping[str, object]], object]


#: The names `checkSubmitRequirements` gives the two ads (`EvalExprToBool(..., "SCHEDD",
#: "JOB")`, compat_classad_util.cpp `getTheMatchAd` aliases): `SCHEDD.x` is `MY.x`,
#: `JOB.x` is `TARGET.x`.
ALIASES = {"schedd": "MY", "job": "TARGET"}


def resolve_aliases(expr: A.Expr) -> A.Expr:
    """`SCHEDD.attr` / `JOB.attr` rewritten to `MY.attr` / `TARGET.attr`."""
    if (
        isinstance(expr, A.Select)
        and isinstance(expr.base, A.AttrRef)
        and expr.base.scope is None
        and expr.base.key in ALIASES
    ):
        return A.AttrRef(expr.name, ALIASES[expr.base.key])
    return A.map_children(expr, resolve_aliases)


def _default_evaluator(
    expr: A.Expr, schedd: Mapping[str, object], job: Mapping[str, object]
) -> object:
    return evaluate(expr, schedd, job)


def check_requirements(
    requirements: Sequence[SubmitRequirement],
    job: Mapping[str, object],
    schedd: Mapping[str, object],
    *,
    evaluator: Evaluator = _default_evaluator,
) -> RequirementsResult:
    """`Scheduler::checkSubmitRequirements` for one (already transformed) job ad."""
    problems: list[Problem] = []
    notes: list[str] = []
    for entry in requirements:
        value = evaluator(entry.requirement, schedd, job)
        if isinstance(value, list | dict):
            problems.append(
                Problem(entry.name, 3, f"Submit requirement {entry.name} failed to evaluate.\n")
            )
            return RequirementsResult(entry.name, tuple(problems), tuple(notes))
        if value is UNDEFINED or value is ERROR or not isinstance(value, bool | int | float):
            problems.append(
                Problem(
                    entry.name, 1, f"Submit requirement {entry.name} evaluated to non-boolean.\n"
                )
            )
            return RequirementsResult(entry.name, tuple(problems), tuple(notes))
        if value:
            continue
        message = f"Submit requirement {entry.name} not met.\n"
        if entry.reason is not None:
            reason = evaluator(entry.reason, schedd, job)
            if isinstance(reason, str):
                message = reason
            else:
                notes.append(
                    f"SUBMIT_REQUIREMENT_{entry.name}_REASON did not evaluate to a string "
                    f"({_describe(reason)}); the schedd logs this and uses the default message"
                )
        if entry.is_warning:
            problems.append(Problem(entry.name, 0, message))
            continue
        problems.append(Problem(entry.name, 2, message))
        return RequirementsResult(entry.name, tuple(problems), tuple(notes))
    return RequirementsResult(None, tuple(problems), tuple(notes))


def _describe(value: object) -> str:
    from compiler.classad import format_value

    return format_value(value)
