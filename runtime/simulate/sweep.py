"""Many simulations of one pool (issue 15, "sweeps"): policy variants x seeds x pool sizes,
each a task on dask.distributed, gathered into one table and comparison plots.

Stage: runtime. The SWEEP_FILE (YAML or JSON; `condor-policy sweep --example` prints a
commented one) names a POOL_FILE and what to vary:

* `variants`: each a name and what it changes in the pool: `negotiator` (configuration
  lines appended to the negotiator's: a later definition wins, as in a condor_config)
  and `startd` (machine group name -> lines appended to that group's startd policy);
* `seeds`: the random streams (owners, arrivals, run times) each variant runs with;
* `scales`: pool sizes, as factors on every machine group's count and every job
  stream's count and arrival rate (the load per slot stays);
* `hours`, `semantics`.

Every task is a whole `Simulation` (runtime.simulate.engine) run in a worker process;
its row is the scalar metrics of `summary`. The rows are sorted by (variant, scale, seed)
whatever order the workers finish in, so the same sweep gives the same table. Where the
tasks run is the caller's `distributed.Client`: a LocalCluster on this machine, an
existing scheduler, or dask-jobqueue's HTCondorCluster on the pool the admin already has
(`htcondor_cluster`).
"""

from __future__ import annotations

import csv
import json
import math
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from runtime.simulate.poolfile import (
    LONGEST_HOURS,
    MOST_PER_HOUR,
    NEGOTIATOR_CONFIG,
    PoolFileError,
    PoolSpec,
    Reader,
    key_positions,
    read_pool,
    text_origins,
)

EXAMPLE = Path(__file__).with_name("sweep-example.yaml")
SEMANTICS = ("code", "manual")
#: The columns of the results table, in order (then one `preemptions_<cause>` per cause).
COLUMNS = (
    "variant", "scale", "seed", "slots", "hours", "goodput_h", "badput_h", "vacating_h",
    "jobs_completed", "preemptions", "jain_fairness", "mean_wait_min",
)  # fmt: skip
#: The metrics the comparison plots show, one PNG each.
PLOTTED = ("goodput_h", "badput_h", "vacating_h", "preemptions", "jain_fairness", "mean_wait_min")


def example_text() -> str:
    """The commented example sweep file."""
    return EXAMPLE.read_text(encoding="utf-8")


@dataclass(frozen=True)
class Variant:
    """A policy variant: lines appended to the negotiator's configuration and to the
    startd policy of named machine groups."""

    name: str
    negotiator: str = ""
    startd: Mapping[str, str] | None = None


@dataclass(frozen=True)
class HTCondorOptions:
    """What each dask worker asks of the HTCondor pool (dask-jobqueue HTCondorCluster)."""

    jobs: int = 4
    cores: int = 1
    memory: str = "2 GB"
    disk: str = "1 GB"
    python: str | None = None
    submit: Mapping[str, str] | None = None


@dataclass(frozen=True)
class SweepSpec:
    file: str
    pool: PoolSpec
    variants: tuple[Variant, ...]
    seeds: tuple[int, ...]
    scales: tuple[float, ...]
    hours: float
    semantics: str
    htcondor: HTCondorOptions
    #: what the variants' configuration texts warn of, each once, at its place
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Task:
    """One simulation of the sweep (picklable: it travels to a worker)."""

    variant: str
    scale: float
    seed: int
    pool: PoolSpec
    hours: float
    semantics: str


def read_sweep(path: str) -> SweepSpec:
    """The sweep file at `path` and the pool file it names (relative to it), checked:
    PoolFileError at the file, line and column of the key at fault; every variant's
    policy is compiled before any task starts."""
    from compiler.slots import read_document

    document = read_document(path)
    source = Path(path).read_text(encoding="utf-8")  # (UTF-8: read_document read it)
    r = Reader(path, key_positions(source))
    top = r.mapping(document, (), ("pool", "variants", "seeds", "scales", "hours", "semantics",
                                   "htcondor"), required=("pool", "variants"))  # fmt: skip
    pool_path = Path(path).parent / r.text(top["pool"], ("pool",))
    if not pool_path.is_file():
        raise r.error(("pool",), f"no pool file {pool_path}")
    pool = read_pool(str(pool_path))
    groups = {g.name for g in pool.machines}
    raw_variants = top["variants"]
    if not isinstance(raw_variants, list) or not raw_variants:
        raise r.error(("variants",), "variants must be a non-empty list")
    variants: list[Variant] = []
    for i, raw in enumerate(raw_variants):
        where = ("variants", i)
        v = r.mapping(raw, where, ("name", "negotiator", "startd"), required=("name",))
        startd = v.get("startd") or {}
        if not isinstance(startd, Mapping):
            raise r.error((*where, "startd"), "startd must map machine group names to policy text")
        for group, text in startd.items():
            if group not in groups:
                raise r.error(
                    (*where, "startd", group), f"no machine group {group!r} in {pool_path}"
                )
            r.text(text, (*where, "startd", group))
        name = r.text(v["name"], (*where, "name"))
        if any(name == other.name for other in variants):
            raise r.error((*where, "name"), f"a second variant named {name!r}")
        variants.append(Variant(name, r.text(v.get("negotiator", ""), (*where, "negotiator")),
                                dict(startd)))  # fmt: skip
    seeds = _numbers(r, top.get("seeds", [pool.seed]), ("seeds",), integer=True)
    scales = _numbers(r, top.get("scales", [1.0]), ("scales",), integer=False)
    for i, scale in enumerate(scales):  # the scaled pool is one a pool file could give
        counts = [g.count for g in pool.machines] + [j.count for j in pool.jobs]
        if not all(math.isfinite(count * scale) for count in counts):
            raise r.error(("scales", i), f"scale {scale:g} makes counts beyond any number")
        if any(j.rate_per_hour * scale > MOST_PER_HOUR for j in pool.jobs):
            raise r.error(
                ("scales", i), f"scale {scale:g} makes a rate_per_hour above {MOST_PER_HOUR:g}"
            )
    hours = r.number(top.get("hours", pool.hours), ("hours",), maximum=LONGEST_HOURS)
    semantics = str(top.get("semantics", "code"))
    if semantics not in SEMANTICS:
        raise r.error(("semantics",), f"semantics must be one of {', '.join(SEMANTICS)}")
    options = HTCondorOptions()
    if "htcondor" in top:
        h = r.mapping(top["htcondor"], ("htcondor",), ("jobs", "cores", "memory", "disk", "python",
                                                      "submit"))  # fmt: skip
        submit = r.mapping(h.get("submit"), ("htcondor", "submit"), None)
        for key, value in submit.items():
            if isinstance(value, Mapping | list) or value is None:
                raise r.error(("htcondor", "submit", key), "must be a submit command's value")
        python = h.get("python")
        options = HTCondorOptions(
            jobs=int(r.number(h.get("jobs", 4), ("htcondor", "jobs"), minimum=1, integer=True)),
            cores=int(r.number(h.get("cores", 1), ("htcondor", "cores"), minimum=1, integer=True)),
            memory=_size(r, h.get("memory", "2 GB"), ("htcondor", "memory")),
            disk=_size(r, h.get("disk", "1 GB"), ("htcondor", "disk")),
            python=None if python is None else r.text(python, ("htcondor", "python")),
            submit={str(k): str(v) for k, v in submit.items()},
        )
    warned: dict[str, None] = {}
    placed = text_origins(source, path)
    for i, variant in enumerate(variants):  # every variant compiles, or a located error
        varied = variant_pool(pool, variant, 1.0, origins=(i, path, placed))
        try:
            found = _compile_groups(varied, semantics)
        except PoolFileError as err:
            if err.line is None:
                raise r.error(("variants", i), f"variant {variant.name!r}: {err.message}") from None
            raise PoolFileError(
                f"variant {variant.name!r}: {err.message}", file=err.file, line=err.line,
                column=err.column, source_line=err.source_line,
            ) from None  # fmt: skip
        for where, text in found:  # (the pool's own texts warn alike for every variant)
            warned[varied.config_warning(where, text)] = None
    return SweepSpec(path, pool, tuple(variants), tuple(int(s) for s in seeds), tuple(scales),
                     float(hours), semantics, options, tuple(warned))  # fmt: skip


def _size(r: Reader, value: Any, path: tuple[Any, ...]) -> str:
    """A worker's memory or disk request as dask reads it (`dask.utils.parse_bytes`):
    text with a unit ("2 GB", "512 MiB"), above 0. A bare number is refused: dask would
    read bytes where HTCondor's request_memory reads megabytes."""
    from dask.utils import parse_bytes

    if isinstance(value, bool) or not isinstance(value, str):
        raise r.error(path, f"must be a size with a unit, such as '2 GB', not {value!r}")
    try:
        size = parse_bytes(value)
    except ValueError:
        raise r.error(path, f"not a size dask reads: {value!r} (such as '2 GB')") from None
    if value.strip().replace(".", "", 1).isdigit():
        raise r.error(path, f"give a unit, such as '{value.strip()} MB' (a bare number is bytes)")
    if size <= 0:
        raise r.error(path, f"must be above 0, not {value!r}")
    return value


def _numbers(r: Reader, value: Any, path: tuple[Any, ...], *, integer: bool) -> list[float]:
    if not isinstance(value, list) or not value:
        raise r.error(path, f"{path[-1]} must be a non-empty list")
    out = []
    for i, item in enumerate(value):
        number = r.number(item, (*path, i), minimum=0.0)
        if integer and number != int(number):
            raise r.error((*path, i), "a seed is a whole number")
        if not integer and number <= 0:
            raise r.error((*path, i), "a scale is a positive factor")
        out.append(number)
    return out


def _compile_groups(pool: PoolSpec, semantics: str) -> list[tuple[tuple[Any, ...], str]]:
    """Every machine group's startd text compiles and the negotiator's configuration
    loads (else a PoolFileError naming the text); what they warn of, by key path (each
    at its place in its text, `<input>:line:column`)."""
    from runtime.simulate.engine import negotiator_config, startd_table

    found: list[tuple[tuple[Any, ...], str]] = []
    for g in range(len(pool.machines)):
        found += [(("machines", g, "startd"), w) for w in startd_table(pool, g, semantics).warnings]
    found += [(NEGOTIATOR_CONFIG, w.format()) for w in negotiator_config(pool).warnings]
    return found


def variant_pool(
    pool: PoolSpec,
    variant: Variant,
    scale: float,
    origins: tuple[int, str, Mapping[tuple[Any, ...], tuple[str, int, int, int]]] | None = None,
) -> PoolSpec:
    """`pool` with the variant's lines appended and its sizes scaled (counts rounded,
    at least one machine per group). `origins`: the variant's index in the sweep file,
    that file, and where its texts are (`PoolSpec.origins`): the appended lines are then
    placed there (`PoolSpec.appended`)."""
    startd = variant.startd or {}
    appended: dict[
        tuple[Any, ...], tuple[int, str, tuple[Any, ...], tuple[str, int, int, int] | None]
    ] = {}

    def append(path: tuple[Any, ...], text: str, lines: str, key: tuple[Any, ...]) -> str:
        if origins is not None:  # (the first appended line is the one after `text`'s)
            index, file, placed = origins
            at = ("variants", index, *key)
            appended[path] = ((text + "\n").count("\n") + 1, file, at, placed.get(at))
        return text + "\n" + lines

    machines = tuple(
        replace(
            g,
            count=max(1, round(g.count * scale)),
            startd=append(("machines", i, "startd"), g.startd, startd[g.name], ("startd", g.name))
            if g.name in startd
            else g.startd,
        )
        for i, g in enumerate(pool.machines)
    )
    jobs = tuple(
        replace(j, count=round(j.count * scale), rate_per_hour=j.rate_per_hour * scale)
        for j in pool.jobs
    )
    config = pool.negotiator_config
    if variant.negotiator:
        config = append(NEGOTIATOR_CONFIG, config, variant.negotiator, ("negotiator",))
    return replace(pool, machines=machines, jobs=jobs, negotiator_config=config, appended=appended)


def tasks(spec: SweepSpec) -> list[Task]:
    """Every (variant, scale, seed) of the sweep, in table order."""
    return [
        Task(v.name, scale, seed, variant_pool(spec.pool, v, scale), spec.hours, spec.semantics)
        for v in spec.variants
        for scale in spec.scales
        for seed in spec.seeds
    ]


def run_task(task: Task) -> dict[str, Any]:
    """One simulation, in a worker: its row of the results table; or, when the
    simulation meets a problem with its input (a slot's policy whose transitions never
    settle, say: every variant compiled, but that shows only when it runs), the row's
    variant, scale and seed with `error`, the problem at its place (the other
    simulations go on: the sweep reports it with their results)."""
    from compiler.errors import PolicyError
    from runtime.simulate.engine import Simulation
    from runtime.simulate.metrics import summary

    try:
        simulation = Simulation(task.pool, semantics=task.semantics, seed=task.seed)
        record = simulation.run(task.hours * 3600)
    except PolicyError as err:
        return {"variant": task.variant, "scale": task.scale, "seed": task.seed,
                "error": err.format()}  # fmt: skip
    return row_of(task, summary(record, len(simulation.slots)))


def row_of(task: Task, metrics: Mapping[str, Any]) -> dict[str, Any]:
    """The scalar metrics of one simulation, as a row (no wall-clock figure: the same
    sweep gives the same table)."""
    waits = [w for w in metrics["wait"].values()]
    started = sum(w["jobs_started"] for w in waits)
    mean_wait = (
        sum(w["mean_s"] * w["jobs_started"] for w in waits) / started / 60 if started else None
    )
    row: dict[str, Any] = {
        "variant": task.variant,
        "scale": task.scale,
        "seed": task.seed,
        "slots": metrics["slots"],
        "hours": task.hours,
        "goodput_h": metrics["goodput_s"] / 3600,
        "badput_h": metrics["badput_s"] / 3600,
        "vacating_h": metrics["vacating_s"] / 3600,
        "jobs_completed": metrics["jobs"]["completed"],
        "preemptions": sum(metrics["preemptions"].values()),
        "jain_fairness": metrics["jain_fairness"],
        "mean_wait_min": mean_wait,
    }
    for cause, count in sorted(metrics["preemptions"].items()):
        row[f"preemptions_{cause}"] = count
    return row


def run_sweep(
    spec: SweepSpec,
    client: Any,
    *,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> tuple[list[dict[str, Any]], bool]:
    """Every task of `spec` on `client` (a distributed.Client); (rows in table order,
    complete); a simulation that failed is a row with `error` (`run_task`). A
    KeyboardInterrupt cancels what has not finished and returns the rows gathered so far
    with complete=False."""
    from distributed import as_completed

    todo = tasks(spec)
    order = {(t.variant, t.scale, t.seed): i for i, t in enumerate(todo)}
    futures = client.map(run_task, todo, pure=False)
    rows: list[dict[str, Any]] = []
    complete = True
    try:
        for future in as_completed(futures):
            row = future.result()
            rows.append(row)
            if progress is not None:
                progress(row)
    except KeyboardInterrupt:
        complete = False
        client.cancel(futures)
    rows.sort(key=lambda row: order[(row["variant"], row["scale"], row["seed"])])
    return rows, complete


def columns_of(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    causes = sorted({k for row in rows for k in row if k.startswith("preemptions_")})
    return [*COLUMNS, *causes]


def write_results(out: Path, rows: Sequence[Mapping[str, Any]], spec: SweepSpec) -> list[Path]:
    """results.csv, results.json and one comparison plot per metric in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    columns = columns_of(rows)
    table = out / "results.csv"
    with table.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({c: "" if row.get(c) is None else row.get(c, 0) for c in columns})
    doc = out / "results.json"
    doc.write_text(json.dumps({"rows": list(rows), "summary": summarize(rows)}, indent=2,
                              sort_keys=True) + "\n", encoding="utf-8")  # fmt: skip
    return [table, doc, *write_comparison_plots(out, rows, [v.name for v in spec.variants])]


def summarize(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per (variant, scale): each plotted metric's mean, minimum and maximum over seeds."""
    groups: dict[tuple[str, float], list[Mapping[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["variant"], row["scale"]), []).append(row)
    out = []
    for (variant, scale), members in groups.items():
        entry: dict[str, Any] = {"variant": variant, "scale": scale, "seeds": len(members)}
        for metric in PLOTTED:
            values = [m[metric] for m in members if _finite(m.get(metric))]
            entry[metric] = (
                {"mean": statistics.fmean(values), "min": min(values), "max": max(values)}
                if values
                else None
            )
        out.append(entry)
    return out


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def write_comparison_plots(
    out: Path, rows: Sequence[Mapping[str, Any]], variants: Sequence[str]
) -> list[Path]:
    """`sweep-<metric>.png`: the metric against the variant, every seed a dot, the mean
    a bar with the spread over seeds (min to max) as its error bar; one colour per pool
    size."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scales = sorted({row["scale"] for row in rows})
    written = []
    width = 0.8 / max(1, len(scales))
    for metric in PLOTTED:
        fig, ax = plt.subplots(figsize=(max(5, 1.6 * len(variants) + 2), 3.6))
        for k, scale in enumerate(scales):
            xs, means, low, high = [], [], [], []
            for i, variant in enumerate(variants):
                values = [r[metric] for r in rows
                          if r["variant"] == variant and r["scale"] == scale and _finite(r.get(metric))]  # fmt: skip
                if not values:
                    continue
                x = i - 0.4 + width * (k + 0.5)
                mean = statistics.fmean(values)
                xs.append(x)
                means.append(mean)
                low.append(mean - min(values))
                high.append(max(values) - mean)
                ax.scatter([x] * len(values), values, s=12, color="black", zorder=3)
            ax.bar(xs, means, width=width * 0.9, yerr=[low, high], capsize=3, alpha=0.7,
                   label=f"scale {scale:g}")  # fmt: skip
        ax.set_xticks(range(len(variants)), list(variants), rotation=15)
        ax.set_ylabel(metric)
        ax.set_title(f"{metric} by variant (dots: seeds; bars: mean, min to max)")
        if len(scales) > 1:
            ax.legend(fontsize="small")
        fig.tight_layout()
        path = out / f"sweep-{metric}.png"
        fig.savefig(path, dpi=80, metadata={"Software": None})
        plt.close(fig)
        written.append(path)
    return written


def table_lines(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The terminal table: per (variant, scale), the plotted metrics' means over seeds
    with their spread."""
    lines = []
    header = f"{'variant':<24} {'scale':>5} {'seeds':>5} " + " ".join(f"{m:>18}" for m in PLOTTED)
    lines.append(header)
    for entry in summarize(rows):
        cells = []
        for metric in PLOTTED:
            value = entry[metric]
            cells.append(f"{'-':>18}" if value is None else
                         f"{value['mean']:>9.3g} ±{(value['max'] - value['min']) / 2:<7.2g}")  # fmt: skip
        lines.append(
            f"{entry['variant']:<24} {entry['scale']:>5g} {entry['seeds']:>5} " + " ".join(cells)
        )
    return lines


def htcondor_cluster(options: HTCondorOptions, **extra: Any) -> Any:
    """A dask-jobqueue HTCondorCluster whose workers are jobs of the pool this machine
    submits to (its schedd), each asking for `options`' cores, memory and disk. The
    workers run `options.python` (default: this interpreter), which must import
    condor-policy on the execute points (a shared file system or a container image;
    `submit` adds submit-description commands such as `+SingularityImage`). Its
    scheduler's dashboard listens on a free port (dask's 8787 may be taken: by another
    sweep, say, which made this one fail to start)."""
    import sys

    from dask_jobqueue import HTCondorCluster

    extra.setdefault("scheduler_options", {"dashboard_address": ":0"})
    return HTCondorCluster(
        cores=options.cores,
        memory=options.memory,
        disk=options.disk,
        python=options.python or sys.executable,
        job_extra_directives=dict(options.submit or {}),
        **extra,
    )
