"""`runtime.simulate.idle.IdleJobs` against the plain queue it replaces: one list of idle
jobs per submitter, new jobs appended, jobs back from a slot put first, a claim's next
job the first of its stream in that list, a cycle offered at most `limit` jobs of each
stream (the smallest ProcIds), counted by walking the list."""

from __future__ import annotations

import heapq
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from runtime.simulate.engine import SimJob
from runtime.simulate.idle import IdleJobs
from tests.budget import examples

USERS = ("alice@x", "bob@x")


def _job(proc: int, user: str, stream: int) -> SimJob:
    return SimJob(f"{stream + 1}.{proc}", stream, None, user, proc, 0, 60.0, 0.0)  # type: ignore[arg-type]


def _model_offered(queue: list[SimJob], limit: int) -> list[SimJob]:
    """What the simulator offered before (engine._first_of_streams, stop 28): every idle
    job when there are at most `limit`, else the `limit` smallest ProcIds of each stream."""
    if len(queue) <= limit:
        return list(queue)
    streams: dict[int, list[SimJob]] = {}
    for job in queue:
        streams.setdefault(job.stream, []).append(job)
    kept: set[int] = set()
    for jobs in streams.values():
        kept.update(id(j) for j in heapq.nsmallest(limit, jobs, key=lambda j: j.proc))
    return [j for j in queue if id(j) in kept]


# a step: (what, user index, stream, a number choosing a job or the limit)
_STEPS = st.lists(
    st.tuples(
        st.sampled_from(["submit", "take", "back", "offer"]),
        st.integers(0, len(USERS) - 1),
        st.integers(0, 2),
        st.integers(0, 50),
    ),
    max_size=60,
)


@settings(max_examples=examples(100))
@given(_STEPS)
@example([("submit", 0, 0, 0)] * 3 + [("take", 0, 0, 1), ("submit", 0, 0, 0), ("back", 0, 0, 0),
          ("offer", 0, 0, 2)])  # fmt: skip
@example([("submit", 0, s % 3, 0) for s in range(9)] + [("take", 0, 0, 0), ("take", 0, 1, 0),
         ("back", 0, 0, 1), ("offer", 0, 0, 1), ("offer", 0, 0, 3)])  # fmt: skip
def test_idle_jobs_behave_as_the_plain_queue(steps: list[tuple[str, int, int, int]]) -> None:
    idle: IdleJobs[SimJob] = IdleJobs()
    model: dict[str, list[SimJob]] = {}
    taken: list[SimJob] = []
    proc = 0
    for what, u, stream, n in steps:
        user = USERS[u]
        queue = model.get(user, [])
        if what == "submit":
            proc += 1
            job = _job(proc, user, stream)
            idle.add(job)
            model.setdefault(user, []).append(job)
        elif what == "take" and queue:
            job = queue[n % len(queue)]
            idle.remove(job)
            queue.remove(job)
            taken.append(job)
        elif what == "back" and taken:
            job = taken.pop(n % len(taken))
            idle.add(job, front=True)
            model.setdefault(job.submitter, []).insert(0, job)
        elif what == "offer":
            limit = n % 6 + 1
            got = idle.offered(user, limit)
            want = _model_offered(queue, limit)
            assert sorted(map(id, got)) == sorted(map(id, want))
            for s in {j.stream for j in got}:
                procs = [j.proc for j in got if j.stream == s]
                assert procs == sorted(procs)  # each stream first job first
        for name in USERS:
            mine = model.get(name, [])
            assert idle.count(name) == len(mine)
            for s in range(3):
                first: Any = next((j for j in mine if j.stream == s), None)
                assert idle.next_of_stream(name, s) is first
    assert idle.submitters() == sorted(model)
    assert sorted(map(id, idle)) == sorted(id(j) for q in model.values() for j in q)


def test_equal_jobs_are_still_different_jobs() -> None:
    # two jobs with the same fields (a stream's ad may set its own ProcId): taking one
    # leaves the other, compared by identity
    one, two = _job(7, "alice@x", 0), _job(7, "alice@x", 0)
    idle: IdleJobs[SimJob] = IdleJobs()
    idle.add(one)
    idle.add(two)
    idle.remove(two)
    assert idle.next_of_stream("alice@x", 0) is one
    assert idle.offered("alice@x", 5) == [one]
    idle.remove(one)
    assert idle.count("alice@x") == 0
    assert idle.next_of_stream("alice@x", 0) is None
