"""Running expressions through the HTCondor oracle and comparing its answers with ours.

The oracle (classad2 in HTCondor mode) runs in a child process: HTCondor 25.14.1
crashes (segmentation fault) on some inputs, e.g. selecting from a list that contains
itself (`Sub.a` with `Sub = {1, Sub}`: the list-mapping path loses the cycle check and
recurses until the stack overflows). A crash restarts the child and raises
`OracleCrashed`; the differential tests then discard that example.

The oracle returns UNDEFINED/ERROR as an enum and leaves the non-literal elements of
lists and nested ads unevaluated (ExprTree objects); those elements are compared as
"anything" (`ANY`), everything else must match exactly in type and value (reals within
1e-9 relative, NaN equal to NaN).
"""

from __future__ import annotations

import math
import multiprocessing
from collections.abc import Mapping
from multiprocessing.connection import Connection
from typing import Any

from compiler.classad import ERROR, UNDEFINED, ast, format_value, unparse
from compiler.classad.values import type_name


class _Anything:
    """Matches any value (an element the oracle left unevaluated)."""

    def __repr__(self) -> str:
        return "ANY"

    def __reduce__(self) -> str:
        return "ANY"


ANY: Any = _Anything()


class NoOracleAnswer(RuntimeError):
    """HTCondor gives no value for this input (tests discard such examples)."""


class OracleCrashed(NoOracleAnswer):
    """The oracle process died (or hung) on this input."""


class OracleRefused(NoOracleAnswer):
    """The oracle raised instead of answering (nesting limits; `.name` without an ad)."""


def ad_text(ad: Mapping[str, Any] | None) -> str | None:
    """An ad in new ClassAd syntax, for the oracle."""
    if ad is None:
        return None
    body = "; ".join(f"{unparse(ast.AttrRef(k))} = {_text(v)}" for k, v in ad.items())
    return f"[{body}]"


def _text(value: Any) -> str:
    return unparse(value) if isinstance(value, ast.EXPR_TYPES) else format_value(value)


# ---- the child process --------------------------------------------------------------


def _normalize(value: Any, classad2: Any) -> Any:
    if isinstance(value, classad2.Value):
        return ERROR if value == classad2.Value.Error else UNDEFINED
    if isinstance(value, classad2.ExprTree):
        return ANY
    if isinstance(value, classad2.ClassAd):
        return {k.lower(): _normalize(v, classad2) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalize(v, classad2) for v in value]
    return value


def _serve(conn: Connection) -> None:
    from tests.oracle import classad2

    while True:
        text, my, target = conn.recv()
        try:
            tree = classad2.ExprTree(text)
        except Exception:  # the binding's generic "Unable to parse" error
            conn.send(("syntax", None))
            continue
        try:
            if my is None:  # no ad at all: MY itself is UNDEFINED
                value = tree.eval()
            elif target is None:
                value = tree.eval(classad2.ClassAd(my))
            else:
                value = tree.eval(classad2.ClassAd(my), classad2.ClassAd(target))
            conn.send(("ok", _normalize(value, classad2)))
        except Exception as exc:  # evaluation refused (HTCondor's nesting limits)
            conn.send(("refused", repr(exc)))


class _Worker:
    def __init__(self) -> None:
        self.conn: Connection | None = None
        self.process: Any = None

    def _start(self) -> None:
        context = multiprocessing.get_context("fork")
        parent, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child,), daemon=True)
        self.process.start()
        child.close()
        self.conn = parent

    def _restart(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.join()
        self.process = self.conn = None

    def ask(self, text: str, my: str | None, target: str | None) -> tuple[str, Any]:
        if self.conn is None or not self.process.is_alive():
            self._start()
        assert self.conn is not None
        try:
            self.conn.send((text, my, target))
            if not self.conn.poll(60):
                raise EOFError
            return self.conn.recv()  # type: ignore[no-any-return]
        except (EOFError, OSError):
            self._restart()
            raise OracleCrashed(f"oracle crashed on {text!r} with {my!r}, {target!r}") from None


_worker = _Worker()


def oracle_run(text: str, my: str | None = None, target: str | None = None) -> tuple[str, Any]:
    """('ok', value) | ('syntax', None) | ('refused', reason); raises OracleCrashed."""
    return _worker.ask(text, my, target)


def oracle_eval(
    expr: ast.Expr | str,
    my: Mapping[str, Any] | None = None,
    target: Mapping[str, Any] | None = None,
) -> Any:
    """The oracle's value of `expr` with MY = `my` and TARGET = `target`."""
    text = expr if isinstance(expr, str) else unparse(expr)
    status, value = oracle_run(text, ad_text(my) if my is not None else None, ad_text(target))
    if status == "refused":
        raise OracleRefused(f"oracle refused {text!r}: {value}")
    if status != "ok":
        raise AssertionError(f"oracle cannot parse {text!r}")
    return value


def same(ours: Any, theirs: Any) -> bool:
    """Identical type and value (reals approximately; dict keys case-insensitively)."""
    if theirs is ANY:
        return True
    if isinstance(theirs, dict):
        if not isinstance(ours, dict):
            return False
        mine = {k.lower(): v for k, v in ours.items()}
        return mine.keys() == theirs.keys() and all(same(mine[k], theirs[k]) for k in theirs)
    if isinstance(theirs, list):
        return (
            isinstance(ours, list)
            and len(ours) == len(theirs)
            and all(same(a, b) for a, b in zip(ours, theirs, strict=True))
        )
    if type_name(ours) != type_name(theirs):
        return False
    if isinstance(theirs, float):
        if math.isnan(theirs) or math.isnan(ours):
            return math.isnan(theirs) and math.isnan(ours)
        if math.isinf(theirs) or math.isinf(ours):
            return ours == theirs
        return math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-300)
    return bool(ours == theirs) if ours is not UNDEFINED and ours is not ERROR else ours is theirs
