"""`check_policy`: static analysis + dynamic checking of one policy, as one report.

Stage: check (runtime), the library behind `condor-policy check`. It compiles the policy
(`compiler.compile_policy`), analyses the table (`compiler.analysis.analyse`), builds the
machine under test (the compiled runtime, see runtime.check.machines) and the
reference interpreter, searches for counterexamples
(runtime.check.search) and renders the result as text or JSON. It never prints.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import yaml

from compiler import StateTable, compile_policy
from compiler.analysis import FAILING, Analysis, Finding, KnownNames, analyse, known_names
from compiler.config import Config
from runtime.check.machines import compiled_machine, config_timers, reference_machine
from runtime.check.plan import coverage_notes, planned, reason_keys
from runtime.check.properties import Property, parse_properties
from runtime.check.reference import PolicyExprs
from runtime.check.search import Counterexample, SearchResult, search
from runtime.fired import Fired, num
from runtime.trace import dump_trace


@dataclass(frozen=True)
class ReportedCounterexample:
    """A counterexample ready to print: the trace file text and the numbered path."""

    name: str
    message: str
    trace_yaml: str
    path: tuple[str, ...]
    fired: tuple[Fired, ...]


#: The cross-check "same transitions as the reference interpreter" (runtime.check.search):
#: when it fails, condor-policy itself is wrong, not the policy.
INTERNAL = "reference-crosscheck"

#: Exit statuses of `condor-policy check` (docs/findings.md).
EXIT_OK, EXIT_VIOLATION, EXIT_INTERNAL = 0, 1, 3


@dataclass
class CheckReport:
    """What `condor-policy check` found. `strict`: warnings fail too (`--strict`)."""

    era: str
    semantics: str
    source: str
    table: StateTable
    findings: tuple[Finding, ...]
    result: SearchResult | None
    machine: str
    counterexamples: list[ReportedCounterexample] = field(default_factory=list)
    strict: bool = False

    @property
    def violations(self) -> tuple[Finding, ...]:
        """Findings that fail the check: violations and errors (and, with --strict,
        warnings), most severe first."""
        failing = FAILING | ({"warning"} if self.strict else set())
        return tuple(f for f in self.findings if f.severity in failing)

    @property
    def internal_errors(self) -> list[ReportedCounterexample]:
        """Traces on which the compiled machine and the reference interpreter disagree."""
        return [c for c in self.counterexamples if c.name == INTERNAL]

    @property
    def violated(self) -> list[ReportedCounterexample]:
        """Counterexamples to a property of the policy (built-in or the admin's)."""
        return [c for c in self.counterexamples if c.name != INTERNAL]

    @property
    def exit_status(self) -> int:
        """3 when condor-policy contradicts itself (its result cannot be trusted), else 1
        on a violated property or a failing finding, else 0."""
        if self.internal_errors:
            return EXIT_INTERNAL
        if self.violated or self.violations:
            return EXIT_VIOLATION
        return EXIT_OK

    # -- coverage ------------------------------------------------------------------------
    def coverage(self) -> dict[str, Any]:
        if self.result is None:
            return {}
        from compiler.analysis import Analysis, reachable_pairs

        reachable = reachable_pairs(Analysis(self.table))
        rows = [r.id for r in self.table.rows]
        proved = self.result.coverage.proved
        live = [
            r.id
            for r in self.table.rows
            if r.status != "dead" and r.source in reachable and r.id not in proved
        ]
        fired = sorted(self.result.coverage.fired & set(rows), key=rows.index)
        guards = [
            (r.id, i)
            for r in self.table.rows
            for i, t in enumerate(r.transition.triggers)
            if t.kind == "policy" and t.guard
        ]
        seen: dict[tuple[str, int], set[str]] = {}
        for rid, index, tv in self.result.coverage.outcomes:
            seen.setdefault((rid, index), set()).add(tv)
        both = [g for g in guards if {"T", "F"} <= seen.get(g, set()) or (
            "T" in seen.get(g, set()) and seen.get(g, set()) - {"T"})]  # fmt: skip
        notes = coverage_notes(
            self.table, frozenset(reachable), set(fired), self.result.coverage.outcomes,
            self.result.coverage.reasons, proved,
        )  # fmt: skip
        return {
            "traces": self.result.examples,
            "transitions_fired": len(fired),
            "transitions_live": len(live),
            "transitions_total": len(rows),
            "never_fired_live": [r for r in live if r not in fired],
            "guards_total": len(guards),
            "guards_evaluated": sum(1 for g in guards if g in seen),
            "guards_true_and_not_true": len(both),
            "guard_outcomes": {f"{rid}#{i}": sorted(v) for (rid, i), v in sorted(seen.items())},
            **notes,
        }

    # -- renderings ------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The JSON report (docs/json-outputs.md): `findings` lists every finding;
        `violations`, `warnings` and `internal_errors` are the headings of the text."""
        out: dict[str, Any] = {
            "era": self.era,
            "semantics": self.semantics,
            "source": self.source,
            "strict": self.strict,
            "exit_status": self.exit_status,
            "summary": self._counts(),
            "violations": [f.to_dict() for f in self.violations],
            "warnings": [f.to_dict() for f in self.findings if f.severity == "warning"],
            "findings": [f.to_dict() for f in self.findings],
            "internal_errors": [_cx_dict(c) for c in self.internal_errors],
        }
        if self.result is not None:
            out["dynamic"] = {
                "machine": self.machine,
                "examples": self.result.examples,
                "properties": list(self.result.properties),
                "violated": [_cx_dict(c) for c in self.violated],
                "coverage": self.coverage(),
            }
        return out

    def _counts(self) -> dict[str, int]:
        return {
            "violations": sum(f.severity == "violation" for f in self.findings),
            "errors": sum(f.severity == "error" for f in self.findings),
            "warnings": sum(f.severity == "warning" for f in self.findings),
            "notes": sum(f.severity == "info" for f in self.findings),
            "violated_properties": len(self.violated),
            "internal_errors": len(self.internal_errors),
        }

    def to_text(self) -> str:
        """Headings in order of gravity: internal errors, violations (the findings that
        fail the check), warnings, notes; then the dynamic check and coverage."""
        lines = [f"check: {self.source} ({self.era}, {self.semantics} semantics)", ""]
        n = self._counts()
        counts = ", ".join(
            _plural(n[key], word)
            for key, word in (
                ("violations", "violation"), ("errors", "error"),
                ("warnings", "warning"), ("notes", "note"),
            )
        )  # fmt: skip
        lines.append(f"Static analysis: {counts}")
        failing = self.violations
        sections = [
            ("Violations (the check fails" + ("; --strict: warnings too)" if self.strict else ")"),
             list(failing)),
            ("Warnings (advice; --strict fails on them)",
             [f for f in self.findings if f.severity == "warning" and f not in failing]),
            ("Notes", [f for f in self.findings if f.severity == "info" and f.code not in _QUIET]),
        ]  # fmt: skip
        for title, found in sections:
            if found:
                lines.append(f"{title}:")
                for f in found:
                    lines += ["  " + line for line in f.describe().splitlines()]
        quiet = [f for f in self.findings if f.code in _QUIET]
        if quiet:
            lines.append(f"  ({len(quiet)} further notes on single triggers: --format json)")
        for index, c in enumerate(self.internal_errors, start=1):
            lines += [
                "",
                f"Internal error {index} of condor-policy (not a finding about the policy): "
                "the compiled machine and the reference interpreter disagree; please report "
                "it with this trace",
                f"  {c.message}",
                "  path of the compiled machine:",
                *[f"    {p}" for p in c.path],
                f"  trace (replay with: {REPLAY}):",
                *["    " + line for line in c.trace_yaml.rstrip().splitlines()],
            ]
        if self.result is None:
            return "\n".join(lines) + "\n"
        lines += ["", f"Dynamic check: {self.result.examples} generated traces on {self.machine}"]
        violated = {c.name for c in self.counterexamples}
        for name in self.result.properties:
            mark = "FAIL" if name in violated else "ok  "
            lines.append(f"  {mark} {name if name.startswith('line') else 'builtin: ' + name}")
        for c in self.violated:
            if c.name not in self.result.properties:
                lines.append(f"  FAIL {c.name}")
        for index, c in enumerate(self.violated, start=1):
            lines += ["", f"Counterexample {index}: {c.name}", f"  {c.message}", "  path:"]
            lines += [f"    {p}" for p in c.path]
            lines.append(f"  trace (replay with: {REPLAY}):")
            lines += ["    " + line for line in c.trace_yaml.rstrip().splitlines()]
        cov = self.coverage()
        lines += [
            "",
            f"Coverage: {cov['transitions_fired']} of {cov['transitions_live']} live transitions "
            f"from reachable pairs fired ({cov['transitions_total']} rows); policy guards evaluated "
            f"{cov['guards_evaluated']} of {cov['guards_total']}, seen both TRUE and not TRUE "
            f"{cov['guards_true_and_not_true']} (live guards: {cov['guards_live_true_and_not_true']} "
            f"of {cov['guards_live']})",
        ]
        if cov["never_possible"]:
            lines.append("  proved impossible under this policy (not counted as live):")
            lines += [f"    {key}: {why}" for key, why in cov["never_possible"].items()]
        if cov["never_fired_live"]:
            lines.append("  never fired: " + ", ".join(cov["never_fired_live"]))
        lines += [f"    {rid}: {why}" for rid, why in cov["never_fired_reasons"].items()]
        lines += [
            f"  guard {key} never seen: {why}" for key, why in cov["guards_not_seen_both"].items()
        ]
        return "\n".join(lines) + "\n"

    def write_diagram(self, path: str) -> None:
        from compiler.diagram import extract, write

        first = (self.violated or self.internal_errors)[0]
        diagram = extract(self.table.spec, self.table, [f.id for f in first.fired])
        write(diagram, path)


#: Notes on single triggers, counted but not listed in the text report.
_QUIET = ("dead-trigger", "undecided-guard")

#: How to replay a printed counterexample: the trace records its era, semantics and the
#: policy's settings (`config:`), so no CONFIG is needed (one given is overridden by them).
REPLAY = "condor-policy run --trace FILE"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _cx_dict(c: ReportedCounterexample) -> dict[str, Any]:
    return {
        "property": c.name,
        "message": c.message,
        "path": list(c.path),
        "trace": yaml.safe_load(c.trace_yaml),
    }


def describe_path(fired: tuple[Fired, ...]) -> tuple[str, ...]:
    return tuple(
        f"t={num(f.t)}: {f.number} {'/'.join(f.source)} -> {'/'.join(f.target)} ({f.reason})"
        for f in fired
    )


def check_policy(
    config: Config,
    *,
    era: str,
    semantics: str,
    source: str,
    properties: tuple[str, str] | None = None,
    max_examples: int = 200,
    seed: int = 0,
    dynamic: bool = True,
    progress: Callable[[int], None] | None = None,
    strict: bool = False,
) -> CheckReport:
    """Everything `condor-policy check` reports for one policy. `properties` is
    (file name, text). Raises PolicyError on bad input."""
    table = compile_policy(config, era, semantics)
    props: tuple[Property, ...] = ()
    if properties:
        known = ad_names(table, config)
        props = parse_properties(properties[1], properties[0], table.spec, known)
    found = analyse(table, config)
    if not dynamic:
        return CheckReport(era, semantics, source, table, found, None, "", strict=strict)
    spec = table.spec
    policy = PolicyExprs.from_config(spec, config)
    reference = reference_machine(spec, policy, config_timers(spec, config))
    machine, name = compiled_machine(table)
    owners = _owners(policy)
    fixed = _slot_identity(config)
    timers = config_timers(spec, config)
    plans = planned(table, policy, timer_values=timers, owners=owners, fixed=fixed)
    result = search(
        spec, policy, machine, props, reference=reference, max_examples=max_examples,
        seed=seed, owners=owners, progress=progress, plans=plans.traces, fixed=fixed,
    )  # fmt: skip
    result.coverage.reasons.update(reason_keys(plans))
    result.coverage.proved.update(reason_keys(plans, proved=True))
    report = CheckReport(era, semantics, source, table, found, result, name, strict=strict)
    settings = policy_settings(config)
    report.counterexamples = [_reported(c, source, settings) for c in result.counterexamples]
    return report


def _slot_identity(config: Config) -> dict[str, Any]:
    """The slot a configuration view is for (`--slot`, `--hardware`): its id attribute
    (SlotID; 6.x VirtualMachineID) fixed in every generated trace, so that the compiled
    machine and the reference both evaluate the policy as that slot does."""
    if config.slot_id is None:
        return {}
    from compiler.slots import naming

    return {naming(config.era).id_attribute: config.slot_id}


def ad_names(table: StateTable, config: Config) -> KnownNames:
    """The names a property may compare: the attributes the startd and the documented
    tables know, the policy's published expressions and the configuration's names
    (STARTD_ATTRS may publish any of them)."""
    return known_names(Analysis(table), config.names())


def policy_settings(config: Config) -> dict[str, str]:
    """The configuration's own settings, fully expanded, where they differ from the era's
    defaults: written into a counterexample trace's `config:` so that the trace carries
    the policy it was found on (`condor-policy run --trace FILE` replays it as printed,
    whatever CONFIG, --policy template or `include` command produced it)."""
    from compiler.config import load_config

    base = load_config(text="", era=config.era)
    out: dict[str, str] = {}
    for name in config.names():
        value = config.get(name)
        if value is not None and value != base.get(name):
            out[name] = value
    return out


def _reported(c: Counterexample, source: str, settings: dict[str, str]) -> ReportedCounterexample:
    trace = replace(
        c.trace,
        config=settings,
        description=f"condor-policy check: {c.name} on {source}",
    )
    text = dump_trace(trace)
    return ReportedCounterexample(c.name, c.message, text, describe_path(c.fired), c.fired)


def _owners(policy: PolicyExprs) -> tuple[str, ...]:
    """Job owners to try: "alice" plus every string a policy compares Owner with."""
    from compiler.classad import ast as A
    from compiler.classad.ast import children

    found = ["alice"]

    def walk(e: A.Expr) -> None:
        if isinstance(e, A.Binary) and e.op in ("==", "!=", "=?=", "=!="):
            for a, b in ((e.left, e.right), (e.right, e.left)):
                if isinstance(a, A.AttrRef) and a.key == "owner" and isinstance(b, A.String):
                    found.append(b.value)
        for child in children(e):
            walk(child)

    for expr in policy.exprs.values():
        walk(expr)
    return tuple(dict.fromkeys(found))
