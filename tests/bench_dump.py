"""Benchmark: reading a whole pool's `condor_status -l` / `-json` dump into ads.

Run `python -m tests.bench_dump [--seconds S] [--slots N]`. Not a test: it prints
figures only. The dump is `tests.classad.pool_dump`'s: N static slots of about 200
attributes each, printed by classad2 itself (`printOld()` for `-l`, `printJson()` for
`-json`, as a JSON list the way condor_status prints it).

The reference is classad2 reading the same ads in the same run. It reads them one ad at
a time (`classad2.parseOne` of each ad's text: the `-l` dump split at its blank lines,
the `-json` dump's objects): `classad2.parseAds(text)` over the whole dump takes time
quadratic in the number of ads in HTCondor 25.14.1's Python binding (each step hands
the rest of the text to C++ again: 1,000 slots 1.1 s, 4,000 slots 11.9 s measured
here), and its JSON mode cannot read a JSON list of more than one ad at all.

Memory per slot is what the ads hold once read (tracemalloc, the dump's text not
counted), at 1,000 and at N slots: flat means the second is no larger than the first.
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc
from collections.abc import Callable

from tests.bench_common import Figure, best_time, print_figures

SLOTS = 10_000
SMALL = 1_000


def _per_slot_memory(read: Callable[[], list[object]], slots: int) -> float:
    """Bytes the ads read by `read` hold, per slot (allocated while reading, still held)."""
    gc.collect()
    tracemalloc.start()
    try:
        ads = read()
        held, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(ads) == slots, (len(ads), slots)
    return held / slots


def _cpu_time(fn: Callable[[], object]) -> float:
    """The processor time of one call of `fn` (on a machine shared with other work, the
    wall time of a read of seconds can be several times this)."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def figures(seconds: float, slots: int = SLOTS) -> list[Figure]:
    """Reading time of an N-slot `-l` and `-json` dump (ours and classad2's), and memory
    per slot at N against 1,000. Our read is timed `max(2, int(seconds))` times, the best
    wall time kept, and once more for its processor time; classad2's once (it takes
    several times as long)."""
    from compiler.classad.ads import load_ads
    from tests.classad.pool_dump import json_dump, long_dump, slot_ads, slot_ads_json
    from tests.oracle import classad2

    repeat = max(2, int(seconds))
    old_texts, json_texts = slot_ads(classad2, slots), slot_ads_json(classad2, slots)
    dumps = {"-l": long_dump(old_texts), "-json": json_dump(json_texts)}
    wheel_ads = {"-l": old_texts, "-json": json_texts}
    parser = {"-l": classad2.ParserType.Old, "-json": classad2.ParserType.JSON}
    result = []
    for form, dump in dumps.items():
        load_ads(dump[: dump.index("\n\n") + 1] if form == "-l" else json_dump(json_texts[:1]))
        ours = best_time(lambda dump=dump: load_ads(dump), repeat)
        cpu = _cpu_time(lambda dump=dump: load_ads(dump))
        theirs = best_time(
            lambda form=form: [classad2.parseOne(t, parser[form]) for t in wheel_ads[form]], 1
        )
        result.append(
            Figure(
                name=f"read {slots:,}-slot condor_status {form} dump",
                ours=f"{ours:.2f} s (CPU {cpu:.2f} s)",
                reference=f"classad2 {theirs:.2f} s",
                ratio=ours / theirs,
                target="< 5 s",
                met=ours < 5.0,
            )
        )
    for form, dump in dumps.items():
        small = long_dump(old_texts[:SMALL]) if form == "-l" else json_dump(json_texts[:SMALL])
        at_small = _per_slot_memory(lambda small=small: load_ads(small), SMALL)
        at_large = _per_slot_memory(lambda dump=dump: load_ads(dump), slots)
        ratio = at_large / at_small
        result.append(
            Figure(
                name=f"flat memory per slot ({form}, {slots:,} vs {SMALL:,} slots)",
                ours=f"{at_large / 1024:.1f} KiB/slot",
                reference=f"{at_small / 1024:.1f} KiB/slot",
                ratio=ratio,
                target="<= 1.2x",
                met=ratio <= 1.2,
            )
        )
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="reads timed per figure")
    parser.add_argument("--slots", type=int, default=SLOTS, help="slots in the dump")
    args = parser.parse_args(argv)
    print_figures(figures(args.seconds, args.slots))


if __name__ == "__main__":
    main()
