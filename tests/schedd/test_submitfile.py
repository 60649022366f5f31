"""Simple submit description files for `submit-check` (compiler.schedd.submitfile):
condor_submit's size rule (metric_units.cpp `parse_int64_bytes`), the commands of
spec/schedd.yaml (submit_utils.cpp), `queue N`, and refusals with positions."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.schedd import read_submit_file
from compiler.schedd.submitfile import SubmitFileError, parse_int64_bytes
from runtime.cli import main

ROOT = Path(__file__).resolve().parents[2]
SCHEDD = str(ROOT / "docs" / "examples" / "schedd" / "schedd.conf")
MIB, KIB = 1024 * 1024, 1024


@pytest.mark.parametrize(
    ("text", "base", "expected"),
    [
        ("100", MIB, 100),  # no suffix: the base unit (MiB for request_memory)
        ("2GB", MIB, 2048),
        ("2g", MIB, 2048),
        ("512K", MIB, 1),  # rounded up to whole MiB
        ("2.2M", MIB, 3),
        ("1.5G", KIB, 1572864),
        ("10240", KIB, 10240),
        (" 7 Kb ", KIB, 7),
        ("RequestCpus * 1024", MIB, None),  # an expression, not a size
        ("2X", MIB, None),
    ],
)
def test_sizes_follow_condor_submit(text: str, base: int, expected: int | None) -> None:
    assert parse_int64_bytes(text, base) == expected


def test_a_submit_file_makes_one_ad_per_queued_job() -> None:
    text = (
        "# comment\nuniverse = vanilla\nexecutable = /bin/true\nrequest_memory = 2GB\n"
        "request_disk = 1G\nrequest_cpus = 2\n+IsSuspendableJob = True\n"
        'MY.Project = "x"\nrequirements = OpSys == \\\n  "LINUX"\nqueue 3\n'
    )
    ads = read_submit_file(text, "job.sub")
    assert len(ads) == 3
    ad = ads[0]
    assert (ad["JobUniverse"], ad["Cmd"], ad["RequestMemory"], ad["RequestDisk"]) == (
        5, "/bin/true", 2048, 1048576,
    )  # fmt: skip
    assert "LINUX" in str(ad["Requirements"]) and "IsSuspendableJob" in ad and "Project" in ad


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("universe = vanila\nqueue\n", 1, "unknown universe 'vanila'"),
        ("request_memery = 2\nqueue\n", 1, "did you mean request_memory"),
        ("executable = $(HOME)/a\nqueue\n", 1, "macros"),
        ("+A = (1\nqueue\n", 1, "not a ClassAd expression"),
        ("universe = vanilla\nqueue from list.txt\n", 2, "not a submit statement"),
    ],
)
def test_what_it_does_not_read_is_refused_with_its_position(
    text: str, line: int, words: str
) -> None:
    with pytest.raises(SubmitFileError, match=words) as caught:
        read_submit_file(text, "job.sub")
    assert caught.value.line == line


def test_seed_requirements_on_submit_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seed 002 "Submit Requirements": a standard universe job is rejected with the
    NotStandardUniverse reason; a 256 MB job with MinimalRequestMemory's strcat reason."""
    standard = tmp_path / "standard.sub"
    standard.write_text(
        "universe = standard\nexecutable = /bin/sleep\nrequest_memory = 2G\nqueue\n"
    )
    assert main(["submit-check", SCHEDD, str(standard)]) == 1
    assert "ERROR: This pool does not accept standard universe jobs." in capsys.readouterr().out
    small = tmp_path / "small.sub"
    small.write_text("universe = vanilla\nexecutable = /bin/true\nrequest_memory = 256\nqueue\n")
    assert main(["submit-check", SCHEDD, str(small)]) == 1
    assert "The job only requested 256 Megabytes." in capsys.readouterr().out
