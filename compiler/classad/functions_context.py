"""The environment a ClassAd builtin function may consult (evaluation stage).

Builtins are pure except for the clock (`time()`) and the random source (`random()`);
both are injected here so simulated clocks and seeded tests stay deterministic.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from compiler.classad.values import Value


@dataclass(frozen=True, slots=True)
class FunctionContext:
    """What a builtin may ask for besides its arguments."""

    now: Callable[[], int] = field(default=lambda: int(time.time()))
    rng: random.Random = field(default_factory=random.Random)


#: A builtin: evaluated arguments in, one value out (never raises for bad input).
FunctionImpl = Callable[[list[Value], FunctionContext], Value]


def default_context(seed: int | None = None) -> FunctionContext:
    """Wall-clock time and a random source (seeded when `seed` is given)."""
    return FunctionContext(now=lambda: int(time.time()), rng=random.Random(seed))
