"""`condor-policy submit-check`: text and JSON output, exit status, positioned errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runtime.cli import main
from tests.schedd.support import seed_config


def _write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_standard_universe_job_prints_what_condor_submit_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = seed_config(tmp_path)
    job = _write(tmp_path / "std.ad", 'JobUniverse = 1\nRequestMemory = 2048\nOwner = "bob"\n')
    status = main(["submit-check", str(config), job, "--semantics", "manual"])
    out = capsys.readouterr().out.splitlines()
    assert status == 1
    assert out[0] == f"{job}: rejected"
    assert out[-2:] == [
        "  ERROR: Failed to commit job submission into the queue.",
        "  ERROR: This pool does not accept standard universe jobs.",
    ]


def test_json_shows_the_transformed_ad_and_the_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = seed_config(tmp_path)
    job = _write(
        tmp_path / "sl6.json",
        json.dumps(
            [
                {
                    "JobUniverse": 5,
                    "RequestMemory": 768,
                    "Owner": "alice",
                    "WantSL6": True,
                    "Requirements": '/Expr(TARGET.OpSys == "LINUX")/',
                }
            ]
        ),
    )
    status = main(["submit-check", str(config), job, "--format", "json"])
    report = json.loads(capsys.readouterr().out)["submissions"][0]
    assert status == 0
    assert report["status"] == "warned"
    assert report["message"] == "As of , the minimum requested memory will be 1024."
    first = report["jobs"][0]
    assert first["transforms_applied"][:2] == ["AssignGroup", "SL6ToDocker"]
    changed = {c["attr"]: c["after"] for c in first["changes"]}
    assert changed["DockerImage"] == '"SL6"'
    assert changed["AccountingGroup"] == '"physics.alice"'


def test_each_file_is_one_submission(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = seed_config(tmp_path)
    good = _write(tmp_path / "good.ad", 'JobUniverse = 5\nRequestMemory = 4096\nOwner = "bob"\n')
    cluster = _write(
        tmp_path / "cluster.ad",
        'JobUniverse = 5\nRequestMemory = 4096\nOwner = "bob"\n\n'
        'JobUniverse = 5\nRequestMemory = 4096\nOwner = "chris"\n',
    )
    status = main(["submit-check", str(config), good, cluster, "--format", "json"])
    reports = json.loads(capsys.readouterr().out)["submissions"]
    assert status == 1
    assert [r["status"] for r in reports] == ["accepted", "rejected"]
    assert reports[1]["rejected_job"] == 1


def test_an_unparsable_transform_line_exits_2_with_its_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _write(
        tmp_path / "bad.conf",
        "JOB_TRANSFORM_NAMES = T\nJOB_TRANSFORM_T @=end\n  SET A = 1\n  FROB B\n@end\n",
    )
    job = _write(tmp_path / "j.ad", 'Owner = "u"\n')
    assert main(["submit-check", config, job]) == 2
    err = capsys.readouterr().err
    assert f"{config}:4:3: JOB_TRANSFORM_T: FROB is not a valid transform keyword" in err


def test_a_reason_that_is_not_a_string_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _write(
        tmp_path / "bad.conf",
        "SUBMIT_REQUIREMENT_NAMES = R\nSUBMIT_REQUIREMENT_R = false\n"
        "SUBMIT_REQUIREMENT_R_REASON = 12\n",
    )
    job = _write(tmp_path / "j.ad", 'Owner = "u"\n')
    assert main(["submit-check", config, job]) == 2
    assert f"{config}:3:" in capsys.readouterr().err


def test_a_missing_ad_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = seed_config(tmp_path)
    assert main(["submit-check", str(config), str(tmp_path / "nope.ad")]) == 2
    assert "no such ad file" in capsys.readouterr().err
