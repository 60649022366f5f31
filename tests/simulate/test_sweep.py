"""`condor-policy sweep` (issue 15): variants x seeds x pool sizes as dask.distributed
tasks on a real LocalCluster, the table against the same simulations run here, the
HTCondorCluster job script, positioned errors."""

from __future__ import annotations

import csv
import json
import socket
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import pytest

from runtime.cli import main
from runtime.simulate.sweep import read_sweep, run_task, tasks

POOL = """hours: 2
seed: 5
negotiator:
  config: |
    NEGOTIATOR_INTERVAL = 300
    PREEMPTION_REQUIREMENTS = True
  users: {bob@x: {rup: 50.0}}
machines:
  - name: node
    count: 2
    startd: |
      START = True
      SUSPEND = False
      PREEMPT = False
      KILL = False
jobs:
  - {user: bob@x, count: 6, run_minutes: {mean: 120, distribution: fixed}}
  - {user: alice@x, count: 4, at_minutes: 30, run_minutes: {mean: 20}}
"""

SWEEP = """pool: pool.yaml
seeds: [1, 2]
scales: [1, 2]
variants:
  - name: as-is
  - name: no-priority-preemption
    negotiator: |
      PREEMPTION_REQUIREMENTS = False
"""


def _files(tmp_path: Path, sweep: str = SWEEP) -> Path:
    (tmp_path / "pool.yaml").write_text(POOL)
    path = tmp_path / "sweep.yaml"
    path.write_text(sweep)
    return path


@pytest.mark.slow
def test_a_sweep_on_a_local_cluster_gives_the_table_of_its_simulations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two variants x two pool sizes x two seeds on a LocalCluster of two worker
    processes: eight rows in (variant, scale, seed) order, each the metrics of the same
    simulation run in this process; PREEMPTION_REQUIREMENTS = False leaves no priority
    preemption; the comparison plots are written."""
    sweep = _files(tmp_path)
    out = tmp_path / "out"
    assert main(["sweep", str(sweep), "--workers", "2", "--out", str(out), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    spec = read_sweep(str(sweep))
    expected = [run_task(task) for task in tasks(spec)]
    assert rows == json.loads(json.dumps(expected))
    assert [(r["variant"], r["scale"], r["seed"]) for r in rows] == [
        (v, s, seed) for v in ("as-is", "no-priority-preemption") for s in (1, 2) for seed in (1, 2)
    ]
    assert [r["slots"] for r in rows[:4]] == [2, 2, 4, 4]
    assert all(r.get("preemptions_priority", 0) == 0 for r in rows if r["variant"] != "as-is")
    assert any(r.get("preemptions_priority", 0) > 0 for r in rows if r["variant"] == "as-is")
    with (out / "results.csv").open() as handle:
        table = list(csv.DictReader(handle))
    assert len(table) == 8 and table[0]["variant"] == "as-is"
    assert {p.name for p in out.glob("sweep-*.png")} >= {
        "sweep-goodput_h.png",
        "sweep-badput_h.png",
    }


def test_the_htcondor_cluster_job_script(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--htcondor --print-job-script`: the submit description dask-jobqueue's
    HTCondorCluster gives each worker, with the sweep file's requests. Dask's dashboard
    port (8787) taken, by another sweep say, changes nothing (its scheduler's dashboard
    listens on a free port: dask warned, and the warning failed this test when another
    test's cluster held the port)."""
    sweep = _files(tmp_path, SWEEP + "htcondor:\n  memory: 3 GB\n  cores: 2\n  python: /opt/cp/bin/python\n"
                   "  submit: {+WantFlocking: 'true'}\n")  # fmt: skip
    with socket.socket() as taken:
        with suppress(OSError):  # (already taken: as well)
            taken.bind(("", 8787))
            taken.listen()
        assert main(["sweep", str(sweep), "--htcondor", "--print-job-script"]) == 0
    script = capsys.readouterr().out
    assert "MY.DaskWorkerCores = 2" in script
    assert "MY.DaskWorkerMemory = 3000000000" in script
    assert "/opt/cp/bin/python -m distributed.cli.dask_worker" in script
    assert "+WantFlocking = true" in script


def test_sweep_file_errors_are_positioned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sweep = _files(
        tmp_path, "pool: pool.yaml\nvariants:\n  - name: a\n    startd: {nodes: 'START = False'}\n"
    )
    assert main(["sweep", str(sweep)]) == 2
    err = capsys.readouterr().err
    assert f"{sweep}:4:14:" in err and "no machine group 'nodes'" in err
    sweep.write_text("pool: pool.yaml\nvariants:\n  - name: a\n    startd: {node: 'START = (('}\n")
    assert main(["sweep", str(sweep)]) == 2
    err = capsys.readouterr().err
    assert f"{sweep}:3:5:" in err and "variant 'a'" in err
    # a variant's negotiator lines are checked before any simulation runs, too
    sweep.write_text("pool: pool.yaml\nvariants:\n  - name: a\n    negotiator: 'not a knob'\n")
    assert main(["sweep", str(sweep)]) == 2
    err = capsys.readouterr().err
    # (its line is in the variant's text: a flow scalar, whose lines are not the file's)
    assert f"{sweep}:3:5:" in err and "variant 'a': variants.0.negotiator:1:4:" in err
    assert "missing operator" in err
    sweep.write_text("pool: pool.yaml\nvariants: []\nseedz: [1]\n")
    assert main(["sweep", str(sweep)]) == 2
    assert "did you mean 'seeds'" in capsys.readouterr().err


_SWEEP_HEAD = "pool: pool.yaml\nvariants:\n  - name: a\n"


@pytest.mark.parametrize(
    ("tail", "expected"),
    [
        # what dask-jobqueue reads when the cluster starts (each a ValueError then)
        ("htcondor: {memory: 'lots'}\n", "4:12: htcondor.memory: not a size dask reads: 'lots'"),
        ("htcondor: {disk: [1]}\n", "4:12: htcondor.disk: must be a size with a unit"),
        (
            "htcondor: {memory: '2048'}\n",
            "4:12: htcondor.memory: give a unit, such as '2048 MB' (a bare number is bytes)",
        ),
        ("htcondor: {memory: '0 GB'}\n", "4:12: htcondor.memory: must be above 0"),
        # (AttributeError)
        ("htcondor: {submit: [a]}\n", "4:12: htcondor.submit: must be a mapping"),
        ("htcondor: {submit: {+A: {b: 1}}}\n", "4:21: htcondor.submit.+A: must be a submit"),
        ("htcondor: {python: [1]}\n", "4:12: htcondor.python: must be text"),
        # (2.5 workers was 2)
        ("htcondor: {jobs: 2.5}\n", "4:12: htcondor.jobs: must be a whole number"),
        # a scale beyond any count (OverflowError) or arrival rate
        ("scales: [1.0e+308]\n", "4:10: scales.0: scale 1e+308 makes counts beyond any number"),
        ("scales: [1.0e+306]\n", "4:10: scales.0: scale 1e+306 makes a rate_per_hour above"),
    ],
)
def test_sweep_values_no_sweep_can_use_are_positioned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tail: str, expected: str
) -> None:
    """Each is found when the file is read, not when a cluster or a task starts."""
    pool = POOL.replace("count: 4,", "count: 4, rate_per_hour: 1,")
    sweep = _files(tmp_path, _SWEEP_HEAD + tail)
    (tmp_path / "pool.yaml").write_text(pool)
    assert main(["sweep", str(sweep), "--htcondor", "--print-job-script"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"condor-policy: {sweep}:{expected}"), err


def test_variants_warn_and_err_at_their_lines_in_the_sweep_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a variant's lines warn of (an expression the startd would leave out: the
    variant would run as if it were not there) is told before the sweep, at its line in
    the sweep file, once; the pool's own warnings once, not once per variant; an error
    in a variant's lines is at its line too (it was at the variant, naming a line of
    the pool's text and the variant's joined)."""
    pool = POOL.replace("      KILL = False\n", "      KILL = False\n      RANK = (((\n")
    sweep = _files(
        tmp_path,
        "pool: pool.yaml\nvariants:\n  - name: a\n  - name: b\n    startd:\n      node: |\n"
        "        MaxSuspendTime = 60\n        RANK =  TARGET.KFlops >\n"
        "  - name: c\n    startd: {node: 'RANK =  ((('}\n",
    )
    (tmp_path / "pool.yaml").write_text(pool)
    assert main(["sweep", str(sweep), "--htcondor", "--print-job-script"]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "warning:" in line]
    assert warned == [
        f"condor-policy: warning: {tmp_path / 'pool.yaml'}:16:14: machines.0.startd: RANK is "
        "not a valid ClassAd expression: unexpected end of expression at column 3 of '((('",
        f"condor-policy: warning: {sweep}:8:17: variants.1.startd.node: RANK is not a valid "
        "ClassAd expression: unexpected end of expression at column 15 of 'TARGET.KFlops >'",
        f"condor-policy: warning: {sweep}: variants.2.startd.node: <input>:1:9: RANK is not "
        "a valid ClassAd expression: unexpected end of expression at column 3 of '((('",
    ]
    sweep.write_text(
        "pool: pool.yaml\nvariants:\n  - name: a\n    negotiator: |\n"
        "      NEGOTIATOR_INTERVAL = 60\n      PREEMPTION_RANK = RemoteUserPrio *\n"
    )
    assert main(["sweep", str(sweep), "--htcondor", "--print-job-script"]) == 2
    assert capsys.readouterr().err.startswith(
        f"condor-policy: {sweep}:6:25: variant 'a': variants.0.negotiator: PREEMPTION_RANK is "
        "not a valid ClassAd expression"
    )


def test_a_scheduler_that_cannot_be_reached_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--scheduler ADDRESS` that is not an address, or where nothing answers: exit 2
    with what dask said (it was a traceback)."""
    import dask

    sweep = _files(tmp_path, SWEEP)
    assert main(["sweep", str(sweep), "--scheduler", "bogus"]) == 2
    assert "--scheduler bogus: cannot connect: missing port" in capsys.readouterr().err
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]  # (closed again: nothing listens there)
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        assert main(["sweep", str(sweep), "--scheduler", f"tcp://127.0.0.1:{port}"]) == 2
    assert "cannot connect: Timed out" in capsys.readouterr().err


def test_sweep_example_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", "--example"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("#") and "variants:" in text and "htcondor:" in text


def test_ctrl_c_keeps_the_finished_simulations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A KeyboardInterrupt while gathering: what has not finished is cancelled, the rows
    that have are kept (in table order) and the sweep says it is incomplete."""
    import distributed

    from runtime.simulate.sweep import run_sweep

    spec = read_sweep(str(_files(tmp_path)))
    todo = tasks(spec)

    class Done:
        def __init__(self, task: object) -> None:
            self.task = task

        def result(self) -> dict[str, object]:
            return {"variant": self.task.variant, "scale": self.task.scale, "seed": self.task.seed}  # type: ignore[attr-defined]

    class Client:
        def __init__(self) -> None:
            self.cancelled: list[object] = []

        def map(self, fn: object, items: list[object], pure: bool) -> list[Done]:
            assert fn is run_task and not pure
            return [Done(t) for t in items]

        def cancel(self, futures: list[object]) -> None:
            self.cancelled.extend(futures)

    def two_then_interrupt(futures: list[Done]) -> Iterator[Done]:
        yield futures[3]
        yield futures[0]
        raise KeyboardInterrupt

    monkeypatch.setattr(distributed, "as_completed", two_then_interrupt)
    client = Client()
    rows, complete = run_sweep(spec, client)
    assert not complete
    assert [(r["variant"], r["scale"], r["seed"]) for r in rows] == [
        (todo[0].variant, todo[0].scale, todo[0].seed),
        (todo[3].variant, todo[3].scale, todo[3].seed),
    ]
    assert len(client.cancelled) == len(todo)


def _tasks_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """`condor-policy sweep` with its tasks run here, one after the other, as the workers
    would run them (`run_task`): no cluster."""
    import runtime.commands.sweep as command

    class Here:
        def __init__(self, *_: object) -> None: ...

        def __enter__(self) -> object:
            return object()

        def __exit__(self, *_: object) -> None: ...

    def gathered(spec: object, client: object) -> tuple[list[dict[str, object]], bool]:
        return [run_task(task) for task in tasks(spec)], True  # type: ignore[arg-type]

    monkeypatch.setattr(command, "_client", Here)
    monkeypatch.setattr(command, "_gather", gathered)


def test_a_simulation_that_fails_is_reported_and_the_others_are_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A variant every slot of which goes round Owner -> Unclaimed -> Owner without end
    (6.8: IS_OWNER is START =?= False, and entering either pair evaluates again at once)
    compiles, and fails only when it runs: its simulations are reported, each with its
    variant, scale, seed and problem at its place; the others' rows are written; exit 2.
    (The tasks run here, as the workers would run them: `run_task`.)"""
    path = _files(
        tmp_path,
        SWEEP.replace("seeds: [1, 2]\nscales: [1, 2]", "seeds: [1]\nscales: [1]")
        + '  - name: loops\n    startd:\n      node: |\n        START = State == "Owner"\n',
    )
    (tmp_path / "pool.yaml").write_text("era: condor-6.8\n" + POOL)

    _tasks_here(monkeypatch)
    out = tmp_path / "out"
    assert main(["sweep", str(path), "--out", str(out), "--format", "json"]) == 2
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert [row["variant"] for row in report["rows"]] == ["as-is", "no-priority-preemption"]
    assert [(row["variant"], row["scale"], row["seed"]) for row in report["failed"]] == [
        ("loops", 1, 1)
    ]
    with (out / "results.csv").open() as handle:
        assert [row["variant"] for row in csv.DictReader(handle)] == [
            "as-is", "no-priority-preemption"
        ]  # fmt: skip
    assert (
        f"variant loops, scale 1, seed 1: {tmp_path / 'pool.yaml'}:12:5: machines.0.startd: "
        "slot1@node-0001: transitions do not settle at t=0"
    ) in captured.err
    assert "1 of the sweep's 3 simulations failed" in captured.err


def test_a_ctrl_c_while_the_results_are_written_does_not_cut_them_short(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every simulation is done and the results are about to be written when Ctrl-C comes
    (a real SIGINT): the table is written whole, then the sweep says it was interrupted
    (exit 130). (The tasks run here, as the workers would run them: `run_task`.)"""
    import os
    import signal

    import runtime.simulate.sweep as sweep

    path = _files(
        tmp_path, SWEEP.replace("seeds: [1, 2]\nscales: [1, 2]", "seeds: [1]\nscales: [1]")
    )

    real = sweep.write_results

    def interrupted(*args: object) -> list[Path]:
        os.kill(os.getpid(), signal.SIGINT)
        return real(*args)  # type: ignore[arg-type]

    _tasks_here(monkeypatch)
    monkeypatch.setattr(sweep, "write_results", interrupted)
    out = tmp_path / "out"
    assert main(["sweep", str(path), "--out", str(out)]) == 130
    assert "interrupted: 2 of the sweep's simulations finished and were written" in (
        capsys.readouterr().err
    )
    with (out / "results.csv").open() as handle:
        assert [row["variant"] for row in csv.DictReader(handle)] == [
            "as-is", "no-priority-preemption"
        ]  # fmt: skip
