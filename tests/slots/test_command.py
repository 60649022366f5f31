"""`condor-policy slots`: JSON and table output, exit 2 with the startd's message for a
layout it refuses, bad input files named, --jobs (DESIGN.md "Machines with many slots")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runtime.cli import main

ROOT = Path(__file__).resolve().parents[2]
GPU_CONFIG = ROOT / "docs" / "examples" / "slots" / "gpu-slots.config"
GPU_HW = ROOT / "docs" / "examples" / "slots" / "gpu-hardware.json"


def _write(tmp_path: Path, name: str, data: object) -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def test_json_output_has_the_contracts_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["slots", str(GPU_CONFIG), "--hardware", str(GPU_HW), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"slots", "machine"}
    first = out["slots"][0]
    for key in ("name", "type", "partitionable", "Cpus", "Memory", "Disk", "Swap",
                "TotalSlotCpus", "GPUs", "AssignedGPUs"):  # fmt: skip
        assert key in first, key
    assert first["name"] == "slot1" and first["partitionable"] is True
    assert set(out["machine"]) == {"TotalCpus", "TotalMemory", "TotalVirtualMemory",
                                   "TotalDisk", "TotalGPUs", "DetectedGPUs"}  # fmt: skip
    assert out["machine"]["TotalDisk"] == 1_000_000  # the hardware's KB


def test_table_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["slots", str(GPU_CONFIG), "--hardware", str(GPU_HW)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["slot", "type", "kind", "Cpus", "Memory", "Disk", "Swap", "GPUs"]
    assert out[1].split()[:5] == ["slot1", "1", "partitionable", "28", "58982"]
    assert "(GPU-6a96bd13)" in out[2]


def test_a_refused_layout_exits_2_with_the_startds_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _write(tmp_path, "bad.conf", "NUM_SLOTS_TYPE_1 = 2\nSLOT_TYPE_1 = cpus=2 150%\n")
    hw = _write(tmp_path, "hw.json", {"cpus": 4, "memory_mb": 4096, "disk_kb": 1, "swap_kb": 1})
    assert main(["slots", bad, "--hardware", hw]) == 2
    err = capsys.readouterr().err
    assert f'{bad}:2: ERROR: Bad description of slot type 1: "150%" is invalid.' in err
    assert "exit status 4" in err and "Traceback" not in err


def test_bad_hardware_files_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hw = _write(tmp_path, "hw.json", {"cpus": "four", "memory_mb": 1, "disk_kb": 1, "swap_kb": 1})
    assert main(["slots", "--hardware", hw]) == 2
    assert "hardware key 'cpus' must be a non-negative integer" in capsys.readouterr().err
    hw = _write(tmp_path, "hw.json", "{ not json")
    assert main(["slots", "--hardware", hw]) == 2
    assert f"{hw}:1:3: not valid JSON" in capsys.readouterr().err
    hw = _write(tmp_path, "hw.yaml", "cpus: 2\nmemory_mb: 1024\ndisk_kb: 1\nswap_kb: 1\n")
    assert main(["slots", "--hardware", hw]) == 0


def test_jobs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hw = _write(tmp_path, "hw.json", {"cpus": 10, "memory_mb": 10240, "disk_kb": 10_240_000,
                                      "swap_kb": 0})  # fmt: skip
    job = {"RequestCpus": 3, "RequestMemory": 1024, "RequestDisk": 10240}
    jobs = _write(tmp_path, "jobs.json", {"pslot": "slot1", "jobs": [job, {"release": "slot1_1"}]})
    assert main(["slots", "--hardware", hw, "--jobs", jobs, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"dynamic", "refused", "remaining", "dynamic_slots_at_end"} <= set(out)
    assert out["dynamic"][0]["name"] == "slot1_1" and out["dynamic_slots_at_end"] == []
    assert out["remaining"]["Cpus"] == 10
    assert main(["slots", "--hardware", hw, "--jobs", jobs]) == 0
    assert "slot1_1" in capsys.readouterr().out
    wrong = _write(tmp_path, "wrong.json", {"pslot": "slot9", "jobs": []})
    assert main(["slots", "--hardware", hw, "--jobs", wrong]) == 2
    assert "'pslot': no slot 'slot9'" in capsys.readouterr().err


def test_load_columns_appear_when_load_was_handed_out() -> None:
    from runtime.commands.slots import render_table

    slot = {"name": "slot1", "type": 0, "partitionable": False, "Cpus": 1, "Memory": 1,
            "Disk": 1, "Swap": 1, "OwnerLoad": 0.25, "LoadAvg": 1.0, "CondorLoadAvg": 0.75,
            "KeyboardIdle": 5, "ConsoleIdle": 5}  # fmt: skip
    text = render_table({"slots": [slot], "machine": {"TotalCpus": 1.0, "TotalLoadAvg": 1.0}})
    lines = text.splitlines()
    assert lines[0].split()[-5:] == [
        "OwnerLoad",
        "LoadAvg",
        "CondorLoadAvg",
        "KeyboardIdle",
        "ConsoleIdle",
    ]
    assert lines[1].split()[-5:] == ["0.25", "1", "0.75", "5", "5"]
    assert "TotalLoadAvg = 1" in text


def test_load_reproduces_the_seeds_second_multicore_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seed 002 "Load Average for Multi-core Machines": two one-core slots, one connected
    to keyboard and console and in Owner, slot2 Claimed with Condor load 0.996, system load
    1.25, keyboard idle 296 s: slot1 gets owner load 0.254 (published 0.25), slot2 LoadAvg
    1.0 and the disconnected idle 296 + DISCONNECTED_KEYBOARD_IDLE_BOOST (1200) = 1496
    (reference/slots.md section 9; 23.0 ResMgr::assign_load_and_idle)."""
    conf = _write(
        tmp_path,
        "two.conf",
        "NUM_SLOTS_TYPE_1 = 2\nSLOT_TYPE_1 = cpus=1\n"
        "SLOTS_CONNECTED_TO_KEYBOARD = 1\nSLOTS_CONNECTED_TO_CONSOLE = 1\n",
    )
    hw = _write(tmp_path, "hw.json", {"cpus": 2, "memory_mb": 4096, "disk_kb": 10, "swap_kb": 10})
    load = _write(
        tmp_path,
        "load.json",
        {
            "total_load": 1.25,
            "condor_load": {"slot2": 0.996},
            "slot_states": {"slot1": "Owner", "slot2": "Claimed"},
            "keyboard_idle": 296,
            "console_idle": 296,
            "startd_uptime": 296,
        },
    )
    assert main(["slots", conf, "--hardware", hw, "--load", load, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    slots = {s["name"]: s for s in out["slots"]}
    assert (slots["slot1"]["LoadAvg"], slots["slot1"]["KeyboardIdle"]) == (0.25, 296)
    assert (slots["slot2"]["LoadAvg"], slots["slot2"]["KeyboardIdle"]) == (1.0, 1496)
    assert out["machine"]["TotalLoadAvg"] == 1.25
    assert out["machine"]["TotalCondorLoadAvg"] == 1.0
    bad = _write(tmp_path, "bad.json", {"condor_load": {"slot2": 0.5}})
    assert main(["slots", conf, "--hardware", hw, "--load", bad]) == 2
    assert "total_load" in capsys.readouterr().err


def test_negotiator_matches_the_seeds_consumption_policy_example(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seed 002 "condor_negotiator-Side Resource Consumption Policies": a partitionable
    slot of 8 cores with CONSUMPTION_CPUS = TARGET.RequestCpus and SLOT_WEIGHT = Cpus
    matches two 3-core jobs in one cycle (cost 3 each) and refuses the third (2 cores
    left; reference/slots.md section 8, matchmaker.cpp)."""
    conf = _write(
        tmp_path,
        "cp.conf",
        "NUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_1 = cpus=8\nSLOT_TYPE_1_PARTITIONABLE = True\n"
        "SLOT_TYPE_1_CONSUMPTION_POLICY = True\n"
        "SLOT_TYPE_1_CONSUMPTION_CPUS = TARGET.RequestCpus\nSLOT_WEIGHT = Cpus\n",
    )
    hw = _write(tmp_path, "hw.json", {"cpus": 8, "memory_mb": 8192, "disk_kb": 10**6, "swap_kb": 1})
    job = {"RequestCpus": 3, "RequestMemory": 100, "RequestDisk": 100, "Requirements": True}
    jobs = _write(tmp_path, "jobs.json", {"pslot": "slot1", "jobs": [job, job, job]})
    argv = ["slots", conf, "--hardware", hw, "--jobs", jobs, "--negotiator", "--format", "json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(m["matched"], m["cost"]) for m in out["matches"]] == [(True, 3), (True, 3), (False, 0)]
    assert out["remaining"]["Cpus"] == 2
