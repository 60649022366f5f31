"""The schedd's idle jobs in the simulator: each submitter's queue, stream by stream.

Stage: runtime. A saturating stream keeps a queue that grows all week (tens of thousands
of idle jobs per submitter in a 10,000-slot pool), while a negotiation cycle asks for at
most as many jobs of a stream as it can match slots, and a claim asks only for the next
job of its stream. So nothing here walks a whole queue: each (submitter, stream) keeps

* its jobs in queue order (a deque: a new job at the end, a job that comes back from a
  slot at the front, where the schedd runs it next on a claim of its stream), and
* the same jobs by ProcId (a sorted list: the first ones are those the negotiator takes
  first; the jobs of a stream have the same ad but for their ids and QDate).

A job is found again by equality: SimJob compares by identity (a job is itself, not its
fields), so two jobs with the same fields stay two.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Generic, Protocol, TypeVar


class QueuedJob(Protocol):
    """What the queue reads of a job (`runtime.simulate.engine.SimJob`)."""

    @property
    def submitter(self) -> str: ...
    @property
    def stream(self) -> int: ...
    @property
    def proc(self) -> int: ...


J = TypeVar("J", bound=QueuedJob)
_PROC = attrgetter("proc")


@dataclass(slots=True)
class _Stream(Generic[J]):
    """The idle jobs of one stream of one submitter."""

    queued: deque[J] = field(default_factory=deque)  # queue order
    by_proc: list[J] = field(default_factory=list)  # ProcId order

    def add(self, job: J, front: bool) -> None:
        if front:
            self.queued.appendleft(job)
        else:
            self.queued.append(job)
        if not self.by_proc or self.by_proc[-1].proc < job.proc:
            self.by_proc.append(job)  # a new job: the largest ProcId so far
        else:
            insort(self.by_proc, job, key=_PROC)

    def remove(self, job: J) -> None:
        self.queued.remove(job)  # near the front: the jobs taken are the first ones
        at = bisect_left(self.by_proc, job.proc, key=_PROC)
        while self.by_proc[at] is not job:  # equal ProcIds (a stream's ad may set it)
            at += 1
        del self.by_proc[at]


class IdleJobs(Generic[J]):
    """Every submitter's idle jobs (see the module docstring)."""

    def __init__(self) -> None:
        #: submitter -> stream index -> its idle jobs; a submitter stays known once seen
        self._of: dict[str, dict[int, _Stream[J]]] = {}
        self._count: dict[str, int] = {}

    def submitters(self) -> list[str]:
        """Every submitter that has ever had an idle job, sorted."""
        return sorted(self._of)

    def count(self, submitter: str) -> int:
        """How many idle jobs `submitter` has."""
        return self._count.get(submitter, 0)

    def add(self, job: J, *, front: bool = False) -> None:
        """`job` is idle: at the end of its stream's queue (a new job) or at its front
        (a job back from a slot)."""
        streams = self._of.setdefault(job.submitter, {})
        stream = streams.get(job.stream)
        if stream is None:
            stream = streams[job.stream] = _Stream[J]()
        stream.add(job, front)
        self._count[job.submitter] = self._count.get(job.submitter, 0) + 1

    def remove(self, job: J) -> None:
        """`job` is no longer idle (matched to a slot)."""
        self._of[job.submitter][job.stream].remove(job)
        self._count[job.submitter] -= 1

    def next_of_stream(self, submitter: str, stream: int) -> J | None:
        """The first idle job of `stream` in the submitter's queue, None when none is."""
        found = self._of.get(submitter, {}).get(stream)
        return found.queued[0] if found is not None and found.queued else None

    def offered(self, submitter: str, limit: int) -> list[J]:
        """The idle jobs a cycle can use: of each stream the first `limit` by ProcId
        (`limit`: the slots the cycle can match; it never matches more, and takes a
        stream's jobs alike, first in the schedd's order, so the rest would only cost
        time), stream by stream. The negotiator puts them in the schedd's order."""
        out: list[J] = []
        for index in sorted(self._of.get(submitter, {})):
            out += self._of[submitter][index].by_proc[:limit]
        return out

    def __iter__(self) -> Iterator[J]:
        """Every idle job, submitter by submitter, stream by stream, in queue order."""
        for submitter in self.submitters():
            streams = self._of[submitter]
            for index in sorted(streams):
                yield from streams[index].queued
