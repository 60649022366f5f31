"""Pool snapshots for `negotiate`, generated: a real site's negotiator settings (from
../shared/realworld-configs, the UWCS example configuration a Red Hat package shipped in
2021: PREEMPTION_REQUIREMENTS with the 20 % rule and a one-hour state timer,
PREEMPTION_RANK, NEGOTIATOR_PRE_JOB_RANK / POST_JOB_RANK) over slot and job ads shaped
like `condor_status -l` and `condor_q -l` output: static slots of a few memory sizes, a
share of them claimed (some Idle), machine RANKs preferring one department, jobs in
clusters (one autocluster per cluster) with condor_submit's Requirements.

Used by the benchmark (tests/bench_negotiate.py) at 10,000 slots x 50,000 jobs and by the
differential test at small sizes. Deterministic for a seed.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from tests.paths import shared_path

REALWORLD = "realworld-configs/htcondor-generic-redhat-2021-uwcs-config-dir.config"
#: The negotiator knobs a snapshot takes from the site's configuration.
KNOBS = (
    "PREEMPTION_REQUIREMENTS",
    "PREEMPTION_RANK",
    "NEGOTIATOR_PRE_JOB_RANK",
    "NEGOTIATOR_POST_JOB_RANK",
    "NEGOTIATOR_USE_SLOT_WEIGHTS",
)
NOW = 1_763_790_000
JOB_REQUIREMENTS = (
    '(TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && (TARGET.Disk >= RequestDisk)'
    " && (TARGET.Memory >= RequestMemory) && (TARGET.HasFileTransfer)"
)
SLOT_START = (
    '(TARGET.RequestMemory <= MY.Memory) && (KeyboardIdle > 15 * 60 || State =!= "Owner")'
    " && (TARGET.JobUniverse =!= 7 || MY.HasVM =?= true)"
)


def site_config(path: Path | None = None) -> str:
    """The negotiator knobs of the real site's configuration, expanded, as config text
    (the calling test skips loudly when ../shared is absent)."""
    from compiler.config import load_config

    path = path or shared_path(REALWORLD)
    config = load_config(text=path.read_text(), subsystem="NEGOTIATOR")
    return "".join(
        f"{knob} = {config.get(knob)}\n" for knob in KNOBS if config.definition(knob) is not None
    )


def generated_snapshot(
    slots: int,
    jobs: int,
    *,
    submitters: int = 50,
    autoclusters: int = 100,
    claimed: float = 0.3,
    seed: int = 1,
    config: str = "",
) -> dict[str, Any]:
    """A SNAPSHOT document (DESIGN.md's `negotiate` input) of `slots` slots and `jobs`
    idle jobs of `submitters` users in `autoclusters` clusters."""
    rng = random.Random(seed)
    users = [f"user{u:02d}@example.edu" for u in range(submitters)]
    machines = []
    for i in range(slots):
        memory = rng.choice([2048, 4096, 8192, 16384, 65536])
        ad: dict[str, Any] = {
            "Name": f'"slot{i % 8 + 1}@node{i // 8:04d}.example.edu"',
            "SlotID": i % 8 + 1,
            "Arch": '"X86_64"',
            "OpSys": '"LINUX"' if rng.random() < 0.97 else '"WINDOWS"',
            "Cpus": 1,
            "Memory": memory,
            "Disk": rng.choice([2_000_000, 20_000_000, 200_000_000]),
            "KFlops": rng.randrange(800_000, 2_500_000),
            "HasFileTransfer": "true",
            "KeyboardIdle": rng.randrange(0, 100_000),
            "NiceUser": "false",
            "START": SLOT_START,
            "Requirements": "START",
            "Rank": '(TARGET.Department =?= "physics") * 10' if i % 10 == 0 else "0",
            "State": '"Unclaimed"',
            "Activity": '"Idle"',
            "EnteredCurrentState": NOW - rng.randrange(0, 7200),
        }
        if rng.random() < claimed:
            user = rng.choice(users)
            ad.update(
                State='"Claimed"',
                Activity='"Busy"' if rng.random() < 0.9 else '"Idle"',
                RemoteUser=f'"{user}"',
                RemoteOwner=f'"{user}"',
                CurrentRank=0,
            )
        machines.append({"name": f"slot{i % 8 + 1}@node{i // 8:04d}.example.edu", "ad": ad})
    per_cluster = [jobs // autoclusters + (1 if c < jobs % autoclusters else 0)
                   for c in range(autoclusters)]  # fmt: skip
    by_user: dict[str, list[dict[str, Any]]] = {u: [] for u in users}
    for cluster, count in enumerate(per_cluster):
        user = users[cluster % submitters]
        memory = rng.choice([1024, 2048, 4000, 8000, 16000, 100_000])
        shape = {
            "Owner": f'"{user.partition("@")[0]}"',
            "User": f'"{user}"',
            "JobUniverse": 5,
            "RequestCpus": 1,
            "RequestMemory": memory,
            "RequestDisk": rng.choice([1000, 100_000, 10_000_000]),
            "ImageSize": rng.randrange(1000, 2_000_000),
            "Department": '"physics"' if cluster % 7 == 0 else '"chemistry"',
            "Requirements": JOB_REQUIREMENTS,
            "Rank": "TARGET.KFlops / 1000000" if cluster % 3 == 0 else "0.0",
        }
        for proc in range(count):
            ad = {**shape, "ClusterId": cluster + 1, "ProcId": proc, "QDate": NOW - 3600,
                  "JobPrio": 0, "JobStatus": 1}  # fmt: skip
            by_user[user].append({"id": f"{cluster + 1}.{proc}", "ad": ad})
    return {
        "config": config,
        "machines": machines,
        "submitters": [
            {"name": user, "rup": 0.5 + 10 * n, "factor": 1000, "jobs": by_user[user]}
            for n, user in enumerate(users)
        ],
    }
