"""`compile --format config`: the fragment loads to the same table, in our reader and
in HTCondor's (the htcondor wheel, tests/config/oracle_config.py).

For every shipped POLICY template in every era, and every real-world configuration that
compiles (../shared/realworld-configs, skipped loudly when absent): compile, write the
fragment, read it back with `compiler.config` and compile again; the rows and the
program (knobs, runtime expressions, settings) must be equal. Against the wheel: every
value the fragment writes is the value `condor_config_val` gives for it, so the wheel's
reader loads the same table too.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from compiler import compile_policy
from compiler.config import Config, all_templates, load_config
from compiler.errors import PolicyError
from compiler.roundtrip import config_fragment
from compiler.spec import ERAS
from compiler.table import StateTable
from tests.config.oracle_config import oracle_param
from tests.config.realworld import FILES, needs_realworld

TEMPLATES = sorted(t.name for t in all_templates().get("POLICY", {}).values())
#: Templates that take arguments: the name of a variable holding the trigger (as the
#: Preempt_If_*_Exceeded templates pass theirs), and Want_Hold_If's subcode and reason.
ARGUMENTS = {
    "Preempt_If": "(BIG_JOB)",
    "Want_Hold_If": "(BIG_JOB, 7, job too big)",
    "Hold_If_Runtime_Exceeds": "(3600)",
    "Preempt_If_Runtime_Exceeds": "(3600)",
    "Limit_Job_Runtimes": "(3600)",
}


def _use(template: str) -> str:
    return f"BIG_JOB = (MemoryUsage > 1000)\nuse POLICY : {template}{ARGUMENTS.get(template, '')}\n"


@cache
def _compiled(
    text: str | None, path: str | None, era: str, semantics: str
) -> tuple[Config, StateTable]:
    if path is not None:
        config = load_config(path, era=era)
    else:
        config = load_config(text=text or "", era=era)
    return config, compile_policy(config, era, semantics)


def _same_table(a: StateTable, b: StateTable) -> None:
    rows_a = [r.to_dict() for r in a.rows]
    rows_b = [r.to_dict() for r in b.rows]
    for ra, rb in zip(rows_a, rows_b, strict=True):
        assert ra == rb, ra["id"]
    program_a, program_b = a.program.to_dict(), b.program.to_dict()
    # An invalid knob's note says where its bad text came from: the fragment is elsewhere.
    for program in (program_a, program_b):
        for knob in program["knobs"]:
            knob.pop("note", None)
    assert program_a == program_b


def _round_trip(config: Config, table: StateTable) -> tuple[str, Config, StateTable]:
    fragment = config_fragment(table, config)
    again = load_config(text=fragment, era=table.era)
    return fragment, again, compile_policy(again, table.era, table.semantics)


def _or_skip(
    text: str | None, path: str | None, era: str, semantics: str
) -> tuple[Config, StateTable]:
    try:
        return _compiled(text, path, era, semantics)
    except PolicyError as err:
        pytest.skip(f"does not compile in {era}: {err.message.splitlines()[0]}")


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("template", TEMPLATES)
def test_every_template_round_trips(template: str, era: str) -> None:
    for semantics in ("code", "manual"):
        config, table = _or_skip(_use(template), None, era, semantics)
        _, again, table2 = _round_trip(config, table)
        _same_table(table, table2)
        # And once more from the fragment. (Its text need not be a fixed point: both
        # readers keep the default's spelling of a value equal to it but for case,
        # `KILL = false` reads back as the default's `False`.)
        _same_table(table2, _round_trip(again, table2)[2])


def test_the_default_policy_of_every_era_round_trips() -> None:
    for era in ERAS:
        config, table = _compiled("", None, era, "code")
        _same_table(table, _round_trip(config, table)[2])


@needs_realworld
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_realworld_config_round_trips(path: Path) -> None:
    config, table = _or_skip(None, str(path), "htcondor-current", "code")
    _same_table(table, _round_trip(config, table)[2])


# -- the wheel's reader ------------------------------------------------------------------

_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_.]*) =(?: (.*))?$")


def _written(fragment: str) -> dict[str, str | None]:
    """NAME -> value of each `NAME = value` line (None for `NAME =`) and `NAME @=end`
    block."""
    out: dict[str, str | None] = {}
    block: tuple[str, list[str]] | None = None
    for line in fragment.splitlines():
        if block is not None:
            if line == "@end":
                out[block[0]] = "\n".join(block[1])
                block = None
            else:
                block[1].append(line)
            continue
        if line.endswith(" @=end"):
            block = (line.removesuffix(" @=end"), [])
            continue
        found = _LINE.match(line)
        if found:
            out[found.group(1)] = found.group(2)
    return out


def _squeeze(value: Any) -> Any:
    return None if value is None else " ".join(str(value).split())


def _wheel_agrees(fragment: str, era: str, tmp_path: Path) -> None:
    """HTCondor's reader gives every name the fragment writes the value ours gives it,
    and that is the value written (up to the case of a value equal to the default's,
    which both readers replace by the default's text)."""
    path = tmp_path / "fragment.config"
    path.write_text(fragment)
    written = _written(fragment)
    ours = load_config(path, era=era)
    result = oracle_param(path, list(written))
    assert not result.refused, result.message
    for name, value in written.items():
        assert _squeeze(result.values[name]) == _squeeze(ours.get(name)), name
        assert str(_squeeze(ours.get(name))).lower() == str(_squeeze(value)).lower(), name


@pytest.mark.parametrize("template", TEMPLATES)
def test_the_wheel_reads_every_template_fragment_alike(template: str, tmp_path: Path) -> None:
    config, table = _or_skip(_use(template), None, "htcondor-current", "code")
    _wheel_agrees(config_fragment(table, config), table.era, tmp_path)


@needs_realworld
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_the_wheel_reads_every_realworld_fragment_alike(path: Path, tmp_path: Path) -> None:
    config, table = _or_skip(None, str(path), "htcondor-current", "code")
    _wheel_agrees(config_fragment(table, config), table.era, tmp_path)


# -- the command ---------------------------------------------------------------------------


def test_compile_format_config_loads_to_the_same_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from runtime.cli import main

    monkeypatch.delenv("CONDOR_CONFIG", raising=False)  # the oracle's tests set it

    assert (
        main(["compile", "--policy", "Desktop", "--era", "condor-6.8", "--format", "config"]) == 0
    )
    fragment = capsys.readouterr().out
    assert fragment.startswith("# condor-policy compile --format config\n")
    assert "# era: condor-6.8; semantics: code; source: use POLICY : Desktop\n" in fragment
    _, table = _compiled("use POLICY : Desktop\n", None, "condor-6.8", "code")
    again = load_config(text=fragment, era="condor-6.8")
    _same_table(table, compile_policy(again, "condor-6.8", "code"))


def test_compile_differences_has_no_config_format(capsys: pytest.CaptureFixture[str]) -> None:
    from runtime.cli import main

    assert main(["compile", "--differences", "--format", "config"]) == 2
    assert "--format" in capsys.readouterr().err


def test_a_multi_line_value_round_trips(tmp_path: Path) -> None:
    """A value written over several lines (`NAME @=TAG ... @TAG`) keeps its lines."""
    text = 'START @=end\n  KeyboardIdle > 600 &&\n  Owner != "x"\n@end\nSUSPEND = False\n'
    config = load_config(text=text)
    table = compile_policy(config, "htcondor-current", "code")
    fragment, _, again = _round_trip(config, table)
    assert "START @=end\n" in fragment and "START" in _written(fragment)
    _same_table(table, again)
    _wheel_agrees(fragment, "htcondor-current", tmp_path)
