"""How long a slot stays quiet: the earliest instant one of its evaluation passes could
fire a transition if nothing but the clock moves (issue 15, "advance by events").

Stage: runtime analysis. The startd evaluates a slot every UPDATE_INTERVAL, and every
POLLING_INTERVAL while the polling timer runs; a pass that fires nothing changes nothing.
Between two outside inputs (a sensor change, a protocol event, a timer), what a guard of
the slot's current pair reads moves only with the clock, and only in few ways: time()
and CurrentTime, the idle times, the activity and claim totals, the CpuBusy time (all
affine in time, slope 0 or 1 while the record and pair stay), ClockMin and ClockDay, and
the two timed predicates (RetirementExpired, ClaimWorklifeExpired: false until an
instant, then true). `quiet_until(slot, limit)` returns a trace time before which no
guard of the pair's evaluation pass can change value, so no pass before it can fire:

* a comparison whose two sides are affine in time (sums and differences of such
  attributes and constants, products and quotients by constants) changes only where
  the difference of its sides crosses zero: that instant, less a margin for integer
  division and rounding;
* `a && b` that is false (or ERROR) by `a` now, `a || b` true (or ERROR) by `a`, keeps
  that value while `a` keeps its own, whatever `b` does (the evaluator does not read
  it); a conditional reads its condition and the branch it takes: the other branch's
  crossings do not matter (a suspension guard's `... > 90` under a false `&&` does not
  wake the slot);
* ClockDay holds until midnight; ClockMin is affine (1/60 per second) until midnight;
* a timed predicate that is false becomes true at an instant found by probing the
  slot's own ad (it never turns back);
* anything else that moves with the clock (a moving value inside a function call or a
  conditional, a list, a nested ad) gives no quiet time at all: the slot is evaluated
  at every pass, as the startd does.

The slopes are measured, not assumed: each attribute's change between the slot's ad now
and its ad `PROBE` seconds later (made without side effects: read name by name from the
sensors, the clock and CpuBusy when the slot's live ads tell where each moving name comes
from, else built whole), divided by `PROBE`; attributes known not to be affine (the
clock-of-day ones, the timed predicates) are handled apart. A guard against a job reads
the job's ad, which does not move. The guards of one pass share what was found of the
macros they read (`_View.found`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Final

from compiler import IdentityMemo, holds
from compiler.classad import ERROR, PLAIN_TYPES, truth
from compiler.classad import ast as A
from compiler.machine import GuardCondition, pair_name
from runtime.ads import eval_context

#: Seconds between the two ads the slopes are measured from.
PROBE: Final = 1000.0
#: Seconds subtracted from every computed crossing (float rounding, whole seconds).
MARGIN: Final = 2.0
_CLOCK_NAMES: Final = frozenset({"currenttime", "mycurrenttime"})
_DAY_NAMES: Final = frozenset({"clockmin", "clockday"})
_TIMED: Final = frozenset({"retirementexpired", "claimworklifeexpired"})
_COMPARE: Final = frozenset({"<", "<=", ">", ">=", "==", "!=", "=?=", "=!="})
_LITERALS: Final = frozenset(A.LITERAL_TYPES)


class _Moving(Exception):
    """Something moves with the clock in a way the analysis does not follow."""


#: What `_View.found` keeps of a `_Moving` raised (`_Guard._kept`).
_MOVED: Final = object()


def quiet_until(slot: Any, limit: float) -> float:
    """A trace time (at most `limit`) before which no evaluation pass of `slot` can fire,
    given that nothing but the clock moves until then; the slot's clock time when none
    can be given. No guard changing value proves nothing when a pass would fire now:
    unless a pass fired nothing in this very record and pair (`Slot.settled`), the
    guards are tested now first. Nor is a pass quiet that changes the record whatever
    fires (one showing Requirements again after a preempting claim)."""
    now_trace = slot.clock.elapsed()
    if slot.record.requirements_hidden:
        # the next pass changes the record whatever fires (it shows Requirements again,
        # hidden while a preempting claim was registered): it must run
        return now_trace
    try:
        options, guards = _plain(slot)
        if not options:
            return limit
        if limit - now_trace < 2 or guards is None:
            return now_trace  # (None: an unguarded step, or only activity choices)
        view = _View.up_to(slot, limit)
        if slot.settled != (view.now, slot.record, slot.model.pair_name) and _fires_now(
            view, options
        ):
            # no pass has run in this record and pair yet (entered by an event or an
            # immediate step), and one would fire: the next one does
            return now_trace
        bound = limit - now_trace
        # the pass is quiet while no option's guards all hold: while none of them changes
        # (each distinct guard once: the options of a pair often begin with the same one)
        for guard, against in guards:
            bound = min(bound, view.change_in(guard, against), view.cap)
            if bound <= 0:
                return now_trace
        return now_trace + max(0.0, bound)
    except _Moving:
        return now_trace


def quiet_at(slot: Any, at: float) -> bool:
    """Whether the evaluation pass at trace time `at` (later than the slot's clock) fires
    nothing, given that nothing but the clock moves until then: every option of the
    pass has a guard, tested before any of its actions, that does not hold in the
    slot's ad built for then (without side effects, as the pass would build it from the
    same record, pair, sensors and CpuBusy latch). `quiet_until`'s crossings are
    conservative by `MARGIN`, and an evaluation pass often falls in it (a pass every
    POLLING_INTERVAL, `time() - EnteredCurrentActivity > 600` checked 600 s after the
    activity began, false there by a second): it is tested at that instant instead of
    being run for nothing. False when that cannot be told."""
    if slot.record.requirements_hidden:
        return False  # (the pass changes the record first)
    # (an activity choice, a test after actions: not told here)
    options = _plain_options(slot)
    if not options:
        return True
    when = slot.clock.now() + (at - slot.clock.elapsed())
    my = slot.ads.build(slot.record, slot.pair, when, slot.overrides)
    ctx = eval_context(when)
    targets: dict[str, Any] = {}
    for plain in options:
        refused = False
        for condition in plain:
            against = condition.against
            if against not in targets:
                targets[against] = slot.guard_target(against)
            if not holds(condition.guard.predicate(my, targets[against], ctx=ctx)):
                refused = True
                break
        if not refused:
            return False  # every guard holds (or there is none): the pass may fire
    return True


def _fires_now(view: _View, options: tuple[tuple[Any, ...], ...]) -> bool:
    """Whether the guards (tested before any action) of one of `options` all hold in the
    slot's ad now: the pass would fire, or try an activity choice. A guard `a && b`
    whose `a` is not TRUE does not hold, whatever `b` is: `a`'s value is kept in the
    view, where the analysis reads it next (most guards are such, most `a` false)."""
    ctx = eval_context(view.now)
    for plain in options:
        for c in plain:
            node, target = c.guard.expr, view.target(c.against)
            if (
                type(node) is A.Binary
                and node.op == "&&"
                and truth(_Guard(view, target).value(node.left)) is not True
            ):
                break
            if not holds(c.guard.predicate(view.my, target, ctx=ctx)):
                break
        else:
            return True
    return False


#: `_plain_options`, and their distinct (guard, context) pairs in order (None when an
#: option has none)
_Plain = tuple[tuple[tuple[Any, ...], ...], "tuple[tuple[Any, str], ...] | None"]

#: `_plain` by (the table's options, the slot's engine, the pair's name), each kept with
#: its key's objects: a pool's slots share a few tables
_PLAIN_OPTIONS: dict[tuple[int, int, str], tuple[Any, Any, _Plain]] = {}


def _plain_options(slot: Any) -> tuple[tuple[Any, ...], ...]:
    """Of each condition list of `_pass_options`, the guards tested before any action
    (an unguarded step, or one of activity choices only, as an empty one): what
    `quiet_until` analyses and `quiet_at` tests, found once per table and pair."""
    return _plain(slot)[0]


def _plain(slot: Any) -> _Plain:
    """`_plain_options`, with their distinct guards (`quiet_until`)."""
    options, engine, name = slot._options, slot.engine, pair_name(slot.pair)
    key = (id(options), id(engine), name)
    hit = _PLAIN_OPTIONS.get(key)
    if hit is None or hit[0] is not options or hit[1] is not engine:
        found = tuple(
            tuple(c for c in option if isinstance(c, GuardCondition) and c.after is None)
            for option in _pass_options(slot)
        )
        guards = None
        if all(found):
            guards = tuple(dict.fromkeys((c.guard, c.against) for plain in found for c in plain))
        if len(_PLAIN_OPTIONS) >= 256:
            _PLAIN_OPTIONS.clear()
        hit = _PLAIN_OPTIONS[key] = (options, engine, (found, guards))
    return hit[2]


def _pass_options(slot: Any) -> list[tuple[Any, ...]]:
    """The condition lists an evaluation pass of the slot's pair tries, in order (an
    unguarded step as an empty one)."""
    name = pair_name(slot.pair)
    return [
        option
        for trigger in slot.engine.evaluation_pass(slot.pair)
        for option in slot._options.get((trigger, name), ((),))
    ]


def holds_until(slot: Any, expr: A.Expr, limit: float) -> float:
    """A trace time (at most `limit`) before which `expr`, evaluated in the slot's own ad
    with no target, cannot change value, given that nothing but the clock moves until
    then (as `quiet_until`); the slot's clock time when none can be given. The caller
    vouches that `expr` reads no target attribute."""
    now_trace = slot.clock.elapsed()
    if limit - now_trace < 2:
        return now_trace
    try:
        view = _View.up_to(slot, limit)
        bound = min(limit - now_trace, _Guard(view, None).bound(expr), view.cap)
    except _Moving:
        return now_trace
    return now_trace + max(0.0, bound)


class _View:
    """The slot's ad now and `PROBE` seconds later, and the slopes they give."""

    def __init__(self, slot: Any, probe: float, window: float) -> None:
        self.slot = slot
        self.now = slot.clock.now()
        self.probe = probe
        #: seconds the caller vouches for: a change after them does not matter
        self.window = window
        #: the slot's own ad of this instant when it has one (read only here; one partly
        #: refreshed for a guard is filled in), else built
        self.my = slot.ads.whole(slot.record, slot.pair, self.now) or slot.ads.build(
            slot.record, slot.pair, self.now, slot.overrides
        )
        self._later: Any = None
        #: the moving names' values in `later` (`stored_later`; empty: build it)
        self._moved: dict[str, Any] | None = None
        self._timed: dict[str, float] = {}
        #: values of subexpressions already evaluated in `my`, by (node, target): the
        #: guards of one pass share their macros (`KeyboardBusy`, `ActivityTimer`, ...)
        self.values: dict[tuple[int, int], Any] = {}
        self._targets: dict[str, Any] = {}
        #: what `_Guard` found of a node against a target ((which question, node,
        #: target) -> the answer, or `_MOVED` for a `_Moving` raised): the guards of one pass share
        #: their macros, and each was analysed again for every guard reading it
        self.found: dict[tuple[str, int, int], Any] = {}
        #: seconds the analysis holds at most (the next midnight when ClockMin is read)
        self.cap = math.inf

    @classmethod
    def up_to(cls, slot: Any, limit: float) -> _View:
        """The view of the window from the slot's clock to `limit`, the caller vouching
        that no outside input comes before it. The slopes are measured well inside it: a
        sensor's regime changes at `limit` itself (an owner's session starts there)."""
        window = limit - slot.clock.elapsed()
        return cls(slot, min(PROBE, window / 2), window)

    @property
    def later(self) -> Any:
        """The ad `probe` seconds on, built when a slope is first asked for."""
        if self._later is None:
            slot = self.slot
            self._later = slot.ads.build(
                slot.record, slot.pair, self.now + self.probe, slot.overrides
            )
        return self._later

    def stored_later(self, key: str) -> Any:
        """What `later` stores under `key` (lower case), read without building `later`
        when the slot's live ads tell the moving names' values then
        (`AdBuilder.moved_at`): any other name has `my`'s value (the record and the pair
        set it, or it is a predicate that stays while they do: a timed one is never
        asked for)."""
        if self._moved is None:
            slot = self.slot
            self._moved = slot.ads.moved_at(slot.record, slot.pair, self.now + self.probe) or {}
        if not self._moved:
            return _stored(self.later, key)
        if key in self._moved:
            return self._moved[key]
        return _stored(self.my, key)

    def target(self, against: str) -> Any:
        """The ad a guard is evaluated against, one per kind for the view's life (so its
        identity keys `values`)."""
        if against not in self._targets:
            self._targets[against] = self.slot.guard_target(against)
        return self._targets[against]

    def change_in(self, guard: Any, against: str) -> float:
        """Seconds before which `guard` cannot change value (math.inf: never)."""
        return _Guard(self, self.target(against)).bound(guard.expr)

    def timed_flip(self, name: str) -> float:
        """Seconds until the timed predicate `name` (false now) turns true: probed in
        the slot's own ads, bisecting to the second (it never turns back); math.inf when
        it is still false at the end of the window (nothing before then depends on when
        it turns, and one probe tells)."""
        if name in self._timed:
            return self._timed[name]
        slot = self.slot

        def true_at(dt: float) -> bool:
            ad = slot.ads.build(slot.record, slot.pair, self.now + dt, slot.overrides)
            return ad.get(name) is True

        if self.my.get(name) is True or not true_at(self.window):
            found = math.inf  # already true (it stays so), or false all the window
        else:
            low, high = 0.0, math.ceil(self.window)
            while high - low > 1:
                mid = math.floor((low + high) / 2)
                if true_at(mid):
                    high = mid
                else:
                    low = mid
            found = max(0.0, low)
        self._timed[name] = found
        return found


class _Guard:
    """One guard's analysis: values now, slopes, crossings."""

    def __init__(self, view: _View, target: Any) -> None:
        self.view = view
        self.target = target
        self.busy: set[str] = set()
        #: how often a definition's recursion was cut (`busy`): an answer reached
        #: through a cut depends on where the analysis entered the cycle, and is not kept
        self.cuts = 0

    def _kept(self, question: str, node: A.Expr, answer: Callable[[A.Expr], Any]) -> Any:
        """`answer(node)`, kept in the view for the other guards (an answer reached
        through a cut recursion is not kept; a `_Moving` raised is kept and raised)."""
        key = (question, id(node), id(self.target))
        found = self.view.found
        if key in found:
            hit = found[key]
            if hit is _MOVED:
                raise _Moving("(found before)")
            return hit
        cuts = self.cuts
        try:
            value = answer(node)
        except _Moving:
            if self.cuts == cuts:
                # a marker, not the exception: its traceback holds the frames, which hold
                # this view, which would hold it (a reference cycle per analysis, with
                # the view's ads, left to the cyclic collector)
                found[key] = _MOVED
            raise
        if self.cuts == cuts:
            found[key] = value
        return value

    def value(self, node: A.Expr) -> Any:
        if type(node) in A.VALUE_LITERALS:
            return node.value  # type: ignore[union-attr]  # a literal's value, evaluated
        if type(node) is A.AttrRef and node.scope in (None, "MY"):
            stored = self.view.my.get(node.key)
            if type(stored) in PLAIN_TYPES:
                return stored  # a plain value the slot's own ad holds: the evaluator's
        key = (id(node), id(self.target))
        values = self.view.values
        if key in values:
            return values[key]
        value = values[key] = compiled(node)(self.view.my, self.target, now=self.view.now)
        return value

    def bound(self, node: A.Expr) -> float:
        """Seconds before which `node` (a boolean-valued part of a guard) cannot change."""
        if type(node) in _LITERALS:
            return math.inf  # (what `_bound` finds of a literal, without keeping it)
        if type(node) is A.Binary and node.op in _COMPARE:
            # not kept: a comparison is found again cheaper than looked up, and the
            # guards of a pass seldom share one
            return self._comparison(node)
        if type(node) is A.AttrRef:
            return self._bound(node)  # (likewise: a macro's expression is kept)
        return float(self._kept("bound", node, self._bound))

    def _bound(self, node: A.Expr) -> float:
        # exact node types (no node class is subclassed): an isinstance that fails goes
        # through the node class's metaclass, and this runs for every node of every guard
        if type(node) is A.Binary and node.op in _COMPARE:
            return self._comparison(node)
        if type(node) is A.Binary and node.op in ("&&", "||"):
            first = self.bound(node.left)
            held = truth(self.value(node.left))
            decisive = node.op == "||"  # the value of the left side that decides alone
            if held is ERROR or held is decisive:
                return first  # `false && x`, `true || x`, `error && x`: x is not read
            return min(first, self.bound(node.right))
        if type(node) is A.Unary and node.op == "!":
            return self.bound(node.operand)
        if type(node) is A.Conditional:
            return self._chosen(node.cond, node.then, node.otherwise)
        if type(node) is A.Call and node.key == "ifthenelse" and len(node.args) == 3:
            return self._chosen(*node.args)
        if type(node) is A.AttrRef and node.key in _TIMED and node.scope in (None, "MY"):
            return self.view.timed_flip(_spelled(self.view.my, node.key))
        if type(node) is A.AttrRef and node.scope in (None, "MY"):
            stored = _stored(self.view.my, node.key)
            if type(stored) in A.NODE_TYPES and node.key not in self.busy:
                self.busy.add(node.key)
                try:
                    return self.bound(stored)
                finally:
                    self.busy.discard(node.key)
        return math.inf if self._slope(node)[0] == 0 else _raise()

    def _chosen(self, cond: A.Expr, then: A.Expr, otherwise: A.Expr) -> float:
        """A conditional keeps its value while its condition and the branch it takes keep
        theirs (the other branch is not read; UNDEFINED or ERROR: the branches neither)."""
        first = self.bound(cond)
        chosen = truth(self.value(cond))  # `?:` reads its condition as `&&` does
        if chosen is True:
            return min(first, self.bound(then))
        if chosen is False:
            return min(first, self.bound(otherwise))
        return first

    def _comparison(self, node: A.Binary) -> float:
        try:
            left_slope, left_margin = self._slope(node.left)
            right_slope, right_margin = self._slope(node.right)
        except _Moving:
            # not affine: with one side that does not move, the comparison changes only
            # where the other side's value does (`(... && ...) =!= true`)
            if self._static(node.right):
                return self.bound(node.left)
            if self._static(node.left):
                return self.bound(node.right)
            raise
        slope = left_slope - right_slope
        if left_slope == 0 and right_slope == 0:
            return math.inf
        left, right = self.value(node.left), self.value(node.right)
        if not _number(left) or not _number(right):
            if (left_slope == 0 or not _number(left)) and (right_slope == 0 or not _number(right)):
                return math.inf  # a side that is not a number now stays so
            raise _Moving("a moving side next to a value that is not a number")
        if slope == 0:
            return math.inf
        gap = float(left) - float(right)
        crossing = -gap / slope
        if crossing < 0 or (crossing == 0 and gap != 0):
            return math.inf  # moving away from each other
        return max(0.0, crossing - MARGIN - left_margin - right_margin)

    def _slope(self, node: A.Expr) -> tuple[float, float]:
        """(seconds-slope, margin in seconds) of a numeric expression affine in time;
        (0, 0) for one that does not move; _Moving otherwise."""
        if type(node) in _LITERALS:
            return 0.0, 0.0  # (what `_slope_of` finds of a literal, without keeping it)
        if type(node) is A.Call and node.key == "time" and not node.args:
            return 1.0, 0.0  # (likewise)
        if type(node) is A.AttrRef and node.scope in (None, "MY", "TARGET"):
            return self._attribute_slope(node)  # (likewise: a macro's expression is kept)
        found: tuple[float, float] = self._kept("slope", node, self._slope_of)
        return found

    def _slope_of(self, node: A.Expr) -> tuple[float, float]:
        # exact node types, not `match` on class patterns (see `_bound`)
        kind = type(node)
        if kind in _LITERALS:
            return 0.0, 0.0
        if type(node) is A.AttrRef:
            if node.scope in (None, "MY", "TARGET"):
                return self._attribute_slope(node)
        elif type(node) is A.Call:
            if node.key == "time" and not node.args:
                return 1.0, 0.0
            if node.key == "ifthenelse" and len(node.args) == 3:
                return self._branch(*node.args)
        elif type(node) is A.Unary:
            if node.op in ("-", "+"):
                slope, margin = self._slope(node.operand)
                return (-slope if node.op == "-" else slope), margin
        elif type(node) is A.Binary:
            if node.op in ("+", "-"):
                ls, lm = self._slope(node.left)
                rs, rm = self._slope(node.right)
                return (ls + rs if node.op == "+" else ls - rs), lm + rm
            if node.op == "*":
                return self._product(node.left, node.right)
            if node.op == "/":
                return self._quotient(node.left, node.right)
        elif type(node) is A.Conditional:
            return self._branch(node.cond, node.then, node.otherwise)
        if self._static(node):
            return 0.0, 0.0
        raise _Moving(f"{kind.__name__} of a moving value")

    def _product(self, left: A.Expr, right: A.Expr) -> tuple[float, float]:
        ls, lm = self._slope(left)
        rs, rm = self._slope(right)
        if ls and rs:
            raise _Moving("a product of two moving values")
        if not ls and not rs:
            return 0.0, 0.0
        factor = self.value(right if ls else left)
        if not _number(factor):
            return 0.0, 0.0  # ERROR/UNDEFINED times anything stays so
        return (ls or rs) * float(factor), lm + rm

    def _quotient(self, left: A.Expr, right: A.Expr) -> tuple[float, float]:
        ls, lm = self._slope(left)
        rs, _ = self._slope(right)
        if rs:
            raise _Moving("a division by a moving value")
        if not ls:
            return 0.0, 0.0
        divisor = self.value(right)
        if not _number(divisor) or float(divisor) == 0:
            return 0.0, 0.0
        slope = ls / float(divisor)
        # integer division truncates: the quotient lags by up to one unit
        return slope, lm + (1.0 / abs(slope) if slope else 0.0)

    def _branch(self, cond: A.Expr, then: A.Expr, otherwise: A.Expr) -> tuple[float, float]:
        """A conditional whose condition does not move takes the same branch all along:
        the slope of that branch (a value that is neither: the result does not move)."""
        if not self._static(cond):
            raise _Moving("a conditional on a moving condition")
        value = self.value(cond)
        if value is True or (_number(value) and value != 0):
            return self._slope(then)
        if value is False or (_number(value) and value == 0):
            return self._slope(otherwise)
        return 0.0, 0.0

    def _static(self, node: A.Expr) -> bool:
        """Does nothing under `node` move with the clock?"""
        if type(node) in _LITERALS:
            return True
        # (not kept: never asked twice of a node in a view)
        for sub in _movers(node):
            if type(sub) is not A.AttrRef or self._attribute_slope(sub)[0] != 0:
                return False  # time() or random(), or a moving attribute
        return True

    def _attribute_slope(self, node: A.AttrRef) -> tuple[float, float]:
        key = node.key
        if node.scope == "TARGET":
            return self._target_slope(key)
        if key in _CLOCK_NAMES and _stored(self.view.my, key) is None:
            return 1.0, 0.0  # CurrentTime
        if key in _TIMED:
            raise _Moving("a timed predicate as a value")
        stored = _stored(self.view.my, key)
        if stored is None:
            return self._target_slope(key) if node.scope is None else (0.0, 0.0)
        if key in _DAY_NAMES:
            return self._clock_of_day(key)
        if type(stored) in A.NODE_TYPES:
            if key in self.busy:
                self.cuts += 1
                return 0.0, 0.0
            self.busy.add(key)
            try:
                return self._slope(stored)
            finally:
                self.busy.discard(key)
        later = self.view.stored_later(key)
        if later == stored:
            return 0.0, 0.0
        if _number(stored) and _number(later):
            slope = (float(later) - float(stored)) / self.view.probe
            return float(round(slope)), 0.0  # the moving quantities count whole seconds
        raise _Moving(f"{node.name} changes and is not a number")

    def _target_slope(self, key: str) -> tuple[float, float]:
        """A job attribute does not move, unless it is an expression reading the clock."""
        if self.target is None:
            return 0.0, 0.0
        stored = _stored(self.target, key)
        if type(stored) in A.NODE_TYPES and not all(
            not (type(n) is A.Call and n.key in ("time", "random"))
            and not (type(n) is A.AttrRef and n.key in _CLOCK_NAMES)
            for n in A.walk(stored, same_scope=False)
        ):
            raise _Moving("a job attribute reading the clock")
        return 0.0, 0.0

    def _clock_of_day(self, key: str) -> tuple[float, float]:
        """ClockMin moves 1/60 a second until midnight, ClockDay not at all until then:
        the analysis holds until the next midnight, which bounds the quiet time."""
        self.view.cap = min(self.view.cap, 86_400 - (self.view.now % 86_400))
        return (0.0, 0.0) if key == "clockday" else (1.0 / 60, 60.0)


#: The guards' subexpressions compiled, by node (a table's nodes live as long as it; a
#: pool has few tables): the analysis evaluates each node of every guard of a slot it
#: reschedules
_COMPILED: IdentityMemo[A.Expr, Any] = IdentityMemo(1 << 14)


#: `_movers` by node: what the tree says, found once per node while it lives
_MOVERS: IdentityMemo[A.Expr, tuple[A.Expr, ...]] = IdentityMemo(1 << 14)


def _movers(node: A.Expr) -> tuple[A.Expr, ...]:
    """The sub-expressions of `node` (itself included, in `A.walk`'s order, nested ads'
    too) that may move with the clock: the calls to time() and random(), and the
    attribute references (whether one moves is the ad's to say)."""
    hit = _MOVERS.get(node)
    if hit is None:
        hit = _MOVERS.put(
            node,
            tuple(
                sub
                for sub in A.walk(node, same_scope=False)
                if (type(sub) is A.Call and sub.key in ("time", "random")) or type(sub) is A.AttrRef
            ),
        )
    return hit


def compiled(node: A.Expr) -> Any:
    """`node` compiled (compiler.classad.compile_expr), once while it lives."""
    hit = _COMPILED.get(node)
    if hit is None:
        from compiler.classad import compile_expr

        hit = _COMPILED.put(node, compile_expr(node))
    return hit


def _raise() -> float:
    raise _Moving("a moving value used as a truth value")


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _stored(ad: Mapping[str, Any], key: str) -> Any:
    getter = getattr(ad, "get", None)
    if getter is not None:
        found = getter(key)
        if found is not None:
            return found
    return next((v for k, v in ad.items() if k.lower() == key), None)


def _spelled(ad: Mapping[str, Any], key: str) -> str:
    return next((k for k in ad if k.lower() == key), key)
