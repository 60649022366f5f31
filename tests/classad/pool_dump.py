"""A realistic pool dump: N static-slot startd ads as `condor_status -l` / `-json` print them.

The template is a modern Linux execute point's static slot ad (about 200 attributes:
machine facts, benchmark and statistics numbers, version strings, the sinful strings
and `AddressV1` with its escaped quotes, lists, and the policy expressions the startd
advertises: Start, Requirements, Rank, IsOwner, WithinResourceLimits, CpuBusy, ...),
written from the attribute catalogue of the HTCondor manual (machine-classad-attributes)
and the shape of real `condor_status -l` output. Per slot, the identity (Name, SlotID,
Machine, addresses), the load and idle times, memory/disk, state and activity, and the
timestamps vary; machines of three hardware classes carry three different Start
expressions, so a pool repeats a handful of expression texts in every slot, as real
pools do.

The text is printed by classad2 itself (`printOld()` / `printJson()`), so numbers,
strings, escapes and expressions are formatted exactly as HTCondor's tools print them.
"""

from __future__ import annotations

import random
from typing import Any

#: Slots per execute point (static slots, one core each).
SLOTS_PER_MACHINE = 16

_PLUGINS = "box,gdrive,onedrive,dav,davs,http,https,s3,gs,ftp,file,data,osdf,pelican,stash"


class _E(str):
    """An expression's text (a plain `str` value is a string literal)."""


#: (name, value) of the attributes every slot has; an `_E(...)` value is an expression.
_TEMPLATE: list[tuple[str, Any]] = [
    ("AcceptedWhileDraining", False),
    ("Arch", "X86_64"),
    ("AuthenticatedIdentity", "condor@family"),
    ("AuthenticationMethod", "FAMILY"),
    ("AvailableGPUs", _E("{  }")),
    ("CanHibernate", True),
    ("CheckpointPlatform", "LINUX X86_64 5.14.0-427.42.1.el9_4.x86_64 normal N/A avx2 ssse3"),
    ("ClockDay", 1),
    ("ClockMin", 807),
    ("COLLECTOR_HOST_STRING", "cm.pool.example.org:9618"),
    ("CondorPlatform", "$CondorPlatform: x86_64_AlmaLinux9 $"),
    (
        "CondorVersion",
        "$CondorVersion: 24.0.1 2024-10-31 BuildID: 765651 PackageID: 24.0.1-1 GitSHA: 3a6d8c0f $",
    ),
    ("ConsumptionCpus", _E("quantize(target.RequestCpus,{ 1 })")),
    ("ContinueIdleTime", 300),
    ("CpuBusy", _E("((LoadAvg - CondorLoadAvg) >= 0.5)")),
    ("CpuBusyTime", 0),
    ("CpuCacheSize", 49152),
    ("CpuFamily", 6),
    ("CpuIsBusy", False),
    ("CpuModelNumber", 106),
    ("Cpus", 1),
    ("CurrentRank", 0.0),
    ("DetectedGPUs", 0),
    ("DetectedCpus", 64),
    ("DetectedMemory", 515482),
    ("DaemonCoreDutyCycle", 0.0012),
    ("DiskUsage", 0),
    ("DockerVersion", "Docker version 26.1.3, build b72abbb"),
    ("ExpectedMachineGracefulDrainingBadput", 0),
    ("ExpectedMachineGracefulDrainingCompletion", 1732368800),
    ("ExpectedMachineQuickDrainingBadput", 0),
    ("ExpectedMachineQuickDrainingCompletion", 1732368200),
    ("FileSystemDomain", "pool.example.org"),
    ("GPUs", 0),
    ("has_avx", True),
    ("has_avx2", True),
    ("has_avx512f", True),
    ("has_sse4_1", True),
    ("has_sse4_2", True),
    ("has_ssse3", True),
    ("HasContainer", True),
    ("HasDocker", True),
    ("HasEncryptExecuteDirectory", False),
    ("HasFileTransfer", True),
    ("HasFileTransferPluginMethods", _PLUGINS),
    ("HasIoProxy", True),
    ("HasJICLocalConfig", True),
    ("HasJICLocalStdin", True),
    ("HasJobDeferral", True),
    ("HasJobTransferPlugins", True),
    ("HasMPI", True),
    ("HasPerFileEncryption", True),
    ("HasReconnect", True),
    ("HasSelfCheckpointTransfers", True),
    ("HasSingularity", True),
    ("HasSshd", True),
    ("HasTDP", True),
    ("HasTransferInputRemaps", True),
    ("HasUserNamespaces", True),
    ("HasVM", False),
    ("HibernationLevel", 0),
    ("HibernationState", "NONE"),
    ("HibernationSupportedStates", "S3,S4,S5"),
    ("IsLocalStartd", False),
    ("IsOwner", _E("(START =?= false)")),
    (
        "IsValidCheckpointPlatform",
        _E(
            "(TARGET.JobUniverse isnt 1 || ((MY.CheckpointPlatform isnt undefined) && "
            "((TARGET.LastCheckpointPlatform is MY.CheckpointPlatform) || "
            "(TARGET.NumCkpts == 0))))"
        ),
    ),
    ("IsWakeAble", False),
    ("IsWakeOnLanEnabled", False),
    ("IsWakeOnLanSupported", False),
    ("JobBusyTimeAvg", 0.0),
    ("JobBusyTimeCount", 0),
    ("JobBusyTimeMax", 0.0),
    ("JobBusyTimeMin", 0.0),
    ("JobDurationAvg", 0.0),
    ("JobDurationCount", 0),
    ("JobDurationMax", 0.0),
    ("JobDurationMin", 0.0),
    ("JobPreemptions", 0),
    ("JobRankPreemptions", 0),
    ("JobUserPrioPreemptions", 0),
    ("KillIdleTime", 600),
    ("LastBenchmark", 1732300000),
    ("LastFetchWorkCompleted", 0),
    ("LastFetchWorkSpawned", 0),
    ("LastUpdate", 1732300000),
    ("MachineMaxVacateTime", _E("10 * 60")),
    ("MachineResources", "Cpus Memory Disk Swap GPUs"),
    ("MaxJobRetirementTime", _E("0")),
    ("MyType", "Machine"),
    ("NextFetchWorkDelay", -1),
    ("NumPids", 0),
    ("OfflineUniverses", _E("{  }")),
    ("OpSys", "LINUX"),
    ("OpSysAndVer", "AlmaLinux9"),
    ("OpSysLegacy", "LINUX"),
    ("OpSysLongName", "AlmaLinux release 9.4 (Seafoam Ocelot)"),
    ("OpSysMajorVer", 9),
    ("OpSysName", "AlmaLinux"),
    ("OpSysShortName", "AlmaLinux"),
    ("OpSysVer", 904),
    ("PslotRollupInformation", True),
    ("Rank", 0.0),
    ("RecentDaemonCoreDutyCycle", 0.0011),
    ("RecentJobBusyTimeAvg", 0.0),
    ("RecentJobBusyTimeCount", 0),
    ("RecentJobBusyTimeMax", 0.0),
    ("RecentJobBusyTimeMin", 0.0),
    ("RecentJobDurationAvg", 0.0),
    ("RecentJobDurationCount", 0),
    ("RecentJobDurationMax", 0.0),
    ("RecentJobDurationMin", 0.0),
    ("RecentJobPreemptions", 0),
    ("RecentJobRankPreemptions", 0),
    ("RecentJobStarts", 0),
    ("RecentJobUserPrioPreemptions", 0),
    ("Requirements", _E("START && (WithinResourceLimits)")),
    ("RetirementTimeRemaining", 0),
    ("SingularityVersion", "apptainer version 1.3.4-1.el9"),
    ("SlotType", "Static"),
    ("SlotTypeID", 0),
    ("SlotWeight", _E("Cpus")),
    (
        "StarterAbilityList",
        "HasFileTransfer,HasJobDeferral,HasMPI,HasReconnect,HasTDP,HasJobTransferPlugins,"
        "HasPerFileEncryption,HasSelfCheckpointTransfers,HasTransferInputRemaps,HasSshd,"
        "HasJICLocalStdin,HasJICLocalConfig,HasVM",
    ),
    ("SuspendIdleTime", 60),
    ("TargetType", "Job"),
    ("TimeToLive", 2147483647),
    ("TotalCondorLoadAvg", 0.0),
    ("TotalCpus", 64.0),
    ("TotalDisk", 1843200000),
    ("TotalGPUs", 0),
    ("TotalJobRunTime", 0),
    ("TotalMachineDrainingBadput", 0),
    ("TotalMachineDrainingUnclaimedTime", 0),
    ("TotalMemory", 515482),
    ("TotalSlotCpus", 1),
    ("TotalSlotDisk", 115200000.0),
    ("TotalSlotGPUs", 0),
    ("TotalSlotMemory", 32217),
    ("TotalSlots", SLOTS_PER_MACHINE),
    ("TotalVirtualMemory", 523870208),
    ("UidDomain", "pool.example.org"),
    ("Unhibernate", _E("MY.MachineLastMatchTime =!= undefined")),
    ("UpdatesHistory", "0x00000000000000000000000000000000"),
    ("UpdatesLost", 0),
    ("UpdatesSequenced", 42),
    ("UtsnameMachine", "x86_64"),
    ("UtsnameRelease", "5.14.0-427.42.1.el9_4.x86_64"),
    ("UtsnameSysname", "Linux"),
    ("UtsnameVersion", "#1 SMP PREEMPT_DYNAMIC Thu Oct 31 12:00:00 UTC 2024"),
    ("VirtualMemory", 32741888),
    ("WakeOnLanEnabledFlags", "NONE"),
    ("WakeOnLanSupportedFlags", "NONE"),
    (
        "WithinResourceLimits",
        _E(
            "(ifThenElse(TARGET._condor_RequestCpus =!= undefined,"
            "MY.Cpus > 0 && TARGET._condor_RequestCpus <= MY.Cpus,"
            "ifThenElse(TARGET.RequestCpus =!= undefined,"
            "MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus,1 <= MY.Cpus)) && "
            "ifThenElse(TARGET._condor_RequestMemory =!= undefined,"
            "MY.Memory > 0 && TARGET._condor_RequestMemory <= MY.Memory,"
            "ifThenElse(TARGET.RequestMemory =!= undefined,"
            "MY.Memory > 0 && TARGET.RequestMemory <= MY.Memory,false)) && "
            "ifThenElse(TARGET._condor_RequestDisk =!= undefined,"
            "MY.Disk > 0 && TARGET._condor_RequestDisk <= MY.Disk,"
            "ifThenElse(TARGET.RequestDisk =!= undefined,"
            "MY.Disk > 0 && TARGET.RequestDisk <= MY.Disk,false)))"
        ),
    ),
    # The policy the administrator publishes with STARTD_ATTRS (POLICY : Desktop).
    ("Continue", _E("((LoadAvg - CondorLoadAvg) <= 0.3) && (KeyboardIdle > 300)")),
    ("Kill", _E("(time() - EnteredCurrentActivity) > 600")),
    ("Preempt", _E('(Activity == "Suspended") && ((time() - EnteredCurrentActivity) > 600)')),
    (
        "Suspend",
        _E("(KeyboardIdle < 60) || (((LoadAvg - CondorLoadAvg) > 0.3) && (KeyboardIdle < 300))"),
    ),
    ("WantSuspend", _E("(KeyboardIdle < 60) || (TARGET.ImageSize < 1024000)")),
    ("WantVacate", _E("true")),
    (
        "PeriodicHoldTest",
        _E("ifThenElse(isUndefined(TARGET.MemoryUsage), false, TARGET.MemoryUsage > 2 * Memory)"),
    ),
    ("SiteName", "Example-T2"),
    ("GLIDEIN_Site", _E("undefined")),
    ("IOHeavyMachine", False),
    ("NodeOnline", True),
    ("AccountingGroupAllow", _E('{ "group_physics", "group_chem", "group_bio.lab\\"x\\"" }')),
    ("ResourceLabels", _E('[ rack = "r12"; row = 3; power = 1.5E+3 ]')),
]

#: Machine classes: hardware facts and the Start expression of each.
_CLASSES: list[dict[str, Any]] = [
    {
        "CpuModel": "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz",
        "Start": _E(
            "((KeyboardIdle > 15 * 60) && (((LoadAvg - CondorLoadAvg) <= 0.3) || "
            '(State != "Unclaimed" && State != "Owner")))'
        ),
    },
    {
        "CpuModel": "AMD EPYC 7763 64-Core Processor",
        "Start": _E(
            "(TARGET.RequestGPUs =?= undefined || TARGET.RequestGPUs == 0) && "
            "(TARGET.AccountingGroup =!= undefined) && "
            'stringListIMember(TARGET.Owner, "alice,bob,carol,dave")'
        ),
    },
    {
        "CpuModel": "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz",
        "Start": _E("true"),
    },
]

_STATES = [("Unclaimed", "Idle"), ("Claimed", "Busy"), ("Owner", "Idle"), ("Claimed", "Idle")]


def _value(classad2: Any, value: Any) -> Any:
    return classad2.ExprTree(str(value)) if isinstance(value, _E) else value


def _template(classad2: Any) -> Any:
    ad = classad2.ClassAd()
    for name, value in _TEMPLATE:
        ad[name] = _value(classad2, value)
    return ad


def _vary(ad: Any, classad2: Any, index: int, rng: random.Random) -> None:
    """Set the per-slot and per-machine attributes of slot `index`."""
    machine, slot = divmod(index, SLOTS_PER_MACHINE)
    host = f"exec{machine:05d}.pool.example.org"
    kind = _CLASSES[machine % len(_CLASSES)]
    ip = f"10.{machine // 65536 % 256}.{machine // 256 % 256}.{machine % 256}"
    spid = f"startd_{1000 + machine}_{machine * 7919 % 65536:04x}"
    now = 1732368000 + rng.randrange(600)
    state, activity = _STATES[rng.randrange(len(_STATES))]
    load = round(rng.random() * 1.5, 2)
    condor_load = load if activity == "Busy" else 0.0
    keyboard = rng.randrange(0, 200_000)
    values: dict[str, Any] = {
        "Name": f"slot{slot + 1}@{host}",
        "SlotID": slot + 1,
        "Machine": host,
        "UtsnameNodename": host,
        "CpuModel": kind["CpuModel"],
        "Start": kind["Start"],
        "MyAddress": f"<{ip}:9618?addrs={ip}-9618&alias={host}&noUDP&sock={spid}>",
        "StartdIpAddr": f"<{ip}:9618?addrs={ip}-9618&alias={host}&noUDP&sock={spid}>",
        "AddressV1": (
            f'{{[ p="primary"; a="{ip}"; port=9618; n="Internet"; alias="{host}"; '
            f'spid="{spid}"; noUDP=true; ], [ p="IPv4"; a="{ip}"; port=9618; '
            f'n="Internet"; alias="{host}"; spid="{spid}"; noUDP=true; ]}}'
        ),
        "HardwareAddress": f"3c:ec:ef:{machine >> 16 & 255:02x}:{machine >> 8 & 255:02x}:"
        f"{machine & 255:02x}",
        "State": state,
        "Activity": activity,
        "KeyboardIdle": keyboard,
        "ConsoleIdle": keyboard + rng.randrange(100),
        "LoadAvg": load,
        "CondorLoadAvg": condor_load,
        "TotalLoadAvg": round(load * SLOTS_PER_MACHINE * 0.6, 2),
        "Memory": 32217 - rng.randrange(4) * 1024,
        "Disk": 115_000_000 - rng.randrange(1_000_000),
        "Swap": 0,
        "Mips": 30_000 + machine % 97,
        "KFlops": 2_900_000 + machine % 1013,
        "EnteredCurrentState": now - rng.randrange(86_400),
        "EnteredCurrentActivity": now - rng.randrange(3_600),
        "LastHeardFrom": now,
        "MyCurrentTime": now,
        "DaemonStartTime": 1732000000 + machine,
        "DaemonLastReconfigTime": 1732000000 + machine,
        "UpdateSequenceNumber": rng.randrange(1, 5000),
        "UpdatesTotal": rng.randrange(1, 5000),
        "JobStarts": rng.randrange(500),
        "TotalTimeUnclaimedIdle": rng.randrange(10**6),
        "TotalTimeOwnerIdle": rng.randrange(10**5),
        "TotalTimeClaimedBusy": rng.randrange(10**7),
        "TotalClaimRunTime": rng.randrange(10**6),
        "MonitorSelfAge": now - 1732000000 - machine,
        "MonitorSelfCPUUsage": round(rng.random() * 3, 6),
        "MonitorSelfImageSize": 61_000 + rng.randrange(4_000),
        "MonitorSelfRegisteredSocketCount": rng.randrange(2, 12),
        "MonitorSelfResidentSetSize": 12_000 + rng.randrange(3_000),
        "MonitorSelfSecuritySessions": rng.randrange(5, 60),
        "MonitorSelfTime": now - rng.randrange(300),
        "LastBenchmark": 1732000000 + machine,
    }
    if activity == "Busy":
        values["RemoteUser"] = f"user{rng.randrange(200)}@pool.example.org"
        values["RemoteOwner"] = values["RemoteUser"]
        values["JobId"] = f"{rng.randrange(10**6)}.{rng.randrange(100)}"
        values["GlobalJobId"] = f"submit01.pool.example.org#{values['JobId']}#{now - 1000}"
        values["ImageSize"] = rng.randrange(10**6)
    else:
        for name in ("RemoteUser", "RemoteOwner", "JobId", "GlobalJobId", "ImageSize"):
            if name in ad:
                del ad[name]
    for name, value in values.items():
        ad[name] = _value(classad2, value)


def slot_ads(classad2: Any, count: int, *, seed: int = 11) -> list[str]:
    """The `printOld()` text of `count` slot ads (each ends with a newline)."""
    return _print(classad2, count, seed, "printOld")


def slot_ads_json(classad2: Any, count: int, *, seed: int = 11) -> list[str]:
    """The `printJson()` text of `count` slot ads (one JSON object each)."""
    return _print(classad2, count, seed, "printJson")


def _print(classad2: Any, count: int, seed: int, method: str) -> list[str]:
    rng = random.Random(seed)
    ad = _template(classad2)
    texts = []
    for index in range(count):
        _vary(ad, classad2, index, rng)
        texts.append(getattr(ad, method)())
    return texts


def long_dump(texts: list[str]) -> str:
    """`condor_status -l`: the ads, a blank line after each."""
    return "".join(text + "\n" for text in texts)


def json_dump(texts: list[str]) -> str:
    """`condor_status -json`: a JSON list of the ads' objects."""
    return "[\n" + ",\n".join(text.rstrip("\n") for text in texts) + "\n]\n"
