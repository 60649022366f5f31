"""Hypothesis strategies for sensor traces and event sequences, shaped by the policy.

Stage: check. The values a sensor takes are the cut points of the constants the policy
compares it with (k-1, k, k+1, as the static analysis uses), so a short trace can cross
every threshold; events are the era's trace events, weighted towards the ones that move a
slot into a claim (match, claim, activate) so that Claimed/Busy is reached often.
Polling is explicit (`tick` steps), which makes "within N polls" exact and keeps
shrinking meaningful: a shrunk trace is a short list of steps with small time gaps.
A generated trace is a `runtime.trace.Trace` (the trace file model `condor-policy run`
reads), so a counterexample is printed by the same code and replays as it ran.
`varied` draws traces around the planned ones (runtime.check.plan) so that hypothesis
explores and shrinks near the paths that reach every transition.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from compiler.classad import ast as A
from compiler.classad import parse
from compiler.errors import PolicyError
from compiler.simplify.abstract import CMP_OPS, is_literal, literal_value
from compiler.spec import EraSpec
from runtime.trace import Step, Trace

#: Machine attributes every generated trace sets (the startd publishes them).
SENSORS: dict[str, list[Any]] = {
    "KeyboardIdle": [0, 30, 59, 61, 299, 301, 899, 901, 3600],
    "ConsoleIdle": [0, 61, 901, 3600],
    "LoadAvg": [0.0, 0.2, 0.3, 0.5, 0.8, 1.0, 1.6],
    "CondorLoadAvg": [0.0, 0.5, 1.0],
    "ClockMin": [0, 479, 480, 600, 1019, 1020, 1439],
    "ClockDay": [0, 1, 3, 5, 6],
}
BOUNDS: dict[str, tuple[float, float | None]] = {"ClockMin": (0, 1439), "ClockDay": (0, 6)}
FIXED = {"Memory": 2048, "Disk": 100000, "Cpus": 1, "TotalLoadAvg": 0.0, "TotalCondorLoadAvg": 0.0}
GAPS = [0, 1, 5, 10, 30, 60, 90, 121, 300, 601, 1000]
#: Events and their payloads; weights favour the path into a running job.
EVENTS: list[tuple[str, str | None, int]] = [
    ("match", None, 4), ("claim", None, 5), ("activate", None, 5), ("job_exit", None, 2),
    ("starter_exit", None, 2), ("release", None, 1), ("vacate", "graceful", 1),
    ("vacate", "fast", 1), ("preempting_claim", None, 1), ("preempting_claim_withdrawn", None, 1),
    ("drain", "graceful", 1), ("drain", "quick", 1), ("drain", "fast", 1), ("cancel_drain", None, 1),
    ("shutdown", "graceful", 1), ("shutdown", "peaceful", 1), ("shutdown", "fast", 1),
    ("benchmarks_done", None, 1), ("lease_expired", None, 1),
]  # fmt: skip


def idle_desktop(values: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    """Sensor values of a desktop nobody uses: most policies let it start jobs."""
    return {
        "KeyboardIdle": max(values["KeyboardIdle"]), "ConsoleIdle": max(values["ConsoleIdle"]),
        "LoadAvg": 0.0, "CondorLoadAvg": 0.0,
    }  # fmt: skip


def sensor_values(policies: Mapping[str, str | None]) -> dict[str, list[Any]]:
    """SENSORS plus the cut points of every constant a policy compares a sensor with."""
    out = {k: list(v) for k, v in SENSORS.items()}
    for text in policies.values():
        if not text:
            continue
        try:
            expr = parse(text)
        except PolicyError:  # a knob that does not parse has no thresholds to offer
            continue
        _collect(expr, out)
    return {k: sorted(set(v), key=lambda x: (float(x), type(x).__name__)) for k, v in out.items()}


def _collect(e: A.Expr, out: dict[str, list[Any]]) -> None:
    from compiler.analysis.sat import attribute_refs
    from compiler.classad.ast import children

    if isinstance(e, A.Binary) and e.op in CMP_OPS:
        for subject, lit in ((e.left, e.right), (e.right, e.left)):
            if not is_literal(lit):
                continue
            value = literal_value(lit)
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue
            for ref in attribute_refs(subject):
                if ref.name in out:
                    kind = type(out[ref.name][0])
                    low, high = BOUNDS.get(ref.name, (0, None))
                    for d in (-1, 0, 1):
                        x = kind(value + d) if kind is int else round(value + d * 0.1, 6)
                        if x >= low and (high is None or x <= high):
                            out[ref.name].append(x)
    for child in children(e):
        _collect(child, out)


def traces(
    spec: EraSpec,
    policies: Mapping[str, str | None],
    *,
    max_steps: int = 30,
    owners: Sequence[str] = ("alice",),
    fixed: Mapping[str, Any] | None = None,
) -> st.SearchStrategy[Trace]:
    """Random traces for `spec`'s events and the policy's thresholds; `fixed` machine
    attributes hold in every trace (the slot's id when a machine's slot is checked)."""
    values = sensor_values(policies)
    known_events = {e.name for e in spec.events}
    events = [(n, h, w) for n, h, w in EVENTS if n in known_events]
    weighted = [(n, h) for n, h, w in events for _ in range(w)]
    sensor_names = sorted(values)

    machine = st.fixed_dictionaries({k: st.sampled_from(values[k]) for k in sensor_names})
    job = st.fixed_dictionaries(
        {
            "Owner": st.sampled_from(list(owners)),
            "ImageSize": st.sampled_from([1000, 20000, 100000]),
            "JobUniverse": st.sampled_from([5, 5, 1]),
        }
    )
    kind = st.sampled_from(["tick", "tick", "tick", "tick", "set", "set", "set", "event", "event"])

    @st.composite
    def step_list(draw: st.DrawFn) -> list[tuple[int, str, Any]]:
        n = draw(st.integers(min_value=1, max_value=max_steps))
        out: list[tuple[int, str, Any]] = []
        for _ in range(n):
            gap = draw(st.sampled_from(GAPS))
            what = draw(kind)
            match what:
                case "set":
                    name = draw(st.sampled_from(sensor_names))
                    payload: Any = (name, draw(st.sampled_from(values[name])))
                case "event":
                    payload = draw(st.sampled_from(weighted))
                case _:
                    payload = None
            out.append((gap, what, payload))
        return out

    @st.composite
    def build(draw: st.DrawFn) -> Trace:
        m = {**draw(machine), **FIXED, **(fixed or {})}
        if draw(st.booleans()):  # an idle desktop: most policies let it start jobs
            m.update(idle_desktop(values))
        j = draw(job)
        t = 0
        steps: list[Step] = []
        if draw(st.booleans()):  # start with a claim and a running job
            steps += [Step(0, "tick"), Step(0, "event", "benchmarks_done"), Step(0, "event", "match"),
                      Step(0, "event", "claim"), Step(0, "event", "activate")]  # fmt: skip
        for gap, what, payload in draw(step_list()):
            t += gap
            match what:
                case "tick":
                    steps.append(Step(t, "tick"))
                case "set":
                    steps.append(Step(t, "set", values=dict([payload])))
                case "event":
                    name, how = payload
                    steps.append(Step(t, "event", name, how))
        return Trace(
            file="<generated>", steps=tuple(steps), era=spec.era, semantics=spec.semantics,
            machine=dict(sorted(m.items())), job=dict(sorted(j.items())), polling="explicit",
        )  # fmt: skip

    return build()


def varied(plans: Sequence[Trace], values: Mapping[str, Sequence[Any]]) -> st.SearchStrategy[Trace]:
    """Traces around the planned ones (runtime.check.plan): a planned trace with some
    steps left out, some sensor values moved to a neighbouring cut point, some waits
    stretched, and a few random steps put in.

    Every choice is drawn so that hypothesis shrinks towards *fewer* steps and fewer
    changes: a step is left out when its draw is 0, a change is made only above 7, the
    inserted steps are a list that shrinks to empty. A failing variant therefore shrinks
    to a short subsequence of its plan."""
    names = sorted(values)

    def neighbour(draw: st.DrawFn, name: str, value: Any) -> Any:
        choices = list(values.get(name, ())) or [value]
        if value in choices:
            k = choices.index(value) + draw(st.sampled_from([-1, 1]))
            return choices[max(0, min(len(choices) - 1, k))]
        return draw(st.sampled_from(choices))

    extra = st.tuples(
        st.integers(min_value=0, max_value=10**6),
        st.sampled_from(["tick", "set"]),
        st.sampled_from(names),
    )

    @st.composite
    def build(draw: st.DrawFn) -> Trace:
        plan = plans[draw(st.integers(min_value=0, max_value=len(plans) - 1))]
        shift = 0.0
        steps: list[Step] = []
        for step in plan.steps:
            if draw(st.integers(min_value=0, max_value=9)) == 0:
                continue
            if draw(st.integers(min_value=0, max_value=9)) > 7:
                shift += draw(st.sampled_from(GAPS))
            changed = step
            if step.kind == "set" and step.values and draw(st.integers(0, 9)) > 7:
                name = draw(st.sampled_from(sorted(step.values)))
                moved = {**step.values, name: neighbour(draw, name, step.values[name])}
                changed = Step(step.t, "set", values=moved)
            steps.append(_at(changed, step.t + shift))
        for where, kind, name in draw(st.lists(extra, max_size=3)):
            k = where % (len(steps) + 1)
            t = steps[k - 1].t if k else 0.0
            if kind == "tick":
                new = Step(t, "tick")
            else:
                new = Step(t, "set", values={name: draw(st.sampled_from(list(values[name])))})
            steps.insert(k, new)
        return Trace(
            file="<generated>", steps=tuple(steps), era=plan.era, semantics=plan.semantics,
            machine=dict(plan.machine), job=dict(plan.job), polling="explicit", slot=plan.slot,
        )  # fmt: skip

    return build()


def _at(step: Step, t: float) -> Step:
    return Step(t, step.kind, step.event, step.how, step.job, step.values)
