"""Benchmark (not a test): simplify every guard of the era specs with the Desktop policy
substituted, in a fresh interpreter, and print cold/warm timings.

    python -m tests.simplify.bench_desktop

Guards are read from spec/eras/*.yaml (`guard: "..."`), policy names replaced by the
expanded Desktop expressions (tests/simplify/desktop.py); the guards of
tests/simplify/desktop.py are added. "cold" includes importing compiler.simplify and
everything it pulls in (sympy only if a guard needs minimisation).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_CHILD = r"""
import re, sys, time
from pathlib import Path
t0 = time.perf_counter()
from compiler.classad import parse, unparse
from compiler.simplify import STARTD_DOMAINS, simplify
from tests.simplify.desktop import GUARDS, _POLICY, substitute
texts = []
for path in sorted(Path("spec/eras").glob("*.yaml")):
    texts += re.findall(r'guard: "([^"]*)"', path.read_text())
guards = []
for t in dict.fromkeys(texts):
    if t.strip():
        guards.append(substitute(parse(t), _POLICY))
guards += list(GUARDS.values())
t1 = time.perf_counter()
out = [simplify(g, domains=STARTD_DOMAINS) for g in guards]
t2 = time.perf_counter()
from compiler.simplify import pipeline, regions
pipeline._simplify.cache_clear(); regions.equivalent.cache_clear()
t3 = time.perf_counter()
[simplify(g, domains=STARTD_DOMAINS) for g in guards]
t4 = time.perf_counter()
print(f"guards: {len(guards)} (distinct spec guard texts: {len(set(texts))})")
print(f"imports + parsing: {t1 - t0:.3f} s")
print(f"cold simplify, all guards: {t2 - t1:.3f} s")
print(f"simplify again, result caches cleared: {t4 - t3:.3f} s")
print(f"sympy imported: {'sympy' in sys.modules}")
print(f"not fully minimised: {sum(not s.minimised for s in out)}")
"""


def main() -> int:
    result = subprocess.run(
        [sys.executable, "-c", _CHILD], cwd=ROOT, capture_output=True, text=True, check=False
    )
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    return result.returncode


if __name__ == "__main__":
    raise SystemExit(main())
