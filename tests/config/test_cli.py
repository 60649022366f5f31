"""`condor-policy config`: values, -v provenance, --dump, CONDOR_CONFIG, error exits."""

from __future__ import annotations

from pathlib import Path

import pytest

from runtime.cli import main


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "condor_config"
    path.write_text("START = False\nuse POLICY : Desktop\nMINUTE = 30\nLOCAL = $(MINUTE)x\n")
    return path


def test_prints_expanded_values_one_per_line(
    config_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["config", "MINUTE", "LOCAL", "-c", str(config_file)]) == 0
    assert capsys.readouterr().out.splitlines() == ["30", "30x"]


def test_verbose_shows_where(config_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "START", "-v", "-c", str(config_file)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("START = ((KeyboardIdle > 15 * 30)")
    assert f"# at: {config_file}:2, use POLICY:Desktop" in out
    assert f"# overrides: {config_file}:1" in out
    assert "# raw: ((KeyboardIdle > $(StartIdleTime))" in out


def test_condor_config_is_honoured(
    config_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONDOR_CONFIG", str(config_file))
    assert main(["config", "MINUTE"]) == 0
    assert capsys.readouterr().out == "30\n"


def test_era_defaults_without_any_config(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CONDOR_CONFIG", raising=False)
    assert main(["config", "MATCH_TIMEOUT", "--era", "condor-6.4"]) == 0
    assert capsys.readouterr().out == "300\n"


def test_undefined_name_exits_1(config_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "NOT_DEFINED_ANYWHERE", "-c", str(config_file)]) == 1
    assert "Not defined: NOT_DEFINED_ANYWHERE" in capsys.readouterr().err


def test_dump_lists_every_defined_name(
    config_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["config", "--dump", "-c", str(config_file)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "MINUTE = 30" in lines
    assert "LOCAL = 30x" in lines
    assert any(line.startswith("PolicyExprFragments = 1") for line in lines)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "use POLICY : Destkop\n",
            ":1:1: use POLICY: unknown template 'Destkop' (did you mean Desktop",
        ),
        ("A @=end\nx\n", ":1:1: '@end' not found before end of file"),
        ("if true\n", ":1:1: if without endif"),
        ("include : /nonexistent/x.config\n", ":1:1: cannot open include file"),
        ("include : date |\n", "allow_commands=True"),
    ],
)
def test_errors_exit_2_with_position_and_no_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, expected: str
) -> None:
    path = tmp_path / "bad.config"
    path.write_text(text)
    assert main(["config", "START", "-c", str(path)]) == 2
    err = capsys.readouterr().err
    assert expected in err
    assert str(path) in err
    assert "Traceback" not in err


def test_cycle_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cycle.config"
    path.write_text("A = $(B)\nB = $(A)\n")
    assert main(["config", "A", "-c", str(path)]) == 2
    err = capsys.readouterr().err
    assert "cyclic macro definition: A -> B -> A" in err
    assert f"{path}:1:" in err


def test_missing_config_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "START", "-c", str(tmp_path / "none")]) == 2
    assert "no such configuration file" in capsys.readouterr().err


def test_binary_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "binary"
    path.write_bytes(b"\x00\x01\x02garbage")
    assert main(["config", "START", "-c", str(path)]) == 2
    assert "binary data" in capsys.readouterr().err


def test_no_names_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config"]) == 2
    assert "give one or more NAMEs" in capsys.readouterr().err


def test_warnings_go_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "colon.config"
    path.write_text("START : True\n")
    assert main(["config", "START", "-c", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.out == "True\n"
    assert "obsolete use of ':'" in captured.err
