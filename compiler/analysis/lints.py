"""The manuals' own warnings about policy expressions, as lints.

Stage: static analysis over the policy expressions (expanded, as the table holds them) and
the configuration text. Pure functions returning `Finding`s; nothing here evaluates a
transition. Each lint cites the warning it implements:

* start-job-attributes-is-owner: seed 001 3.5.3 / seed 002 "A note of caution ...":
  START references job attributes while IS_OWNER is `START =?= FALSE`, so IS_OWNER is
  evaluated with those attributes UNDEFINED.
* undefined-equality: seed 004 / 001 3.5.10.4 use `=?=`/`=!=` for attributes that may be
  UNDEFINED (`IsDesktop =!= True`); `x == UNDEFINED` is always UNDEFINED.
* string-number-comparison: comparing a string with a number is ERROR in ClassAd.
* unknown-attribute / undefined-macro: names that no ad and no configuration defines
  (a misspelling evaluates to UNDEFINED, or expands to nothing), with the closest name.
* want-suspend-without-suspend: seed 002 "If WANT_SUSPEND is TRUE, then the startd
  evaluates the SUSPEND expression", so PREEMPT is skipped and the job is never evicted
  by policy while SUSPEND cannot be TRUE.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache

from compiler.analysis.context import Analysis
from compiler.analysis.findings import Finding
from compiler.analysis.sat import attribute_refs
from compiler.attributes import load_attributes
from compiler.classad import ast as A
from compiler.classad import parse, unparse
from compiler.classad.errors import ClassAdSyntaxError
from compiler.simplify import STARTD_DOMAINS
from compiler.simplify.abstract import NUMERIC, abstract, is_literal, literal_value
from compiler.simplify.domains import Env
from compiler.yamlio import safe_load
from spec import data_path

_CROSS_SLOT = re.compile(r"^(slot|vm)[0-9]+_.")

#: Names HTCondor resolves without an ad (evaluator specials).
SPECIAL_NAMES = frozenset({"currenttime", "my", "target", "self", "parent", "other"})


@dataclass(frozen=True, slots=True)
class KnownNames:
    """Every name a policy may legitimately use, lower-cased, with display spellings."""

    machine: frozenset[str]
    job: frozenset[str]
    other: frozenset[str]  # predicates, policy names, configuration macros
    spelling: tuple[tuple[str, str], ...]

    def known(self, name: str) -> bool:
        key = name.lower()
        if _CROSS_SLOT.match(key):  # slotN_X / vmN_X: another slot's attribute X
            return self.known(key.split("_", 1)[1])
        return key in self.machine or key in self.job or key in self.other or key in SPECIAL_NAMES

    def close(self, name: str) -> str:
        names = dict(self.spelling)
        hits = difflib.get_close_matches(name.lower(), list(names), n=1, cutoff=0.75)
        return names[hits[0]] if hits else ""


def known_names(
    an: Analysis,
    config_names: Iterable[str] = (),
    machine: Iterable[str] = (),
    job: Iterable[str] = (),
) -> KnownNames:
    """Machine and job attributes (compiler.attributes when present, the startd domains
    and the spec's attributes always), predicates, policy names, config names and the
    documented names of the current attribute tables (`documented_names`)."""
    spec = an.table.spec
    machine_names = {*STARTD_DOMAINS, *spec.attributes, *machine}
    job_names = set(job)
    documented = load_attributes()
    machine_names |= {a.name for a in documented.entries if a.side == "machine"}
    job_names |= {a.name for a in documented.entries if a.side == "job"}
    other = {p.name for p in spec.predicates}
    for policy in spec.policies:
        for name in (policy.name, *policy.aliases):
            other.add(name)
            other.update(name + v for v in policy.variants)
    other |= set(config_names)
    other |= documented_names()
    spelling = {n.lower(): n for n in (*machine_names, *job_names, *other)}
    return KnownNames(
        frozenset(n.lower() for n in machine_names),
        frozenset(n.lower() for n in job_names),
        frozenset(n.lower() for n in other),
        tuple(sorted(spelling.items())),
    )


@cache
def documented_names() -> frozenset[str]:
    """The names of spec/attributes.yaml `documented` (the current manual's attribute
    tables and HTCondor's attribute registry): known, so never reported as misspelled,
    but not taken to be in every ad (a policy may find them UNDEFINED)."""
    document = safe_load(data_path("attributes.yaml").read_text(encoding="utf-8"))
    lists = (document or {}).get("documented") or {}
    return frozenset(str(n) for names in lists.values() for n in names or ())


def undefined_equality(policies: Mapping[str, A.Expr], known: KnownNames) -> list[Finding]:
    """`x == UNDEFINED` (always UNDEFINED: an error) and `attr == true/false` or
    `attr != literal` on an attribute that may be missing (a warning: `=?=`/`=!=` was
    probably meant; the startd then sees UNDEFINED, which never holds)."""
    found = []
    for name, expr in policies.items():
        for node in A.walk(expr, same_scope=True):
            if not isinstance(node, A.Binary) or node.op not in ("==", "!="):
                continue
            sides = (node.left, node.right)
            lits = [s for s in sides if is_literal(s)]
            other = [s for s in sides if not is_literal(s)]
            if not lits or not other:
                continue
            value = literal_value(lits[0])
            meant = "=?=" if node.op == "==" else "=!="
            text = unparse(node)
            if isinstance(lits[0], A.UndefinedLit | A.ErrorLit):
                found.append(
                    Finding(
                        "undefined-equality",
                        "error",
                        f"{name}: `{text}` is always UNDEFINED ({node.op} with "
                        f"{unparse(lits[0])} never yields TRUE or FALSE)",
                        suggestion=f"write {unparse(other[0])} {meant} {unparse(lits[0])}",
                    )
                )
            elif (
                isinstance(other[0], A.AttrRef)
                and _may_be_undefined(other[0], known)
                and (isinstance(value, bool) or node.op == "!=")
            ):
                found.append(
                    Finding(
                        "undefined-equality",
                        "warning",
                        f"{name}: `{text}` is UNDEFINED when {other[0].name} is undefined "
                        "(for example a job attribute, or a machine attribute not every slot "
                        "publishes), and UNDEFINED never holds",
                        suggestion=f"write {unparse(other[0])} {meant} {unparse(lits[0])}",
                    )
                )
    return found


def _may_be_undefined(ref: A.AttrRef, known: KnownNames) -> bool:
    """Documented job attributes (Owner, ImageSize, ...) and documented machine attributes
    are there when the expression is evaluated; policy names that use job attributes,
    custom attributes (IsDesktop) and cross-slot attributes may be UNDEFINED."""
    return not (ref.key in known.job or (ref.key in known.machine and ref.scope != "TARGET"))


def string_number(policies: Mapping[str, A.Expr], known: KnownNames) -> list[Finding]:
    """A comparison (==, !=, <, ...) of a string with a number: always ERROR."""
    env = Env.make(STARTD_DOMAINS, {})
    found = []
    for name, expr in policies.items():
        for node in A.walk(expr, same_scope=True):
            if not isinstance(node, A.Binary) or node.op not in ("==", "!=", "<", "<=", ">", ">="):
                continue
            left, right = abstract(node.left, env), abstract(node.right, env)
            lnum = left.tags <= NUMERIC and bool(left.tags)
            rnum = right.tags <= NUMERIC and bool(right.tags)
            lstr, rstr = left.tags == {"str"}, right.tags == {"str"}
            if (lnum and rstr) or (lstr and rnum):
                found.append(
                    Finding(
                        "string-number-comparison",
                        "error",
                        f"{name}: `{unparse(node)}` compares a string with a number, which is "
                        "always ERROR",
                    )
                )
    return found


def unknown_attributes(policies: Mapping[str, A.Expr], known: KnownNames) -> list[Finding]:
    """A name that is no machine or job attribute of the seeds' lists, predicate, policy
    name or configuration macro: probably misspelled (it evaluates to UNDEFINED)."""
    found = []
    reported: set[str] = set()
    for name, expr in policies.items():
        for ref in attribute_refs(expr):
            if known.known(ref.name) or ref.key in reported:
                continue
            reported.add(ref.key)
            close = known.close(ref.name)
            found.append(
                Finding(
                    "unknown-attribute",
                    "warning",
                    f"{name}: {ref.name} is not a startd or job attribute, predicate or macro "
                    "(it will be UNDEFINED unless a job or STARTD_ATTRS provides it)",
                    suggestion=f"did you mean {close}?" if close else "",
                )
            )
    return found


_MACRO = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_.]*)(:[^)]*)?\)")


def undefined_macros(
    raw_values: Mapping[str, tuple[str, str]], defined: Callable[[str], bool], names: Iterable[str]
) -> list[Finding]:
    """`$(NAME)` with no default where NAME is defined nowhere (it expands to nothing,
    silently). `raw_values` maps a config name to (raw value, "file:line")."""
    candidates = {n.lower(): n for n in names}
    found = []
    for owner, (raw, where) in raw_values.items():
        for match in _MACRO.finditer(raw):
            macro, default = match.group(1), match.group(2)
            if default is not None or defined(macro):
                continue
            hits = difflib.get_close_matches(macro.lower(), list(candidates), n=1, cutoff=0.75)
            found.append(
                Finding(
                    "undefined-macro",
                    "warning",
                    f"{owner} uses $({macro}), which is defined nowhere and expands to nothing",
                    where=where,
                    suggestion=f"did you mean $({candidates[hits[0]]})?" if hits else "",
                )
            )
    return found


def start_job_attributes(
    an: Analysis, is_owner_text: str | None, known: KnownNames
) -> list[Finding]:
    """START references job attributes while IS_OWNER is `START =?= FALSE` (the 6.x
    built-in, or the Desktop templates): IS_OWNER is evaluated locally, the job
    attributes are UNDEFINED there, and the slot's Owner/Unclaimed behaviour follows
    that UNDEFINED (seed 002: `FALSE || UNDEFINED` leaves Owner for everybody)."""
    if not is_owner_text:
        return []
    try:
        is_owner = parse(is_owner_text)
    except ClassAdSyntaxError:
        return []
    if not any(r.key == "start" and r.scope in (None, "MY") for r in attribute_refs(is_owner)):
        return []
    start = an.policy_expr("START")
    if start is None:
        return []
    job_refs = [
        r.name
        for r in attribute_refs(start)
        if r.scope == "TARGET"
        or (r.scope is None and r.key in known.job and r.key not in known.machine)
    ]
    if not job_refs:
        return []
    return [
        Finding(
            "start-job-attributes-is-owner",
            "warning",
            f"START refers to job attributes ({', '.join(dict.fromkeys(job_refs))}) while "
            f"IS_OWNER is {is_owner_text.strip()}: IS_OWNER is evaluated without a job, so "
            "those attributes are UNDEFINED there",
            pairs=("Owner/Idle", "Unclaimed/Idle"),
            suggestion="define IS_OWNER from machine attributes only",
        )
    ]


def want_suspend_without_suspend(an: Analysis) -> list[Finding]:
    """WANT_SUSPEND can be TRUE in Claimed/Busy while SUSPEND never is."""
    want, suspend = an.policy_expr("WANT_SUSPEND"), an.policy_expr("SUSPEND")
    if want is None or suspend is None:
        return []
    assume = an.assume(("Claimed", "Busy"))
    maybe = an.sat(want, assume)
    never = an.sat(suspend, assume)
    if maybe.verdict != "sat" or never.verdict != "unsat":
        return []
    return [
        Finding(
            "want-suspend-without-suspend",
            "warning",
            f"WANT_SUSPEND can be TRUE ({unparse(want)}) but SUSPEND never is "
            f"({unparse(suspend)}): whenever WANT_SUSPEND holds the startd skips PREEMPT, "
            "and nothing evicts the job",
            pairs=("Claimed/Busy",),
            witness=maybe.witness,
            proof=never.proof,
        )
    ]
