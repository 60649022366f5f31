"""Reading ads in the three formats, and the `condor-policy eval` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler.classad import ClassAdSyntaxError, ast, evaluate
from compiler.classad.ads import load_ad, load_ads
from runtime.cli import main

LONG = """\
MyType = "Machine"
Memory = 511
LoadAvg = 0.220000
Path = "c:\\dir\\file \\" quoted"
Start = (LoadAvg <= 0.3) && (KeyboardIdle > (15 * 60))
"""

NEW = '[ MyType = "Machine"; Memory = 511; LoadAvg = 0.22; Start = LoadAvg <= 0.3 ]'

JSON_ADS = [
    {
        "MyType": "Job",
        "Owner": "coltrane",
        "ImageSize": 2000,
        "WantCheckpoint": False,
        "Requirements": '\\/Expr(OpSys == "LINUX" && Memory > 256)\\/',
    }
]


def test_long_form_keeps_backslashes_in_strings() -> None:
    ad = load_ad(LONG)
    assert ad["memory"] == 511 and ad["LoadAvg"] == 0.22
    assert ad["Path"] == 'c:\\dir\\file " quoted'
    assert isinstance(ad["Start"], ast.Binary)
    ad["KeyboardIdle"] = 1000
    assert evaluate("Start", ad) is True


def test_new_syntax_ad() -> None:
    ad = load_ad(NEW)
    assert ad["Memory"] == 511 and evaluate("Start", ad) is True


def test_json_ads_with_expressions(tmp_path: Path) -> None:
    path = tmp_path / "jobs.json"
    path.write_text(json.dumps(JSON_ADS).replace("\\\\/", "\\/"))
    (ad,) = load_ads(path)
    assert ad["Owner"] == "coltrane" and ad["WantCheckpoint"] is False
    assert evaluate("Requirements", ad, {"OpSys": "LINUX", "Memory": 512}) is True


def test_blank_lines_separate_long_form_ads() -> None:
    assert [ad["x"] for ad in load_ads("x = 1\n\nx = 2\n")] == [1, 2]
    with pytest.raises(ClassAdSyntaxError, match="exactly one ad"):
        load_ad("x = 1\n\nx = 2\n")


def test_long_form_error_position(tmp_path: Path) -> None:
    path = tmp_path / "bad.ad"
    path.write_text('MyType = "Machine"\nStart = (LoadAvg <= 0.3) && && x\n')
    with pytest.raises(ClassAdSyntaxError) as info:
        load_ad(path)
    err = info.value
    assert (err.file, err.line, err.column) == (str(path), 2, 29)
    assert err.source_line == "Start = (LoadAvg <= 0.3) && && x"


def test_new_syntax_error_position() -> None:
    with pytest.raises(ClassAdSyntaxError) as info:
        load_ad("[ a = 1;\n  b = 2 +; ]")
    assert (info.value.line, info.value.column) == (2, 10)


# ---- the command line ----------------------------------------------------------------


@pytest.fixture
def ads(tmp_path: Path) -> tuple[str, str]:
    machine = tmp_path / "machine.ad"
    machine.write_text(LONG + 'KeyboardIdle = 34\nDepartment = "CompSci"\n')
    job = tmp_path / "job.json"
    job.write_text(json.dumps(JSON_ADS[0] | {"Department": "compsci"}))
    return str(machine), str(job)


@pytest.mark.parametrize(
    ("expr", "printed"),
    [
        ("Start", "false"),
        ('KeyboardIdle > 15 * 60 || Owner == "coltrane"', "true"),
        ("TARGET.Owner", '"coltrane"'),
        ("Department == TARGET.Department", "true"),
        ("Department =?= TARGET.Department", "false"),
        ("LoadAvg * 2", "4.400000000000000E-01"),
        ("NoSuchAttribute", "undefined"),
        ("1 / 0", "error"),
        ('{1, "a", 2.5}', '{ 1,"a",2.500000000000000E+00 }'),
        ("[a = 1; b = MY.Memory]", "[ a = 1; b = 511 ]"),
        ("Path", '"c:\\\\dir\\\\file \\" quoted"'),
    ],
)
def test_eval_prints_like_classad(
    ads: tuple[str, str], expr: str, printed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    machine, job = ads
    assert main(["eval", expr, "--machine", machine, "--job", job]) == 0
    assert capsys.readouterr().out == printed + "\n"


def test_eval_json_output(ads: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    machine, _job = ads
    assert main(["eval", "{Memory, Nope, 1/0, TARGET.Owner}", "--machine", machine, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [
        511,
        {"type": "undefined"},
        {"type": "error"},
        {"type": "undefined"},
    ]
    assert main(["eval", "--json", "--", "-1.0 / 0"]) == 0
    assert json.loads(capsys.readouterr().out) == {"type": "real", "value": "-inf"}


def _oracle_json_value(expr: str) -> object:
    """HTCondor's JSON for the value of `expr` (ClassAdJsonUnParser, src/classad/
    jsonSink.cpp), its raw bytes read as jq or `decode("utf-8", "replace")` read them:
    HTCondor copies bytes that are not UTF-8 into its JSON unchanged."""
    from tests.oracle import classad2

    ad = classad2.ClassAd(f"[v = {expr}]")
    try:
        text = ad.printJson()
    except UnicodeDecodeError as err:  # the raw bytes: not UTF-8, so not strict JSON
        text = err.object.decode("utf-8", "replace")
    return json.loads(text)["v"]


@pytest.mark.parametrize(
    "expr",
    [
        '"\\377"',
        '"a\\342\\202b"',  # a truncated 3-byte sequence: one U+FFFD
        '"\\355\\240\\200"',  # an encoded surrogate (CESU-8): not UTF-8
        '{"\\377\\376", "ok \\303\\251"}',
        '[a = "x\\200"]',
        '"\\303\\251"',  # valid UTF-8 stays as it is
    ],
)
def test_eval_json_strings_with_non_utf8_bytes_are_valid_utf8_json(
    expr: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", "--json", expr]) == 0
    ours = json.loads(capsys.readouterr().out)
    # strict UTF-8: a lone surrogate (the byte kept as U+DCxx) cannot be encoded
    json.dumps(ours, ensure_ascii=False).encode("utf-8")
    assert ours == _oracle_json_value(expr)


def test_eval_syntax_error_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "KeyboardIdle > && 1"]) == 2
    err = capsys.readouterr().err
    assert "<EXPR>:1:16:" in err
    assert err.splitlines()[-1] == "    " + " " * 15 + "^"


def test_eval_bad_ad_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.ad"
    bad.write_text("A = 1\nB = (2\n")
    assert main(["eval", "A", "--machine", str(bad)]) == 2
    assert f"{bad}:2:" in capsys.readouterr().err
    assert main(["eval", "A", "--machine", str(tmp_path / "missing.ad")]) == 2


@pytest.mark.oracle
@pytest.mark.parametrize(
    "expr", ['absTime("2004-01-01T00:00:00Z")', 'absTime("2004-07-01T12:00:00+05:30")']
)
def test_eval_json_absolute_time_like_htcondor(
    expr: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """HTCondor writes a time value as an expression string (jsonSink.cpp); its parser
    turns the literal `absTime("...")` into that value, so the ad's JSON shows it."""
    assert main(["eval", "--json", expr]) == 0
    assert json.loads(capsys.readouterr().out) == _oracle_json_value(expr)


@pytest.mark.oracle
def test_eval_prints_relative_times(capsys: pytest.CaptureFixture[str]) -> None:
    """HTCondor prints a relative-time literal with the printer it uses for values
    (sink.cpp, util.cpp `relTimeToString`): `relTime("1+01:01:01.5")` is 90061.5 s."""
    from tests.oracle import classad2

    printed = str(classad2.ExprTree('relTime("1+01:01:01.5")'))
    assert main(["eval", "relTime(90061.5)"]) == 0
    assert capsys.readouterr().out == printed + "\n"
    assert main(["eval", "--json", "relTime(90061.5)"]) == 0
    assert json.loads(capsys.readouterr().out) == f"/Expr({printed})/"
