"""Findings CI can trust (docs/findings.md): a witnessed misbehaviour is a violation and
fails `check` (exit 1, its own heading in text and JSON); advice is a warning (exit 0,
exit 1 with --strict); HTCondor's own policies pass; a disagreement between the compiled
machine and the reference interpreter is an internal error (exit 3, with the trace); a
counterexample trace carries its policy, so `run --trace` replays it as printed."""

from __future__ import annotations

import argparse
import json
import re
from functools import cache, partial
from pathlib import Path

import pytest

from compiler.analysis import CODES, FAILING, SEVERITIES, Finding, analyse
from compiler.config import all_templates, load_config
from compiler.policy import compile_policy
from runtime.check.report import check_policy
from runtime.cli import main
from runtime.commands._policy_args import load_policy

DOCS = Path(__file__).parent.parent.parent / "docs" / "findings.md"

#: The issue's example: SUSPEND and CONTINUE overlap for KeyboardIdle < 60.
FLAPPING = "SUSPEND = KeyboardIdle < 60\nCONTINUE = KeyboardIdle < 120\nWANT_SUSPEND = True\n"


@cache
def findings(
    text: str, era: str = "htcondor-current", semantics: str = "code"
) -> tuple[Finding, ...]:
    config = load_config(text=text, era=era)
    return analyse(compile_policy(config, era, semantics), config)


def severity_of(
    text: str, code: str, era: str = "htcondor-current", semantics: str = "code"
) -> set[str]:
    return {f.severity for f in findings(text, era, semantics) if f.code == code}


@pytest.fixture(autouse=True)
def _no_condor_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CONDOR_CONFIG", raising=False)


# -- severities -----------------------------------------------------------------------------


IMPOSSIBLE_START = "START = KeyboardIdle > 900 && KeyboardIdle < 60\n"


@pytest.mark.parametrize(
    ("code", "text", "era"),
    [
        ("flapping", FLAPPING, "htcondor-current"),
        ("suspended-forever",
         "WANT_SUSPEND = True\nSUSPEND = KeyboardIdle < 60\nCONTINUE = False\nPREEMPT = False\n",
         "htcondor-current"),
        ("no-job-starts", IMPOSSIBLE_START, "htcondor-current"),
        # the 6.4 manual leaves Owner only when START holds (no drain, no match in Owner)
        ("stuck-pair", IMPOSSIBLE_START, "condor-6.4/manual"),
        ("always-condition", "WANT_SUSPEND = True\nSUSPEND = KeyboardIdle >= 0\n", "htcondor-current"),
    ],
)  # fmt: skip
def test_witnessed_misbehaviour_is_a_violation(code: str, text: str, era: str) -> None:
    era, _, semantics = era.partition("/")
    found = findings(text, era, semantics or "code")
    assert {f.severity for f in found if f.code == code} == {"violation"}, [
        f.describe() for f in found
    ]


def test_a_pair_with_a_way_out_is_not_stuck() -> None:
    # the current era's Owner/Idle is left by a drain too, the 6.4 code's by a match,
    # and the 6.4 manual's by a START that can hold
    assert not severity_of(IMPOSSIBLE_START, "stuck-pair")
    assert not severity_of(IMPOSSIBLE_START, "stuck-pair", "condor-6.4")
    assert not severity_of("START = KeyboardIdle > 900\n", "stuck-pair", "condor-6.4", "manual")
    (stuck,) = [
        f for f in findings(IMPOSSIBLE_START, "condor-6.4", "manual") if f.code == "stuck-pair"
    ]
    assert stuck.pairs == ("Owner/Idle",)


def test_a_constant_always_true_guard_is_only_a_note() -> None:
    # IS_OWNER = False is the admin saying "never Owner", not a condition gone wrong.
    text = "IS_OWNER = False\n"
    assert severity_of(text, "always-transition") == {"info"}
    assert not severity_of(text, "always-condition")


def test_no_job_starts_names_the_dead_rows_in_the_way() -> None:
    (hit,) = [f for f in findings(IMPOSSIBLE_START) if f.code == "no-job-starts"]
    assert hit.pairs == ("Claimed/Busy",)
    assert hit.rows and "proved dead" in hit.proof


def test_every_code_has_a_documented_severity() -> None:
    """docs/findings.md lists every finding code with its severity, and the severity the
    docs give is the one the checks use (seen on the policies of this file)."""
    if not DOCS.exists():
        pytest.fail(f"{DOCS} is missing")
    documented: dict[str, set[str]] = {}
    for line in DOCS.read_text().splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0] in CODES:
            documented[cells[0]] = set(re.findall(r"[a-z]+", cells[1]))
    assert set(documented) == set(CODES)
    for code, severities in documented.items():
        assert severities and severities <= set(SEVERITIES), (code, severities)
    seen = {
        f.code: f.severity
        for text in (FLAPPING, "START = TARGET.Owner == UNDEFINED\n", "IS_OWNER = False\n",
                     "START = IsDesktop == True\n", IMPOSSIBLE_START)
        for f in findings(text)
    }  # fmt: skip
    for code, severity in seen.items():
        assert severity in documented[code], (code, severity)


# -- exit status ------------------------------------------------------------------------------


def test_flapping_example_fails_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "flap.config"
    config.write_text(FLAPPING)
    assert main(["check", str(config), "--static-only"]) == 1
    out = capsys.readouterr().out
    _, _, rest = out.partition("Violations (the check fails):")
    assert rest, out
    assert "[flapping]" in rest.split("Notes:")[0]
    assert main(["check", str(config), "--static-only", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [v["code"] for v in report["violations"]] == ["flapping"]
    assert report["violations"][0]["severity"] == "violation"
    assert report["summary"]["violations"] == 1 and report["exit_status"] == 1
    witness = report["violations"][0]["witness"]["machine"]
    assert witness["KeyboardIdle"] < 60  # inside the overlap: both guards TRUE


def test_warnings_pass_unless_strict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "advice.config"
    config.write_text("START = KeyboardIdle > 900 && IsDesktop == True\n")  # =?= was meant
    assert main(["check", str(config), "--static-only", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    warned = [w["code"] for w in report["warnings"]]
    assert "undefined-equality" in warned
    assert report["violations"] == [] and report["strict"] is False
    assert main(["check", str(config), "--static-only", "--strict", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [v["code"] for v in report["violations"]] == warned


def _policy_cases() -> list[tuple[str, str | None]]:
    names = [
        n for n, t in all_templates()["POLICY"].items()
        if "error :" not in t.body  # PREEMPT_IF and WANT_HOLD_IF refuse to run without arguments
    ]  # fmt: skip
    eras = [("condor-6.4", None), ("condor-6.8", None), ("htcondor-current", None)]
    return eras + [("htcondor-current", n) for n in names]


@pytest.mark.parametrize("semantics", ["code", pytest.param("manual", marks=pytest.mark.slow)])
@pytest.mark.parametrize(("era", "policy"), _policy_cases())
def test_htcondors_own_policies_pass(era: str, policy: str | None, semantics: str) -> None:
    """Every era's default policy and every shipped POLICY template: no violation, no error
    (docs/findings.md says why their remaining warnings are advice)."""
    args = argparse.Namespace(
        config=None, era=era, policy=policy, semantics=semantics, allow_commands=False
    )
    choice = load_policy(args)
    report = check_policy(
        choice.config, era=era, semantics=semantics, source=choice.description, dynamic=False
    )
    assert report.exit_status == 0, [f.describe() for f in report.violations]
    assert not [f for f in report.findings if f.severity in FAILING]


# -- internal errors and counterexample traces ----------------------------------------------


def test_compiled_vs_reference_disagreement_is_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A broken compiled machine (SUSPEND and CONTINUE guards swapped, as in
    test_crosscheck) is condor-policy's bug: exit 3 with the trace, never a violation of
    the policy."""
    from runtime.check import report as report_module
    from tests.check.test_crosscheck import swap_guards

    real, search = report_module.compiled_machine, report_module.search
    monkeypatch.setattr(
        report_module, "compiled_machine", lambda table: real(swap_guards(table, "14", "15"))
    )
    # only the cross-check, so the search does not stop at the built-ins the swap breaks
    monkeypatch.setattr(report_module, "search", partial(search, builtins=False))
    # The JSON and the text run check the same policy with the same seed: the second
    # prints the first's report (the search and its shrinking are most of this test).
    reports: dict[str, report_module.CheckReport] = {}
    real_check = report_module.check_policy

    def check_once(config: object, **kwargs: object) -> report_module.CheckReport:
        key = repr(sorted(kwargs.items()))
        if key not in reports:
            reports[key] = real_check(config, **kwargs)  # type: ignore[arg-type]
        return reports[key]

    monkeypatch.setattr(report_module, "check_policy", check_once)
    config = tmp_path / "desktop.config"
    config.write_text("use POLICY : Desktop\n")
    out_dir = tmp_path / "cx"
    args = ["check", str(config), "--max-examples", "20", "--seed", "3"]
    assert main([*args, "--format", "json", "--counterexamples", str(out_dir)]) == 3
    report = json.loads(capsys.readouterr().out)
    assert report["exit_status"] == 3 and report["internal_errors"]
    assert "reference-crosscheck" not in [v["property"] for v in report["dynamic"]["violated"]]
    trace = report["internal_errors"][0]["trace"]
    assert trace["steps"] and (out_dir / "internal-1.yaml").exists()
    assert main(args) == 3
    assert len(reports) == 1  # the text run asked for the same check
    text = capsys.readouterr().out
    assert "Internal error 1 of condor-policy" in text and "steps:" in text


def test_counterexample_trace_replays_without_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found with `--policy Desktop` and no CONFIG; replayed with `run --trace` alone."""
    props = tmp_path / "props.txt"
    props.write_text("never: Claimed/Busy\n")
    out_dir = tmp_path / "cx"
    status = main(["check", "--policy", "Desktop", "--properties", str(props), "--max-examples",
                   "30", "--format", "json", "--counterexamples", str(out_dir)])  # fmt: skip
    assert status == 1
    (violated,) = [v for v in json.loads(capsys.readouterr().out)["dynamic"]["violated"]
                   if v["property"].startswith("line 1")]  # fmt: skip
    trace = violated["trace"]
    assert "Desktop" in trace["description"]
    # the Desktop template's own settings travel with the trace
    assert "KeyboardIdle" in trace["config"]["START"]
    assert main(["run", "--trace", str(out_dir / "1.yaml"), "--format", "jsonl"]) == 0
    replayed = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    numbers = [str(r["number"]) for r in replayed if "number" in r]
    assert numbers == [p.split()[1] for p in violated["path"]]
