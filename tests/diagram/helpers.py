"""Shared test data: the reference's transition endpoints and hand-made state tables."""

from __future__ import annotations

from collections.abc import Mapping

from compiler.classad import parse as parse_classad
from compiler.spec import EraSpec
from compiler.table import CompiledGuard, Row, StateTable, Status

OI, UI, UB, MI = "Owner/Idle", "Unclaimed/Idle", "Unclaimed/Benchmarking", "Matched/Idle"
CI, CB, CS, CR = "Claimed/Idle", "Claimed/Busy", "Claimed/Suspended", "Claimed/Retiring"
PV, PK, P_ANY = "Preempting/Vacating", "Preempting/Killing", "Preempting/*"
BI, BB, BK = "Backfill/Idle", "Backfill/Busy", "Backfill/Killing"
DI, DR = "Drained/Idle", "Drained/Retiring"

# reference 1.1
ENDPOINTS_64 = {
    1: (OI, UI), 2: (UI, OI), 3: (UI, UB), 4: (UB, UI), 5: (UI, CI), 6: (UI, MI),
    7: (MI, OI), 8: (MI, CI), 9: (CI, P_ANY), 10: (CI, CB), 11: (CB, CI), 12: (CB, P_ANY),
    13: (CB, CS), 14: (CS, CB), 15: (CS, P_ANY), 16: (PV, PK), 17: (PV, OI), 18: (PV, CI),
    19: (PK, OI), 20: (PK, CI),
}  # fmt: skip
# reference 1.2
ENDPOINTS_68 = {
    1: (OI, UI), 2: (UI, OI), 3: (UI, UB), 4: (UB, UI), 5: (UI, CI), 6: (UI, MI),
    7: (UI, BI), 8: (MI, OI), 9: (MI, CI), 10: (CI, P_ANY), 11: (CI, CB), 12: (CB, CI),
    13: (CB, CR), 14: (CB, CS), 15: (CS, CB), 16: (CS, CR), 17: (CS, P_ANY),
    18: (CR, P_ANY), 19: (CR, CB), 20: (CR, CS), 21: (PV, PK), 22: (PV, OI), 23: (PV, CI),
    24: (PK, CI), 25: (PK, OI), 26: (BI, BB), 27: (BB, BI), 28: (BB, BK), 29: (BK, BI),
    30: (BI, OI), 31: (BI, CI), 32: (BI, MI),
}  # fmt: skip
# reference 1.3: 1-32 as 6.8, plus Drained
ENDPOINTS_CURRENT = {
    **ENDPOINTS_68,
    33: (DR, DI), 34: (DI, OI), 35: (DR, OI), 36: (OI, DR), 37: (UI, DR),
}  # fmt: skip
ENDPOINTS = {
    "condor-6.4": ENDPOINTS_64,
    "condor-6.8": ENDPOINTS_68,
    "htcondor-current": ENDPOINTS_CURRENT,
}


def fake_table(
    spec: EraSpec, statuses: Mapping[str, Status], guards: Mapping[str, str] | None = None
) -> StateTable:
    rows = []
    for t in spec.transitions:
        text = (guards or {}).get(t.id)
        guard = None
        if text is not None:
            guard = CompiledGuard(
                text=t.guard,
                against="job",
                expanded=text,
                simplified=text,
                expr=parse_classad("true"),
                status=statuses.get(t.id, "live"),
            )
        rows.append(
            Row(t, guard, tuple(None for _ in t.triggers), (), statuses.get(t.id, "live"), None)
        )
    return StateTable(spec.era, spec.semantics, tuple(rows), spec, source="hand-made")
