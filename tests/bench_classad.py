"""Benchmark: our ClassAd parser and interpreter against classad2.

Run `python -m tests.bench_classad [--seconds S]`. Not a test: it prints figures only.
`figures(seconds)` gives the parse-rate figures of issue 11 (tests.bench_common); `main`
also prints the interpreter's evaluation rate (the compiled path: tests.bench_eval).

The expressions are the current era's `use POLICY : Desktop` START, SUSPEND, PREEMPT
and WANT_SUSPEND, fully expanded exactly as HTCondor 25.14.1 expands them (read back
through `htcondor2.param` from a one-line configuration, with the text below as the
fallback when that fails). They are evaluated with MY = a realistic slot ad (which
also carries the policy expressions, as a startd's ad does: PREEMPT refers to SUSPEND
and WANT_SUSPEND) and TARGET = a realistic vanilla job ad.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from tests.bench_common import Figure, paired_rates, print_figures

FALLBACK_POLICY = {
    "START": '((KeyboardIdle > 15 * 60) && ( ((LoadAvg - CondorLoadAvg) <= 0.3) || (State != "Unclaimed" && State != "Owner")) )',
    "SUSPEND": "((KeyboardIdle < 60) || ( (IfThenElse(CpuBusyValue is 1, time() - CpuBusyTime, 0) > 120) && ifThenElse(JobStart =!= UNDEFINED, (time() - JobStart), 0) > 90))",
    "PREEMPT": '(((Activity == "Suspended") && ((time() - EnteredCurrentActivity) > 10 * 60)) || (SUSPEND && (WANT_SUSPEND == False)))',
    "WANT_SUSPEND": "((TARGET.ImageSize <  (15 * 1024)) || ((KeyboardIdle < 60) == False) || (TARGET.JobUniverse == 5) ) && ( ((KeyboardIdle < 60) || ( (IfThenElse(CpuBusyValue is 1, time() - CpuBusyTime, 0) > 120) && ifThenElse(JobStart =!= UNDEFINED, (time() - JobStart), 0) > 90)))",
}
NAMES = ["START", "SUSPEND", "PREEMPT", "WANT_SUSPEND"]
#: Issue 11: our parse rate at least this fraction of classad2's.
PARSE_TARGET = 0.25
#: Alternating measurement rounds per parse figure (`seconds` is split between them).
ROUNDS = 4

MACHINE = """\
MyType = "Machine"
TargetType = "Job"
Name = "slot1@node17.example.org"
Machine = "node17.example.org"
SlotID = 1
Arch = "X86_64"
OpSys = "LINUX"
OpSysAndVer = "AlmaLinux9"
Activity = "Busy"
State = "Claimed"
EnteredCurrentActivity = 1763790000
EnteredCurrentState = 1763789000
JobStart = 1763790000
KeyboardIdle = 4210
ConsoleIdle = 4210
LoadAvg = 1.02
CondorLoadAvg = 1.0
TotalLoadAvg = 1.02
CpuBusyValue = 0
CpuBusyTime = 0
Cpus = 1
TotalCpus = 8
Memory = 4096
TotalMemory = 32768
Disk = 51200000
KFlops = 1445811
Mips = 28731
FileSystemDomain = "example.org"
UidDomain = "example.org"
HasFileTransfer = true
StartdIpAddr = "<10.0.0.17:9618?addrs=10.0.0.17-9618>"
CondorVersion = "$CondorVersion: 25.14.1 2026-09-24 BuildID: UW_Python_Wheel_Build $"
RemoteOwner = "coltrane@example.org"
RemoteUser = "coltrane@example.org"
TotalJobRuntime = 600
Rank = 0.0
CurrentRank = 0.0
"""

JOB = """\
MyType = "Job"
TargetType = "Machine"
ClusterId = 4242
ProcId = 0
Owner = "coltrane"
User = "coltrane@example.org"
JobUniverse = 5
ImageSize = 20000
RequestCpus = 1
RequestMemory = 2048
RequestDisk = 100000
DiskUsage = 465
JobPrio = 0
JobStatus = 2
QDate = 1763780000
Cmd = "/home/coltrane/bin/sim"
Iwd = "/home/coltrane/run_55"
Requirements = (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) && (TARGET.HasFileTransfer)
Rank = TARGET.KFlops
"""


def desktop_policy() -> dict[str, str]:
    """The four expressions as HTCondor expands `use POLICY : Desktop`.

    CONDOR_CONFIG is restored afterwards: the benchmarks that run after this one in
    the same process (tests.bench_all) start `condor-policy` children, which read it.
    """
    saved = os.environ.get("CONDOR_CONFIG")
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "condor_config"
        config.write_text("use POLICY : Desktop\n")
        os.environ["CONDOR_CONFIG"] = str(config)
        try:
            from tests.oracle import htcondor2

            htcondor2.reload_config()
            return {name: str(htcondor2.param[name]) for name in NAMES}
        except Exception:  # the oracle's config machinery is optional here
            return dict(FALLBACK_POLICY)
        finally:
            if saved is None:
                del os.environ["CONDOR_CONFIG"]
            else:
                os.environ["CONDOR_CONFIG"] = saved


def parse_rates(policy: dict[str, str], seconds: float) -> dict[str, tuple[float, float]]:
    """Per expression: (our `parse_uncached` calls/s, classad2 `ExprTree(text)` calls/s),
    measured in this run, in alternating rounds (the best round of each counts)."""
    from compiler.classad.fastparse import parse_fast
    from compiler.classad.parser import parse_uncached
    from tests.oracle import classad2

    rates = {}
    for name in NAMES:
        text = policy[name]
        parse_fast(text)  # the fast path reads it (no lark fallback is being timed)
        rates[name] = paired_rates(
            lambda t=text: parse_uncached(t), lambda t=text: classad2.ExprTree(t), seconds, ROUNDS
        )
    return rates


def parse_figures(rates: dict[str, tuple[float, float]]) -> list[Figure]:
    """One figure per expression: our parse rate / classad2's, target >= 0.25."""
    found = []
    for name, (ours, theirs) in rates.items():
        ratio = ours / theirs
        found.append(
            Figure(
                name=f"ClassAd parse rate, Desktop {name}",
                ours=f"{ours:,.0f} parses/s",
                reference=f"classad2 {theirs:,.0f} parses/s",
                ratio=ratio,
                target=f">= {PARSE_TARGET}x classad2",
                met=ratio >= PARSE_TARGET,
            )
        )
    return found


def figures(seconds: float) -> list[Figure]:
    """The parse-rate figures of issue 11 (the evaluation figures: tests.bench_eval)."""
    return parse_figures(parse_rates(desktop_policy(), seconds))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="time per measurement")
    args = parser.parse_args(argv)

    policy = desktop_policy()
    from compiler.classad import evaluate, parse
    from compiler.classad.ads import load_ad
    from tests.oracle import classad2

    machine, job = load_ad(MACHINE), load_ad(JOB)
    for name, text in policy.items():
        machine[name] = parse(text)
    o_machine = classad2.ClassAd("[" + ";".join(MACHINE.splitlines()) + "]")
    o_job = classad2.ClassAd("[" + ";".join(JOB.splitlines()) + "]")
    for name, text in policy.items():
        o_machine[name] = classad2.ExprTree(text)
    rates = parse_rates(policy, args.seconds)

    # The interpreter (evaluator.py, the specification the compiled path is tested
    # against); the compiled path's figures are tests.bench_eval's.
    header = f"{'expression':<13}{'interp/s':>12}{'classad2':>12}{'ratio':>7}"
    print(header)
    print("-" * len(header))
    for name in NAMES:
        expr = parse(policy[name])
        oracle_expr = classad2.ExprTree(policy[name])
        ours, theirs = paired_rates(
            lambda e=expr: evaluate(e, machine, job),
            lambda o=oracle_expr: o.eval(o_machine, o_job),
            args.seconds,
            ROUNDS,
        )
        print(f"{name:<13}{ours:>12,.0f}{theirs:>12,.0f}{ours / theirs:>7.2f}")
    print("\nratios are ours / classad2 (above 1.0: we are faster)\n")
    print_figures(parse_figures(rates))


if __name__ == "__main__":
    main()
