"""The documentation runs: its examples work and it names everything the code has.

* every `python` block of docs/python-api.md runs (in a fresh namespace, from a temporary
  directory);
* every `condor-policy ...` line of a shell block marked `<!-- runnable -->` (or
  `<!-- runnable: exit N -->`) in docs/ or README.md runs with the installed command from
  a temporary directory holding a copy of docs/ and tests/scenarios/, and exits 0 (or N);
* the example traces fire the transitions their `expect:` lists (written by hand from
  the policy and the manual, not from a run);
* the reference pages name every trace key, event, `how` value and event-log `kind` the
  code has, so a new one cannot go undocumented.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.config import load_config
from compiler.policy import compile_policy
from compiler.spec import ERAS, load_spec
from runtime.trace import STEP_KEYS, TOP_KEYS, read_trace, replay

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
EXAMPLES = DOCS / "examples"
MARKER = re.compile(
    r"<!--\s*runnable(?::\s*exit\s+(\d+))?\s*-->\s*\n```(?:sh|bash|console)\n(.*?)```", re.S
)
PY_BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def _python_blocks() -> list[tuple[str, str]]:
    text = (DOCS / "python-api.md").read_text(encoding="utf-8")
    out = []
    for match in PY_BLOCK.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        out.append((f"python-api.md:{line}", match.group(1)))
    return out


def _runnable_commands() -> list[tuple[str, str, int]]:
    """(where, command line, expected exit status), each command once."""
    files = [*sorted(DOCS.rglob("*.md")), ROOT / "README.md"]
    seen: dict[str, tuple[str, str, int]] = {}
    for path in files:
        text = path.read_text(encoding="utf-8")
        for match in MARKER.finditer(text):
            status = int(match.group(1) or 0)
            first = text.count("\n", 0, match.start()) + 1
            for offset, line in enumerate(match.group(2).splitlines()):
                line = line.strip()
                if line.startswith("condor-policy ") and line not in seen:
                    where = f"{path.relative_to(ROOT)}:{first + 2 + offset}"
                    seen[line] = (where, line, status)
    return list(seen.values())


PY_BLOCKS = _python_blocks()


@pytest.mark.parametrize(("where", "code"), PY_BLOCKS, ids=[b[0] for b in PY_BLOCKS])
def test_python_api_example_runs(
    where: str, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(code, where, "exec"), {"__name__": "__docs__"})


def test_python_api_has_examples() -> None:
    assert len(PY_BLOCKS) >= 8


def _command() -> list[str]:
    script = Path(sys.executable).parent / "condor-policy"
    return [str(script)] if script.exists() else [sys.executable, "-m", "runtime"]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with only what a fresh clone ships that the examples read."""
    base = tmp_path_factory.mktemp("clone")
    shutil.copytree(DOCS, base / "docs")
    shutil.copytree(ROOT / "tests" / "scenarios", base / "tests" / "scenarios")
    return base


COMMANDS = _runnable_commands()


@pytest.mark.slow  # about a minute on 2 busy cores: one process per command
@pytest.mark.parametrize(("where", "line", "status"), COMMANDS, ids=[c[0] for c in COMMANDS])
def test_documented_command_runs(where: str, line: str, status: int, workdir: Path) -> None:
    argv = _command() + shlex.split(line)[1:]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(workdir)}
    done = subprocess.run(
        argv, cwd=workdir, capture_output=True, text=True, timeout=300, env=env, check=False
    )
    assert done.returncode == status, f"{where}: {line}\n{done.stdout[-2000:]}{done.stderr}"
    assert "Traceback" not in done.stderr


def test_runnable_commands_found() -> None:
    assert len(COMMANDS) >= 8


# ------------------------------------------------------------------ example traces

#: The policy each example trace is written for (its header comment says so too).
EXAMPLE_POLICY = {"owner-returns.yaml": "use POLICY : Desktop\n"}
TRACES = sorted(p for p in EXAMPLES.iterdir() if p.suffix in (".yaml", ".json"))


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.name)
def test_example_trace_fires_what_it_expects(path: Path) -> None:
    trace = read_trace(path)
    assert trace.expect, f"{path.name}: give the expected transitions (expect:)"
    era = trace.era or "htcondor-current"
    for semantics in ("manual", "code"):
        expected = trace.expected(semantics)
        if expected is None:
            continue
        config = load_config(text=EXAMPLE_POLICY.get(path.name, ""), era=era)
        if trace.config:
            config = config.with_overrides(trace.config)
        table = compile_policy(config, era, semantics)
        slot = replay(trace, table)
        assert [f.number for f in slot.fired] == list(expected), f"{path.name} ({semantics})"


def test_every_example_file_is_used() -> None:
    """Each file under docs/examples/ is named by a runnable command or checked above."""
    commands = " ".join(line for _, line, _ in COMMANDS)
    for path in EXAMPLES.iterdir():
        if path.name == "README.md":
            continue
        assert f"docs/examples/{path.name}" in commands, f"{path.name} is used by no example"


# ------------------------------------------------------------------ completeness


def test_trace_format_names_every_key() -> None:
    text = (DOCS / "trace-format.md").read_text(encoding="utf-8")
    for key in (*TOP_KEYS, *STEP_KEYS):
        assert f"`{key}`" in text, f"trace key {key!r} is not documented"


def test_events_page_names_every_event_and_how() -> None:
    text = (DOCS / "events.md").read_text(encoding="utf-8")
    for era in ERAS:
        for event in load_spec(era).events:
            assert f"### `{event.name}`" in text, f"event {event.name} has no section"
            for how in event.how:
                row = re.search(rf"^\| `{event.name}` \|(.*)$", text, re.M)
                assert row and f"`{how}`" in row.group(1), f"{event.name}: how {how}"


def test_json_outputs_page_names_every_log_kind() -> None:
    text = (DOCS / "json-outputs.md").read_text(encoding="utf-8")
    kinds: set[str] = set()
    for source in (ROOT / "runtime").rglob("*.py"):
        if "check" in source.relative_to(ROOT).parts:
            continue
        kinds |= set(re.findall(r'"kind": "(\w+)"', source.read_text(encoding="utf-8")))
    assert {"transition", "event", "note", "timer"} <= kinds
    for kind in kinds:
        assert f"| `{kind}` |" in text, f"event-log kind {kind!r} is not documented"


def test_properties_page_names_every_unit_and_anchor() -> None:
    from runtime.check.properties import names

    text = (DOCS / "properties.md").read_text(encoding="utf-8")
    grammar = (ROOT / "runtime" / "check" / "properties.lark").read_text(encoding="utf-8")
    units = re.search(r"DURATION[^:]*:.*?\(((?:[a-z]+\|)+[a-z]+)\)", grammar)
    assert units is not None
    unit_line = re.search(r"UNIT\s+=(.*?);", text, re.S)
    assert unit_line is not None
    documented = set(re.findall(r"[a-z]+", unit_line.group(1)))
    assert set(units.group(1).split("|")) == documented
    events = {e.name for era in ERAS for e in load_spec(era).events}
    anchors = names().anchors
    assert set(anchors) == {"JobStart", *events}, "anchors are JobStart and the events"
    for anchor in anchors:
        assert f"`{anchor}`" in text, f"anchor {anchor} is not documented"


def test_differences_doc_is_current() -> None:
    spec = importlib.util.spec_from_file_location(
        "gen_doc", ROOT / "tools" / "gen_differences_doc.py"
    )
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    sys.modules["gen_doc"] = tool  # dataclasses look their module up there
    spec.loader.exec_module(tool)
    committed = (DOCS / "differences.md").read_text(encoding="utf-8")
    assert committed == tool.render(tool.load_catalog()), (
        "docs/differences.md is stale: run `python tools/gen_differences_doc.py`"
    )


def test_every_d_number_is_described() -> None:
    import yaml

    catalog = yaml.safe_load((ROOT / "spec" / "differences.yaml").read_text(encoding="utf-8"))
    marked: set[str] = set()
    for era_file in (ROOT / "spec" / "eras").glob("*.yaml"):
        marked |= set(re.findall(r"difference: (D\d+)", era_file.read_text(encoding="utf-8")))
    assert marked <= set(catalog), sorted(marked - set(catalog))
    assert list(catalog) == [f"D{n}" for n in range(1, len(catalog) + 1)]
