"""The region oracle: decides exactly whether two guards always have the same value, and
which truth values a guard can take, by enumerating every *behaviourally distinct*
situation of its atoms.

Stage: simplifier support. Rewrite passes propose a candidate; this module accepts it only
if original and candidate agree in every situation. That makes the interval reasoning
(`x > 900 && x > 600`), complement and absorption checks sound by construction rather
than by a hand proof per law, including NaN, infinities, booleans compared as numbers,
case-insensitive strings, UNDEFINED and ERROR.

Model. The logical skeleton (`&&`, `||`, `!`, `?:`, `ifThenElse`, `?:` elvis, literals)
is interpreted with the exact ClassAd tables. Its leaves are:
* comparison atoms `s OP k` (k a literal, s any deterministic expression, the "subject");
  `isUndefined(s)` and friends; and a bare subject `s`. All atoms over the same subject
  are evaluated from one sample *value* of s, so their correlation is exact. The samples
  cover every cell of the partition of s's possible values (its abstract kinds and range,
  abstract.py) cut by the constants in play, plus UNDEFINED/ERROR/strings/lists as
  possible: between two consecutive constants every comparison keeps its value, so one
  representative per cell is exhaustive.
* opaque atoms (anything else): every truth value the abstraction allows, chosen
  independently. Independence over-approximates the real joint behaviour, so "equal in
  every enumerated situation" implies equal in reality, and a truth value never
  enumerated never occurs.
String subjects under `<`-style ordering are not enumerated (no finite exact cut):
the oracle then answers "unknown" and the caller keeps the original.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any, Final

import msgspec

from compiler.classad import ast as A
from compiler.classad.values import ERROR, UNDEFINED, RelTime, Value
from compiler.simplify.abstract import (
    CMP_OPS,
    TYPE_TESTS,
    Abs,
    abstract,
    boolean_valued,
    canon,
    deterministic,
    is_literal,
    literal_value,
    truth_values,
)
from compiler.simplify.domains import Env
from compiler.simplify.threevl import (
    AND_TABLE,
    NOT_TABLE,
    OR_TABLE,
    comparison,
    tv_of_value,
    value_of_tv,
)

#: Above this many situations the oracle answers "unknown" (None).
LIMIT: Final = 20000

SWAP: Final = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!=",
               "=?=": "=?=", "=!=": "=!="}  # fmt: skip


class Opaque(msgspec.Struct, frozen=True):
    """A leaf whose value is unknown apart from its truth value."""

    key: A.Expr
    tv: str


def split_comparison(e: A.Expr) -> tuple[A.Expr, str, A.Expr] | None:
    """`(subject, op, literal)` for `s OP k` or `k OP s` (op turned round), else None."""
    if not isinstance(e, A.Binary) or e.op not in CMP_OPS:
        return None
    if is_literal(e.right) and not is_literal(e.left):
        return e.left, e.op, e.right
    if is_literal(e.left) and not is_literal(e.right):
        return e.right, SWAP[e.op], e.left
    return None


def _type_test(name: str, v: Value) -> Value:
    if v is ERROR and name != "iserror":
        return False
    return {
        "isundefined": v is UNDEFINED,
        "iserror": v is ERROR,
        "isstring": isinstance(v, str),
        "isinteger": isinstance(v, int) and not isinstance(v, bool),
        "isreal": isinstance(v, float),
        "isboolean": isinstance(v, bool),
        "islist": isinstance(v, list),
    }[name]


class _Space:
    """Leaves of one or more expressions, grouped by subject."""

    def __init__(self, env: Env) -> None:
        self.env = env
        self.subjects: dict[A.Expr, tuple[Abs, list[Value], bool]] = {}
        self.opaque: dict[A.Expr, frozenset[str]] = {}
        self.exact = True

    def _subject(self, s: A.Expr, k: Value, op: str) -> None:
        key = canon(s, self.env)
        a, consts, ordered = self.subjects.get(key, (abstract(s, self.env), [], False))
        consts.append(k)
        ordered = ordered or op in ("<", "<=", ">", ">=")
        self.subjects[key] = (a, consts, ordered)

    def collect(self, e: A.Expr) -> None:
        match e:
            case _ if not deterministic(e):
                self.exact = False
            case A.Binary(op="&&" | "||", left=l, right=r):
                self.collect(l)
                self.collect(r)
            case A.Unary(op="!", operand=x):
                self.collect(x)
            case A.Conditional(cond=c, then=t, otherwise=o):
                for x in (c, t, o):
                    self.collect(x)
            case A.Call(args=args) if e.key == "ifthenelse" and len(args) == 3:
                for x in args:
                    self.collect(x)
            case A.Elvis(left=l, right=r):
                self.collect(l)
                self.collect(r)
            case _ if is_literal(e):
                pass
            case A.Call(args=(s,)) if e.key in TYPE_TESTS:
                self._subject(s, UNDEFINED, "=?=")
            case _:
                parts = split_comparison(e)
                if parts is not None:
                    s, op, k = parts
                    self._subject(s, literal_value(k), op)
                else:
                    self.opaque[canon(e, self.env)] = truth_values(e, self.env)

    def finish(self) -> None:
        # A bare subject that also occurs as an opaque leaf is read from its sample.
        for key in list(self.opaque):
            if key in self.subjects:
                del self.opaque[key]

    def samples(self, a: Abs, consts: list[Value], ordered: bool) -> list[Value] | None:
        out: list[Value] = []
        t = a.tags
        if "U" in t:
            out.append(UNDEFINED)
        if "E" in t:
            out.append(ERROR)
        if "list" in t:
            out.append([])
        if "ad" in t:
            out.append({})
        if "time" in t:
            # Against the literals of a comparison (never times) every time value
            # behaves alike: ERROR for ordering and `==`, FALSE for `=?=`.
            out.append(RelTime(0.0))
        if "str" in t:
            strs = [k for k in consts if isinstance(k, str)]
            if ordered and strs:
                return None
            out.append("\x01")
            for k in strs:
                out += [k, k.swapcase()]
        if "bool" in t:
            out += [b for b in (False, True) if _in(float(b), a)]
        nums = [float(k) for k in consts if isinstance(k, int | float) and math.isfinite(k)]
        marks = sorted({0.0, *nums, *(x for x in (a.low, a.high) if x is not None)})
        marks = [m for m in marks if _in(m, a)] or [0.0]
        if "int" in t:
            ints: set[int] = set()
            for m in marks:
                for base in (math.floor(m), math.ceil(m)):
                    ints.update((base - 1, base, base + 1))
            out += [i for i in sorted(ints) if _in(i, a)]
        if "real" in t:
            reals = set(marks)
            reals.update((x + y) / 2 for x, y in itertools.pairwise(marks))
            reals.update((marks[0] - 1.0, marks[-1] + 1.0))
            out += [r for r in sorted(reals) if _in(r, a)]
        if "nan" in t:
            out += [math.nan, math.inf, -math.inf]
        return out or [UNDEFINED]

    def situations(self) -> tuple[list[list[Value]], list[list[str]]] | None:
        """Sample values per subject and truth values per opaque leaf (in index order),
        or None when not exact or too many combinations."""
        self.finish()
        if not self.exact:
            return None
        subj_samples: list[list[Value]] = []
        total = 1
        for key in self.subjects:
            sample = self.samples(*self.subjects[key])
            if sample is None:
                return None
            subj_samples.append(sample)
            total *= len(sample)
        op_values = [sorted(tvs) for tvs in self.opaque.values()]
        for v in op_values:
            total *= len(v)
        if total > LIMIT:
            return None
        return subj_samples, op_values

    def compile(self, e: A.Expr) -> Callable[[tuple[Value, ...], tuple[str, ...]], object]:
        """`e` as a function of (subject values, opaque truth values), after `finish`."""
        subj_index = {k: i for i, k in enumerate(self.subjects)}
        opq_index = {k: i for i, k in enumerate(self.opaque)}
        return _compile(e, self.env, subj_index, opq_index)


def _in(x: float, a: Abs) -> bool:
    return (a.low is None or x >= a.low) and (a.high is None or x <= a.high)


def _tv(v: object) -> str:
    if v is True:  # the common cases first: the oracle's inner loop
        return "T"
    if v is False:
        return "F"
    # an exact type test: a failed isinstance against a Struct class is slow (the
    # metaclass's __instancecheck__), and this is the oracle's inner loop
    return v.tv if type(v) is Opaque else tv_of_value(v)


#: (subject values, opaque truth values): tuples indexed by position in a `_Space`, or
#: dicts keyed by the leaves' canonical forms for the probes (`_keyed`).
Fn = Callable[[Any, Any], object]


class _ByKey(dict[A.Expr, A.Expr]):
    """The index of the probes' closures: every leaf is looked up by its canonical form
    itself, and no bare leaf is read as a subject (`_probe_ok` makes sure none is one)."""

    def __missing__(self, key: A.Expr) -> A.Expr:
        return key

    def __contains__(self, key: object) -> bool:
        return False


_KEYS: Final = _ByKey()


def _compile(e: A.Expr, env: Env, subj: dict[A.Expr, Any], opq: dict[A.Expr, Any]) -> Fn:
    """A closure evaluating the skeleton of `e` with ClassAd's exact tables."""

    def sub(x: A.Expr) -> Fn:
        if subj is _KEYS:
            return _keyed(x, env)
        return _compile(x, env, subj, opq)

    match e:
        case A.Binary(op="&&" | "||", left=lhs, right=rhs):
            fl, fr = sub(lhs), sub(rhs)
            table = AND_TABLE if e.op == "&&" else OR_TABLE
            stop = "F" if e.op == "&&" else "T"

            def logic(sv: tuple[Value, ...], ov: tuple[str, ...]) -> object:
                a = _tv(fl(sv, ov))
                if a == stop or a == "E":
                    return value_of_tv(a)
                return value_of_tv(table[(a, _tv(fr(sv, ov)))])

            return logic
        case A.Unary(op="!", operand=x):
            fx = sub(x)
            return lambda sv, ov: value_of_tv(NOT_TABLE[_tv(fx(sv, ov))])
        case A.Conditional(cond=c, then=t, otherwise=o) | A.Call(args=(c, t, o)) if (
            isinstance(e, A.Conditional) or e.key == "ifthenelse"
        ):
            fc, ft, fo = sub(c), sub(t), sub(o)

            def cond(sv: tuple[Value, ...], ov: tuple[str, ...]) -> object:
                ct = _tv(fc(sv, ov))
                if ct in ("U", "E"):
                    return value_of_tv(ct)
                return ft(sv, ov) if ct == "T" else fo(sv, ov)

            return cond
        case A.Elvis(left=lhs, right=rhs):
            fl, fr = sub(lhs), sub(rhs)

            def elvis(sv: tuple[Value, ...], ov: tuple[str, ...]) -> object:
                v = fl(sv, ov)
                return fr(sv, ov) if _tv(v) == "U" else v

            return elvis
        case _ if is_literal(e):
            value = literal_value(e)
            return lambda sv, ov: value
        case A.Call(args=(s,)) if e.key in TYPE_TESTS:
            i, name = subj[canon(s, env)], e.key
            return lambda sv, ov: _type_test(name, sv[i])
    parts = split_comparison(e)
    if parts is not None:
        s, op, k = parts
        i, kv = subj[canon(s, env)], literal_value(k)
        test = comparison(op)
        return lambda sv, ov: test(sv[i], kv)
    key = canon(e, env)
    if key in subj:
        i = subj[key]
        return lambda sv, ov: sv[i]
    j = opq[key]
    if boolean_valued(e, env):
        return lambda sv, ov: value_of_tv(ov[j])
    return lambda sv, ov: Opaque(key, ov[j])


def _same(a: object, b: object) -> bool:
    if isinstance(a, Opaque) or isinstance(b, Opaque):
        return a == b
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b if not isinstance(a, list) else a == b


def _enumerate(exprs: tuple[A.Expr, ...], env: Env) -> Iterator[tuple[object, ...]] | None:
    space = _Space(env)
    for x in exprs:
        space.collect(x)
    found = space.situations()
    if found is None:
        return None
    subj_samples, op_values = found
    fns = [space.compile(x) for x in exprs]
    op_product = list(itertools.product(*op_values))

    def gen() -> Iterator[tuple[object, ...]]:
        for sv in itertools.product(*subj_samples):
            for ov in op_product:
                yield tuple(f(sv, ov) for f in fns)

    return gen()


# -- probes: a quick counterexample before the full enumeration -------------------------
#
# Most candidate rewrites the passes propose are wrong (in `c1 || c2 || ... || cN` every
# pair of operands shares its subjects, so each pair is tried), and the full enumeration
# of a pair's situations costs about a millisecond. A *probe* is one situation of the
# oracle's own model: a value for every subject and a truth value for every opaque leaf,
# taken from the first situations in which a part of `a` or `b` has each of its truth
# values (its *witnesses*, computed once per part). If `a` and `b` differ in a probe they
# differ in the cell of the full enumeration that holds it (every comparison and type
# test has the same value there, and opaque leaves take every truth value), so the full
# enumeration would answer False too: probing changes the cost, never the answer. It is
# not used when a leaf is both read bare and compared (the full enumeration then reads
# the bare leaf from its cell's sample, not from the probe's value).

#: Subject values and opaque truth values of one situation, keyed by canonical leaf.
Probe = tuple[dict[A.Expr, Value], dict[A.Expr, str]]

#: Situations looked at when searching a part's witnesses.
_WITNESS_ROWS: Final = 4000


@lru_cache(maxsize=1 << 16)
def _keyed(e: A.Expr, env: Env) -> Fn:
    """`e`'s closure over probes (dicts keyed by canonical leaf), shared by all probes."""
    return _compile(e, env, _KEYS, _KEYS)


@lru_cache(maxsize=1 << 16)
def _leaf_sets(e: A.Expr, env: Env) -> tuple[frozenset[A.Expr], frozenset[A.Expr], bool]:
    """(keys read as subjects, keys of opaque leaves, deterministic) of `e`'s skeleton,
    as `_Space.collect` finds them (built from the parts' sets for a logical node)."""
    if isinstance(e, A.Binary) and e.op in ("&&", "||") and deterministic(e):
        sl, ol, _ = _leaf_sets(e.left, env)
        sr, orr, _ = _leaf_sets(e.right, env)
        return sl | sr, ol | orr, True
    space = _Space(env)
    space.collect(e)
    return frozenset(space.subjects), frozenset(space.opaque), space.exact


@lru_cache(maxsize=1 << 16)
def _witnesses(e: A.Expr, env: Env) -> tuple[Probe, ...] | None:
    """The first situation of `e`'s own space for each truth value it takes (None when
    the space is not enumerable), UNDEFINED and ERROR first: a wrong candidate most
    often shows where an operand is UNDEFINED (`U || c` is not `U || TRUE`)."""
    space = _Space(env)
    space.collect(e)
    found = space.situations()
    if found is None:
        return None
    subj_samples, op_values = found
    skeys, okeys = list(space.subjects), list(space.opaque)
    fn = space.compile(e)
    wanted = truth_values(e, env)
    out: dict[str, Probe] = {}
    rows = 0
    for sv in itertools.product(*subj_samples):
        for ov in itertools.product(*op_values):
            t = _tv(fn(sv, ov))
            if t not in out:
                out[t] = (dict(zip(skeys, sv, strict=True)), dict(zip(okeys, ov, strict=True)))
                if wanted <= out.keys():
                    return _in_probe_order(out)
            rows += 1
            if rows >= _WITNESS_ROWS:
                return _in_probe_order(out)
    return _in_probe_order(out)


def _in_probe_order(found: dict[str, Probe]) -> tuple[Probe, ...]:
    return tuple(found[t] for t in "UETF" if t in found)


def _parts(e: A.Expr) -> tuple[A.Expr, ...]:
    if isinstance(e, A.Binary) and e.op in ("&&", "||"):
        return (e.left, e.right)
    return (e,)


def _probe_differs(a: A.Expr, b: A.Expr, env: Env, as_truth: bool) -> bool:
    """True when some probe shows `a` and `b` with different values (so they are not
    equivalent); False when none does or probing does not apply. The parts that only
    one side has are probed first: that is where a wrong candidate usually shows."""
    sa, oa, xa = _leaf_sets(a, env)
    sb, ob, xb = _leaf_sets(b, env)
    subjects, opaque = sa | sb, oa | ob
    if not (xa and xb) or subjects & opaque:
        return False
    pa, pb = _parts(a), _parts(b)
    shared = [x for x in pa if x in pb]
    parts = [x for x in dict.fromkeys((*pa, *pb)) if x not in shared] + shared
    found = []
    for part in parts:
        w = _witnesses(part, env)
        if not w:
            return False
        found.append(w)
    base_s: dict[A.Expr, Value] = {}
    base_o: dict[A.Expr, str] = {}
    for w in reversed(found):
        base_s.update(w[0][0])
        base_o.update(w[0][1])
    if not (subjects <= base_s.keys() and opaque <= base_o.keys()):
        return False
    fa, fb = _keyed(a, env), _keyed(b, env)
    for w in found:
        for ws, wo in w:
            sv = {**base_s, **ws} if ws.keys() != base_s.keys() else ws
            ov = {**base_o, **wo} if wo.keys() != base_o.keys() else wo
            va, vb = fa(sv, ov), fb(sv, ov)
            if (_tv(va) != _tv(vb)) if as_truth else not _same(va, vb):
                return True
    return False


@lru_cache(maxsize=16384)
def equivalent(a: A.Expr, b: A.Expr, env: Env, *, as_truth: bool = False) -> bool:
    """True only if `a` and `b` have the same value in every situation (`as_truth`: the
    same truth value, enough where the context is a logical operand). False = unknown or
    different."""
    if _probe_differs(a, b, env, as_truth):
        return False
    rows = _enumerate((a, b), env)
    if rows is None:
        return False
    for va, vb in rows:
        if as_truth:
            if _tv(va) != _tv(vb):
                return False
        elif not _same(va, vb):
            return False
    return True


@lru_cache(maxsize=4096)
def possible_truths(e: A.Expr, env: Env) -> frozenset[str] | None:
    """Every truth value `e` can take (None when too many situations to enumerate)."""
    rows = _enumerate((e,), env)
    if rows is None:
        return None
    return frozenset(_tv(v) for (v,) in rows)


@lru_cache(maxsize=4096)
def true_and_otherwise(e: A.Expr, env: Env) -> tuple[bool, bool] | None:
    """(whether `e` can be TRUE, whether it can be anything else), what `truth` needs of
    `possible_truths`; the enumeration stops as soon as both are seen (a live guard of a
    long allow-list shows both within its first rows). None: too many situations."""
    rows = _enumerate((e,), env)
    if rows is None:
        return None
    true = other = False
    for (v,) in rows:
        if _tv(v) == "T":
            true = True
        else:
            other = True
        if true and other:
            break
    return true, other


@lru_cache(maxsize=16384)
def leaf_keys(e: A.Expr, env: Env) -> frozenset[A.Expr]:
    """Canonical subjects and opaque leaves of `e`'s skeleton (for cheap pre-filters)."""
    space = _Space(env)
    space.collect(e)
    return frozenset(space.subjects) | frozenset(space.opaque)
