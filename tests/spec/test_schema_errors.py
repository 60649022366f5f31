"""Every schema problem is a SpecError naming the file and the key path.

Each test writes a small era next to a copy of the real vocabulary (base.yaml) in a
temporary directory, breaks one thing, and checks the message.
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from compiler.errors import PolicyError
from compiler.spec import SpecError, load_spec, load_spec_file
from spec import data_path

MINI: dict[str, Any] = {
    "era": "mini",
    "seed": "none.txt",
    "numbered_transitions": 2,
    "initial": "Owner/Idle",
    "states": {"Owner": {"activities": ["Idle"]}, "Unclaimed": {"activities": ["Idle"]}},
    "policies": {"IS_OWNER": {}},
    "transitions": [
        {"number": 1, "from": "Owner/Idle", "to": "Unclaimed/Idle",
         "triggers": [{"kind": "policy", "guard": "!IS_OWNER", "order": 10}],
         "citation": {"section": "Owner State", "anchor": "x"}},
        {"number": 2, "from": "Unclaimed/Idle", "to": "Owner/Idle",
         "triggers": [{"kind": "policy", "guard": "IS_OWNER", "order": 10}],
         "citation": {"section": "Unclaimed State", "anchor": "y"}},
    ],
}  # fmt: skip


def write(tmp_path: Path, era: dict[str, Any], name: str = "mini") -> Path:
    shutil.copy(data_path("eras", "base.yaml"), tmp_path / "base.yaml")
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(era, sort_keys=False), encoding="utf-8")
    return path


def error_of(tmp_path: Path, era: dict[str, Any], semantics: str = "manual") -> SpecError:
    path = write(tmp_path, era)
    with pytest.raises(SpecError) as info:
        load_spec_file(path, semantics)
    assert info.value.file is not None and info.value.file.endswith("mini.yaml")
    assert isinstance(info.value, PolicyError)
    return info.value


def mini() -> dict[str, Any]:
    return copy.deepcopy(MINI)


def test_the_minimal_era_loads(tmp_path: Path) -> None:
    spec = load_spec_file(write(tmp_path, mini()), "code")
    assert [r.number for r in spec.transitions] == [1, 2]
    assert spec.state("Owner").evaluation_order[0].guard == "!IS_OWNER"


def test_unknown_top_level_key_names_the_allowed_ones(tmp_path: Path) -> None:
    era = mini()
    era["colour"] = "blue"
    err = error_of(tmp_path, era)
    assert err.key_path == "colour"
    assert "unknown key 'colour' (allowed: era, extends," in err.message
    assert str(err).startswith(f"{err.file}:{err.line}: colour: unknown key")
    assert err.source_line == "colour: blue"


def test_unknown_trigger_key_suggests_the_close_one(tmp_path: Path) -> None:
    era = mini()
    era["transitions"][0]["triggers"][0]["gaurd"] = "START"
    err = error_of(tmp_path, era)
    assert "transitions[0].triggers[0].gaurd: unknown key 'gaurd'" in err.message
    assert "did you mean 'guard'?" in err.message


def test_unknown_state(tmp_path: Path) -> None:
    era = mini()
    era["transitions"][0]["to"] = "Unclaimd/Idle"
    err = error_of(tmp_path, era)
    assert "transitions[0].to: unknown state 'Unclaimd'" in err.message
    assert "did you mean 'Unclaimed'?" in err.message


def test_unknown_activity(tmp_path: Path) -> None:
    era = mini()
    era["states"]["Claimed"] = {"activities": ["Idle", "Retiring"]}
    era["transitions"][1]["to"] = "Claimed/Retireing"
    err = error_of(tmp_path, era)
    assert (
        "transitions[1].to: unknown activity of Claimed 'Retireing' (known: Idle, Retiring)"
        in err.message
    )


def test_pair_that_does_not_exist_in_the_era(tmp_path: Path) -> None:
    era = mini()
    era["transitions"][0]["from"] = "Owner/Busy"  # Busy is a real activity, not of Owner here
    err = error_of(tmp_path, era)
    assert "transitions[0].from: unknown activity of Owner 'Busy' (known: Idle)" in err.message


def test_vocabulary_rejects_unknown_state_and_activity_names(tmp_path: Path) -> None:
    era = mini()
    era["states"]["Sleeping"] = {"activities": ["Dozing"]}
    err = error_of(tmp_path, era)
    assert "states.Sleeping: unknown state 'Sleeping'" in err.message


def test_duplicate_number_in_one_file(tmp_path: Path) -> None:
    era = mini()
    era["transitions"].append(copy.deepcopy(era["transitions"][1]))
    err = error_of(tmp_path, era)
    assert "transitions[2].number: duplicate number 2" in err.message


def test_duplicate_number_from_another_source(tmp_path: Path) -> None:
    era = mini()
    era["states"]["Unclaimed"]["activities"] = ["Idle", "Benchmarking"]
    era["transitions"].append(
        {**copy.deepcopy(era["transitions"][1]), "from": "Unclaimed/Benchmarking"}
    )
    err = error_of(tmp_path, era)
    assert "transitions[2].number: duplicate number 2" in err.message


def test_numbered_rows_must_match_the_declared_count(tmp_path: Path) -> None:
    era = mini()
    era["numbered_transitions"] = 3
    err = error_of(tmp_path, era)
    assert "transitions: numbered rows must be exactly 1..3 (missing [3]" in err.message


def test_unreachable_pair(tmp_path: Path) -> None:
    era = mini()
    era["states"]["Matched"] = {"activities": ["Idle"]}
    err = error_of(tmp_path, era)
    assert "pairs.Matched/Idle: unreachable pair 'Matched/Idle'" in err.message


def test_pair_reachable_only_in_code_is_unreachable_in_manual(tmp_path: Path) -> None:
    era = mini()
    era["states"]["Matched"] = {"activities": ["Idle"]}
    era["numbered_transitions"] = 3
    era["transitions"].append({"number": 3, "from": "Unclaimed/Idle", "to": "Matched/Idle",
                               "triggers": [{"kind": "protocol", "event": "match", "semantics": "code"}],
                               "citation": {"section": "s", "anchor": "z"}})  # fmt: skip
    assert load_spec_file(write(tmp_path, era), "code").transition(3)
    err = error_of(tmp_path, era, "manual")
    assert "no trigger applies to semantics 'manual'" in err.message


def test_guard_with_an_unknown_name(tmp_path: Path) -> None:
    era = mini()
    era["transitions"][0]["triggers"][0]["guard"] = "!IS_OWNER && InRetirment"
    err = error_of(tmp_path, era)
    assert "transitions[0].triggers[0].guard: unknown name 'InRetirment'" in err.message
    assert "did you mean 'InRetirement'?" in err.message


def test_guard_that_is_not_classad(tmp_path: Path) -> None:
    classad = pytest.importorskip("compiler.classad")
    if getattr(classad, "parse", None) is None:
        pytest.skip("compiler.classad.parse not available yet")
    era = mini()
    era["transitions"][0]["triggers"][0]["guard"] = "!IS_OWNER &&"
    err = error_of(tmp_path, era)
    assert (
        "transitions[0].triggers[0].guard: guard '!IS_OWNER &&' is not valid ClassAd" in err.message
    )


def test_unknown_event_and_wrong_event_kind(tmp_path: Path) -> None:
    era = mini()
    era["transitions"][0]["triggers"] = [{"kind": "protocol", "event": "matchh"},
                                         {"kind": "protocol", "event": "vacate"}]  # fmt: skip
    err = error_of(tmp_path, era)
    assert "transitions[0].triggers[0].event: unknown event 'matchh'" in err.message
    assert (
        "transitions[0].triggers[1].kind: event 'vacate' is a command event, not protocol"
        in err.message
    )


def test_policy_trigger_needs_guard_and_order(tmp_path: Path) -> None:
    era = mini()
    era["transitions"][0]["triggers"] = [{"kind": "policy"}]
    err = error_of(tmp_path, era)
    assert "transitions[0].triggers[0].guard: a policy trigger needs a guard" in err.message
    assert (
        "transitions[0].triggers[0].order: a policy trigger needs an integer order" in err.message
    )


def test_two_steps_of_one_pair_may_not_share_an_order(tmp_path: Path) -> None:
    era = mini()
    era["states"]["Matched"] = {"activities": ["Idle"]}
    era["numbered_transitions"] = 3
    era["transitions"].append({"number": 3, "from": "Owner/Idle", "to": "Matched/Idle",
                               "triggers": [{"kind": "policy", "guard": "IS_OWNER", "order": 10}],
                               "citation": {"section": "s", "anchor": "z"}})  # fmt: skip
    era["transitions"].append({"number": "unnumbered:back", "from": "Matched/Idle", "to": "Owner/Idle",
                               "triggers": [{"kind": "protocol", "event": "release"}],
                               "citation": {"reference": "r", "anchor": "z"}})  # fmt: skip
    err = error_of(tmp_path, era)
    assert (
        "transitions[2].triggers[0].order: order 10 of Owner/Idle is already used by transition 1"
        in err.message
    )


def test_action_with_a_bad_argument_and_unknown_timer(tmp_path: Path) -> None:
    era = mini()
    era["transitions"][0]["actions"] = [{"retire": "sometimes"}, {"start_timer": "MATCH_TIMEOUT"}]
    err = error_of(tmp_path, era)
    assert "transitions[0].actions[0]: unknown argument of retire 'sometimes'" in err.message
    assert "transitions[0].actions[1]: unknown timer 'MATCH_TIMEOUT'" in err.message


def test_wildcard_target_needs_an_activity_choice(tmp_path: Path) -> None:
    era = mini()
    era["states"]["Preempting"] = {"activities": ["Vacating", "Killing"]}
    era["transitions"][1]["to"] = "Preempting/*"
    err = error_of(tmp_path, era)
    assert (
        "transitions[1].to: 'Preempting/*' needs an activity_choice for Preempting" in err.message
    )


def test_letter_must_join_the_rows_states(tmp_path: Path) -> None:
    era = mini()
    era["letters"] = {"A": {"from": "Owner", "to": "Unclaimed", "numbers": [2], "cause": "c",
                            "citation": {"reference": "r", "anchor": "a"}}}  # fmt: skip
    era["transitions"][1]["letter"] = "A"
    err = error_of(tmp_path, era)
    assert (
        "transitions[1].letter: letter A is Owner -> Unclaimed, the row goes Unclaimed -> Owner"
        in err.message
    )


def test_citation_needs_an_anchor(tmp_path: Path) -> None:
    era = mini()
    del era["transitions"][0]["citation"]["anchor"]
    err = error_of(tmp_path, era)
    assert (
        "transitions[0].citation.anchor: every citation needs a non-empty anchor text"
        in err.message
    )


def test_all_problems_of_a_file_are_reported_together(tmp_path: Path) -> None:
    era = mini()
    era["colour"] = "blue"
    era["transitions"][0]["to"] = "Unclaimd/Idle"
    err = error_of(tmp_path, era)
    assert len(err.problems) >= 2
    assert err.message.count("\n") >= 1


def test_extends_merges_rows_by_number_and_detects_cycles(tmp_path: Path) -> None:
    write(tmp_path, mini())
    child = {"extends": "mini", "era": "child",
             "transitions": [{"number": 2, "summary": "overridden"}]}  # fmt: skip
    spec = load_spec_file(write(tmp_path, child, "child"))
    assert spec.transition(2).summary == "overridden"
    assert str(spec.transition(2).source) == "Unclaimed/Idle"
    looped = {**mini(), "extends": "loop"}
    write(tmp_path, {"extends": "mini", "era": "loop"}, "loop")
    with pytest.raises(SpecError, match="circular extends"):
        load_spec_file(write(tmp_path, looped), "manual")


def test_yaml_syntax_error_has_a_line(tmp_path: Path) -> None:
    path = write(tmp_path, mini())
    path.write_text("era: mini\nstates: [unclosed\n", encoding="utf-8")
    with pytest.raises(SpecError, match=r"line \d+: not valid YAML"):
        load_spec_file(path)


def test_unknown_era_and_semantics() -> None:
    with pytest.raises(SpecError, match=r"did you mean 'condor-6\.8'"):
        load_spec("condor-6.9")
    with pytest.raises(SpecError, match="unknown semantics 'both'"):
        load_spec("condor-6.8", "both")


def test_error_points_at_the_line_of_the_key_path(tmp_path: Path) -> None:
    era = mini()
    era["transitions"][1]["to"] = "Owner/Busy"
    err = error_of(tmp_path, era)
    assert err.line is not None and err.source_line is not None
    assert err.source_line.strip() == "to: Owner/Busy"
    assert err.format().startswith(f"{err.file}:{err.line}: transitions[1].to: unknown activity")


# -- options, helpers and event effects (base.yaml) ---------------------------------------


def base_error(tmp_path: Path, change: Any) -> SpecError:
    """Load the mini era next to a base.yaml changed by `change(data)`."""
    path = write(tmp_path, mini())
    data = yaml.safe_load((tmp_path / "base.yaml").read_text(encoding="utf-8"))
    change(data)
    (tmp_path / "base.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with pytest.raises(SpecError) as info:
        load_spec_file(path, "code")
    return info.value


def test_unknown_option_and_bad_option_value(tmp_path: Path) -> None:
    era = mini()
    era["options"] = {"cpu_busy_publsh": "last_change", "retirement_vacate_allowance": "yes"}
    err = error_of(tmp_path, era)
    assert "options.cpu_busy_publsh: unknown option 'cpu_busy_publsh'" in err.message
    assert "did you mean 'cpu_busy_publish'?" in err.message
    assert "option 'retirement_vacate_allowance' must be one of false, true, got 'yes'" in (
        err.message
    )


def test_options_not_written_take_the_vocabulary_default(tmp_path: Path) -> None:
    spec = load_spec_file(write(tmp_path, mini()), "code")
    assert dict(spec.options)["cpu_busy_publish"] == "since_busy"
    assert spec.helpers.cpu_busy.publish == (
        ("CpuIsBusy", "busy"), ("CpuBusy", "busy"), ("CpuBusyTime", "seconds_busy"),
    )  # fmt: skip
    era = mini()
    era["options"] = {"cpu_busy_publish": "last_change"}
    spec = load_spec_file(write(tmp_path, era), "code")
    assert dict(spec.helpers.cpu_busy.publish)["CpuBusyTime"] == "last_change"


def test_helper_keys_are_strict(tmp_path: Path) -> None:
    def change(data: dict[str, Any]) -> None:
        data["helpers"]["max_vacate_time"]["job_limit"] = "JobMaxVacateTime"
        del data["helpers"]["retirement_remaining"]["limit"]
        data["helpers"]["cpu_busy"]["publish"]["last_change"]["CpuBusyTime"] = "age"

    err = base_error(tmp_path, change)
    assert err.file.endswith("base.yaml")
    assert "helpers.max_vacate_time.job_limit: unknown key 'job_limit'" in err.message
    assert "did you mean 'job_limits'?" in err.message
    assert "helpers.retirement_remaining: required key 'limit' is missing" in err.message
    assert "unknown CpuBusy quantity 'age'" in err.message


def test_helper_limit_must_be_a_policy_name(tmp_path: Path) -> None:
    def change(data: dict[str, Any]) -> None:
        data["helpers"]["retirement_remaining"]["limit"] = "MaxJobRetirmentTime"

    err = base_error(tmp_path, change)
    assert "helpers.retirement_remaining.limit: unknown policy 'MaxJobRetirmentTime'" in (
        err.message
    )


def test_event_effects_are_actions_with_a_citation(tmp_path: Path) -> None:
    def change(data: dict[str, Any]) -> None:
        data["events"]["job_exit"]["effects"] = ["reap_startr"]
        data["events"]["lease_expired"]["effects"] = ["reap_starter"]

    err = base_error(tmp_path, change)
    assert "events.job_exit.effects[0]: unknown action 'reap_startr'" in err.message
    assert "events.lease_expired.citation: an event with effects needs a citation" in err.message


def test_event_effects_run_first_in_every_pair(tmp_path: Path) -> None:
    spec = load_spec_file(write(tmp_path, mini()), "code")
    first = spec.event_effects[0]
    assert (first.event, [str(a) for a in first.actions]) == ("job_exit", ["reap_starter"])
    assert set(first.sources) == {p.pair for p in spec.pairs}
