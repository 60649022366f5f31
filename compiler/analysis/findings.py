"""What the static analysis reports: one immutable `Finding` per problem or fact.

Stage: static analysis output, consumed by `condor-policy check` (text and JSON) and by
tests. A finding names the rule that produced it (`code`, stable, kebab-case), how bad it
is, the transitions and pairs involved, and, when the claim is "this can happen", the
concrete input that makes it happen (`witness`), or when the claim is "this can never
happen", how that was proved (`proof`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from compiler.analysis.sat import Witness

#: How bad a finding is (docs/findings.md): "violation" - the policy is shown to misbehave
#: (a witness or a proof of the misbehaviour itself: flapping, a pair never left, no job
#: ever starts, an always-TRUE condition); "error" - an expression that cannot mean what it
#: says (always UNDEFINED or ERROR); "warning" - advice; "info" - a fact worth knowing.
#: `condor-policy check` exits 1 on a violation or an error, and on a warning with --strict.
Severity = Literal["violation", "error", "warning", "info"]
#: Most severe first (sorting, headings).
SEVERITIES: tuple[Severity, ...] = ("violation", "error", "warning", "info")
#: The severities that make `check` fail (with --strict, warnings too).
FAILING: frozenset[str] = frozenset({"violation", "error"})

#: Every finding code with a one-line meaning (docs and `--format json` consumers).
CODES: dict[str, str] = {
    "dead-transition": "no trigger of the transition can ever fire for this policy",
    "dead-trigger": "one policy trigger of a live transition can never fire",
    "always-transition": "the transition's policy guard is TRUE for every input",
    "always-condition": "a guard written as a condition on attributes is TRUE for every input",
    "undecided-guard": "the analysis could neither prove a guard dead nor find an input",
    "unreachable-pair": "no sequence of transitions reaches this state/activity",
    "flapping": "two opposite transitions both fire for the same sensor input",
    "never-evicted": "PREEMPT (and SUSPEND) can never be TRUE while START is FALSE",
    "suspended-forever": "no policy expression can ever leave Claimed/Suspended",
    "no-job-starts": "no sequence of transitions reaches Claimed/Busy: no job can ever run",
    "stuck-pair": "a reachable state/activity that no live transition leaves",
    "vacating-forever": "neither KILL nor a vacate time limit ends Preempting/Vacating",
    "start-job-attributes-is-owner": "START uses job attributes and IS_OWNER is START =?= FALSE",
    "undefined-equality": "== or != against UNDEFINED-able values where =?= / =!= was meant",
    "string-number-comparison": "a comparison of a string with a number is always ERROR",
    "unknown-attribute": "a name that is no startd or job attribute, predicate or macro",
    "undefined-macro": "$(NAME) refers to a macro the configuration never defines",
    "want-suspend-without-suspend": "WANT_SUSPEND can be TRUE but SUSPEND never is",
    # the schedd's policy (compiler.schedd.lint), when the configuration defines one
    "submit-requirement-never-true": "no job can satisfy a submit requirement: every submission is rejected (or warned)",
    "submit-requirement-always-true": "a submit requirement rejects nothing",
    "transform-never-matches": "a job transform's REQUIREMENTS is never TRUE",
    "requirements-is-a-macro": "`REQUIREMENTS = expr` in a native transform defines a macro: the transform applies to every job",
    "unknown-job-attribute": "a schedd policy names an attribute no job has and no transform sets",
}


@dataclass(frozen=True, slots=True)
class Finding:
    """One result of the analysis.

    `rows` are transition ids ("14", "unnumbered:kill_claim@Claimed/Busy"); `pairs`
    "State/Activity"; `where` is "file:line" of the configuration line concerned (or "").
    """

    code: str
    severity: Severity
    message: str
    rows: tuple[str, ...] = ()
    pairs: tuple[str, ...] = ()
    witness: Witness | None = None
    proof: str = ""
    where: str = ""
    suggestion: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "rows": list(self.rows),
            "pairs": list(self.pairs),
        }
        if self.witness is not None:
            my, target = self.witness.as_dicts()
            out["witness"] = {
                "machine": {k: _plain(v) for k, v in my.items()},
                "job": {k: _plain(v) for k, v in target.items()},
                "now": self.witness.now,
            }
        for key in ("proof", "where", "suggestion"):
            value = getattr(self, key)
            if value:
                out[key] = value
        return out

    def describe(self) -> str:
        """One human line (plus the witness or proof on the next)."""
        head = f"{self.severity}: [{self.code}] {self.message}"
        if self.where:
            head = f"{self.where}: {head}"
        extra = []
        if self.suggestion:
            extra.append(f"  suggestion: {self.suggestion}")
        if self.witness is not None:
            extra.append(f"  for example: {self.witness.describe()}")
        if self.proof:
            extra.append(f"  proof: {self.proof}")
        return "\n".join([head, *extra])


def _plain(v: Any) -> Any:
    from compiler.classad import ast as A
    from compiler.classad.values import ERROR, UNDEFINED

    if v is UNDEFINED or isinstance(v, A.UndefinedLit):
        return "undefined"
    if v is ERROR or isinstance(v, A.ErrorLit):
        return "error"
    return v
