"""The era default tables against the reference (shared/reference/transitions.md §4, §6).

The current era's table was generated from HTCondor's parameter table and the oracle;
here it is checked, raw value by raw value, against the list the reference copied from
param_info.in by hand (§6.3 (ii)), and against the oracle with an empty configuration.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from compiler.config import load_config
from compiler.config.defaults import era_defaults
from tests.config.oracle_config import oracle_param

#: transitions.md §6.3 (ii), verbatim (PERIODIC_CHECKPOINT left out: it is random).
REFERENCE_CURRENT = """
START = True
SUSPEND = False
CONTINUE = True
PREEMPT = False
KILL = False
WANT_SUSPEND = False
WANT_VACATE = True
IS_OWNER = False
CLAIM_WORKLIFE = 1200
MachineMaxVacateTime = $(MaxVacateTime)
MATCH_TIMEOUT = 120
KILLING_TIMEOUT = 30
VM_KILLING_TIMEOUT = 60
POLLING_INTERVAL = 5
UPDATE_INTERVAL = 300
MAX_CLAIM_ALIVES_MISSED = 6
ALIVE_INTERVAL = 300
RunBenchmarks = LastBenchmark == 0
BenchmarkTimer = (time() - LastBenchmark)
MINUTE = 60
HOUR = 3600
STANDARD = 1
IsStandard = (TARGET.JobUniverse == $(STANDARD))
VANILLA = 5
IsVanilla = (TARGET.JobUniverse == $(VANILLA))
MPI = 8
IsMPI = (TARGET.JobUniverse == $(MPI))
VM = 13
IsVM = (TARGET.JobUniverse == $(VM))
BigJob = (TARGET.ImageSize >= (50 * 1024))
MediumJob = (TARGET.ImageSize >= (15 * 1024) && TARGET.ImageSize < (50 * 1024))
SmallJob = (TARGET.ImageSize <  (15 * 1024))
BackgroundLoad = 0.3
HighLoad = 0.5
StartIdleTime = 15 * $(MINUTE)
ContinueIdleTime = 5 * $(MINUTE)
MaxSuspendTime = 10 * $(MINUTE)
MaxVacateTime = 10 * $(MINUTE)
StateTimer = (time() - EnteredCurrentState)
ActivityTimer = (time() - EnteredCurrentActivity)
JOB_DEFAULT_LEASE_DURATION = 2400
"""

REFERENCE_PAIRS = [
    tuple(part.strip() for part in line.split("=", 1))
    for line in REFERENCE_CURRENT.strip().splitlines()
]

#: Names the reference says have no built-in default (they expand to nothing).
NO_DEFAULT = (
    "ActivationTimer",
    "KeyboardBusy",
    "CPUIdle",
    "CPUBusy",
    "KeyboardNotBusy",
    "DAY",
    "MaxJobRetirementTime",
    "START_BACKFILL",
    "EVICT_BACKFILL",
    "RANK",
    "WANT_HOLD",
)


@pytest.mark.parametrize(("name", "raw"), REFERENCE_PAIRS, ids=[n for n, _ in REFERENCE_PAIRS])
def test_current_defaults_match_the_reference(name: str, raw: str) -> None:
    assert load_config().raw(name) == raw


@pytest.mark.parametrize("name", NO_DEFAULT)
def test_names_without_a_builtin_default(name: str) -> None:
    assert load_config().get(name) is None


@pytest.mark.oracle
def test_every_current_default_matches_the_oracle() -> None:
    config = load_config()
    names = [s for s, _ in era_defaults("htcondor-current").values.values()]
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty.config"
        empty.write_text("")
        result = oracle_param(empty, names, every_name=True)
    skip = {
        "PERIODIC_CHECKPOINT",
        "UWCS_PERIODIC_CHECKPOINT",
        "PID",
        "PPID",
        "DETECTED_MEMORY",
        "CONFIG_ROOT",
        "CONDOR_BUILD_PLATFORM",
    }
    skip |= {n for n in result.values if n.upper().startswith("OPSYS") and n != "OPSYS"}
    wrong = {
        name: (config.get(name), value)
        for name, value in result.values.items()
        if name not in skip
        and " ".join((config.get(name) or "").split()) != " ".join((value or "").split())
    }
    assert len(result.values) > 900
    assert wrong == {}


@pytest.mark.parametrize(
    ("era", "name", "raw"),
    [
        ("condor-6.4", "MATCH_TIMEOUT", "300"),
        ("condor-6.4", "MaxVacateTime", "5 * $(MINUTE)"),
        ("condor-6.4", "WANT_SUSPEND", "True"),
        ("condor-6.4", "IsOwner", "(START =?= False)"),
        ("condor-6.8", "MATCH_TIMEOUT", "120"),
        ("condor-6.8", "CLAIM_WORKLIFE", "-1"),
        ("condor-6.8", "MaxJobRetirementTime", "0"),
        ("condor-6.8", "MaxVacateTime", "10 * $(MINUTE)"),
        ("condor-6.8", "ActivityTimer", "(CurrentTime - EnteredCurrentActivity)"),
    ],
)
def test_6x_defaults_follow_the_manuals(era: str, name: str, raw: str) -> None:
    assert load_config(era=era).raw(name) == raw


def test_6x_eras_have_the_seven_policy_expressions() -> None:
    for era in ("condor-6.4", "condor-6.8"):
        config = load_config(era=era)
        for name in (
            "START",
            "SUSPEND",
            "CONTINUE",
            "PREEMPT",
            "KILL",
            "WANT_SUSPEND",
            "WANT_VACATE",
        ):
            assert config.expr(name) is not None, (era, name)
