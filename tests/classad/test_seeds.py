"""The manuals' worked ClassAd examples, checked against our evaluator AND the oracle.

Expected values are the oracle's (shared/reference/classad-semantics.md sections 6,
11, 13); where a seed document claims something else the test says so.
"""

from __future__ import annotations

import pytest

from compiler.classad import ERROR, UNDEFINED, ClassAd, compile_expr, evaluate, parse
from compiler.classad.ads import load_ad
from compiler.classad.match import rank, rank_value, requirements_met, symmetric_match
from tests.classad.oracle_support import oracle_eval, same
from tests.oracle import classad2

MINUTE = 60

START_AND = f'KeyboardIdle > 15 * {MINUTE} && Owner == "coltrane"'
START_OR = f'KeyboardIdle > 15 * {MINUTE} || Owner == "coltrane"'


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        (START_AND, False),  # FALSE && UNDEFINED is FALSE: the machine stays in Owner
        (START_OR, UNDEFINED),  # FALSE || UNDEFINED is UNDEFINED: it becomes Unclaimed
        (f"({START_AND}) =?= False", True),  # IsOwner = (START =?= False)
        (f"({START_OR}) =?= False", False),
    ],
)
def test_keyboard_idle_34_start_examples(expr: str, expected: object) -> None:
    machine = {"KeyboardIdle": 34}
    assert evaluate(expr, machine) is expected
    assert compile_expr(expr)(machine) is expected
    assert same(evaluate(expr, machine), oracle_eval(expr, machine))


RANKS = [
    'Owner == "coltrane" || Owner == "tyner" || Owner == "garrison" || Owner == "jones"',
    '(Owner == "coltrane") + (Owner == "tyner") + ((Owner == "garrison") * 10) + (Owner == "jones")',
    "ImageSize",
    # The precedence trap: `"coltrane" * 1000000000000` is evaluated first and is ERROR
    # for every job (the seed means `(Owner == "coltrane") * 1000000000000 + ImageSize`).
    '(Owner == "coltrane" * 1000000000000) + Imagesize',
    # Seed 000's unparenthesised form: ERROR for every owner (the seed claims 0/1/10).
    'Owner == "coltrane" + Owner == "tyner" + (Owner == "garrison") * 10 + Owner == "jones"',
]
OWNERS = ["coltrane", "Coltrane", "tyner", "garrison", "jones", "someone"]


@pytest.mark.parametrize("expr", RANKS)
@pytest.mark.parametrize("owner", OWNERS)
def test_rank_examples_match_oracle(expr: str, owner: str) -> None:
    job = {"Owner": owner, "ImageSize": 2000}
    machine = {"Rank": parse(expr)}
    ours = evaluate("MY.Rank", machine, job)
    assert same(ours, oracle_eval("MY.Rank", machine, job))
    assert same(compile_expr("MY.Rank")(machine, job), ours)


def test_rank_example_values() -> None:
    weighted = {"Rank": parse(RANKS[1])}
    assert rank_value(weighted, {"Owner": "garrison"}) == 10
    assert rank_value(weighted, {"Owner": "Coltrane"}) == 1  # `==` ignores case
    assert rank(weighted, {"Owner": "nobody"}) == 0.0
    trap = {"Rank": parse(RANKS[3])}
    assert rank_value(trap, {"Owner": "coltrane", "ImageSize": 1}) is ERROR
    assert rank(trap, {"Owner": "coltrane", "ImageSize": 1}) == 0.0


IS_VALID_CHECKPOINT_PLATFORM = """
(
  ( (TARGET.JobUniverse == 1) == FALSE) ||
  (
    (MY.CheckpointPlatform =!= UNDEFINED) &&
    (
      (TARGET.LastCheckpointPlatform =?= MY.CheckpointPlatform) ||
      (TARGET.NumCkpts == 0)
    )
  )
)
"""


@pytest.mark.parametrize(
    ("machine", "job", "expected"),
    [
        ({}, {"JobUniverse": 5}, True),  # vanilla jobs always pass
        ({}, {}, UNDEFINED),  # no universe: UNDEFINED == FALSE is UNDEFINED
        ({}, {"JobUniverse": 1, "NumCkpts": 0}, False),  # machine without a platform
        ({"CheckpointPlatform": "LINUX x86"}, {"JobUniverse": 1, "NumCkpts": 0}, True),
        (
            {"CheckpointPlatform": "LINUX x86"},
            {"JobUniverse": 1, "NumCkpts": 3, "LastCheckpointPlatform": "LINUX x86"},
            True,
        ),
        (
            {"CheckpointPlatform": "LINUX x86"},
            {"JobUniverse": 1, "NumCkpts": 3, "LastCheckpointPlatform": "linux X86"},
            False,  # =?= is case-sensitive
        ),
        ({"CheckpointPlatform": "LINUX x86"}, {"JobUniverse": 1}, UNDEFINED),
    ],
)
def test_is_valid_checkpoint_platform(machine: dict, job: dict, expected: object) -> None:
    ours = evaluate(IS_VALID_CHECKPOINT_PLATFORM, machine, job)
    assert ours is expected
    assert same(ours, oracle_eval(IS_VALID_CHECKPOINT_PLATFORM, machine, job))


SEED_004_MACHINE = """\
MyType = "Machine"
TargetType = "Job"
Requirements = Start
Rank = TARGET.Department == MY.Department
Activity = "Idle"
Arch = "INTEL"
ClockDay = 0
ClockMin = 614
CondorLoadAvg = 0.000000
Cpus = 1
CurrentRank = 0.000000
Department = "CompSci"
Disk = 3076076
EnteredCurrentActivity = 990371564
EnteredCurrentState = 990330615
FileSystemDomain = "cs.wisc.edu"
IsInstructional = FALSE
KeyboardIdle = 15
KFlops = 145811
LoadAvg = 0.220000
Machine = "nostos.cs.wisc.edu"
Memory = 511
Mips = 732
OpSys = "LINUX"
Start = (LoadAvg <= 0.300000) && (KeyboardIdle > (15 * 60))
State = "Unclaimed"
Subnet = "128.105.165"
TotalVirtualMemory = 787144
"""

SEED_004_JOB = """\
MyType = "Job"
TargetType = "Machine"
Requirements = ((Arch == "INTEL" && OpSys == "LINUX") && Disk > DiskUsage)
Rank = (Memory * 10000) + KFlops
Args = "-ini ./ies.ini"
ClusterId = 680
Cmd = "/home/tannenba/bin/sim-exe"
Department = "CompSci"
DiskUsage = 465
StdErr = "sim.err"
ExitStatus = 0
FileReadBytes = 0.000000
FileWriteBytes = 0.000000
ImageSize = 465
StdIn = "/dev/null"
Iwd = "/home/tannenba/sim-m/run_55"
JobPrio = 0
JobStartDate = 971403010
JobStatus = 2
StdOut = "sim.out"
Owner = "tannenba"
ProcId = 64
QDate = 971377131
RemoteSysCpu = 0.000000
RemoteUserCpu = 0.000000
RemoteWallClockTime = 2401399.000000
TransferFiles = "NEVER"
WantCheckpoint = FALSE
WantRemoteSyscalls = FALSE
"""


def _oracle_pair() -> tuple[object, object]:
    return (
        classad2.ClassAd(f"[{';'.join(SEED_004_MACHINE.splitlines())}]"),
        classad2.ClassAd(f"[{';'.join(SEED_004_JOB.splitlines())}]"),
    )


def test_seed_004_match_and_rank() -> None:
    machine, job = load_ad(SEED_004_MACHINE), load_ad(SEED_004_JOB)
    o_machine, o_job = _oracle_pair()
    # The job accepts the machine; the machine's START refuses (KeyboardIdle is 15 s).
    assert requirements_met(job, machine) is True
    assert requirements_met(machine, job) is False
    assert symmetric_match(machine, job) is False
    assert o_machine.matches(o_job) is True and o_job.matches(o_machine) is False
    assert symmetric_match(machine, job) == o_machine.symmetricMatch(o_job)
    assert rank_value(job, machine) == 511 * 10000 + 145811
    assert rank_value(machine, job) is True
    assert rank(machine, job) == 1.0
    # An idle keyboard lets the machine accept the job: now both sides match.
    machine["KeyboardIdle"] = 3600
    assert symmetric_match(machine, job) is True


def test_seed_004_figure_typo_never_matches() -> None:
    """Figure 15.1 prints `Op-Sys`, which parses as `Op - Sys`: UNDEFINED, no match."""
    job = load_ad(SEED_004_JOB)
    job["Requirements"] = parse('((Arch== "INTEL" && Op-Sys=="LINUX") && Disk > DiskUsage)')
    machine = load_ad(SEED_004_MACHINE)
    machine["KeyboardIdle"] = 3600
    assert requirements_met(job, machine) is False
    assert evaluate("MY.Requirements", job, machine) is UNDEFINED
    assert same(
        evaluate("MY.Requirements", job, machine),
        oracle_eval("MY.Requirements", dict(job), dict(machine)),
    )


def test_classad_type_is_case_insensitive() -> None:
    ad = ClassAd({"KeyboardIdle": 34})
    assert ad["keyboardidle"] == 34 and "KEYBOARDIDLE" in ad
    assert list(ad) == ["KeyboardIdle"]
