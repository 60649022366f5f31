"""Issue 10's tracebacks, reproduced as a new user met them, now positioned errors (exit
2, `file:line:col`, no traceback) or HTCondor's own answer; differential where HTCondor
has one (over-long integer literals, bytes in ad strings)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compiler.classad import evaluate, parse
from compiler.classad.ads import load_ad, load_ads
from runtime.cli import main
from tests.classad.oracle_support import oracle_eval, same
from tests.fuzz.support import FAST, ROOT


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    """The real command line, in a subprocess (stderr exactly as a user sees it)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "runtime", *argv],
        capture_output=True,
        text=True,
        errors="replace",
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
    )


def _refused(
    argv: list[str], where: str, capsys: pytest.CaptureFixture[str], message: str = ""
) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"condor-policy: {where}:" in err, err
    assert message in err
    return err


# ---------------------------------------------------------------- over-long numbers


# HTCondor's lexer (strtoll with an overflow check) makes an out-of-range integer literal
# 0, whatever its length; a signed literal's leading zeros are read in base 10.
LONG_LITERALS = (
    "1" * 19,
    "1" * 20,
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "1" * 4300,
    "1" * 4301,
    "1" * 5000,
    "-" + "1" * 5000,
    "-" + "0" * 5000 + "1",
    "-" + "0" * 30 + "17",
    "-0" + "7" * 25,
    "1" * 5000 + " + 1",
    "1" * 5000 + ".5",
)


@pytest.mark.oracle
@pytest.mark.parametrize("text", LONG_LITERALS, ids=lambda t: f"{t[:12]}..{len(t)}")
def test_long_integer_literals_match_htcondor(text: str) -> None:
    assert same(evaluate(text), oracle_eval(text))


@pytest.mark.oracle
@FAST
@given(st.from_regex(r"-?[0-9]{15,40}", fullmatch=True).filter(lambda t: t.lstrip("-")[0] != "0"))
def test_integer_literals_near_int64_match_htcondor(text: str) -> None:
    assert same(evaluate(text), oracle_eval(text))


def test_5000_digit_literal_on_the_command_line_prints_htcondors_0() -> None:
    done = _cli("eval", "1" * 5000)
    assert (done.returncode, done.stdout.strip()) == (0, "0"), done.stderr
    assert "Traceback" not in done.stderr


# -------------------------------------------------------------------- deep nesting


@pytest.mark.parametrize(
    "text",
    [
        "!" * 2000 + "x",
        "!" * 20000 + "x",
        "-" * 2000 + "1",
        "- " * 20000 + "1",
        "(" * 2000 + "1" + ")" * 2000,
        "(" * 20000 + "1" + ")" * 20000,
        "{" * 5000 + "1" + "}" * 5000,
        "[a=" * 5000 + "1" + "]" * 5000,
    ],
    ids=lambda t: f"{t[:3]}..{len(t)}",
)
@pytest.mark.parametrize("json_out", [False, True])
def test_deep_expressions_evaluate_or_are_positioned_errors(
    text: str, json_out: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["eval", *(["--json"] if json_out else []), "--", text])
    err = capsys.readouterr().err
    assert status in (0, 2) and "Traceback" not in err
    if status == 2:
        assert err.startswith("condor-policy: <EXPR>:1:"), err


def test_2000_bangs_in_a_subprocess() -> None:
    done = _cli("eval", "!" * 2000 + "x")
    assert (done.returncode, done.stdout.strip()) == (0, "undefined"), done.stderr


# ---------------------------------------------------------------- non-UTF-8 bytes


@pytest.mark.parametrize("option", ["--machine", "--job"])
def test_ad_file_byte_outside_a_string_is_a_positioned_error(
    option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ad = tmp_path / "bad.ad"
    ad.write_bytes(b"A = 1\nB = 2 + \xff\n")
    _refused(["eval", "B", option, str(ad)], f"{ad}:2:9", capsys, "byte 0xFF is not UTF-8")


def test_ad_file_name_with_a_byte_is_a_positioned_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ad = tmp_path / "bad.ad"
    ad.write_bytes(b"[ A = 1; B\xfe = 2 ]")
    _refused(["eval", "A", "--machine", str(ad)], f"{ad}:1:11", capsys, "byte 0xFE")


@pytest.mark.oracle
@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        (b'A = "caf\xe9"\n', '"caf\\351"'),
        (b'[ A = "x\xff\xfe" ]', '"x\\377\\376"'),
        (b'A = "\xc3\xa9\xff"\n', '"\\303\\251\\377"'),
    ],
)
def test_bytes_in_an_ad_string_are_kept_as_htcondor_keeps_them(
    raw: bytes, escaped: str, tmp_path: Path
) -> None:
    # HTCondor's strings are bytes: the file's raw bytes and the octal escapes of the
    # same bytes are one string (compare, size, print), here and in the oracle.
    path = tmp_path / "bytes.ad"
    path.write_bytes(raw)
    ad = load_ad(path)
    for expr in (f"A == {escaped}", f"A =?= {escaped}", "size(A)", 'A < "z"'):
        assert same(evaluate(expr, ad), oracle_eval(expr.replace("A", escaped))), expr
    assert ad["A"] == parse(escaped).value  # type: ignore[attr-defined]


def test_ad_string_with_a_byte_prints_as_an_octal_escape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bytes.ad"
    path.write_bytes(b'A = "x\xff"\n')
    assert main(["eval", "A", "--machine", str(path)]) == 0
    assert capsys.readouterr().out.strip() == '"x\\377"'


def test_trace_file_byte_is_a_positioned_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "t.yaml"
    trace.write_bytes(b"steps:\n  - {t: 0, tick: true}\n  - {t: 1, event: m\xffatch}\n")
    _refused(["run", "--trace", str(trace)], f"{trace}:3:20", capsys, "byte 0xFF is not UTF-8")


def test_trace_file_control_character_is_a_positioned_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "t.yaml"
    trace.write_bytes(b"steps:\n  - {t: 0, tick: \x01true}\n")
    _refused(["run", "--trace", str(trace)], f"{trace}:2:18", capsys, "not valid YAML")


def test_trace_with_a_bad_tagged_value_is_a_positioned_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "t.yaml"
    trace.write_text("steps:\n - {t: !!int abc, tick: true}\n")
    _refused(["run", "--trace", str(trace)], f"{trace}:2:8", capsys, "not valid YAML")


def test_properties_file_byte_is_a_positioned_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    props = tmp_path / "p.props"
    props.write_bytes(b"never: Preempting/Killing\nnever: Claimed/Bu\xffsy\n")
    _refused(
        ["check", "--static-only", "--properties", str(props)],
        f"{props}:2:18",
        capsys,
        "byte 0xFF is not UTF-8",
    )


@pytest.mark.parametrize(
    "command",
    [["simulate"], ["sweep"], ["negotiate"], ["quotas"], ["userprio"], ["slots", "--hardware"]],
)
def test_a_document_not_utf8_is_a_positioned_error(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every command reading a JSON or YAML document (`compiler.slots.read_document`)
    names a byte that is not UTF-8 text at its place (it was a UnicodeDecodeError
    traceback), and a directory as such."""
    document = tmp_path / "in.yaml"
    document.write_bytes(b"machines:\n  - name: caf\xe9\n")
    _refused([*command, str(document)], f"{document}:2:14", capsys, "byte 0xE9 is not UTF-8")
    _refused([*command, str(tmp_path)], str(tmp_path), capsys, "is a directory")


def test_missing_properties_file_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.props"
    assert main(["check", "--static-only", "--properties", str(missing)]) == 2
    assert f"{missing}: no such file" in capsys.readouterr().err


def test_byte_in_a_subprocess_stderr_keeps_the_caret_under_it(tmp_path: Path) -> None:
    ad = tmp_path / "bad.ad"
    ad.write_bytes(b"[ A = 1; B = \xfe ]")
    done = _cli("eval", "A", "--machine", str(ad))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    source, caret = done.stderr.splitlines()[1:3]
    assert caret.index("^") == source.index("\ufffd")


# --------------------------------------------------------------- watch --job CMD


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("no-such-command", "'no-such-command' not found on PATH"),
        ("./no/such/file.sh", "no such file"),
        ("'unbalanced", "No closing quotation"),
        ("", "needs a command"),
    ],
)
def test_watch_job_that_cannot_start_is_an_error(
    command: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _refused(["watch", "--plain", "--duration", "2", "--job", command], "--job", capsys, message)


def test_watch_job_that_is_not_executable_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o644)
    _refused(
        ["watch", "--plain", "--duration", "2", "--job", str(script)],
        "--job",
        capsys,
        "is not executable",
    )


def test_watch_no_such_command_in_a_subprocess() -> None:
    done = _cli("watch", "--plain", "--job", "no-such-command", "--duration", "2")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "no-such-command" in done.stderr


# ------------------------------------------------------------------ JSON ads


@pytest.mark.oracle
@pytest.mark.parametrize("expr", ["c", "a", "a[1]", "a[2].b", "isUndefined(c)", "size(a)"])
def test_json_null_is_undefined_like_htcondor(expr: str) -> None:
    from tests.classad.oracle_support import _normalize  # the one oracle -> ours mapping
    from tests.oracle import classad2

    text = '{"a": [1, null, {"b": null}], "c": null}'
    theirs = classad2.ExprTree(expr).eval(classad2.parseOne(text, classad2.ParserType.JSON))
    assert same(evaluate(expr, load_ad(text)), _normalize(theirs, classad2))


@pytest.mark.oracle
@pytest.mark.parametrize(
    "text", ['A = "x\x0cy"\nB = 2\n', 'A = "x\x85y"\r\nB = 2\r\n', 'A = "\u2028"\n\nA = 1\n']
)
def test_long_form_lines_end_at_newline_only_like_htcondor(text: str) -> None:
    from tests.classad.oracle_support import _normalize
    from tests.oracle import classad2

    theirs = [
        {k: _normalize(v, classad2) for k, v in ad.items()}
        for ad in classad2.parseAds(text, classad2.ParserType.Old)
    ]
    assert [dict(ad) for ad in load_ads(text)] == theirs


# ------------------------------------------------------- traces: numbers out of range


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("machine: {KeyboardIdle: .nan}\nsteps:\n  - {t: 0, tick: true}\n", "1:10", "finite"),
        ("steps:\n  - {t: 1" + "0" * 400 + ", tick: true}\n", "2:9", "64-bit"),
        ("steps:\n  - {t: .inf, tick: true}\n", "2:9", "t must be a number"),
    ],
)
def test_trace_numbers_a_run_cannot_use_are_positioned_errors(
    text: str, where: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "t.yaml"
    trace.write_text(text)
    _refused(["run", "--trace", str(trace)], f"{trace}:{where}", capsys, message)


def test_spec_file_not_utf8_is_a_positioned_error(tmp_path: Path) -> None:
    from compiler.errors import PolicyError
    from compiler.spec import load_spec_file

    for source in (ROOT / "spec" / "eras").glob("*.yaml"):
        (tmp_path / source.name).write_bytes(source.read_bytes())
    era = tmp_path / "condor-6.4.yaml"
    era.write_bytes(b"\xed" + era.read_bytes())
    with pytest.raises(PolicyError, match="byte 0xED is not UTF-8") as caught:
        load_spec_file(era)
    assert (caught.value.line, caught.value.column) == (1, 1)


@pytest.mark.oracle
@pytest.mark.parametrize(
    "number", ["99999999999999999999", "-9223372036854775809", "9223372036854775807", "1" * 5000]
)
def test_json_integers_out_of_range_like_htcondor(number: str) -> None:
    from tests.classad.oracle_support import _normalize
    from tests.oracle import classad2

    text = '{"a": ' + number + "}"
    theirs = classad2.ExprTree("a").eval(classad2.parseOne(text, classad2.ParserType.JSON))
    assert same(load_ad(text)["a"], _normalize(theirs, classad2))


# ------------------------------------------------------------ files a command writes


def test_run_log_in_a_missing_directory_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = next((ROOT / "tests" / "scenarios" / "htcondor-current").glob("*.yaml"))
    log = tmp_path / "missing" / "run.jsonl"
    _refused(["run", "--trace", str(trace), "--log", str(log)], str(log), capsys)


def test_check_counterexamples_under_a_file_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("a file where the directory should go\n")
    folder = tmp_path / "file" / "cex"
    _refused(["check", "--static-only", "--counterexamples", str(folder)], str(folder), capsys)


def test_command_line_bytes_follow_the_ad_rule(capsys: pytest.CaptureFixture[str]) -> None:
    # Python hands a non-UTF-8 argument over with the same lone surrogates as
    # compiler.textio: accepted inside a string literal, a positioned error outside.
    assert main(["eval", '"a\udcff" == "a\\377"']) == 0
    assert capsys.readouterr().out.strip() == "true"
    _refused(["eval", "1 + \udcff"], "<EXPR>:1:5", capsys, "byte 0xFF is not UTF-8")
