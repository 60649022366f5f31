"""The PNG plots of a simulation (matplotlib, no screen): slot states stacked over time,
each submitter's RUP, each submitter's idle jobs, preemptions per hour by cause.

Stage: runtime output. Written with fixed metadata so that the same simulation gives the
same files, byte for byte.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runtime.simulate.engine import Record

#: PNG metadata without the matplotlib version or a date: the same run, the same bytes.
_METADATA = {"Software": None}


def write_plots(out: Path, record: Record) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    samples = record.samples
    hours = [s["t"] / 3600 for s in samples]
    written: list[Path] = []

    def save(fig: Any, name: str) -> None:
        path = out / name
        fig.tight_layout()
        fig.savefig(path, dpi=80, metadata=_METADATA)
        plt.close(fig)
        written.append(path)

    states = sorted({k for s in samples for k in s["states"]})
    fig, ax = plt.subplots(figsize=(9, 4))
    if samples and states:
        ax.stackplot(
            hours,
            [[s["states"].get(k, 0) for s in samples] for k in states],
            labels=states,
            step="post",
        )
        ax.legend(loc="upper left", fontsize="small", ncol=2)
    ax.set(xlabel="hours", ylabel="slots", title="Slot states")
    save(fig, "states.png")

    users = sorted({u for s in samples for u in s["rup"]})
    fig, ax = plt.subplots(figsize=(9, 4))
    for user in users:
        ax.plot(hours, [s["rup"].get(user, float("nan")) for s in samples], label=user)
    if users:
        ax.legend(fontsize="small")
    ax.set(xlabel="hours", ylabel="real user priority", title="RUP per user")
    save(fig, "rup.png")

    queued = sorted({u for s in samples for u in s["queue"]})
    fig, ax = plt.subplots(figsize=(9, 4))
    for user in queued:
        ax.plot(
            hours, [s["queue"].get(user, 0) for s in samples], label=user, drawstyle="steps-post"
        )
    if queued:
        ax.legend(fontsize="small")
    ax.set(xlabel="hours", ylabel="idle jobs", title="Queue per user")
    save(fig, "queue.png")

    span = max(1, int(record.end // 3600) + 1)
    causes = sorted(
        {p["reason"] for p in record.preemptions} | ({"policy"} if _evictions(record) else set())
    )
    fig, ax = plt.subplots(figsize=(9, 4))
    bottom = [0] * span
    for cause in causes:
        counts = [0] * span
        for p in record.preemptions:
            if p["reason"] == cause:
                counts[min(span - 1, int(p["t"] // 3600))] += 1
        if cause == "policy":
            for t in _evictions(record):
                counts[min(span - 1, int(t // 3600))] += 1
        ax.bar(range(span), counts, bottom=bottom, label=cause, align="edge", width=0.9)
        bottom = [b + c for b, c in zip(bottom, counts, strict=True)]
    if causes:
        ax.legend(fontsize="small")
    ax.set(xlabel="hour", ylabel="preemptions", title="Preemptions per hour by cause")
    save(fig, "preemptions.png")
    return written


def _evictions(record: Record) -> list[float]:
    return [
        t for t, _, _, source, target, cause, _ in record.log
        if target[0] == "Preempting" and source[0] != "Preempting" and cause == "policy"
    ]  # fmt: skip
