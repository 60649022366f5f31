"""Per-slot load and keyboard/console idle (runtime.slots.load; shared/reference/slots.md
section 9; HTCondor 23.0 ResMgr.cpp `ResMgr::assign_load_and_idle`, ResAttributes.cpp
`CpuAttributes::publish_dynamic` / `MachAttributes::publish_dynamic`, startd_main.cpp
`init_params`).

Expected values come from seed 002's two D_LOAD logs (section "Debug Logging in the
Multi-Core condor_startd Daemon"), from the rules as the reference states them, from an
independent decimal rounding, and from the htcondor wheel's `param` for the knobs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from compiler.config import load_config
from compiler.config.errors import ConfigError
from compiler.errors import PolicyError, PolicyErrors
from runtime.slots.load import (
    Connections,
    LoadError,
    SlotLoad,
    assign,
    connections,
    idle_split,
    load_report,
    load_rules,
    owner_load_split,
    publish,
    read_load_document,
    walk_order,
)
from tests.config.oracle_config import clean_env

STATES = ("Owner", "Unclaimed", "Matched", "Claimed", "Preempting", "Backfill", "Drained")
BOTH = "SLOTS_CONNECTED_TO_KEYBOARD = {n}\nSLOTS_CONNECTED_TO_CONSOLE = {n}\n"


def errors_of(err: PolicyError) -> list[PolicyError]:
    return list(err.errors) if isinstance(err, PolicyErrors) else [err]


# ------------------------------------------------------------------ seed 002's two logs


def test_seed_log_idle_machine_keyboard_on_both_slots() -> None:
    """First log: 2 cores, no HTCondor activity, keyboard and console connected to both
    slots; `Load avg: 0.34`, `Idle Time: user= 0 , console= 4`; both slots Owner.
    Log: slot1 OwnerLoad 0.340, slot2 0.000; both `Keyboard: 0 Console: 4`."""
    doc = {
        "total_load": 0.34,
        "slot_states": {"slot1": "Owner", "slot2": "Owner"},
        "keyboard_idle": 0,
        "console_idle": 4,
    }
    config = load_config(text=BOTH.format(n=2))
    report = load_report(["slot1", "slot2"], doc, config, semantics="code")
    assert report["machine"] == {"TotalLoadAvg": 0.34, "TotalCondorLoadAvg": 0.0}
    assert report["slots"]["slot1"] == {
        "OwnerLoad": 0.34,
        "LoadAvg": 0.34,
        "CondorLoadAvg": 0.0,
        "KeyboardIdle": 0,
        "ConsoleIdle": 4,
    }
    assert report["slots"]["slot2"] == {
        "OwnerLoad": 0.0,
        "LoadAvg": 0.0,
        "CondorLoadAvg": 0.0,
        "KeyboardIdle": 0,
        "ConsoleIdle": 4,
    }
    # The seed's "the keyboard connected to both slots" is its default (manual semantics):
    # the same log from a configuration that does not mention the knobs.
    manual = load_report(["slot1", "slot2"], doc, load_config(text=""), semantics="manual")
    assert manual == report


SECOND_LOG = {
    "total_load": 1.25,
    "condor_load": {"slot2": 0.996},
    "slot_states": {"slot1": "Owner", "slot2": "Claimed"},
    "keyboard_idle": 0,
    "console_idle": 0,
    # 1496 in the log = uptime + DISCONNECTED_KEYBOARD_IDLE_BOOST (1200)
    "startd_uptime": 296,
}


def test_seed_log_one_connected_slot_and_a_job() -> None:
    """Second log: one slot connected to keyboard and console (Owner), slot2 Claimed/Busy
    with HTCondor load 0.996; `Load avg: 1.25`, user= 0, console= 0.
    Log: TotalOwnerLoad 0.254; slot1 SystemLoad 0.254 OwnerLoad 0.254, idle 0/0; slot2
    SystemLoad 0.996 CondorLoad 0.996 OwnerLoad 0.000, idle 1496/1496."""
    config = load_config(text=BOTH.format(n=1))
    report = load_report(["slot1", "slot2"], SECOND_LOG, config, semantics="code")
    slot1, slot2 = report["slots"]["slot1"], report["slots"]["slot2"]
    # published with two decimals: 0.254 -> 0.25, 0.996 -> 1.0
    assert (slot1["OwnerLoad"], slot1["LoadAvg"], slot1["CondorLoadAvg"]) == (0.25, 0.25, 0.0)
    assert (slot2["OwnerLoad"], slot2["LoadAvg"], slot2["CondorLoadAvg"]) == (0.0, 1.0, 1.0)
    assert (slot1["KeyboardIdle"], slot1["ConsoleIdle"]) == (0, 0)
    assert (slot2["KeyboardIdle"], slot2["ConsoleIdle"]) == (1496, 1496)
    assert report["machine"] == {"TotalLoadAvg": 1.25, "TotalCondorLoadAvg": 1.0}

    # the log's three-decimal figures, before publication rounding
    slots = [SlotLoad("slot1", "Owner"), SlotLoad("slot2", "Claimed", 0.996)]
    figures = assign(slots, Connections(1, 1, 1200), total_load=1.25, keyboard_idle=0)
    assert f"{figures.slots['slot1'].owner_load:.3f}" == "0.254"
    assert f"{figures.slots['slot1'].load_avg:.3f}" == "0.254"
    assert f"{figures.slots['slot2'].load_avg:.3f}" == "0.996"
    assert f"{figures.total_load - figures.total_condor_load:.3f}" == "0.254"


def test_seed_log_with_slot_ids_swapped_follows_the_state_not_the_id() -> None:
    """The same machine with the job on slot1: the Owner slot (slot2) comes first in the
    walk, so it gets the owner load and the one connected keyboard."""
    swapped = {
        **SECOND_LOG,
        "condor_load": {"slot1": 0.996},
        "slot_states": {"slot1": "Claimed", "slot2": "Owner"},
    }
    config = load_config(text=BOTH.format(n=1))
    report = load_report(["slot1", "slot2"], swapped, config, semantics="code")
    assert report["slots"]["slot2"]["OwnerLoad"] == 0.25
    assert report["slots"]["slot2"]["KeyboardIdle"] == 0
    assert report["slots"]["slot1"]["OwnerLoad"] == 0.0
    assert report["slots"]["slot1"]["KeyboardIdle"] == 1496


# ------------------------------------------------------------ code versus manual defaults


def test_code_default_connects_no_slot() -> None:
    """23.0 param_info.in: SLOTS_CONNECTED_TO_* default 0, so with no setting every slot
    reports uptime + 1200 for both idle times (reference/slots.md section 12 item 5)."""
    doc = {"total_load": 0.0, "keyboard_idle": 7, "console_idle": 9, "startd_uptime": 100}
    report = load_report(["slot1", "slot2"], doc, load_config(text=""), semantics="code")
    for name in ("slot1", "slot2"):
        assert report["slots"][name]["KeyboardIdle"] == 1300
        assert report["slots"][name]["ConsoleIdle"] == 1300


def test_manual_default_connects_every_slot() -> None:
    doc = {"total_load": 0.0, "keyboard_idle": 7, "console_idle": 9, "startd_uptime": 100}
    names = [f"slot{i}" for i in range(1, 6)]
    report = load_report(names, doc, load_config(text=""), semantics="manual")
    assert {(s["KeyboardIdle"], s["ConsoleIdle"]) for s in report["slots"].values()} == {(7, 9)}


@pytest.mark.parametrize("semantics", ["code", "manual"])
def test_a_setting_in_the_files_wins_in_both_semantics(semantics: str) -> None:
    doc = {"total_load": 0.0, "keyboard_idle": 7, "console_idle": 9, "startd_uptime": 100}
    config = load_config(text="SLOTS_CONNECTED_TO_CONSOLE = 1\nSLOTS_CONNECTED_TO_KEYBOARD = 0\n")
    report = load_report(["slot1", "slot2"], doc, config, semantics=semantics)
    # slot1: console connected, keyboard not -> KeyboardIdle is the real console idle
    assert (report["slots"]["slot1"]["KeyboardIdle"], report["slots"]["slot1"]["ConsoleIdle"]) == (
        9,
        9,
    )
    assert (report["slots"]["slot2"]["KeyboardIdle"], report["slots"]["slot2"]["ConsoleIdle"]) == (
        1300,
        1300,
    )


def test_boost_is_configurable() -> None:
    doc = {"total_load": 0.0, "startd_uptime": 5}
    config = load_config(text="DISCONNECTED_KEYBOARD_IDLE_BOOST = 60\n")
    report = load_report(["slot1"], doc, config, semantics="code")
    assert report["slots"]["slot1"]["KeyboardIdle"] == 65


def test_unmeasured_console_is_not_published() -> None:
    report = load_report(
        ["slot1"], {"total_load": 0.0}, load_config(text=BOTH.format(n=1)), semantics="code"
    )
    assert report["slots"]["slot1"]["ConsoleIdle"] is None


# --------------------------------------------------------------------- the walk order


def test_walk_order_is_the_state_enum_order() -> None:
    """condor_state.h `enum State`: Owner, Unclaimed, Matched, Claimed, Preempting, then
    (after two internal states) Backfill, Drained."""
    assert load_rules().state_order == STATES
    slots = [SlotLoad(f"s{i}", state) for i, state in enumerate(reversed(STATES))]
    order = walk_order(slots)
    assert [slots[i].state for i in order] == list(STATES)


def test_claimed_and_preempting_by_rank_lowest_first_ties_by_creation() -> None:
    slots = [
        SlotLoad("a", "Claimed", rank=5.0),
        SlotLoad("b", "Claimed", rank=-1.0),
        SlotLoad("c", "Claimed", rank=5.0),
        SlotLoad("d", "Preempting", rank=0.0),
        SlotLoad("e", "Preempting", rank=-3.0),
        SlotLoad("f", "Owner", rank=9.0),  # rank ignored outside Claimed/Preempting
        SlotLoad("g", "Owner", rank=-9.0),
    ]
    assert [slots[i].name for i in walk_order(slots)] == ["f", "g", "b", "a", "c", "e", "d"]


def test_unknown_state_in_the_pure_walk_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="Idle"):
        walk_order([SlotLoad("slot1", "Idle")])


def test_jobs_get_owner_load_only_after_idle_slots_are_full() -> None:
    """4 slots, two Claimed with HTCondor load 1.0 each, system load 4.5: owner load 2.5
    fills the Owner and Unclaimed slots (1.0 each) and the lower-ranked claim gets 0.5,
    so its LoadAvg is 1.5 (above 1.0, as the seed says)."""
    slots = [
        SlotLoad("slot1", "Claimed", 1.0, rank=10.0),
        SlotLoad("slot2", "Claimed", 1.0, rank=2.0),
        SlotLoad("slot3", "Unclaimed"),
        SlotLoad("slot4", "Owner"),
    ]
    got = assign(slots, Connections(0, 0, 1200), total_load=4.5, keyboard_idle=0)
    assert got.order == ("slot4", "slot3", "slot2", "slot1")
    assert {n: f.owner_load for n, f in got.slots.items()} == {
        "slot4": 1.0,
        "slot3": 1.0,
        "slot2": 0.5,
        "slot1": 0.0,
    }
    assert got.slots["slot2"].load_avg == 1.5


def test_owner_load_beyond_one_per_slot_is_dropped() -> None:
    """23.0 (since 10.x): the last slot no longer takes the whole remainder."""
    assert owner_load_split(5.5, 2) == (1.0, 1.0)
    assert owner_load_split(0.3, 3) == (0.3, 0.0, 0.0)
    assert owner_load_split(-0.2, 2) == (0.0, 0.0)


def test_negative_owner_load_is_floored() -> None:
    """HTCondor load above the system load (the two are measured separately)."""
    slots = [SlotLoad("slot1", "Claimed", 1.5), SlotLoad("slot2", "Owner")]
    got = assign(slots, Connections(0, 0, 1200), total_load=1.0, keyboard_idle=0)
    assert got.slots["slot2"].owner_load == 0.0
    assert got.slots["slot1"].load_avg == 1.5


loads = st.floats(min_value=0.0, max_value=64.0, allow_nan=False)


@given(owner=loads, count=st.integers(min_value=0, max_value=12))
@example(owner=2.0, count=2)
@example(owner=0.9999999, count=1)
def test_owner_split_sums_to_what_the_slots_can_take(owner: float, count: int) -> None:
    shares = owner_load_split(owner, count)
    assert len(shares) == count
    assert all(0.0 <= s <= 1.0 for s in shares)
    assert sum(shares) == pytest.approx(min(owner, float(count)), abs=1e-9)
    assert list(shares) == sorted(shares, reverse=True)  # full slots first
    assert sum(1 for s in shares if 0.0 < s < 1.0) <= 1  # at most one partial share


slot_lists = st.lists(
    st.tuples(
        st.sampled_from(STATES),
        st.floats(min_value=0.0, max_value=4.0, allow_nan=False),
        st.integers(min_value=-3, max_value=3),
    ),
    min_size=1,
    max_size=7,
)


@given(rows=slot_lists, total=loads, data=st.data())
def test_order_invariance_when_keys_are_distinct(rows, total: float, data) -> None:
    """The creation order only breaks ties: when no two slots tie on (State, Rank), any
    permutation of the slots gives every slot the same figures."""
    slots = [SlotLoad(f"slot{i + 1}", s, c, float(r)) for i, (s, c, r) in enumerate(rows)]
    key = {(sl.state, sl.rank if sl.state in ("Claimed", "Preempting") else 0.0) for sl in slots}
    if len(key) < len(slots):
        return
    conn = Connections(2, 1, 1200)
    base = assign(slots, conn, total_load=total, keyboard_idle=3, console_idle=4)
    shuffled = data.draw(st.permutations(slots))
    other = assign(shuffled, conn, total_load=total, keyboard_idle=3, console_idle=4)
    for name, fig in base.slots.items():
        got = other.slots[name]
        assert got.owner_load == pytest.approx(fig.owner_load, abs=1e-9)
        assert (got.keyboard_idle, got.console_idle) == (fig.keyboard_idle, fig.console_idle)


@given(rows=slot_lists, total=loads)
def test_owner_load_total_and_walk_positions(rows, total: float) -> None:
    slots = [SlotLoad(f"slot{i + 1}", s, c, float(r)) for i, (s, c, r) in enumerate(rows)]
    got = assign(slots, Connections(0, 0, 0), total_load=total, keyboard_idle=0)
    owner_total = max(0.0, total - sum(s.condor_load for s in slots))
    given_out = sum(f.owner_load for f in got.slots.values())
    assert given_out == pytest.approx(min(owner_total, float(len(slots))), abs=1e-9)
    # a slot later in the walk never has more owner load than an earlier one
    walked = [got.slots[n].owner_load for n in got.order]
    assert walked == sorted(walked, reverse=True)
    # the walk is sorted by State position
    positions = [STATES.index(next(s.state for s in slots if s.name == n)) for n in got.order]
    assert positions == sorted(positions)


# ------------------------------------------------------------------ keyboard and console


def test_console_but_not_keyboard_reports_the_console_idle_as_keyboard_idle() -> None:
    got = idle_split(
        3,
        Connections(console=2, keyboard=1, boost=1200),
        keyboard_idle=5,
        console_idle=50,
        startd_uptime=10,
    )
    assert got == ((5, 50), (50, 50), (1210, 1210))


def test_keyboard_without_console_keeps_the_real_keyboard() -> None:
    got = idle_split(
        3,
        Connections(console=1, keyboard=2, boost=1200),
        keyboard_idle=5,
        console_idle=50,
        startd_uptime=10,
    )
    assert got == ((5, 50), (5, 1210), (1210, 1210))


@given(
    count=st.integers(min_value=0, max_value=8),
    console=st.integers(min_value=0, max_value=10),
    keyboard=st.integers(min_value=0, max_value=10),
    kbd=st.integers(min_value=0, max_value=10**6),
    con=st.integers(min_value=-1, max_value=10**6),
    up=st.integers(min_value=0, max_value=10**6),
    boost=st.integers(min_value=0, max_value=5000),
)
def test_idle_rules(count, console, keyboard, kbd, con, up, boost) -> None:
    got = idle_split(
        count,
        Connections(console, keyboard, boost),
        keyboard_idle=kbd,
        console_idle=con,
        startd_uptime=up,
    )
    for index, (k, c) in enumerate(got):
        assert c == (con if index < console else up + boost)
        assert k == (kbd if index < keyboard else c)


# ---------------------------------------------------------------------------- rounding


def _half_even(value: float) -> float:
    """rint(value * 100) / 100 computed in decimal: the double product taken exactly,
    rounded half to even to an integer, divided as a double."""
    product = Decimal(value * 100.0)
    return float(product.quantize(Decimal(1), rounding=ROUND_HALF_EVEN)) / 100.0


@pytest.mark.parametrize(
    ("value", "published"),
    [(0.125, 0.12), (0.375, 0.38), (0.996, 1.0), (0.254, 0.25), (0.34, 0.34), (2.5e-3, 0.0)],
)
def test_publication_rounding_examples(value: float, published: float) -> None:
    assert publish(value) == published


@given(st.floats(min_value=0.0, max_value=1e6, allow_nan=False))
@example(0.125)
@example(0.005)
@example(1.005)
def test_publication_rounds_half_to_even(value: float) -> None:
    assert publish(value) == _half_even(value)


# ----------------------------------------------------------------------- the knobs


_PARAM = r"""
import json, sys
import htcondor2
htcondor2.set_subsystem("STARTD", htcondor2.SubsystemType.Startd)
htcondor2.reload_config()
names = json.loads(sys.argv[1])
print("\x00ORACLE" + json.dumps({n: htcondor2.param.get(n) for n in names}))
"""

KNOB_CONFIGS = [
    "",
    "use POLICY : Desktop\n",
    "use POLICY : UWCS_Desktop\n",
    "use POLICY : Desktop_Idle\n",
    "SLOTS_CONNECTED_TO_CONSOLE = 2 + 1\nSLOTS_CONNECTED_TO_KEYBOARD = 4\n",
    "DISCONNECTED_KEYBOARD_IDLE_BOOST = 10 * 60\nSLOTS_CONNECTED_TO_KEYBOARD = 7.9\n",
    "use POLICY : Desktop\nSLOTS_CONNECTED_TO_KEYBOARD = 1\n",
    "SLOTS_CONNECTED_TO_CONSOLE = true\nSLOTS_CONNECTED_TO_KEYBOARD = -1\n"
    "DISCONNECTED_KEYBOARD_IDLE_BOOST =\n",
]


@pytest.mark.oracle
@pytest.mark.parametrize("text", KNOB_CONFIGS)
def test_knobs_match_the_wheels_param(text: str, tmp_path: Path) -> None:
    """The integers the startd's param_integer gives, as the wheel's typed `param`."""
    path = tmp_path / "condor_config"
    path.write_text(text, encoding="utf-8")
    rules = load_rules()
    names = [rules.console_knob, rules.keyboard_knob, rules.boost_knob]
    env = clean_env({"CONDOR_CONFIG": str(path)})
    done = subprocess.run(
        [sys.executable, "-c", _PARAM, json.dumps(names)],
        env=env,
        capture_output=True,
        text=True,
        timeout=20,
        cwd=tmp_path,
        check=True,
    )
    oracle = json.loads(done.stdout.split("\x00ORACLE", 1)[1])
    got = connections(load_config(path), semantics="code")
    assert (got.console, got.keyboard, got.boost) == tuple(oracle[n] for n in names)


def test_desktop_template_connects_every_slot_in_both_semantics() -> None:
    config = load_config(text="use POLICY : Desktop\n")
    for semantics in ("code", "manual"):
        got = connections(config, semantics=semantics)
        assert got.console >= 1000000 and got.keyboard >= 1000000


def test_a_knob_the_startd_refuses_is_a_positioned_config_error() -> None:
    config = load_config(text='\nSLOTS_CONNECTED_TO_CONSOLE = "two"\n')
    with pytest.raises(ConfigError) as info:
        connections(config, semantics="code")
    assert info.value.line == 2
    assert "not an integer" in info.value.message
    config = load_config(text="SLOTS_CONNECTED_TO_KEYBOARD = 1 +\n")
    with pytest.raises(ConfigError, match="Invalid expression"):
        connections(config, semantics="code")


def test_unknown_semantics_is_refused() -> None:
    with pytest.raises(ValueError, match="semantics"):
        connections(load_config(text=""), semantics="legacy")


# ------------------------------------------------------------------------ bad documents


def test_every_problem_of_a_document_is_reported_with_its_key() -> None:
    doc = {
        "total_lod": 1.0,
        "condor_load": {"slot3": 0.5, "slot1": "high"},
        "slot_states": {"slot2": "Claimd"},
        "claim_rank": [1],
        "keyboard_idle": 1.5,
        "console_idle": -2,
        "startd_uptime": True,
    }
    with pytest.raises(PolicyError) as info:
        load_report(["slot1", "slot2"], doc, load_config(text=""), semantics="code")
    keys = [e.key for e in errors_of(info.value) if isinstance(e, LoadError)]
    assert keys == [
        "total_lod",
        "total_load",
        "condor_load.slot3",
        "condor_load.slot1",
        "slot_states.slot2",
        "claim_rank",
        "keyboard_idle",
        "console_idle",
        "startd_uptime",
    ]
    text = str(info.value)
    assert "did you mean 'total_load'?" in text
    assert "did you mean 'Claimed'?" in text


@pytest.mark.parametrize(
    ("doc", "key"),
    [
        ({"total_load": -1}, "total_load"),
        ({"total_load": float("nan")}, "total_load"),
        ({"total_load": float("inf")}, "total_load"),
        ({"total_load": "0.5"}, "total_load"),
        ({"total_load": 1, "condor_load": {"slot1": -0.1}}, "condor_load.slot1"),
        ({"total_load": 1, "condor_load": 3}, "condor_load"),
        ({"total_load": 1, "claim_rank": {"slot1": None}}, "claim_rank.slot1"),
        ({"total_load": 1, "startd_uptime": 10**30}, "startd_uptime"),
    ],
)
def test_bad_values(doc: dict, key: str) -> None:
    with pytest.raises(LoadError) as info:
        load_report(["slot1"], doc, load_config(text=""), semantics="code")
    assert info.value.key == key


def test_a_document_read_from_a_file_has_positions(tmp_path: Path) -> None:
    path = tmp_path / "load.yaml"
    path.write_text(
        "total_load: 0.5\ncondor_load:\n  slot1: 0.2\n  slot9: 0.1\nslot_states: {slot1: Busy}\n",
        encoding="utf-8",
    )
    doc = read_load_document(path)
    with pytest.raises(PolicyErrors) as info:
        load_report(["slot1", "slot2"], doc, load_config(text=""), semantics="code")
    found = {
        e.key: (e.file, e.line, e.column) for e in info.value.errors if isinstance(e, LoadError)
    }
    assert found == {
        "condor_load.slot9": (str(path), 4, 3),
        "slot_states.slot1": (str(path), 5, 22),
    }
    assert "  slot9: 0.1" in str(info.value)


def test_a_missing_total_load_is_placed_at_the_document(tmp_path: Path) -> None:
    path = tmp_path / "load.yaml"
    path.write_text("# no total\n\nkeyboard_idle: 3\n", encoding="utf-8")
    with pytest.raises(LoadError) as info:
        load_report(["slot1"], read_load_document(path), load_config(text=""), semantics="code")
    assert (info.value.key, info.value.file, info.value.line) == ("total_load", str(path), 3)


def test_a_json_file_reads_like_the_mapping(tmp_path: Path) -> None:
    path = tmp_path / "load.json"
    path.write_text(json.dumps(SECOND_LOG), encoding="utf-8")
    config = load_config(text=BOTH.format(n=1))
    from_file = load_report(["slot1", "slot2"], read_load_document(path), config, semantics="code")
    assert from_file == load_report(["slot1", "slot2"], SECOND_LOG, config, semantics="code")


@pytest.mark.parametrize(
    ("text", "line"),
    [("[1, 2]\n", 1), ("total_load: 1\n  bad: [\n", 2), ('{"total_load": 1,,}\n', 1), ("", 1)],
)
def test_files_that_are_not_load_documents(text: str, line: int, tmp_path: Path) -> None:
    path = tmp_path / "load.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LoadError) as info:
        read_load_document(path)
    assert info.value.file == str(path)
    assert info.value.line == line


def test_missing_file_is_a_load_error(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="no such file"):
        read_load_document(tmp_path / "absent.json")


def test_many_slots_every_state() -> None:
    """Sanity on a 7-slot machine: owner load 3.2 goes to the first four slots of the walk."""
    names = [f"slot{i}" for i in range(1, 8)]
    states = dict(zip(names, reversed(STATES), strict=True))
    doc = {"total_load": 3.2, "slot_states": states}
    report = load_report(names, doc, load_config(text=""), semantics="code")
    by_state = {states[n]: report["slots"][n]["OwnerLoad"] for n in names}
    assert [by_state[s] for s in STATES] == [1.0, 1.0, 1.0, 0.2, 0.0, 0.0, 0.0]
    assert list(report["slots"]) == names  # creation order in the output
    assert list(report["machine"]) == ["TotalLoadAvg", "TotalCondorLoadAvg"]


# ------------------------------------------------ ads of a real startd (HTCondor's tests)

# HTCondor's src/condor_tests/StatusAds/ hold ads of an 8.2.6 startd (ingwe.cs.wisc.edu).
# That startd read neither knob from its configuration and fell back to the legacy
# defaults of startd_main.cpp `init_params` (console: every core; keyboard: KEYBOARD_CPUS,
# 1), so the configurations below set those values explicitly. Its owner-load walk is the
# same as 23.0's for loads below 1.0.
LEGACY = "SLOTS_CONNECTED_TO_CONSOLE = {console}\nSLOTS_CONNECTED_TO_KEYBOARD = 1\n"


def test_statusads_partitionable8core() -> None:
    """StatusAds/partionable8core: one snapshot (MyCurrentTime 1417808323) of p-slot
    slot1 (Unclaimed) and its d-slots slot1_1..slot1_4 (Claimed, Rank 0, no HTCondor
    load); TotalLoadAvg 0.11, the p-slot's KeyboardIdle 25, ConsoleIdle 14681334 on all.
    The ads: slot1 LoadAvg 0.11 KeyboardIdle 25; every d-slot LoadAvg 0.0 and KeyboardIdle
    14681334 (its ConsoleIdle). The p-slot stays Unclaimed, so it comes first."""
    names = ["slot1", "slot1_1", "slot1_2", "slot1_3", "slot1_4"]
    states = {name: "Claimed" for name in names[1:]} | {"slot1": "Unclaimed"}
    doc = {"total_load": 0.11, "slot_states": states, "keyboard_idle": 25, "console_idle": 14681334}
    config = load_config(text=LEGACY.format(console=8))
    report = load_report(names, doc, config, semantics="code")
    assert report["slots"]["slot1"] == {
        "OwnerLoad": 0.11,
        "LoadAvg": 0.11,
        "CondorLoadAvg": 0.0,
        "KeyboardIdle": 25,
        "ConsoleIdle": 14681334,
    }
    for name in names[1:]:
        assert report["slots"][name]["LoadAvg"] == 0.0
        assert report["slots"][name]["KeyboardIdle"] == 14681334
        assert report["slots"][name]["ConsoleIdle"] == 14681334
    assert report["machine"] == {"TotalLoadAvg": 0.11, "TotalCondorLoadAvg": 0.0}


def test_statusads_basic4slot_unclaimed_slots() -> None:
    """StatusAds/basic4slot: slot3 and slot4 Unclaimed (ads at MyCurrentTime 1417808260
    and ...61), slot1 and slot2 Claimed with Rank 0 and no HTCondor load; TotalLoadAvg
    0.11 in the Unclaimed slots' ads. The ads: slot3 LoadAvg 0.11 KeyboardIdle 43, slot4
    LoadAvg 0.0 KeyboardIdle = its ConsoleIdle 14681274. (The Claimed slots' ads were taken
    8 s later with another load and are not compared.)"""
    names = ["slot1", "slot2", "slot3", "slot4"]
    states = {"slot1": "Claimed", "slot2": "Claimed", "slot3": "Unclaimed", "slot4": "Unclaimed"}
    doc = {"total_load": 0.11, "slot_states": states, "keyboard_idle": 43, "console_idle": 14681274}
    config = load_config(text=LEGACY.format(console=4))
    report = load_report(names, doc, config, semantics="code")
    assert report["slots"]["slot3"]["LoadAvg"] == 0.11
    assert (report["slots"]["slot3"]["KeyboardIdle"], report["slots"]["slot3"]["ConsoleIdle"]) == (
        43,
        14681274,
    )
    assert report["slots"]["slot4"]["LoadAvg"] == 0.0
    assert report["slots"]["slot4"]["KeyboardIdle"] == 14681274


# ------------------------------------------------------------------ the spec data itself

SHIPPED = Path(__file__).resolve().parents[2] / "spec" / "slots_load.yaml"


def _edited(tmp_path: Path, old: str, new: str) -> Path:
    text = SHIPPED.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "slots_load.yaml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("old", "new", "key"),
    [
        ("default_state: Owner", "default_state: Idle", "default_state"),
        ("owner_load_step: 1.0", "owner_load_step: 0", "owner_load_step"),
        ("publish_decimals: 2", "publish_decimals: two", "publish_decimals"),
        ("    connected_when_unset: all", "    connected_when_unset: some", "semantics.manual"),
        ("  manual:\n", "  manuel:\n", "semantics.manual"),
        ("rank_ordered_states: [Claimed", "rank_ordered_states: [Busy", "rank_ordered_states"),
        ("  boost: DISCONNECTED", "  boost: OTHER", "knob_fallbacks"),
        ("publish_decimals: 2", "publish_decimals: 2\nrounding: even", "rounding"),
    ],
)
def test_a_malformed_spec_file_names_the_key(tmp_path: Path, old: str, new: str, key: str) -> None:
    from compiler.spec import SpecError

    with pytest.raises(SpecError) as info:
        load_rules(_edited(tmp_path, old, new))
    assert any(problem.startswith(key) for problem in info.value.problems), info.value.problems
