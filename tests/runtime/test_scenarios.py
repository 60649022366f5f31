"""Conformance scenarios: the manuals' stories replayed through the compiled policy.

Each file under tests/scenarios/<era>/ is a trace with a hand-written `expect:` list (the
transition numbers the manual's story fires, per semantics where the reference says the
startd differs). The runtime must fire exactly that sequence. `test_coverage` prints, per
era and semantics, which numbered transitions the scenarios fire and fails when a live
numbered transition of an era (manual semantics) is fired by no scenario.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from compiler.spec import load_spec
from tests.runtime.support import compiled, load, run_trace, scenario_cases, scenario_files

CASES = scenario_cases()


@pytest.mark.parametrize(("path", "semantics"), CASES)
def test_scenario_fires_the_expected_sequence(path: Path, semantics: str) -> None:
    trace = load(path)
    slot = run_trace(trace, semantics)
    fired = [f.number for f in slot.fired]
    assert fired == list(trace.expected(semantics) or ()), "\n".join(
        f.to_text() for f in slot.fired
    )


def test_every_era_has_scenarios() -> None:
    eras = {load(p).era for p in scenario_files()}
    assert eras == {"condor-6.4", "condor-6.8", "htcondor-current"}


def test_coverage(capsys: pytest.CaptureFixture[str]) -> None:
    fired: dict[tuple[str, str], set[int | str]] = defaultdict(set)
    live: dict[tuple[str, str], set[int | str]] = defaultdict(set)
    for path in scenario_files():
        trace = load(path)
        era = trace.era or "htcondor-current"
        for semantics in ("manual", "code"):
            if trace.expected(semantics) is None:
                continue
            _, table = compiled(era, semantics, tuple(sorted(trace.config.items())))
            live[era, semantics] |= {r.number for r in table.numbered() if r.status != "dead"}
            fired[era, semantics] |= {f.number for f in run_trace(trace, semantics).fired}
    lines = []
    missing_manual = {}
    for (era, semantics), numbers in sorted(live.items()):
        total = load_spec(era, semantics).numbered_count
        hit = {n for n in fired[era, semantics] if isinstance(n, int)}
        missing = sorted(numbers - hit, key=int)
        pct = 100.0 * len(numbers & hit) / len(numbers)
        lines.append(
            f"{era:17} {semantics:6} {len(numbers & hit):2}/{len(numbers):2} live "
            f"({total} numbered) {pct:5.1f}%  missing: {missing or '-'}"
        )
        if semantics == "manual":
            missing_manual[era] = missing
    with capsys.disabled():
        print("\ntransition coverage by the scenarios:\n  " + "\n  ".join(lines))
    assert all(not m for m in missing_manual.values()), missing_manual
