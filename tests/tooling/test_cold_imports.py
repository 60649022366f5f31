"""A cold `condor-policy compile` imports only what compiling needs (issue 11, cold compile).

The CLI imports every command module to list the commands, so a module-level import in
`run`, `watch` or `diagram` is paid by `compile` too: the slot and its engine
(transitions), the real sensors and job runner (psutil), the checker (hypothesis), the
figure renderers (graphviz), the replayer. Compiling the Desktop policy needs none of
them, nor sympy (no Desktop guard needs minimisation), nor the ClassAd builtin function
table (no Desktop guard calls a builtin while it is simplified), nor `subprocess` (only
`include : command |` runs a program). Each is checked in a fresh interpreter that runs
the CLI entry point exactly as the console script does. Not timed: the time is
`python -m tests.bench_compile`'s figure.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Modules a cold `compile --policy desktop` must not import (top-level packages are
#: matched with their submodules).
NOT_ON_THE_COMPILE_PATH = (
    "psutil",
    "transitions",
    "hypothesis",
    "graphviz",
    # (not `platform`: msgspec's C core, the compile path's records, imports uuid, which
    # imports it; compiler.config.host still reads os.uname() instead)
    "sympy",
    "subprocess",
    "compiler.diagram",
    "compiler.classad.functions",
    "compiler.machine",
    "runtime.ads",
    "runtime.check",
    "runtime.engine",
    "runtime.jobs",
    "runtime.sensors",
    "runtime.slot",
    "runtime.trace",
)

_PROBE = textwrap.dedent(
    """
    import contextlib, io, json, sys
    {setup}
    from runtime.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main({argv!r})
    print(json.dumps({{"status": status, "lines": len(out.getvalue().splitlines()),
                      "modules": sorted(sys.modules)}}))
    """
)


def _run(argv: list[str], setup: str = "") -> dict[str, object]:
    """The CLI run in a fresh interpreter: exit status, output lines, modules imported."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(argv=argv, setup=setup)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _loaded(modules: object, names: tuple[str, ...]) -> list[str]:
    assert isinstance(modules, list)
    return [name for name in names if any(m == name or m.startswith(name + ".") for m in modules)]


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_compile_desktop_imports_nothing_it_does_not_use(fmt: str) -> None:
    result = _run(["compile", "--policy", "desktop", "--format", fmt])
    assert result["status"] == 0
    assert isinstance(result["lines"], int) and result["lines"] > 40  # the table was printed
    assert _loaded(result["modules"], NOT_ON_THE_COMPILE_PATH) == []


def test_the_probe_sees_an_import() -> None:
    """The same probe, with the slot imported first, reports what the slot pulls in: an
    empty list above is a finding, not a blind spot."""
    result = _run(["compile", "--policy", "desktop"], setup="import runtime.slot")
    assert result["status"] == 0
    assert {"runtime.slot", "transitions"} <= set(
        _loaded(result["modules"], NOT_ON_THE_COMPILE_PATH)
    )


def test_the_commands_that_need_them_still_import_them(tmp_path: Path) -> None:
    """Moving an import into the function that uses it must not lose it: `run` replays a
    trace (runtime.trace and the slot), `diagram` draws a figure (compiler.diagram)."""
    trace = ROOT / "docs" / "examples" / "owner-returns.yaml"
    result = _run(["run", "--trace", str(trace)])
    assert result["status"] == 0 and result["lines"]
    assert {"runtime.trace", "runtime.slot", "transitions"} <= set(
        _loaded(result["modules"], NOT_ON_THE_COMPILE_PATH)
    )
    figure = tmp_path / "desktop.dot"
    result = _run(["diagram", "--policy", "desktop", "-o", str(figure)])
    assert result["status"] == 0 and figure.read_text().startswith("digraph")
    assert "compiler.diagram" in _loaded(result["modules"], NOT_ON_THE_COMPILE_PATH)


@pytest.mark.parametrize("argv", ["None", "['compile', '--policy', 'desktop']"])
def test_main_leaves_the_collector_as_it_found_it_for_callers(argv: str) -> None:
    """`main` freezes what it imported while the command runs (the collector skips those
    objects, issue 11 cold compile); called with arguments, from a caller's process, it
    unfreezes them on the way out; as the process's own command line (argv None) it
    leaves them frozen, since the process ends next."""
    probe = textwrap.dedent(
        f"""
        import contextlib, gc, io, sys
        sys.argv = ["condor-policy", "compile", "--policy", "desktop"]
        from runtime.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            status = main({argv})
        print(status, gc.get_freeze_count())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    status, count = done.stdout.split()
    assert status == "0"
    assert (int(count) > 0) == (argv == "None")
