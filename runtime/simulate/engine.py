"""The pool simulator (issue 15): slots, owners, jobs, the negotiator and the accountant
on one simulated clock, event by event.

Stage: runtime. What each part does comes from elsewhere: every slot is a `runtime.Slot`
running its machine group's compiled table (the table decides every transition, in the
chosen era and semantics); every match is `runtime.pool.negotiate_snapshot`'s, on the
slots' own ads and the idle jobs; every priority is the accountant's (`decay`,
`priority_factor`, `effective_priority`). Here only what the daemons leave to the world
happens:

* the owners (runtime.simulate.owners): sessions at the keyboard, seen by a slot when
  it next evaluates;
* the schedd's side of a match: `match`, `claim` and, once the slot is Claimed/Idle with
  the claim, `activate`; a RANK or priority match is the slot's `preempting_claim`, and
  the new job is activated when the slot is Claimed/Idle under the new claim; a finished
  job is `job_exit`, and the claim runs the user's next job of the same stream, else is
  released;
* the starter (`Starter`, the slot's JobControl): a job runs while its slot runs it
  (suspended time does not count), a soft kill lets it exit after `VACATE_SECONDS`, a
  hard kill at once (`starter_exit`); a job that did not finish goes back to the queue
  and its run is lost (badput);
* the negotiator every NEGOTIATOR_INTERVAL: the accountant updates every submitter's
  priority with the slots it holds now (`Accountant::UpdatePriorities`), then one cycle.

At one instant the slots' evaluations and timers run first, in slot order, then the
other events in the order they were scheduled (a heap on (time, kind, slot, sequence)); every random draw comes from one `random.Random(seed)`: the same pool file and seed give
the same output, byte for byte.
"""

from __future__ import annotations

import gc
import heapq
import math
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import attrgetter
from typing import Any, Final

from compiler.classad import ast as A
from compiler.classad import release_retired, truth
from compiler.classad.ast import NODE_TYPES
from compiler.errors import PolicyError
from compiler.spec import CLAIM_STATES
from runtime.pool import SLOT_ALONE, HeldSlot, UnmatchableSlot, claim_facts, remote_user
from runtime.simulate.horizon import MARGIN, compiled, holds_until, quiet_at, quiet_until
from runtime.simulate.idle import IdleJobs
from runtime.simulate.owners import OwnerSensors, office_sessions
from runtime.simulate.poolfile import NEGOTIATOR_CONFIG, JobStream, PoolSpec
from runtime.slot import SlotError
from runtime.slot_ad import NOT_CONSTANT, constant_value, memo_keys, reads_no_target, shape_key

_PAIR_NAME = attrgetter("pair_name")


#: The pairs (their names begin so) whose claim the accountant charges.
_CHARGED = tuple(f"{state}/" for state in CLAIM_STATES)
#: the states in which a slot may still hold the claim a matched job waits for
WAITING_STATES: Final = (*CLAIM_STATES, "Matched")
#: A slot's claim user (`SlotRun.claim_user`)
_CLAIM_USER = attrgetter("claim_user")

#: Seconds a job takes to exit after a soft kill (its checkpoint or clean-up).
VACATE_SECONDS = 10.0
#: NEGOTIATOR_INTERVAL's default (param_info.in).
NEGOTIATOR_INTERVAL = 60.0


@dataclass(slots=True, eq=False)
class SimJob:
    """One job of a stream: how long it needs to run, what happened to it. Its ad is
    made from its stream when first asked for and forgotten when the job is done (a
    week's saturating stream is hundreds of thousands of jobs, most of them never more
    than numbers in the summary)."""

    id: str
    stream: int  # the stream's index in the pool file
    source: JobStream
    submitter: str
    proc: int
    qdate: int
    need: float
    submitted: float
    done: float = 0.0  # seconds run in the current attempt
    state: str = "idle"  # idle | matched (to a slot, not running yet) | running | done
    slot: int | None = None
    running_since: float | None = None
    first_start: float | None = None
    finished: float | None = None
    generation: int = 0
    lost: float = 0.0  # run seconds lost to evictions
    made: dict[str, Any] | None = None
    made_keys: tuple[Any, ...] | None = None
    made_entry: dict[str, Any] | None = None
    #: the simulation's autocluster keys, each kept once (`keys`)
    clusters: dict[Any, Any] | None = None

    @property
    def ad(self) -> dict[str, Any]:
        """The job ad the schedd holds (made once while the job lives)."""
        if self.made is None:
            owner = self.source.user.partition("@")[0]
            self.made = _job_ad(self.source, owner, self.stream + 1, self.proc, self.qdate)
        return self.made

    @property
    def keys(self) -> tuple[Any, ...]:
        """The ad's place in the schedd's order and its autocluster
        (`runtime.pool.job_keys`), made once while the job lives."""
        if self.made_keys is None:
            from runtime.pool import job_keys

            order, cluster = job_keys(self.ad)
            # one key object per autocluster (its jobs alike): the cycle skips the jobs
            # of a rejected autocluster by the key's identity, not by hashing it again
            if self.clusters is not None:
                cluster = self.clusters.setdefault(cluster, cluster)
            self.made_keys = order, cluster
        return self.made_keys

    @property
    def entry(self) -> dict[str, Any]:
        """The job as a cycle's snapshot lists it (`negotiate_snapshot`'s job entry: its
        ad parsed, its keys made), made once while the job lives (the cycle reads it)."""
        if self.made_entry is None:
            self.made_entry = {"id": self.id, "ad": self.ad, "_parsed": True, "_keys": self.keys}
        return self.made_entry

    def finish(self, at: float) -> None:
        """The job is done: it is numbers from now on."""
        self.done = self.need
        self.state = "done"
        self.finished = at
        self.running_since = None
        self.made = self.made_keys = self.made_entry = None


@dataclass(slots=True)
class SlotRun:
    """A slot of the simulation: the runtime slot, its sensors, its job."""

    name: str
    group: int
    slot: Any
    sensors: OwnerSensors
    job: SimJob | None = None  # the job the claim runs (or will run once activated)
    pending: SimJob | None = None  # a job waiting for the slot to be Claimed/Idle
    claim_user: str | None = None
    claim_stream: int | None = None
    index: int | None = None
    version: int = 0
    #: trace time before which no evaluation pass of the slot can fire (horizon)
    quiet: float = 0.0
    #: the last SNAPSHOT machine entry made of the slot as a `HeldSlot` (None: none could
    #: be), with what it was made of and how long it holds: (ad, record, the typed sensor
    #: values `AdBuilder.steady` gave, the entry, `version` then, time() of the owner's
    #: next sensor change then)
    held: tuple[Any, Any, tuple[Any, ...], dict[str, Any] | None, int, float] | None = None
    #: the last `UnmatchableSlot` made of the slot, with the record and pair it holds
    #: for and the trace time it holds until
    out: tuple[Any, Any, float, UnmatchableSlot] | None = None
    #: the instant the slot's benchmarks last finished (`_benchmarks_done`)
    benchmarked: float = -math.inf


@dataclass
class Record:
    """What the outputs are made of, gathered while simulating."""

    #: every transition, compact: (t, slot, number, from, to, cause, trigger), the pairs
    #: and names shared (a week of a large pool is millions of them); `transitions`
    #: gives them as the event log's entries
    log: list[tuple[Any, ...]] = field(default_factory=list)
    samples: list[dict[str, Any]] = field(default_factory=list)
    preemptions: list[dict[str, Any]] = field(default_factory=list)
    jobs: list[SimJob] = field(default_factory=list)
    interrupted_at: float | None = None
    end: float = 0.0
    #: each slot's (state, activity) at `end`, by name (`metrics`: a slot no transition
    #: moved was in it all along)
    final: dict[str, tuple[str, str]] = field(default_factory=dict)

    def events(self) -> Iterator[dict[str, Any]]:
        """The transitions as the event log's entries (events.jsonl), one at a time."""
        for t, slot, number, source, target, cause, trigger in self.log:
            yield {"t": t, "slot": slot, "number": number, "from": list(source),
                   "to": list(target), "cause": cause, "trigger": trigger}  # fmt: skip

    @property
    def transitions(self) -> list[dict[str, Any]]:
        """All the event log's entries (a new list: for tests and small pools)."""
        return list(self.events())


class Starter:
    """The slot's JobControl: the simulated job's life under the slot's signals."""

    def __init__(self, sim: Simulation, index: int) -> None:
        self.sim = sim
        self.index = index

    def start(self, job: Mapping[str, Any]) -> None:
        self.sim.job_started(self.index)

    def signal(self, kind: str) -> None:
        self.sim.job_signal(self.index, kind)


#: How many steps of the set-up (`setup_size`) between two reports of its progress
SETUP_STEP = 256


def setup_size(pool: PoolSpec) -> int:
    """The steps of a simulation's set-up: each slot made, each slot started, each job
    queued at the start."""
    slots = sum(group.count for group in pool.machines)
    return 2 * slots + sum(stream.count for stream in pool.jobs if stream.at <= 0)


class Simulation:
    """One simulation of a pool (`run(until)` advances it; `record` holds the outputs)."""

    def __init__(
        self,
        pool: PoolSpec,
        *,
        semantics: str = "code",
        seed: int | None = None,
        table_of: Callable[[str], Any] | None = None,
        naive: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        """`progress(done, total)`, when given, is told how far the set-up is (the slots
        made and started, the jobs queued at the start: `setup_size`), every
        `SETUP_STEP` of them and at the end: ten thousand slots take seconds to set up."""
        from runtime.pool import FactorKnobs, facts

        self.pool = pool
        total = setup_size(pool)
        done = 0

        def step() -> None:
            nonlocal done
            done += 1
            if progress is not None and done % SETUP_STEP == 0:
                progress(done, total)

        self.semantics = semantics
        #: evaluate every pass (the startd's stepping) instead of skipping quiet stretches
        self.naive = naive
        self.rng = random.Random(pool.seed if seed is None else seed)
        self.epoch = float(pool.epoch)
        self.now = 0.0
        self._heap: list[tuple[float, int, int, int, str, Any]] = []
        self._seq = 0
        self.record = Record()
        config = negotiator_config(pool)
        #: what the configuration texts of the pool file warn of, each at its place
        #: (`PoolSpec.config_warning`): the negotiator's, then each machine group's
        self.warnings: list[str] = [
            pool.config_warning(NEGOTIATOR_CONFIG, w.format()) for w in config.warnings
        ]
        self.negotiator_config = pool.negotiator_config
        #: the negotiator's configuration loaded (each cycle's SNAPSHOT hands it over: it
        #: was loaded anew for every cycle, 1 % of a simulation)
        self.negotiator_loaded = config
        self.interval = _knob_number(
            config, "NEGOTIATOR_INTERVAL", NEGOTIATOR_INTERVAL, pool, above=0
        )  # (a cycle every that many seconds: 0 or less never got past the first)
        self.known = facts(semantics)
        self.half_life = _knob_number(
            config, "PRIORITY_HALFLIFE", self.known.priority_halflife, pool
        )
        self.knobs = FactorKnobs()
        self.rup: dict[str, float] = {}
        self.factor_set: dict[str, float] = {}
        for user, values in pool.users.items():
            if "rup" in values:
                self.rup[user] = values["rup"]
            if "factor" in values:
                self.factor_set[user] = values["factor"]
        self.last_update = 0.0
        self._names: list[str] = []
        #: one tuple per (state, activity) the log holds
        self._pairs: dict[tuple[str, ...], tuple[str, ...]] = {}
        #: slots the events of this instant reached (`_reached`): their wake-ups are
        #: planned when the instant is over; those with a timer or evaluation pass due
        #: now (`_due_now`) before its next event (`_flush`)
        self._dirty: set[int] = set()
        self._due_now: set[int] = set()
        self._cause = "start"
        self.until = pool.hours * 3600
        #: when the next full collection is due (`fewer_collections`)
        self._collect_at = SIMULATION_COLLECT_EVERY
        #: whether `run` runs (the set-up finishes the slots' first benchmarks itself)
        self._running = False
        # (tens of thousands of objects per slot set up: not walked by the collector)
        with fewer_collections():
            self.slots = self._make_slots(table_of, step)
            #: each slot's `Slot.model` (`_census` reads their pair names)
            self._models = [run.slot.model for run in self.slots]
            #: each slot's index by name (a cycle's matches name the slots)
            self._index_of = {run.name: i for i, run in enumerate(self.slots)}
            for run in self.slots:
                try:
                    run.slot.start()
                except SlotError as err:
                    raise self._slot_failed(err) from None
                if run.slot.pair.activity == "Benchmarking":
                    self._benchmarks_done(run)
                else:
                    self._reached(run.index or 0)  # planned below
                release_retired()  # (between two slots no evaluation runs: `_run`)
                step()
            self.jobs: list[SimJob] = []
            self.idle: IdleJobs[SimJob] = IdleJobs()
            self._counter = 0
            #: the jobs' autocluster keys, each once (`SimJob.keys`): a stream's jobs share
            #: theirs, which the cycle then tells by identity
            self._clusters: dict[Any, Any] = {}
            for index, stream in enumerate(pool.jobs):
                if stream.at <= 0:
                    for _ in range(stream.count):
                        self._submit(index, 0.0)
                        step()
                elif stream.count:
                    self._schedule(stream.at, "batch", index)
                if stream.rate_per_hour > 0:
                    self._schedule(self._arrival_gap(stream), "arrival", index)
            self._schedule(0.0, "negotiate", None)
            # the slots due at the first instant planned now, the others with its events
            # (`_run`): the first cycle claims most of them
            self._flush(due_now=True)
        if progress is not None:
            progress(total, total)

    # ------------------------------------------------------------------ set-up
    def _make_slots(
        self, table_of: Callable[[str], Any] | None, step: Callable[[], None]
    ) -> list[SlotRun]:
        from runtime.clock import SimClock
        from runtime.slot import Slot

        seconds = self.pool.hours * 3600
        out: list[SlotRun] = []
        for g, group in enumerate(self.pool.machines):
            where = ("machines", g, "startd")
            if table_of is not None:
                table = table_of(group.startd)
            else:
                table = startd_table(self.pool, g, self.semantics)
            self.warnings += [self.pool.config_warning(where, w) for w in table.warnings]
            for n in range(group.count):
                name = f"slot1@{group.name}-{n + 1:04d}"
                owner = group.owner
                sessions: list[tuple[float, float]] = []
                if owner.model == "office_hours":
                    sessions = office_sessions(
                        self.rng, self.epoch, seconds, start_hour=owner.start_hour,
                        end_hour=owner.end_hour, sessions=owner.sessions,
                        session_minutes=owner.session_minutes,
                    )  # fmt: skip
                sensors = OwnerSensors(sessions=sessions, owner_load=owner.load, start=self.epoch)
                sensors.set({**group.machine, "Name": name}, self.epoch)
                if owner.model == "dedicated":
                    sensors.sessions, sensors._starts = [], []
                index = len(out)
                self._names.append(name)
                clock = SimClock(epoch=self.epoch)
                slot = Slot(
                    table, sensors, clock, jobs=Starter(self, index),
                    listener=self._listener(index), listen=("transition",), explain=False,
                )  # fmt: skip
                out.append(SlotRun(name, g, slot, sensors, index=index))
                step()
        return out

    def _slot_failed(self, err: SlotError) -> PolicyError:
        """A slot's runtime problem (a cascade that never settles) at its machine group's
        startd in the pool file, naming the slot; `err` itself when no slot of ours."""
        run = next((run for run in self.slots if run.slot is err.slot), None)
        if run is None:
            return err
        named = PolicyError(f"{run.name}: {err.message}")
        return self.pool.config_error(("machines", run.group, "startd"), named)

    def _listener(self, index: int) -> Callable[[dict[str, Any]], None]:
        log = self.record.log
        pairs = self._pairs
        name = self._names[index]

        def listen(entry: dict[str, Any]) -> None:
            if entry.get("kind") != "transition":
                return
            source, target = tuple(entry["from"]), tuple(entry["to"])
            if target[1] == "Benchmarking" and self._running:
                # the slot started its benchmarks (RunBenchmarks: LastBenchmark 4 hours
                # old, in the 6.x defaults): they finish at once (`_handle`)
                self._schedule(entry["t"], "benchmarks", index)
            trigger = entry.get("trigger")
            log.append(
                (
                    entry["t"],
                    name,
                    entry["number"],
                    pairs.setdefault(source, source),
                    pairs.setdefault(target, target),
                    self._cause,
                    None if trigger is None else sys.intern(trigger),
                )
            )

        return listen

    # ------------------------------------------------------------------ the event queue
    def _schedule(self, at: float, kind: str, data: Any) -> None:
        self._seq += 1
        # at one instant the slots' own timers and evaluations come first, in slot
        # order, then the rest as scheduled: the order does not depend on when (or
        # whether) a wake-up was planned, so skipping quiet stretches changes nothing
        first, sub = (0, data[0]) if kind == "wake" else (1, 0)
        heapq.heappush(self._heap, (at, first, sub, self._seq, kind, data))

    def run(self, until: float, progress: Callable[[float], None] | None = None) -> Record:
        """Simulate up to `until` seconds (a KeyboardInterrupt stops it where it is: the
        record then says so)."""
        if until > self.until:  # wake-ups were planned up to the old end: plan again
            self.until = until
            for index in range(len(self.slots)):
                self._reached(index)  # (planned by `_run`, once, as after an event)
        self._running = True
        try:
            with fewer_collections():
                self._run(until, progress)
        except SlotError as err:
            raise self._slot_failed(err) from None
        except KeyboardInterrupt:
            self.record.interrupted_at = self.now
        finally:
            self._running = False
        self.record.end = self.now
        self.record.final = {run.name: run.slot.pair_tuple() for run in self.slots}
        self.record.jobs = self.jobs
        return self.record

    def _run(self, until: float, progress: Callable[[float], None] | None) -> None:
        heap = self._heap
        while True:
            # a slot two events of one instant reach (a pass that frees it, the
            # negotiation cycle that claims it) is planned once, from the state the last
            # one left: when the instant is over; before its next event only when a
            # timer or pass of the slot is due now (its wake-up comes first, as if
            # planned at once)
            if heap and heap[0][0] == self.now:
                if self._due_now:
                    self._flush(due_now=True)
            elif self._dirty or self._due_now:
                self._flush()
            if not heap or heap[0][0] > until:
                break
            at, _, _, _, kind, data = heapq.heappop(heap)
            self.now = at
            self._handle(kind, data)
            release_retired()  # (between events no evaluation runs)
            if at >= self._collect_at:
                # what a reference cycle might have left (none is expected)
                gc.collect()
                self._collect_at = at + SIMULATION_COLLECT_EVERY
            if progress is not None and kind == "negotiate":
                progress(at)
        self.now = until
        for run in self.slots:
            self._catch_up(run)
            run.slot.advance(until)
            run.held = run.out = None  # advanced without an event: made again when asked
            release_retired()

    def _handle(self, kind: str, data: Any) -> None:
        match kind:
            case "negotiate":
                self._negotiate()
                self._schedule(self.now + self.interval, "negotiate", None)
            case "batch":
                for _ in range(self.pool.jobs[data].count):
                    self._submit(data, self.now)
            case "arrival":
                stream = self.pool.jobs[data]
                self._submit(data, self.now)
                self._schedule(self.now + self._arrival_gap(stream), "arrival", data)
            case "complete":
                index, job, generation = data
                if job.generation == generation and job.state == "running":
                    self._complete(index, job)
            case "starter_exit":
                index, job, generation = data
                if job.generation == generation:
                    self._starter_exit(index, job)
            case "activate":
                self._maybe_activate(data)
            case "wake":
                self._wake(*data)
            case "benchmarks":
                run = self.slots[data]
                if run.slot.pair.activity == "Benchmarking":  # (unless it left them since)
                    self._benchmarks_done(run)
            case _:
                raise ValueError(f"unknown simulation event {kind}")

    # ------------------------------------------------------------------ jobs
    def _arrival_gap(self, stream: JobStream) -> float:
        return self.rng.expovariate(stream.rate_per_hour / 3600.0)

    def _submit(self, index: int, at: float) -> None:
        stream = self.pool.jobs[index]
        self._counter += 1
        need = (
            stream.run_mean * 60
            if stream.run_fixed
            else self.rng.expovariate(1.0 / (stream.run_mean * 60))
        )
        job = SimJob(
            f"{index + 1}.{self._counter}", index, stream, stream.submitter, self._counter,
            int(self.epoch + at), max(need, 1.0), at, clusters=self._clusters,
        )  # fmt: skip
        self.jobs.append(job)
        self.idle.add(job)

    def job_started(self, index: int) -> None:
        run = self.slots[index]
        job = run.job
        if job is None:
            return
        now = run.slot.clock.elapsed()  # the slot's instant (it may lag the event's)
        job.state = "running"
        job.running_since = now
        if job.first_start is None:
            job.first_start = now
        job.generation += 1
        run.sensors.job_load = 1.0
        self._schedule(now + job.need - job.done, "complete", (index, job, job.generation))

    def job_signal(self, index: int, kind: str) -> None:
        run = self.slots[index]
        job = run.job
        if job is None or job.state != "running":
            return
        now = run.slot.clock.elapsed()
        if kind == "suspend" and job.running_since is not None:
            job.done += now - job.running_since
            job.running_since = None
            job.generation += 1
            run.sensors.job_load = 0.0
        elif kind == "continue" and job.running_since is None:
            job.running_since = now
            job.generation += 1
            run.sensors.job_load = 1.0
            self._schedule(now + job.need - job.done, "complete", (index, job, job.generation))
        elif kind in ("soft_kill", "hard_kill"):
            if job.running_since is not None:
                job.done += now - job.running_since
            job.running_since = None
            job.generation += 1
            run.sensors.job_load = 0.0
            delay = VACATE_SECONDS if kind == "soft_kill" else 0.0
            self._schedule(now + delay, "starter_exit", (index, job, job.generation))

    def _complete(self, index: int, job: SimJob) -> None:
        run = self.slots[index]
        self._catch_up(run)
        job.finish(self.now)
        run.sensors.job_load = 0.0
        run.job = None
        self._send(run, "job_exit", cause="job_exit")
        if run.pending is not None:
            # a preempting claim waited for the retiring job: the slot is its claim's
            # now (Claimed/Idle), and that claim's schedd activates it (not the user's
            # next job on it, nor a release of it)
            self._maybe_activate(index)
            return
        # the schedd runs the user's next job of the same stream on the claim, else
        # releases it
        nxt = self.idle.next_of_stream(job.submitter, job.stream)
        if nxt is not None and run.slot.pair.state == "Claimed":
            run.pending = nxt
            self._take(nxt, index)
            self._maybe_activate(index)
        elif run.slot.pair.state == "Claimed":
            self._send(run, "release", cause="release")
            if run.slot.pair.state not in WAITING_STATES:
                run.claim_user = run.claim_stream = None
            # (else the slot keeps the claim, and its user is charged for it: the 6.x
            # manuals have no release, a claimed slot leaves Claimed/Idle only when
            # vacated or when START is false)

    def _starter_exit(self, index: int, job: SimJob) -> None:
        run = self.slots[index]
        self._catch_up(run)
        job.lost += job.done
        job.done = 0.0
        job.state = "idle"
        job.slot = None
        self.idle.add(job, front=True)  # back at its place
        if run.job is job:
            run.job = None
        self._send(run, "starter_exit", cause="starter_exit")
        self._maybe_activate(index)
        if run.slot.pair.state not in WAITING_STATES:
            run.claim_user = run.claim_stream = None

    def _take(self, job: SimJob, index: int) -> None:
        self.idle.remove(job)
        job.state = "matched"
        job.slot = index

    def _maybe_activate(self, index: int) -> None:
        """The schedd activates the claim once the slot is Claimed/Idle with it; a slot
        that left its claims (Owner, Unclaimed ...: the claim was refused or dropped
        before it could run the job, or a preempting claim was dropped while the job it
        preempts was retiring) runs no job of it: the job goes back to its queue, to be
        matched again."""
        run = self.slots[index]
        if run.pending is None:
            return
        pair = run.slot.pair_tuple()
        if pair != ("Claimed", "Idle"):
            if pair[0] not in WAITING_STATES:
                self._unmatched(index, run.pending)
            return
        job, run.pending = run.pending, None
        run.job = job
        run.claim_user, run.claim_stream = job.submitter, job.stream
        if run.slot.record.job is not None:
            run.slot.set_job(job.ad)
        self._send(run, "activate", cause="activate")
        if run.slot.pair.activity != "Busy":
            self._unmatched(index, job)

    def _unmatched(self, index: int, job: SimJob) -> None:
        """A match the slot did not take: the job goes back to its queue."""
        run = self.slots[index]
        if run.job is job:
            run.job = None
        if run.pending is job:
            run.pending = None
        job.state = "idle"
        job.slot = None
        self.idle.add(job, front=True)

    # ------------------------------------------------------------------ slots
    def _benchmarks_done(self, run: SlotRun) -> None:
        """The slot's benchmarks finish: at the instant they started (the startd's take
        seconds; here no simulated time), once an instant. A slot whose policy starts
        them again as soon as they are over (`RunBenchmarks = True` in the 23.0 startd)
        benchmarks without end: it stays Benchmarking (finishing them again at the same
        instant would never end the instant)."""
        if run.benchmarked == self.now:
            return
        run.benchmarked = self.now
        self._send(run, "benchmarks_done")

    def _send(self, run: SlotRun, event: str, cause: str | None = None, **payload: Any) -> bool:
        """Deliver `event` to the slot now (its clock brought here first) and schedule
        its next wake-up from the state the event leaves."""
        self._catch_up(run)
        run.slot.advance(self.now, inclusive=False)
        before = self._cause
        self._cause = cause or event
        try:
            return bool(run.slot.send(event, **payload))
        finally:
            self._cause = before
            # the quiet time proved for the old state is void; the next wake-up is
            # planned once the events of this instant are done with the slot (`_flush`)
            run.quiet = run.slot.clock.elapsed()
            self._reached(self.slots.index(run) if run.index is None else run.index)

    def _reached(self, index: int) -> None:
        """An event reached the slot: its planned wake-up and what was kept of it are
        void (`version`); it is planned again once the events of this instant are done
        with it, or before the next one when a timer or pass of it is due now."""
        run = self.slots[index]
        run.version += 1
        due = run.slot.next_due()
        if due is not None and due <= self.now:
            self._dirty.discard(index)
            self._due_now.add(index)
        else:
            self._due_now.discard(index)
            self._dirty.add(index)

    def _flush(self, *, due_now: bool = False) -> None:
        """Plan the next wake-up of every slot the events of an instant reached (once,
        from the state the last of them left it in); with `due_now`, only of those with
        a timer or evaluation pass due now."""
        if due_now:
            dirty, self._due_now = sorted(self._due_now), set()
        else:
            dirty = sorted(self._dirty | self._due_now)
            self._dirty, self._due_now = set(), set()
        for index in dirty:
            self.slots[index].slot.forget_history()  # the record keeps the log
            self._reschedule(index)
            release_retired()

    def _reschedule(self, index: int) -> None:
        """The slot's next wake-up on the event queue: its next timer or evaluation pass
        that could fire. A stretch in which no pass can fire (runtime.simulate.horizon,
        bounded by the slot's next timer and its owner's next sensor change) is passed
        over: its evaluations are skipped when the slot is next touched (`_catch_up`),
        by then no earlier than they would have run; `naive`: every pass is a wake-up
        (the startd's stepping, the reference the event-driven engine is checked
        against). The stretch may reach past the end (`PAST_THE_END`): a pass at the
        end itself, proved quiet, is then no wake-up either (the end's own advance,
        `_run`, skips it)."""
        run = self.slots[index]
        slot = run.slot
        if slot.deleted:
            return
        now = slot.clock.elapsed()
        run.quiet = now
        cap = self.until + PAST_THE_END
        if not self.naive:
            change = run.sensors.next_change(self.epoch + now)
            if change is not None:
                cap = min(cap, change - self.epoch)
            timers = slot.schedule.due.values()
            if timers:
                cap = min(cap, *timers)
            run.quiet = quiet_until(slot, cap)
        due = slot.next_due_skipping(run.quiet) if run.quiet > now else slot.next_due()
        if (
            run.quiet > now
            and due is not None
            and due < min(run.quiet + 2 * MARGIN, cap)
            and due not in slot.schedule.due.values()
            and quiet_at(slot, due)
        ):
            # the first pass after the proved stretch falls in the crossing's margin and
            # fires nothing: passed over too (not a wake-up that fires nothing, then
            # another analysis)
            run.quiet = math.nextafter(due, math.inf)
            due = slot.next_due_skipping(run.quiet)
        run.version += 1
        if due is not None and due <= self.until:
            self._schedule(due, "wake", (index, run.version))

    def _catch_up(self, run: SlotRun) -> None:
        """Skip the slot's evaluations that were proved quiet and are now due: those
        before now, and one at this very instant too (under the stepping it ran before
        anything else at this instant, and fired nothing)."""
        if run.quiet > run.slot.clock.elapsed():
            if self.now < run.quiet:
                run.slot.skip_evaluations(math.nextafter(self.now, math.inf))
            else:
                run.slot.skip_evaluations(run.quiet)

    def _wake(self, index: int, version: int) -> None:
        run = self.slots[index]
        if run.version != version:
            return  # rescheduled since
        before = self._cause
        self._cause = "policy"
        try:
            self._catch_up(run)
            run.slot.advance(self.now)
        finally:
            self._cause = before
        self._maybe_activate(index)
        run.quiet = run.slot.clock.elapsed()
        self._reached(index)

    # ------------------------------------------------------------------ negotiator
    def _negotiate(self) -> None:
        from runtime.pool import negotiate_snapshot

        # (no slot has anything due before now: every wake-up before now has been
        # handled, and the passes skipped are proved quiet; a slot is brought to now
        # when its ad is asked for, `_ad_now`)
        states, usage = self._census()
        self._update_priorities(usage)
        self._sample(states, usage)
        document, jobs = self._snapshot()
        if not document["submitters"]:
            return
        cycle = negotiate_snapshot(document, semantics=self.semantics, explain=False)
        by_name = self._index_of
        for match in cycle.matches:
            index = by_name[match["slot"]]
            job = jobs.get(match["job"])
            if job is None or job.state != "idle":
                continue
            self._deliver(index, job, match["reason"])
            release_retired()

    def _deliver(self, index: int, job: SimJob, reason: str) -> None:
        run = self.slots[index]
        if run.pending is not None:
            # a new claim on the slot replaces the one that waited (a preempting claim
            # preempted in turn): that one's job goes back to its queue
            self._unmatched(index, run.pending)
        self._take(job, index)
        if reason == "no_preemption":
            for event in ("match", "claim"):
                if not self._send(run, event, cause="negotiator", job=job.ad):
                    self._unmatched(index, job)
                    return
            run.pending = job
            self._maybe_activate(index)
            return
        self.record.preemptions.append(
            {"t": self.now, "slot": run.name, "reason": reason, "by": job.submitter,
             "of": run.claim_user}
        )  # fmt: skip
        fired = self._send(run, "preempting_claim", cause=reason, job=job.ad)
        if not fired and run.slot.record.preempting_job is None:
            # refused (the slot is past its claims); a claim the slot registered without
            # a transition (a Retiring job keeps its retirement) waits for that job
            self._unmatched(index, job)
            return
        run.pending = job
        self._maybe_activate(index)

    def _census(self) -> tuple[dict[str, int], dict[str, float]]:
        """The slots now, counted in one pass: by "State/Activity", and the claimed
        ones by their claim's user (the usage the accountant charges)."""
        # the pair names first, by C loops over the models (not through each slot: in a
        # pool of 10,000 reaching every slot object was most of the cost)
        names = list(map(_PAIR_NAME, self._models))
        by_pair = Counter(names)
        charged = compress(self.slots, map(str.startswith, names, repeat(_CHARGED)))
        claims = Counter(map(_CLAIM_USER, charged))  # (each claim counts one slot)
        usage = {user: float(count) for user, count in claims.items() if user}
        return dict(by_pair), usage

    def _update_priorities(self, usage: Mapping[str, float]) -> None:
        """`Accountant::UpdatePriorities`: every known submitter's RUP decays towards the
        slots it holds now (`usage`), over the time since the last update."""
        from runtime.pool import decay

        dt = self.now - self.last_update
        self.last_update = self.now
        for user in set(self.rup) | set(usage) | set(self.idle.submitters()):
            self.rup.setdefault(user, self.known.initial_rup)
            if dt > 0:
                self.rup[user] = decay(self.rup[user], usage.get(user, 0.0), dt,
                                       self.half_life, self.known)  # fmt: skip

    def priority(self, user: str) -> tuple[float, float]:
        """(factor, EUP) of `user` now."""
        from runtime.pool import effective_priority, priority_factor

        factor = priority_factor(user, self.factor_set.get(user), self.knobs, self.known)
        rup = self.rup.get(user, self.known.initial_rup)
        return factor, effective_priority(rup, factor, self.known)

    def _snapshot(self) -> tuple[dict[str, Any], dict[str, SimJob]]:
        """The cycle's SNAPSHOT (the slots' ads, the submitters with their idle jobs as
        the cycle asks for them, `_Offered`) and the jobs it asked for by id (filled in
        while it runs).

        A claimed slot whose ad only the clock moved since it was last built, in nothing
        the cycle reads of it alone (`AdBuilder.steady`), is handed over held
        (`runtime.pool.HeldSlot`): the cycle builds its ad (`_ad_now`) only when it cannot
        prove that no job can take it. In a busy pool most slots are claimed and most
        cycles preempt none: refreshing every slot's ad for every cycle was half the
        simulation's time. Likewise an unclaimed slot no job can match now is handed
        over as unmatchable (`_unmatchable`: an Owner desktop's START is false while its
        owner is there), its ad built only when the proof runs out. Naive stepping (the
        reference) builds every ad."""
        machines = []
        for run in self.slots:
            # (a held slot nothing reached since the last cycle: the same entry again)
            entry = None if self.naive else self._held(run)
            if entry is None:
                out = None if self.naive else self._unmatchable(run)
                entry = (
                    {"name": run.name, "_held": out}
                    if out is not None
                    # the slot's own ad, not `Slot.ad`'s copy: negotiate_snapshot copies it
                    else {"name": run.name, "ad": self._ad_now(run), "_parsed": True}
                )
            machines.append(entry)
            release_retired()
        submitters = []
        #: the jobs the cycle asks for (`_Offered`), by id
        offered: dict[str, SimJob] = {}
        for user in self.idle.submitters():
            if not self.idle.count(user):
                continue
            factor, _ = self.priority(user)
            submitters.append(
                {"name": user, "rup": self.rup.get(user, self.known.initial_rup),
                 "factor": factor, "jobs": _Offered(self.idle, user, offered)}
            )  # fmt: skip
        document = {"config": self.negotiator_config, "_config": self.negotiator_loaded,
                    "machines": machines, "submitters": submitters}  # fmt: skip
        return document, offered

    def _ad_now(self, run: SlotRun) -> Any:
        """The slot's own ad now (the slot brought to now first)."""
        self._catch_up(run)
        run.slot.advance(self.now, inclusive=False)
        return run.slot.eval_ad()

    def _held(self, run: SlotRun) -> dict[str, Any] | None:
        """The claimed slot's SNAPSHOT entry as a `HeldSlot` when its ad (the last one
        built, else one built now) is right in what the cycle reads of it alone
        (`AdBuilder.steady`) and its RANK reads nothing; None otherwise (the cycle
        reads its ad). The same entry while the held slot is the same (most slots of a
        busy pool, every cycle)."""
        now = self.epoch + self.now
        kept = run.held
        if kept is not None and kept[4] == run.version and now < kept[5]:
            # nothing reached the slot since (no event, no wake-up: its record, pair and
            # ads are the same) and its owner's sensors have not changed (they change at
            # `next_change`; the job's load only when an event reaches the slot): what
            # `steady` would give is what it gave then
            return kept[3]
        slot = run.slot
        pair = slot.pair
        if pair.state not in CLAIM_STATES:
            return None
        record = slot.record
        steady = slot.ads.steady(record, pair, now, SLOT_ALONE)
        if steady is None:
            # the last ad built is not right now (none was built since the slot was
            # suspended, say, or its owner's load moved CpuBusy): built now, as the
            # cycle would build it for a claimed slot not held, and asked again
            self._ad_now(run)
            record, pair = slot.record, slot.pair
            if pair.state not in CLAIM_STATES:
                return None
            steady = slot.ads.steady(record, pair, now, SLOT_ALONE)
            if steady is None:
                return None
        ad, values = steady
        change = run.sensors.next_change(now)
        until = math.inf if change is None else change
        if kept is not None and kept[0] is ad and kept[1] is record and kept[2] == values:
            entry = kept[3]  # made of the same: the same
        else:
            held = self._make_held(run, ad)
            entry = None if held is None else {"name": run.name, "_held": held}
        run.held = (ad, record, values, entry, run.version, until)
        return entry

    def _unmatchable(self, run: SlotRun) -> UnmatchableSlot | None:
        """The unclaimed slot as an `UnmatchableSlot` when no job can match it now: its
        Requirements reads nothing of a job, nor the clock but through the ad's own
        moving values, and is not TRUE; kept while the slot's record and pair are the
        same, until the owner's next sensor change or the instant the quiet-time
        analysis (`horizon.holds_until`) gives for Requirements. None otherwise (the
        slot's ad is built, and the cycle reads it). An Owner slot's START is false
        while its owner is there and some minutes after: in office hours a pool has
        thousands, whose ads every cycle built and matched against every job."""
        slot = run.slot
        record, pair = slot.record, slot.pair
        kept = run.out
        if kept is not None and kept[0] is record and kept[1] == pair and self.now < kept[2]:
            return kept[3]
        run.out = None
        if pair.state in CLAIM_STATES:
            return None
        ad = self._ad_now(run)  # (the slot brought to now: nothing was due before)
        if slot.pair.state in CLAIM_STATES:
            return None
        lowered = ad.lowered()
        requirements = lowered.get("requirements")
        cap = self.until
        change = run.sensors.next_change(self.epoch + self.now)
        if change is not None:
            cap = min(cap, change - self.epoch)
        if type(requirements) in NODE_TYPES:
            # a conjunct that reads nothing of a job and is not TRUE: the whole is not
            # TRUE against any job (`false && x`, `x && false` are false or ERROR); it
            # holds as long as that conjunct keeps its value (the longest one found)
            epoch_now = self.epoch + self.now
            until = -math.inf
            for part in _job_free_conjuncts(requirements, lowered):
                if truth(compiled(part)(ad, None, now=epoch_now)) is not True:
                    until = max(until, holds_until(slot, part, cap))
        elif requirements is None or truth(requirements) is True:
            return None
        else:
            until = cap  # a plain value that does not accept: as long as the record
        if until <= self.now:
            return None
        out = UnmatchableSlot(claim_facts(ad), lambda: self._ad_now(run))
        run.out = (slot.record, slot.pair, until, out)
        return out

    def _make_held(self, run: SlotRun, ad: Any) -> HeldSlot | None:
        """The held slot of `ad` (`AdBuilder.steady`'s), None when its RANK reads
        something or a name the cycle must not find is there (`HeldSlot`)."""
        lowered = ad.lowered()
        if "preemptingrank" in lowered or "submitteruserprio" in lowered:
            return None
        rank, current_rank = constant_value(ad, "Rank"), constant_value(ad, "CurrentRank")
        if rank is NOT_CONSTANT or current_rank is NOT_CONSTANT:
            return None  # one reads something (the job, perhaps)
        return HeldSlot(claim_facts(ad), remote_user(ad), rank, current_rank,
                        lambda: self._ad_now(run))  # fmt: skip

    def _sample(self, states: dict[str, int], usage: dict[str, float]) -> None:
        """What the plots and metrics are made of, at a negotiation cycle (`_census`)."""
        users = self.idle.submitters()
        eups = {u: self.priority(u)[1] for u in sorted(set(self.rup) | set(users))}
        queue = {u: self.idle.count(u) for u in users}
        sample = {
            "t": self.now,
            "states": states,
            "rup": dict(sorted(self.rup.items())),
            "eup": eups,
            "queue": queue,
            "usage": usage,
        }
        if (self.negotiator_loaded.get("GROUP_NAMES") or "").strip():
            sample["groups"], sample["members"] = self._groups(queue, usage)
        self.record.samples.append(sample)

    def _groups(
        self, queue: Mapping[str, int], usage: Mapping[str, float]
    ) -> tuple[dict[str, tuple[float, float]], dict[str, str]]:
        """Each accounting group's slots in use and the slots its quota entitles it to
        for the demand now (its submitters' slots and idle jobs): the negotiator's
        allocation of the pool (`runtime.pool.groups.submitters_allocation`, first
        round: quota, then surplus where accepted), by group name (`<none>`: no group);
        and each submitter's group."""
        from runtime.pool.groups import submitters_allocation

        users = sorted(set(queue) | set(usage))
        allocation, members, used = submitters_allocation(
            self.negotiator_loaded,
            [(u, usage.get(u, 0.0), float(queue.get(u, 0))) for u in users],
            float(len(self.slots)),
            semantics=self.semantics,
        )
        allocation.plan()
        groups = {g.name: (used.get(g.name.lower(), 0.0), g.allocated) for g in allocation.groups}
        return groups, members


@dataclass(frozen=True, slots=True)
class _Offered:
    """A submitter's idle jobs as a cycle asks for them (`runtime.pool.JobQueue`): of
    each stream its first jobs by ProcId (a stream's jobs are one autocluster, in the
    schedd's order by ProcId: `IdleJobs.offered`), as many as the cycle can match. A
    week's saturating stream queues tens of thousands per submitter while a cycle
    matches a few hundred: listing them all for every cycle was most of its time. The
    jobs handed over are recorded in `handed` by id (the cycle's matches name them)."""

    idle: IdleJobs[SimJob]
    user: str
    handed: dict[str, SimJob]

    def __len__(self) -> int:
        return self.idle.count(self.user)

    def first(self, count: int) -> list[dict[str, Any]]:
        jobs = self.idle.offered(self.user, count)
        self.handed.update((job.id, job) for job in jobs)
        return [job.entry for job in jobs]


#: Seconds past the simulation's end the quiet-time analysis may prove (`_reschedule`):
#: the passes at the end itself are then proved quiet like any other, not each slot
#: woken at the last instant to evaluate one that fires nothing (a wake-up per slot at
#: every run's end, and the analysis after it). Nothing after the end is simulated; a
#: run carried on later plans every slot again from the end (`run`).
PAST_THE_END: Final = 1.0

#: Simulated seconds between two full collections of the cyclic garbage collector,
#: which is otherwise off while simulating (`fewer_collections`).
SIMULATION_COLLECT_EVERY = 7 * 86_400.0


@contextmanager
def fewer_collections() -> Iterator[None]:
    """The cyclic garbage collector off for the time of a simulation (the simulation
    collects once a simulated week, `SIMULATION_COLLECT_EVERY`).

    A simulation makes no reference cycles (`release_retired` unlinks the evaluator's
    scopes; a 1,000-slot day leaves none), so the collector only walks live objects:
    every collection of the young generations walked the slot ads made since the last
    (a slot's ad is made anew at every transition and lives until the next), 8 % of a
    10,000-slot pool's time even with thresholds raised to (50,000, 20, 20). Objects are
    still freed as soon as nothing refers to them. The collector is put back as it was
    (on, or off) after, also when Ctrl-C stops the run; what the run made and keeps is
    moved to the oldest generation first (`gc.freeze` then `gc.unfreeze`, lists spliced),
    else the first young collection after walked all of it (0.1 s after 2,000 slots x 3
    h, several times that after a large pool's day)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.freeze()
            gc.unfreeze()
            gc.enable()


#: `_job_free_conjuncts` by the ad's shape: (names, their values' types, the ids of the
#: expressions among them) -> (the expressions, kept alive; the conjuncts)
_JOB_FREE: dict[tuple[Any, ...], tuple[list[Any], tuple[Any, ...]]] = {}
_JOB_FREE_KEPT = 64


def _job_free_conjuncts(requirements: Any, lowered: Mapping[str, Any]) -> tuple[Any, ...]:
    """The conjuncts of `requirements` (`ast.conjuncts`, the ad's names taken apart)
    that read nothing of a job, nor the
    clock, nor chance, in an ad holding `lowered` (`reads_no_target`, `memo_keys`); the
    ad's shape decides them, so they are found once per shape (an unclaimed slot is
    asked at every cycle, and a pool's slots share a few shapes)."""
    key = shape_key(lowered)
    hit = _JOB_FREE.get(key)
    if hit is None:

        def defined(node: Any) -> Any:  # a name the ad defines by an expression
            if type(node) is A.AttrRef and node.scope in (None, "MY"):
                stored = lowered.get(node.key)
                return stored if type(stored) in NODE_TYPES else None
            return None

        # `START && WithinResourceLimits`: START's conjuncts, then the other's
        parts = tuple(
            part
            for part in A.conjuncts(requirements, defined)
            if memo_keys(part, lowered) is not None and reads_no_target(part, lowered)
        )
        if len(_JOB_FREE) >= _JOB_FREE_KEPT:
            _JOB_FREE.clear()
        expressions = [v for v in lowered.values() if type(v) in NODE_TYPES]
        hit = _JOB_FREE[key] = (expressions, parts)
    return hit[1]


def startd_table(pool: PoolSpec, index: int, semantics: str) -> Any:
    """Machine group `index`'s startd text compiled, read with the defaults of the
    pool's era (it was read with the current era's, whatever the pool's); an error in
    it is a PoolFileError at its place (`PoolSpec.config_error`)."""
    from compiler import compile_policy
    from compiler.config import load_config
    from compiler.spec import DEFAULT_ERA

    era = pool.era or DEFAULT_ERA
    try:
        config = load_config(text=pool.machines[index].startd, era=era)
        return compile_policy(config, era=era, semantics=semantics)
    except PolicyError as err:
        raise pool.config_error(("machines", index, "startd"), err) from None


def negotiator_config(pool: PoolSpec) -> Any:
    """The negotiator's configuration text loaded (the pool's era's defaults); an
    error in it is a PoolFileError at its place."""
    from compiler.config import load_config
    from compiler.spec import DEFAULT_ERA
    from runtime.pool.negotiate import check_expressions

    try:
        config = load_config(
            text=pool.negotiator_config, era=pool.era or DEFAULT_ERA, subsystem="NEGOTIATOR"
        )
        check_expressions(config)
    except PolicyError as err:
        raise pool.config_error(NEGOTIATOR_CONFIG, err) from None
    return config


def _knob_number(
    config: Any, name: str, default: float, pool: PoolSpec, *, above: float | None = None
) -> float:
    """The negotiator knob `name` as a number (`default` when not set); else an error at
    its definition in the pool file. `above`: the value must be greater."""
    definition = config.definition(name)
    if definition is None:
        return default
    raw = config.get(name)
    try:
        value = float(raw)
    except (TypeError, ValueError):
        problem = f"{name} = {raw!r} is not a number"
    else:
        if math.isfinite(value) and (above is None or value > above):
            return value
        problem = f"{name} = {raw!r}: must be a finite number" + (
            "" if above is None else f" above {above:g}"
        )
    origin = definition.origin
    lines = pool.negotiator_config.splitlines()
    shown = lines[origin.line - 1] if 0 < origin.line <= len(lines) else None
    err = PolicyError(problem, line=origin.line, column=origin.value_column, source_line=shown)
    raise pool.config_error(NEGOTIATOR_CONFIG, err)


def _job_ad(stream: JobStream, owner: str, cluster: int, proc: int, qdate: float) -> dict[str, Any]:
    """The job ad the schedd would hold (ClassAd text of the stream parsed once)."""
    ad: dict[str, Any] = {
        "MyType": "Job",
        "Owner": owner,
        "User": stream.submitter,
        "ClusterId": cluster,
        "ProcId": proc,
        "QDate": int(qdate),
        "JobPrio": 0,
        "JobUniverse": 5,
        "ImageSize": 100000,
        "Requirements": True,
        "Rank": 0.0,
        "NiceUser": stream.nice,
    }
    if stream.accounting_group or stream.nice:
        ad["AccountingGroup"] = stream.submitter.partition("@")[0]
    if stream.max_retirement_minutes is not None:
        ad["MaxJobRetirementTime"] = int(stream.max_retirement_minutes * 60)
    ad.update(stream.ad)  # parsed by the pool file reader
    return ad
