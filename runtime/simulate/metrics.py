"""What a simulation comes to (issue 15): goodput, badput, vacating, preemptions by cause,
each submitter's share of the slots against the share its EUP entitles it to, Jain's
fairness index, wait times; the event log; the files of `--out DIR`.

Stage: runtime output. Pure functions of a `Record` (runtime.simulate.engine); plots in
runtime.simulate.plots.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from runtime.simulate.engine import Record


def entitled_slots(
    eups: Mapping[str, float], demand: Mapping[str, float], capacity: float
) -> dict[str, float]:
    """How many slots each submitter's EUP entitles it to when `capacity` slots are shared
    among those wanting `demand[u]` slots (seed 003: shares by 1/EUP; the negotiator's pie
    spins give what a submitter does not want to the others): water-filling, each
    unsatisfied submitter's slice proportional to 1/EUP, a submitter never entitled to
    more than it wants."""
    wanting = {u: d for u, d in demand.items() if d > 0}
    weight = {u: 1.0 / eups[u] for u in wanting if eups.get(u, 0) > 0 and math.isfinite(eups[u])}
    out = dict.fromkeys(wanting, 0.0)
    left = capacity
    open_ = set(weight)
    while open_ and left > 1e-12:
        total = sum(weight[u] for u in open_)
        slices = {u: left * weight[u] / total for u in open_}
        full = {u for u in open_ if out[u] + slices[u] >= wanting[u]}
        if not full:
            for u in open_:
                out[u] += slices[u]
            break
        for u in sorted(full):
            left -= wanting[u] - out[u]
            out[u] = wanting[u]
        open_ -= full
    return out


def _entitled(
    sample: Mapping[str, Any], demand: Mapping[str, float], busy: float
) -> dict[str, float]:
    """The slots in use at a sample (`busy`) as the submitters' EUPs entitle them
    (`entitled_slots`); with accounting groups, each group's part of them is its share
    of the negotiator's allocation, shared by EUP among its own submitters (the
    negotiator negotiates group by group)."""
    groups = sample.get("groups")
    if not groups:
        return entitled_slots(sample["eup"], demand, busy)
    allocated = sum(a for _, a in groups.values())
    members = sample["members"]
    due: dict[str, float] = {}
    for group, (_, part) in groups.items():
        inside = {u: d for u, d in demand.items() if members.get(u) == group}
        if inside and allocated:
            due.update(entitled_slots(sample["eup"], inside, part * busy / allocated))
    return due


def _sample_spans(
    samples: Sequence[Mapping[str, Any]], end: float
) -> list[tuple[Mapping[str, Any], float]]:
    """Each sample with the seconds it stands for (until the next one, or the end)."""
    out = []
    for i, sample in enumerate(samples):
        stop = samples[i + 1]["t"] if i + 1 < len(samples) else end
        out.append((sample, max(0.0, stop - sample["t"])))
    return out


def summary(record: Record, slots: int) -> dict[str, Any]:
    """The metrics summary (`metrics.json`)."""
    jobs = record.jobs
    done = [j for j in jobs if j.state == "done"]
    goodput = sum(j.need for j in done)
    badput = sum(j.lost for j in jobs)
    spans = _sample_spans(record.samples, record.end)
    by_pair = _time_by_pair(record)
    vacating = sum(v for pair, v in by_pair.items() if pair.startswith("Preempting/"))
    causes: dict[str, int] = {}
    for p in record.preemptions:
        causes[p["reason"]] = causes.get(p["reason"], 0) + 1
    evictions = sum(
        1 for _, _, _, source, target, cause, _ in record.log
        if target[0] == "Preempting" and source[0] != "Preempting" and cause == "policy"
    )  # fmt: skip
    if evictions:
        causes["policy"] = evictions
    users = sorted({j.submitter for j in jobs})
    held: dict[str, float] = dict.fromkeys(users, 0.0)
    entitled: dict[str, float] = dict.fromkeys(users, 0.0)
    total = 0.0
    group_held: dict[str, float] = {}
    group_entitled: dict[str, float] = {}
    allocated_total = 0.0
    for sample, seconds in spans:
        used = sample["usage"]
        busy = sum(used.values())
        demand = {u: used.get(u, 0.0) + sample["queue"].get(u, 0) for u in users}
        due = _entitled(sample, demand, busy)
        for u in users:
            held[u] += used.get(u, 0.0) * seconds
            entitled[u] += due.get(u, 0.0) * seconds
        total += busy * seconds
        for group, (used_now, allocated) in sample.get("groups", {}).items():
            group_held[group] = group_held.get(group, 0.0) + used_now * seconds
            group_entitled[group] = group_entitled.get(group, 0.0) + allocated * seconds
            allocated_total += allocated * seconds
    share = {u: held[u] / total if total else 0.0 for u in users}
    entitled_share = {u: entitled[u] / total if total else 0.0 for u in users}
    # Jain's index of received / entitled, over the submitters entitled to a share worth
    # counting (a nice user's 1e-10 would make any ratio meaningless)
    ratios = [held[u] / entitled[u] for u in users if entitled[u] > 1e-3 * total]
    jain = (sum(ratios) ** 2 / (len(ratios) * sum(r * r for r in ratios))) if ratios else None
    waits: dict[str, dict[str, float]] = {}
    for u in users:
        started = [
            j.first_start - j.submitted
            for j in jobs
            if j.submitter == u and j.first_start is not None
        ]
        if started:
            waits[u] = {"jobs_started": len(started), "mean_s": statistics.fmean(started),
                        "median_s": statistics.median(started), "max_s": max(started)}  # fmt: skip
    return {
        "simulated_seconds": record.end,
        "interrupted_at": record.interrupted_at,
        "slots": slots,
        "jobs": {
            "submitted": len(jobs),
            "completed": len(done),
            "running": sum(1 for j in jobs if j.state == "running"),
            "idle": sum(1 for j in jobs if j.state == "idle"),
            # matched to a slot whose claim is not theirs yet (a preempting claim waiting
            # for the job it preempts to leave)
            "matched": sum(1 for j in jobs if j.state == "matched"),
        },
        "goodput_s": goodput,
        "badput_s": badput,
        "vacating_s": vacating,
        "slot_seconds_by_state": by_pair,
        "preemptions": dict(sorted(causes.items())),
        "share": share,
        # (GROUP_NAMES only) each group's share of the slots in use, and of the slots the
        # negotiator allocated (quota, then surplus) for the demand at each cycle
        "group_share": {g: v / total if total else 0.0 for g, v in sorted(group_held.items())},
        "group_entitled_share": {
            g: v / allocated_total if allocated_total else 0.0
            for g, v in sorted(group_entitled.items())
        },
        "entitled_share": entitled_share,
        "jain_fairness": jain,
        "wait": waits,
        "transitions": len(record.log),
    }


def _time_by_pair(record: Record) -> dict[str, float]:
    """Slot-seconds in each "State/Activity", from the transitions (each slot is where
    its next one leaves from since its last one, and at the end where it is then): a
    sample at each negotiation cycle missed most of the short stays (vacating, say)."""
    last: dict[str, tuple[float, tuple[str, ...]]] = {}
    seconds: dict[tuple[str, ...], float] = {}  # (by the log's shared pairs: named once)
    for t, slot, _, source, target, _, _ in record.log:
        since = last[slot][0] if slot in last else 0.0
        seconds[source] = seconds.get(source, 0.0) + (t - since)
        last[slot] = (t, target)
    for slot, pair in record.final.items():
        since, where = last.get(slot, (0.0, pair))
        seconds[where] = seconds.get(where, 0.0) + (record.end - since)
    named: dict[str, float] = {}
    for state, value in seconds.items():
        key = "/".join(state)
        named[key] = named.get(key, 0.0) + value
    return {key: value for key, value in sorted(named.items()) if value > 0}


def write_outputs(out: Path, record: Record, metrics: Mapping[str, Any]) -> list[Path]:
    """events.jsonl, metrics.json and the plots in `out`; the paths written."""
    from runtime.simulate.plots import write_plots

    out.mkdir(parents=True, exist_ok=True)
    events = out / "events.jsonl"
    with events.open("w", encoding="utf-8") as handle:
        for entry in record.events():
            handle.write(json.dumps(entry, sort_keys=True) + "\n")
    path = out / "metrics.json"
    path.write_text(json.dumps(metrics, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return [events, path, *write_plots(out, record)]


def table_lines(metrics: Mapping[str, Any]) -> list[str]:
    """The terminal summary."""
    hours = metrics["simulated_seconds"] / 3600
    lines = [
        f"simulated {hours:.1f} h on {metrics['slots']} slot{'' if metrics['slots'] == 1 else 's'}"
        + (
            f" (interrupted at {metrics['interrupted_at'] / 3600:.2f} h)"
            if metrics["interrupted_at"] is not None
            else ""
        ),
        f"jobs: {metrics['jobs']['submitted']} submitted, {metrics['jobs']['completed']} completed, "
        f"{metrics['jobs']['running']} running, {metrics['jobs']['idle']} idle"
        + (f", {matched} matched" if (matched := metrics["jobs"].get("matched")) else ""),
        f"goodput {metrics['goodput_s'] / 3600:.1f} slot-h, badput {metrics['badput_s'] / 3600:.1f} slot-h, "
        f"vacating {metrics['vacating_s'] / 3600:.2f} slot-h",
        "preemptions: "
        + (", ".join(f"{k} {v}" for k, v in metrics["preemptions"].items()) or "none"),
    ]
    jain = metrics["jain_fairness"]
    lines.append("fairness (Jain): " + ("-" if jain is None else f"{jain:.3f}"))
    width = max([4, *(len(u) for u in metrics["share"])])
    lines.append(f"{'user':{width}}  {'share':>7}  {'entitled':>8}  {'mean wait':>10}")
    for user, share in metrics["share"].items():
        wait = metrics["wait"].get(user)
        mean = "-" if wait is None else f"{wait['mean_s'] / 60:.1f} min"
        lines.append(
            f"{user:{width}}  {share:7.1%}  {metrics['entitled_share'][user]:8.1%}  {mean:>10}"
        )
    groups = metrics.get("group_share") or {}
    if groups:
        width = max([5, *(len(g) for g in groups)])
        lines.append(f"{'group':{width}}  {'share':>7}  {'entitled':>8}")
        for group, share in groups.items():
            entitled = metrics["group_entitled_share"].get(group, 0.0)
            lines.append(f"{group:{width}}  {share:7.1%}  {entitled:8.1%}")
    return lines
