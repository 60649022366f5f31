"""compiler.schedd.lint: findings written by hand for small configurations, and a
property check that a "never TRUE" verdict holds for generated jobs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compiler.classad import ClassAd, evaluate
from compiler.config import load_config
from compiler.schedd.lint import lint
from compiler.schedd.requirements import submit_requirements

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "schedd" / "schedd.conf"

CONFIG = """\
SUBMIT_REQUIREMENT_NAMES = Never Always Typo Fine
SUBMIT_REQUIREMENT_Never = RequestMemory > 512 && RequestMemory < 100
SUBMIT_REQUIREMENT_Always = true || RequestCpus > 1
SUBMIT_REQUIREMENT_Typo = RequestMemroy > 1
SUBMIT_REQUIREMENT_Fine = RequestMemory > 512
JOB_TRANSFORM_NAMES = Macro Dead Custom
JOB_TRANSFORM_Macro @=end
REQUIREMENTS = JobUniverse == 5
SET X = 1
@end
JOB_TRANSFORM_Dead @=end
REQUIREMENTS JobUniverse == 5 && JobUniverse == 7
SET Y = 1
@end
JOB_TRANSFORM_Custom @=end
SET WantGPU = true
EVALSET Z = WantGPU && RequestCpus > 0
@end
"""


def _findings() -> list[tuple[str, str, str]]:
    config = load_config(text=CONFIG, subsystem="SCHEDD")
    return [(f.code, f.message.split(":")[0].split(" ")[0], f.suggestion) for f in lint(config)]


def test_each_lint_fires_where_expected() -> None:
    found = _findings()
    assert ("submit-requirement-never-true", "SUBMIT_REQUIREMENT_Never", "") in found
    assert ("submit-requirement-always-true", "SUBMIT_REQUIREMENT_Always", "") in found
    assert (
        "unknown-job-attribute",
        "SUBMIT_REQUIREMENT_Typo",
        "did you mean RequestMemory?",
    ) in found
    assert (
        "requirements-is-a-macro",
        "JOB_TRANSFORM_Macro",
        "write 'REQUIREMENTS expr' (no '=')",
    ) in found
    assert ("transform-never-matches", "JOB_TRANSFORM_Dead", "") in found


def test_nothing_is_reported_for_sound_parts() -> None:
    labels = {label for _, label, _ in _findings()}
    assert "SUBMIT_REQUIREMENT_Fine" not in labels
    # WantGPU is set by a transform, so referring to it is fine.
    assert "JOB_TRANSFORM_Custom" not in labels


def test_the_seed_example_only_flags_its_custom_attribute() -> None:
    config = load_config(EXAMPLE, subsystem="SCHEDD")
    found = [(f.code, f.message) for f in lint(config)]
    assert [code for code, _ in found] == ["unknown-job-attribute"]
    assert "WantSL6" in found[0][1]


NEVER = submit_requirements(load_config(text=CONFIG, subsystem="SCHEDD"))[0]


@given(memory=st.one_of(st.integers(-(2**40), 2**40), st.floats(allow_nan=True)))
def test_never_true_holds_for_every_generated_job(memory: float) -> None:
    job = ClassAd({"RequestMemory": memory})
    assert evaluate(NEVER.requirement, {}, job) is not True


def test_check_reports_the_schedd_lints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`condor-policy check` on a configuration that defines a schedd policy reports its
    lints with the startd's findings: a submit requirement no job satisfies fails the
    check (exit 1) at its line; the same file without it passes."""
    from runtime.cli import main

    bad = tmp_path / "bad.conf"
    bad.write_text(
        "SUBMIT_REQUIREMENT_NAMES = Impossible\n"
        "SUBMIT_REQUIREMENT_Impossible = RequestMemory > 10 && RequestMemory < 5\n"
    )
    assert main(["check", str(bad), "--static-only", "--format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)["findings"]
    codes = {f["code"]: f for f in found}
    assert codes["submit-requirement-never-true"]["where"] == f"{bad}:2"
    good = tmp_path / "good.conf"
    good.write_text("SUBMIT_REQUIREMENT_NAMES = Big\nSUBMIT_REQUIREMENT_Big = RequestMemory > 10\n")
    assert main(["check", str(good), "--static-only"]) == 0


def test_compile_prints_the_schedd_lints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`compile` of a configuration with a schedd policy prints its lints on stderr (the
    table itself is the startd's) and still exits 0."""
    from runtime.cli import main

    conf = tmp_path / "schedd.conf"
    conf.write_text(
        "JOB_TRANSFORM_NAMES = Never\n"
        "JOB_TRANSFORM_Never @=end\n REQUIREMENTS JobUniverse == 5 && JobUniverse == 7\n"
        " SET Foo = 1\n@end\n"
    )
    assert main(["compile", str(conf), "--format", "csv"]) == 0
    assert "[transform-never-matches]" in capsys.readouterr().err
