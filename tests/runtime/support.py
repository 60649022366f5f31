"""Shared helpers for the runtime tests: cached compiled tables and trace replay."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from compiler.config import Config, load_config
from compiler.policy import compile_policy
from compiler.table import StateTable
from runtime.trace import Trace, read_trace, replay

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


@functools.cache
def compiled(
    era: str, semantics: str, overrides: tuple[tuple[str, str], ...] = ()
) -> tuple[Config, StateTable]:
    config = load_config(era=era)
    if overrides:
        config = config.with_overrides(dict(overrides))
    return config, compile_policy(config, era=era, semantics=semantics)


def run_trace(trace: Trace, semantics: str, **kw: Any) -> Any:
    _, table = compiled(
        trace.era or "htcondor-current", semantics, tuple(sorted(trace.config.items()))
    )
    return replay(trace, table, **kw)


def scenario_files() -> list[Path]:
    return sorted(SCENARIOS.glob("*/*.yaml"))


@functools.cache
def load(path: Path) -> Trace:
    """The scenario file at `path`, read once per process: several modules parametrize
    over every scenario at collection (each xdist worker collects) and their tests read
    it again. A Trace is frozen and no test changes its dicts."""
    return read_trace(path)


def coltrane_trace(steps: list[Any], config: dict[str, str] | None = None, **fields: Any) -> Trace:
    """A current-era trace of `steps` for a vanilla job of coltrane's, benchmarks off."""
    return Trace(
        file="<test>",
        steps=tuple(steps),
        era="htcondor-current",
        config={"RunBenchmarks": "False", **(config or {})},
        job={"Owner": "coltrane", "JobUniverse": 5, "ImageSize": 1000},
        **fields,
    )


def gate_cases(cases: list[Any]) -> list[Any]:
    """`cases` ((path, semantics, ...) params) with each scenario once in the README run,
    in the semantics turned by its place (so both semantics are met across scenarios); a
    scenario's other semantics is marked `explore`. For the tests whose cost is replaying
    every scenario, where the second semantics mostly repeats the first."""
    import pytest

    place: dict[Any, int] = {}
    count: dict[Any, int] = {}
    for case in cases:
        path = case.values[0]
        place.setdefault(path, len(place))
        count[path] = count.get(path, 0) + 1
    out = []
    for case in cases:
        path, semantics = case.values[0], case.values[1]
        keep = count[path] == 1 or semantics == ("code", "manual")[place[path] % 2]
        out.append(
            case if keep else pytest.param(*case.values, id=case.id, marks=pytest.mark.explore)
        )
    return out


def scenario_cases() -> list[Any]:
    """One pytest param per scenario file and semantics it states an expectation for."""
    import pytest

    return [
        pytest.param(path, semantics, id=f"{path.parent.name}/{path.stem}/{semantics}")
        for path in scenario_files()
        for semantics in ("manual", "code")
        if load(path).expected(semantics) is not None
    ]
