"""Running recursive tree walks on very deep ASTs (stage: support for every tree walk).

The LALR parser itself is iterative, but unparsing, evaluating and comparing trees are
naturally recursive. Policies are shallow, so the walks recurse directly; only when a
tree is deep enough to hit Python's recursion limit is the same pure function re-run
once in a helper thread with a large stack and a raised limit. Trees deeper than
`MAX_DEPTH` are rejected by the parser, so the retry always has enough room.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

T = TypeVar("T")

#: Deepest AST the parser accepts (HTCondor itself stops near 400 levels).
MAX_DEPTH = 20_000

_STACK_BYTES = 512 * 1024 * 1024
_FRAMES_PER_LEVEL = 6
_lock = threading.Lock()


def call_deep(fn: Callable[..., T], *args: object) -> T:
    """`fn(*args)`, retried with a big stack if the first attempt runs out of recursion.

    `fn` must be free of side effects that matter when repeated (the walks are pure).
    """
    try:
        return fn(*args)
    except RecursionError:
        pass
    outcome: list[tuple[bool, Any]] = []

    def run() -> None:
        try:
            outcome.append((True, fn(*args)))
        except BaseException as exc:  # handed back to the calling thread below
            outcome.append((False, exc))

    with _lock:
        old_limit = sys.getrecursionlimit()
        old_stack = threading.stack_size()
        try:
            threading.stack_size(_STACK_BYTES)
            sys.setrecursionlimit(max(old_limit, MAX_DEPTH * _FRAMES_PER_LEVEL + 1000))
            worker = threading.Thread(target=run, name="classad-deep-walk")
            worker.start()
            worker.join()
        finally:
            threading.stack_size(old_stack)
            sys.setrecursionlimit(old_limit)
    ok, value = outcome[0]
    if ok:
        return cast(T, value)
    raise value
