"""Static analysis of a compiled policy (stage: after `compile_policy`, before output).

Pure functions over a `StateTable` (and, for the lints that read configuration text, a
`Config`); nothing prints, nothing imports runtime.

Public API
----------
`analyse(table, config=None) -> tuple[Finding, ...]`: every table check and lint, in a
deterministic order; `Finding` (code, severity, message, rows, pairs, witness, proof,
where, suggestion); `CODES` (every finding code with its meaning); `SEVERITIES` (most
severe first) and `FAILING` (the severities `check` fails on; docs/findings.md);
`known_names(analysis, config_names)` -> `KnownNames` (every attribute, predicate,
policy and configuration name a policy or a property may use, with did-you-mean); `satisfiable(expr,
want=..., domains=..., assume=...) -> Satisfiability` (verdict sat | unsat | unknown, a
confirmed `Witness` for sat, a proof for unsat: see `compiler.analysis.sat`).

Modules: `sat` (the decision procedure), `context` (guards in their pair's context,
firing conditions), `table_checks` (dead/always, reachability, flapping, suspended
forever, never evicted, vacating forever), `lints` (the manuals' warnings).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from compiler.analysis import lints
from compiler.analysis.context import Analysis, conj, fails, knob_expr
from compiler.analysis.findings import CODES, FAILING, SEVERITIES, Finding, Severity
from compiler.analysis.lints import KnownNames, known_names
from compiler.analysis.sat import Satisfiability, Witness, always, attribute_refs, satisfiable
from compiler.analysis.table_checks import CHECKS, reachable_pairs
from compiler.attributes import load_attributes
from compiler.classad import ast as A
from compiler.table import StateTable

if TYPE_CHECKING:
    from compiler.config import Config

__all__ = [
    "CODES",
    "FAILING",
    "SEVERITIES",
    "Analysis",
    "Finding",
    "KnownNames",
    "Satisfiability",
    "Severity",
    "Witness",
    "always",
    "analyse",
    "attribute_refs",
    "conj",
    "fails",
    "known_names",
    "reachable_pairs",
    "satisfiable",
]

_ORDER = {s: i for i, s in enumerate(SEVERITIES)}


def analyse(
    table: StateTable,
    config: Config | None = None,
    *,
    machine: Iterable[str] = (),
    job: Iterable[str] = (),
) -> tuple[Finding, ...]:
    """Every check and lint for `table` (compiled from `config`), most severe first.

    `machine`/`job` add attribute names to the known lists (e.g. STARTD_ATTRS)."""
    documented = load_attributes().machine(table.era)
    an = Analysis(table, (*sorted(documented), *machine))
    found: list[Finding] = []
    for check in CHECKS:
        found += check(an)
    config_names = config.names() if config is not None else ()
    known = lints.known_names(an, config_names, machine, job)
    policies = _policies(table)
    found += lints.undefined_equality(policies, known)
    found += lints.string_number(policies, known)
    found += lints.unknown_attributes(policies, known)
    found += lints.start_job_attributes(an, _is_owner_text(table, config), known)
    found += lints.want_suspend_without_suspend(an)
    if config is not None:
        found += lints.undefined_macros(
            _raw_values(config), lambda n: config.raw(n) is not None, config_names
        )
    return tuple(sorted(found, key=lambda f: _ORDER[f.severity]))


def _policies(table: StateTable) -> dict[str, A.Expr]:
    """The knobs the administrator wrote (era defaults are the spec's, not linted)."""
    out: dict[str, A.Expr] = {}
    for knob in table.program.knobs:
        if knob.variant_of is None:
            expr = knob_expr(knob)
            if expr is not None:
                out[knob.name] = expr
    return out


def _is_owner_text(table: StateTable, config: Config | None) -> str | None:
    if config is not None:
        for name in ("IsOwner", "IS_OWNER"):
            value = config.get(name)
            if value:
                return value
    try:
        return table.spec.policy("IS_OWNER").default
    except KeyError:
        return None


def _raw_values(config: Config) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for name in config.names():
        definition = config.definition(name)
        if definition is None or definition.origin.template:
            continue
        raw = config.raw(name) or ""
        out[name] = (raw, definition.origin.describe())
    return out
