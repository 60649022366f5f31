"""Every configuration block of the three startd manuals, read in its era.

Fixtures: tests/config/fixtures/manual/<era>/*.config (the blocks of seeds 000, 001 and
002, each complete example on top of the default policy where the manual says "add to
the existing configuration").

* htcondor-current: compared with the htcondor wheel, every name.
* condor-6.4 / condor-6.8: compared with hand-expanded values for the policy expressions,
  and with the htcondor wheel reading the era's default macros (written out as a file)
  followed by the fixture, which checks the expansion itself.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from compiler.config import load_config
from compiler.config.defaults import era_defaults
from tests.config.differential import compare
from tests.config.oracle_config import clean_env, oracle_param

FIXTURES = Path(__file__).parent / "fixtures" / "manual"
POLICY = ("START", "SUSPEND", "CONTINUE", "PREEMPT", "KILL", "WANT_SUSPEND", "WANT_VACATE")


def _fixtures(era: str) -> list[Path]:
    return sorted((FIXTURES / era).glob("*.config"))


CURRENT = _fixtures("htcondor-current")
OLD = [(era, path) for era in ("condor-6.4", "condor-6.8") for path in _fixtures(era)]


def test_fixture_counts() -> None:
    assert (len(_fixtures("condor-6.4")), len(_fixtures("condor-6.8")), len(CURRENT)) == (4, 6, 11)


@pytest.mark.oracle
@pytest.mark.parametrize("path", CURRENT, ids=[p.name for p in CURRENT])
def test_current_manual_block_matches_htcondor(path: Path) -> None:
    result = compare(path)
    assert not result.oracle_refused, result.oracle_message
    assert result.our_error is None
    assert result.mismatches == {}


@pytest.mark.oracle
@pytest.mark.parametrize(("era", "path"), OLD, ids=[f"{e}/{p.name}" for e, p in OLD])
def test_old_manual_block_expands_like_htcondor_given_the_era_defaults(
    era: str, path: Path
) -> None:
    ours = load_config(path, era=era, env=clean_env())
    prelude = "\n".join(
        f"{spelling} = {raw}" for spelling, raw in era_defaults(era).values.values()
    )
    names = sorted({*POLICY, *ours.names()}, key=str.upper)
    with tempfile.TemporaryDirectory() as tmp:
        combined = Path(tmp) / "combined.config"
        combined.write_text(prelude + "\n" + path.read_text())
        result = oracle_param(combined, names)
    assert not result.refused, result.message
    for name in names:
        mine, theirs = ours.get(name), result.values[name]
        assert " ".join((mine or "").split()) == " ".join((theirs or "").split()), name


LOAD = "(LoadAvg - CondorLoadAvg)"
DEFAULT_68_START = (
    f"( (KeyboardIdle > 15 * 60) && ( {LOAD} <= 0.3 || "
    '(State != "Unclaimed" && State != "Owner")) )'
)
AFTER_HOURS = "( (ClockMin < 480 || ClockMin >= 1020) || (ClockDay == 0 || ClockDay == 6) )"

HAND_CHECKED = {
    ("condor-6.4", "01-default.config"): {
        "START": f"{LOAD} <= 0.3 && KeyboardIdle > 15 * 60",
        "SUSPEND": f"({LOAD} >= 0.5 || KeyboardIdle < 60)",
        "CONTINUE": f"{LOAD} <= 0.3 && KeyboardIdle > 5 * 60",
        "PREEMPT": (
            '( ((CurrentTime - EnteredCurrentActivity) > 10 * 60) && (Activity == "Suspended") )'
            f" || ( ({LOAD} >= 0.5 || KeyboardIdle < 60) && (WANT_SUSPEND == False) )"
        ),
        "KILL": "(CurrentTime - EnteredCurrentActivity) > 5 * 60",
        "WANT_SUSPEND": "True",
        "WANT_VACATE": "(CurrentTime - JobStart) > 10 * 60",
    },
    ("condor-6.4", "03-test-job.config"): {
        "START": f'({LOAD} <= 0.3 && KeyboardIdle > 15 * 60) || Owner == "coltrane"',
        "SUSPEND": f'({LOAD} >= 0.5 || KeyboardIdle < 60) && Owner != "coltrane"',
        "CONTINUE": f"(KeyboardIdle > 5 * 60) && {LOAD} <= 0.3",
        "KILL": "((CurrentTime - EnteredCurrentActivity) > 5 * 60)",
        "WANT_SUSPEND": "(ImageSize < (10 * 1024))",
        "WANT_VACATE": (
            "(ImageSize <= (30 * 1024) && ImageSize >= (10 * 1024)) || (ImageSize < (10 * 1024))"
        ),
    },
    ("condor-6.4", "04-always-run.config"): {
        "START": "True",
        "SUSPEND": "False",
        "PREEMPT": "False",
        "KILL": "False",
        "CONTINUE": f"{LOAD} <= 0.3 && KeyboardIdle > 5 * 60",
        "WANT_SUSPEND": "True",
    },
    ("condor-6.8", "01-default.config"): {
        "START": DEFAULT_68_START,
        "SUSPEND": (
            "( KeyboardIdle < 60 || ( (CpuBusyTime > 2 * 60) && (CurrentTime - JobStart) > 90 ) )"
        ),
        "CONTINUE": (
            f"( {LOAD} <= 0.3 && ((CurrentTime - EnteredCurrentActivity) > 10)"
            " && (KeyboardIdle > 5 * 60) )"
        ),
        "KILL": "(CurrentTime - EnteredCurrentActivity) > 10 * 60",
        "WANT_SUSPEND": (
            "( (TARGET.ImageSize <  (15 * 1024)) || (KeyboardIdle < 60 == False)"
            " || (TARGET.JobUniverse == 4) || (TARGET.JobUniverse == 5) )"
        ),
        "WANT_VACATE": (
            "( (CurrentTime - JobStart) > 10 * 60 || (TARGET.JobUniverse == 4)"
            " || (TARGET.JobUniverse == 5) )"
        ),
    },
    ("condor-6.8", "02-test-job.config"): {
        "START": f'({DEFAULT_68_START}) || Owner == "coltrane"',
        "KILL": "(CurrentTime - EnteredCurrentActivity) > 10 * 60",
    },
    ("condor-6.8", "03-time-of-day.config"): {
        "START": f"{AFTER_HOURS} && {LOAD} <= 0.3 && KeyboardIdle > 15 * 60",
        "WANT_SUSPEND": AFTER_HOURS,
    },
    ("condor-6.8", "05-disable-preemption.config"): {
        "PREEMPT": "False",
        "MAXJOBRETIREMENTTIME": "(60 * 60) * 24 * 2",
        "START": DEFAULT_68_START,
    },
    ("condor-6.8", "06-vm-suspension.config"): {
        "SUSPEND": '(VirtualMachineID == 2) && ( (vm1_Activity == "Busy") || (KeyboardIdle < 60) )',
        "CONTINUE": '(KeyboardIdle > 5 * 60) && (vm1_Activity != "Busy")',
    },
}


@pytest.mark.parametrize(
    ("era", "fixture", "name", "expected"),
    [(e, f, n, v) for (e, f), values in HAND_CHECKED.items() for n, v in values.items()],
)
def test_old_manual_block_hand_checked(era: str, fixture: str, name: str, expected: str) -> None:
    config = load_config(FIXTURES / era / fixture, era=era)
    assert " ".join((config.get(name) or "").split()) == " ".join(expected.split())


def test_6x_colon_assignments_are_exported() -> None:
    config = load_config(FIXTURES / "condor-6.4" / "01-default.config", era="condor-6.4")
    assert set(POLICY) <= set(config.exported())
    assert "MINUTE" not in config.exported()
    assert config.warnings == ()
