"""`check_policy`: static analysis + dynamic checking of one policy, as one report.

Stage: check (runtime), the library behind `condor-policy check`. It compiles the policy
(`compiler.compile_policy`), analyses the table (`compiler.analysis.analyse`), builds the
machine under test (the compiled runtime, see runtime.check.machines) and the
reference interpreter, searches for counterexamples
(runtime.check.search) and renders the result as text or JSON. It never prints.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml

from compiler import StateTable, compile_policy
from compiler.analysis import Finding, analyse
from compiler.config import Config
from runtime.check.machines import compiled_machine, config_timers, reference_machine
from runtime.check.plan import coverage_notes, planned, reason_keys
from runtime.check.properties import parse_properties
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


@dataclass
class CheckReport:
    era: str
    semantics: str
    source: str
    table: StateTable
    findings: tuple[Finding, ...]
    result: SearchResult | None
    machine: str
    counterexamples: list[ReportedCounterexample] = field(default_factory=list)

    @property
    def exit_status(self) -> int:
        if self.counterexamples or any(f.severity == "error" for f in self.findings):
            return 1
        return 0

    # -- coverage ------------------------------------------------------------------------
    def coverage(self) -> dict[str, Any]:
        if self.result is None:
            return {}
        from compiler.analysis import Analysis, reachable_pairs

        reachable = reachable_pairs(Analysis(self.table))
        rows = [r.id for r in self.table.rows]
        live = [r.id for r in self.table.rows if r.status != "dead" and r.source in reachable]
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
            self.result.coverage.reasons,
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
        out: dict[str, Any] = {
            "era": self.era,
            "semantics": self.semantics,
            "source": self.source,
            "exit_status": self.exit_status,
            "findings": [f.to_dict() for f in self.findings],
        }
        if self.result is not None:
            out["dynamic"] = {
                "machine": self.machine,
                "examples": self.result.examples,
                "properties": list(self.result.properties),
                "violated": [
                    {
                        "property": c.name,
                        "message": c.message,
                        "path": list(c.path),
                        "trace": yaml.safe_load(c.trace_yaml),
                    }
                    for c in self.counterexamples
                ],
                "coverage": self.coverage(),
            }
        return out

    def to_text(self) -> str:
        lines = [f"check: {self.source} ({self.era}, {self.semantics} semantics)", ""]
        counts = {
            s: sum(f.severity == s for f in self.findings) for s in ("error", "warning", "info")
        }
        lines.append(
            f"Static analysis: {counts['error']} errors, {counts['warning']} warnings, "
            f"{counts['info']} notes"
        )
        for f in self.findings:
            if f.code in ("dead-trigger", "undecided-guard"):
                continue
            lines += ["  " + line for line in f.describe().splitlines()]
        quiet = [f for f in self.findings if f.code in ("dead-trigger", "undecided-guard")]
        if quiet:
            lines.append(f"  ({len(quiet)} further notes on single triggers: --format json)")
        if self.result is None:
            return "\n".join(lines) + "\n"
        lines += ["", f"Dynamic check: {self.result.examples} generated traces on {self.machine}"]
        violated = {c.name for c in self.counterexamples}
        for name in self.result.properties:
            mark = "FAIL" if name in violated else "ok  "
            lines.append(f"  {mark} {name if name.startswith('line') else 'builtin: ' + name}")
        for c in self.counterexamples:
            if c.name not in self.result.properties:
                lines.append(f"  FAIL {c.name}")
        for index, c in enumerate(self.counterexamples, start=1):
            lines += ["", f"Counterexample {index}: {c.name}", f"  {c.message}", "  path:"]
            lines += [f"    {p}" for p in c.path]
            lines.append("  trace (replay with: condor-policy run CONFIG --trace FILE):")
            lines += ["    " + line for line in c.trace_yaml.rstrip().splitlines()]
        cov = self.coverage()
        lines += [
            "",
            f"Coverage: {cov['transitions_fired']} of {cov['transitions_live']} live transitions "
            f"from reachable pairs fired ({cov['transitions_total']} rows); policy guards evaluated "
            f"{cov['guards_evaluated']} of {cov['guards_total']}, seen both TRUE and not TRUE "
            f"{cov['guards_true_and_not_true']}",
        ]
        if cov["never_fired_live"]:
            lines.append("  never fired: " + ", ".join(cov["never_fired_live"]))
        lines += [f"    {rid}: {why}" for rid, why in cov["never_fired_reasons"].items()]
        lines += [
            f"  guard {key} never seen: {why}" for key, why in cov["guards_not_seen_both"].items()
        ]
        return "\n".join(lines) + "\n"

    def write_diagram(self, path: str) -> None:
        from compiler.diagram import extract, write

        first = self.counterexamples[0]
        diagram = extract(self.table.spec, self.table, [f.id for f in first.fired])
        write(diagram, path)


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
) -> CheckReport:
    """Everything `condor-policy check` reports for one policy. `properties` is
    (file name, text). Raises PolicyError on bad input."""
    table = compile_policy(config, era, semantics)
    props = parse_properties(properties[1], properties[0], table.spec) if properties else ()
    found = analyse(table, config)
    if not dynamic:
        return CheckReport(era, semantics, source, table, found, None, "")
    spec = table.spec
    policy = PolicyExprs.from_config(spec, config)
    reference = reference_machine(spec, policy, config_timers(spec, config))
    machine, name = compiled_machine(table)
    owners = _owners(policy)
    plans = planned(table, policy, timer_values=config_timers(spec, config), owners=owners)
    result = search(
        spec, policy, machine, props, reference=reference, max_examples=max_examples,
        seed=seed, owners=owners, progress=progress, plans=plans.traces,
    )  # fmt: skip
    result.coverage.reasons.update(reason_keys(plans))
    report = CheckReport(era, semantics, source, table, found, result, name)
    report.counterexamples = [_reported(c) for c in result.counterexamples]
    return report


def _reported(c: Counterexample) -> ReportedCounterexample:
    text = dump_trace(c.trace)
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
