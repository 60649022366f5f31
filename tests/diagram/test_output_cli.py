"""Output formats by extension, the missing-Graphviz message, and `condor-policy diagram`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler.diagram import DiagramError, GraphvizMissing, extract, render, resolve_trace, write
from compiler.spec import load_spec
from runtime.cli import main
from tests.diagram.dotparse import bold_of, parse, text_of

SPEC = load_spec("condor-6.8")


@pytest.mark.parametrize(
    ("suffix", "magic"),
    [(".svg", b"<?xml"), (".png", b"\x89PNG"), (".pdf", b"%PDF"), (".dot", b"digraph")],
)
def test_format_follows_the_extension(tmp_path: Path, suffix: str, magic: bytes) -> None:
    out = write(extract(SPEC), tmp_path / f"figure{suffix}")
    assert out.read_bytes().startswith(magic)


def test_svg_carries_tooltips_and_stable_ids() -> None:
    svg = render(extract(SPEC), ".svg").decode()
    assert 'id="edge&#45;14"' in svg
    assert "xlink:title=" in svg and "WANT_SUSPEND &amp;&amp; SUSPEND" in svg


def test_without_dot_the_dot_text_still_works_and_images_say_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert write(extract(SPEC), tmp_path / "f.dot").read_text().startswith("digraph")
    with pytest.raises(GraphvizMissing, match="apt-get install graphviz"):
        write(extract(SPEC), tmp_path / "f.svg")


def test_cli_reports_missing_dot_with_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    status = main(["diagram", "--no-policy", "-o", str(tmp_path / "f.png")])
    assert status == 2
    err = capsys.readouterr().err
    assert "Graphviz" in err and "install" in err and ".dot" in err


def test_cli_spec_only_states_figure(tmp_path: Path) -> None:
    out = tmp_path / "states.dot"
    status = main(
        ["diagram", "--no-policy", "--era", "condor-6.8", "--states-only", "-o", str(out)]
    )
    assert status == 0
    graph = parse(out.read_text())
    letters = sorted(b for e in graph.edges for b in bold_of(e.attrs.get("label", "")))
    assert letters == list("ABCDEFGHIJKLM")


def test_cli_unnumbered_and_code_semantics(tmp_path: Path) -> None:
    out = tmp_path / "code.dot"
    args = ["diagram", "--no-policy", "--semantics", "code", "--unnumbered", "-o", str(out)]
    assert main(args) == 0
    graph = parse(out.read_text())
    names = {text_of(e.attrs.get("label", "")) for e in graph.edges}
    assert "delete" in names and "match_in_owner" in names
    assert "code semantics" in text_of(graph.attrs["label"])


def test_cli_highlight_from_a_jsonl_run(tmp_path: Path) -> None:
    run = tmp_path / "run.jsonl"
    steps = [{"t": 0, "number": 1}, {"t": 900, "number": 6}, {"t": 905, "number": 9}]
    run.write_text("\n".join(json.dumps(s) for s in steps) + "\n")
    out = tmp_path / "run.dot"
    assert main(["diagram", "--no-policy", "--highlight", str(run), "-o", str(out)]) == 0
    labels = [text_of(e.attrs.get("label", "")) for e in parse(out.read_text()).edges]
    assert "9 [3]" in labels and "6 [2]" in labels


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-o", "{tmp}/f.pngg"], "unknown diagram format '.pngg'"),
        (["-o", "{tmp}/noext"], "needs an extension"),
        (["--highlight", "1,99", "-o", "{tmp}/f.dot"], "no transition 99"),
        (["--policy", "Desktp", "-o", "{tmp}/f.dot"], "did you mean Desktop"),
        (["{tmp}/missing.config", "-o", "{tmp}/f.dot"], "no such configuration"),
    ],
)
def test_cli_input_errors_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    argv = ["diagram", "--no-policy", *(a.format(tmp=tmp_path) for a in args)]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def _number_edge(graph, number: str):  # type: ignore[no-untyped-def]
    (edge,) = [e for e in graph.edges if number in bold_of(e.attrs.get("label", ""))]
    return edge


def test_cli_compiles_config_on_top_of_a_template(tmp_path: Path) -> None:
    # WANT_SUSPEND = False: 14 (Busy -> Suspended, WANT_SUSPEND && SUSPEND) and 20
    # (Retiring -> Suspended, same guard) can never fire; Suspended is then unreachable
    config = tmp_path / "startd.config"
    config.write_text("WANT_SUSPEND = False\n")
    out = tmp_path / "p.dot"
    args = ["diagram", str(config), "--policy", "Desktop", "--show-guards", "-o", str(out)]
    assert main(args) == 0
    graph = parse(out.read_text())
    for number in ("14", "20"):
        assert _number_edge(graph, number).attrs["style"] == "dashed"
    assert "unreachable" in graph.nodes["Claimed/Suspended"]["tooltip"]
    assert "use POLICY : Desktop + " in text_of(graph.attrs["label"])
    # the template alone suspends
    plain = tmp_path / "d.dot"
    assert main(["diagram", "--policy", "Desktop", "-o", str(plain)]) == 0
    assert _number_edge(parse(plain.read_text()), "14").attrs.get("style") != "dashed"


def test_cli_assume_fixes_attributes_before_simplifying(tmp_path: Path) -> None:
    # Desktop: IS_OWNER = (START =?= False) with START needing KeyboardIdle > 15 min;
    # with the keyboard in use (KeyboardIdle = 0) transition 1 cannot fire
    out = tmp_path / "a.dot"
    args = ["diagram", "--policy", "Desktop", "--assume", "KeyboardIdle=0", "-o", str(out)]
    assert main(args) == 0
    assert _number_edge(parse(out.read_text()), "1").attrs["style"] == "dashed"


TRACE = """\
era: htcondor-current
config: {START: "KeyboardIdle > 15 * 60", SUSPEND: "KeyboardIdle < 60",
         WANT_SUSPEND: "true", CONTINUE: "KeyboardIdle > 300", PREEMPT: "false"}
machine: {KeyboardIdle: 3400, LoadAvg: 0.1, CondorLoadAvg: 0.0}
job: {Owner: "coltrane", ImageSize: 2000, JobUniverse: 5}
steps:
  - {t: 0, tick: true}
  - {t: 1, event: benchmarks_done}
  - {t: 900, event: match}
  - {t: 905, event: claim}
  - {t: 910, event: activate}
  - {t: 1500, set: {KeyboardIdle: 0}}
  - {t: 1510, tick: true}
  - {t: 1600, set: {KeyboardIdle: 1000}}
  - {t: 1610, tick: true}
  - {t: 4000, event: job_exit}
"""


def test_cli_trace_is_replayed_and_its_path_highlighted(tmp_path: Path) -> None:
    # the manual's story: Owner -> Unclaimed (1), benchmarks (3, 4), match (6), claim
    # (9), activate (11), the owner types: suspend (14), leaves: continue (15), the job
    # exits (12)
    trace = tmp_path / "story.yaml"
    trace.write_text(TRACE)
    out = tmp_path / "story.dot"
    argv = ["diagram", "--trace", str(trace), "--semantics", "manual", "-o", str(out)]
    assert main(argv) == 0
    graph = parse(out.read_text())
    path = {"1": 1, "3": 2, "4": 3, "6": 4, "9": 5, "11": 6, "14": 7, "15": 8, "12": 9}
    for number, step in path.items():
        label = text_of(_number_edge(graph, number).attrs["label"])
        assert f"[{step}]" in label, (number, label)
    for number in ("2", "5", "13", "10"):
        assert "[" not in text_of(_number_edge(graph, number).attrs["label"])
    assert "story.yaml config" in text_of(graph.attrs["label"])


#: More digits than `int` converts (4,300), so a parse by `int` would raise ValueError.
HUGE = "7" * 5000


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (f"1\n6, {HUGE}\n", ":2:4: a 5000-digit"),  # a file of numbers: line 2, column 4
        (f'{{"t": 0, "number": 1}}\n{{"t": 9, "number": "{HUGE}"}}\n', ":2:21: a 5000-digit"),
        (f"0000{HUGE}\n", ":1:1: a 5004-digit"),
    ],
)
def test_cli_highlight_file_with_a_5000_digit_step_is_a_positioned_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, where: str
) -> None:
    steps = tmp_path / "steps.txt"
    steps.write_text(text)
    argv = ["diagram", "--no-policy", "--highlight", str(steps), "-o", str(tmp_path / "f.dot")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{steps}{where} step number" in err
    assert "names no transition" in err and "Traceback" not in err


def test_cli_highlight_list_with_a_5000_digit_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["diagram", "--no-policy", "--highlight", f"1,{HUGE}", "-o", str(tmp_path / "f.dot")]
    assert main(argv) == 2
    assert "--highlight: a 5000-digit step number" in capsys.readouterr().err


def test_resolve_trace_refuses_a_5000_digit_step_without_int() -> None:
    with pytest.raises(DiagramError, match="trace step 2: a 5000-digit step number"):
        resolve_trace(SPEC, [1, HUGE])
    # leading zeros and surrounding blanks still name a row; non-ASCII digits are ids
    assert resolve_trace(SPEC, [" 0001 "]) == resolve_trace(SPEC, [1])
    with pytest.raises(DiagramError, match="no transition '²'"):
        resolve_trace(SPEC, ["²"])
