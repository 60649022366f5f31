"""Example counts for hypothesis tests, from the loaded profile (tests/conftest.py).

`examples(n)` is `n` under the `gate` profile (the README run: the same n derandomized
examples every time, whatever the environment says) and scales with the profile's
`max_examples` otherwise (`--hypothesis-profile=explore`: ten times as many, random).
Profiles are loaded before test modules are imported, so module-level use is fine.
"""

from __future__ import annotations

from hypothesis import settings

#: The gate profile's max_examples; counts written in tests are relative to it.
GATE_MAX_EXAMPLES = 100


def examples(gate: int) -> int:
    return max(1, round(gate * settings().max_examples / GATE_MAX_EXAMPLES))
