"""Property tests: any sequence of events, sensor changes and time keeps the slot coherent.

For random inputs (hypothesis) on each era and semantics: every fired transition starts
where the previous one ended, is a row of the table with those endpoints, the published
State/Activity are the machine's, and a job runs exactly in the pairs where a starter can
be active. No input makes the runtime raise.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.spec.ir import Pair
from runtime.clock import SimClock
from runtime.sensors.fake import FakeSensors
from runtime.slot import Slot
from tests.runtime.support import compiled

POLICY = (
    ("RunBenchmarks", "KeyboardIdle > 1900"),
    ("START", 'KeyboardIdle > 300 || Owner == "coltrane"'),
    ("WANT_SUSPEND", "True"),
    ("SUSPEND", "KeyboardIdle < 60"),
    ("CONTINUE", "KeyboardIdle > 120"),
    ("PREEMPT", "LoadAvg > 1.5"),
    ("WANT_VACATE", "LoadAvg < 1.0"),
    ("KILL", "LoadAvg > 2.5"),
    ("MaxJobRetirementTime", "600"),
    ("ENABLE_BACKFILL", "True"),
    ("BACKFILL_SYSTEM", "BOINC"),
    ("START_BACKFILL", "KeyboardIdle > 1800"),
    ("EVICT_BACKFILL", "KeyboardIdle < 60"),
)
OWNERS = st.sampled_from(["coltrane", "garrison", "mccoy"])
JOB = st.fixed_dictionaries({"Owner": OWNERS, "JobUniverse": st.sampled_from([5, 1])})


def steps(era: str, semantics: str) -> st.SearchStrategy[list[tuple[str, object]]]:
    _, table = compiled(era, semantics, POLICY)
    common = ("match", "claim", "activate", "job_exit", "starter_exit", "preempting_claim")
    events = [(e.name, e.how) for e in table.spec.events]
    events += [(e.name, e.how) for e in table.spec.events if e.name in common] * 4
    event = st.sampled_from(events).flatmap(
        lambda e: st.tuples(
            st.just("event"),
            st.tuples(st.just(e[0]), st.sampled_from(e[1]) if e[1] else st.none(), JOB),
        )
    )
    sensor = st.tuples(
        st.just("set"),
        st.fixed_dictionaries(
            {},
            optional={
                "KeyboardIdle": st.integers(0, 2000),
                "LoadAvg": st.floats(0, 3, allow_nan=False),
            },
        ),
    )
    wait = st.tuples(st.just("wait"), st.integers(1, 900))
    cycle = st.tuples(st.just("cycle"), JOB)  # match, claim, activate in a row
    return st.lists(
        st.one_of(event, sensor, wait, cycle, st.just(("tick", None))), min_size=5, max_size=40
    )


CASES = [
    (e, s) for e in ("condor-6.4", "condor-6.8", "htcondor-current") for s in ("manual", "code")
]


@pytest.mark.parametrize(("era", "semantics"), CASES)
def test_random_inputs_keep_the_slot_coherent(era: str, semantics: str) -> None:
    _, table = compiled(era, semantics, POLICY)
    running_pairs = {Pair("Claimed", a) for a in ("Busy", "Suspended", "Retiring")} | {
        Pair("Preempting", a) for a in ("Vacating", "Killing")
    }

    seen: set[int | str] = set()

    @settings(
        max_examples=40,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(steps(era, semantics))
    def check(script: list[tuple[str, object]]) -> None:
        clock = SimClock()
        sensors = FakeSensors(start=clock.now())
        sensors.set({"KeyboardIdle": 1000}, clock.now())
        slot = Slot(table, sensors, clock)
        slot.start()
        t = 0.0
        for kind, arg in script:
            match kind:
                case "event":
                    name, how, job = arg  # type: ignore[misc]
                    payload = {"job": job} if name in ("claim", "match", "preempting_claim") else {}
                    if how is not None:
                        payload["how"] = how
                    slot.send(name, **payload)
                case "set":
                    if arg:
                        slot.set_sensors(arg)  # type: ignore[arg-type]
                case "wait":
                    t += float(arg)  # type: ignore[arg-type]
                    slot.advance(t)
                case "tick":
                    slot.poll()
                case "cycle":
                    slot.send("match", job=arg)
                    slot.send("claim", job=arg)
                    slot.send("activate")
            if slot.deleted:
                break
            assert (slot.ad["State"], slot.ad["Activity"]) == slot.pair_tuple()
            if slot.record.job_running:
                assert slot.pair in running_pairs, slot.pair
        previous = (table.spec.initial.state, table.spec.initial.activity)
        seen.update(f.number for f in slot.fired)
        for fired in slot.fired:
            row = table.row(fired.id)
            assert fired.source == previous == row.source
            targets = {(p.state, p.activity) for p in row.transition.targets}
            assert fired.target in targets or fired.target == fired.source
            previous = fired.target

    check()
    # the inputs do drive the machine around (not a vacuous property)
    assert len({n for n in seen if isinstance(n, int)}) >= 6, sorted(map(str, seen))
