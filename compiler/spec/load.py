"""Public entry points of the spec loader: `load_spec`, `load_spec_file`, `spec_differences`.

Stage: data -> IR (reading in `compiler.spec.read`, resolving in `compiler.spec.resolve`,
whole-table checks in `compiler.spec.checks`). Loaded specs are cached per directory, era
and semantics; they are immutable, so sharing them is safe.
"""

from __future__ import annotations

from pathlib import Path

from compiler.errors import close_matches
from compiler.spec import ir
from compiler.spec.read import (
    ERA_DIR,
    ERAS,
    SEMANTICS,
    Errors,
    SpecError,
    display_path,
    merge_era,
    read_vocabulary,
)  # fmt: skip
from compiler.spec.resolve import Resolver


def load_spec_file(path: str | Path, semantics: str = "manual") -> ir.EraSpec:
    """Load one era file (its vocabulary is base.yaml in the same directory)."""
    path = Path(path)
    errors = Errors()
    if semantics not in SEMANTICS:
        errors.add(
            display_path(path),
            "",
            f"unknown semantics '{semantics}' (known: {', '.join(SEMANTICS)})",
        )
        errors.raise_if_any()
    vocab = read_vocabulary(path.parent, errors)
    merged = merge_era(path.parent, path, errors, (path.stem,))
    if errors.fatal:
        errors.raise_if_any()
    spec = Resolver(vocab, merged, semantics, errors).build()
    errors.raise_if_any()
    return spec


_CACHE: dict[tuple[str, str, str], ir.EraSpec] = {}


def load_spec(
    era: str, semantics: str = "manual", *, directory: str | Path | None = None
) -> ir.EraSpec:
    """The checked spec of `era` ("condor-6.4", "condor-6.8", "htcondor-current") for
    `semantics` ("manual", default, or "code"). Raises `SpecError` on any problem."""
    folder = Path(directory) if directory is not None else ERA_DIR
    if directory is None and era not in ERAS:
        close = close_matches(era, ERAS, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise SpecError(
            f"unknown era '{era}' (known: {', '.join(ERAS)}){hint}", file=display_path(folder)
        )
    key = (str(folder), era, semantics)
    if key not in _CACHE:
        _CACHE[key] = load_spec_file(folder / f"{era}.yaml", semantics)
    return _CACHE[key]


def spec_differences(era: str, *, directory: str | Path | None = None) -> list[ir.Difference]:
    """Every place where `era`'s manual and code semantics differ, with the D-number."""
    manual = load_spec(era, "manual", directory=directory)
    code = load_spec(era, "code", directory=directory)
    out: list[ir.Difference] = []

    def differ(item: str, d: str | None, a: object, b: object) -> None:
        if a != b:
            out.append(ir.Difference(era, item, d, str(a), str(b)))

    by_id = {r.id: r for r in manual.transitions}
    code_ids = {r.id: r for r in code.transitions}
    for rid in dict.fromkeys([*by_id, *code_ids]):
        m, c = by_id.get(rid), code_ids.get(rid)
        only = set(m.triggers if m else ()) ^ set(c.triggers if c else ())
        d = next((t.difference for t in (*(m.triggers if m else ()), *(c.triggers if c else ()))
                  if t in only and t.difference), None)  # fmt: skip
        d = d or next((r.difference for r in (m, c) if r is not None and r.difference), None)
        differ(
            f"transition {rid}",
            d,
            m.trigger_text if m else "(absent)",
            c.trigger_text if c else "(absent)",
        )

    def choice(spec: ir.EraSpec) -> list[tuple[str, str]]:
        row = next((r for r in spec.transitions if r.activity_choice), None)
        return [(e.guard, e.activity) for e in row.activity_choice] if row else []

    differ("activity_choice Preempting", "D5", choice(manual), choice(code))
    differ(
        "polling fast_states",
        code.polling.difference,
        manual.polling.fast_states,
        code.polling.fast_states,
    )
    for t in code.timers:
        mt = next((x for x in manual.timers if x.name == t.name), None)
        differ(
            f"timer {t.name}", t.difference, mt.default_text if mt else "(absent)", t.default_text
        )
    for p in code.policies:
        mp = manual.policy(p.name)
        differ(f"policy {p.name} default", p.difference, mp.default, p.default)
        differ(
            f"policy {p.name} if undefined", p.difference or "D13", mp.if_undefined, p.if_undefined
        )
    manual_pairs = {p.pair: p for p in manual.pairs}
    for pair in code.pairs:
        other = manual_pairs.get(pair.pair)
        if other is None:
            differ(f"pair {pair.pair}", "D22", "(absent)", "exists")
        else:
            differ(f"pair {pair.pair} evaluate_on_entry", "D10", other.evaluate_on_entry,
                   pair.evaluate_on_entry)  # fmt: skip
    differ(
        "publish",
        next((r.difference for r in code.publish if r.difference), None),
        [(r.states, r.attribute, r.value) for r in manual.publish],
        [(r.states, r.attribute, r.value) for r in code.publish],
    )
    return out
