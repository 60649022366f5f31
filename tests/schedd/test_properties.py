"""Property tests (hypothesis, derandomized): the requirement walk against a small
independent model of `Scheduler::checkSubmitRequirements` + condor_submit's "newest
message", and laws of the transform language (RENAME = COPY then DELETE; DEFAULT never
overwrites; a transform whose REQUIREMENTS is false changes nothing)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from compiler.classad import ClassAd, parse
from compiler.classad import ast as A
from compiler.schedd.requirements import SubmitRequirement, check_requirements
from compiler.schedd.transforms import apply_transforms, parse_native

#: Requirement values as ClassAd literals, with how the schedd classifies each.
VALUES = {
    "true": "pass",
    "false": "fail",
    "1": "pass",
    "0": "fail",
    "0.0": "fail",
    "2.5": "pass",
    "undefined": "non-boolean",
    "error": "non-boolean",
    '"yes"': "non-boolean",
    "{1, 2}": "not evaluated",
}

entries = st.lists(
    st.tuples(st.sampled_from(sorted(VALUES)), st.booleans()), min_size=0, max_size=6
)


def _model(items: list[tuple[str, bool]]) -> tuple[str | None, str | None]:
    """(rejecting requirement, newest message) written from the rules in the docs."""
    newest = None
    for index, (value, warning) in enumerate(items):
        name = f"R{index}"
        kind = VALUES[value]
        if kind == "non-boolean":
            return name, f"Submit requirement {name} evaluated to non-boolean.\n"
        if kind == "not evaluated":
            return name, f"Submit requirement {name} failed to evaluate.\n"
        if kind == "fail":
            newest = f"reason {index}"
            if not warning:
                return name, newest
    return None, newest


@given(entries)
def test_requirement_walk_matches_the_model(items: list[tuple[str, bool]]) -> None:
    requirements = [
        SubmitRequirement(f"R{i}", parse(v), v, A.String(f"reason {i}"), None, w)
        for i, (v, w) in enumerate(items)
    ]
    result = check_requirements(requirements, ClassAd(), ClassAd())
    newest = result.problems[-1].message if result.problems else None
    assert (result.rejected_by, newest) == _model(items)


names = st.sampled_from(["Foo", "Bar", "baz", "Qux_1"])
values = st.sampled_from(["1", '"s"', "true", "X + 1", "undefined"])


@given(st.dictionaries(names, values, max_size=4), names, names)
def test_rename_is_copy_then_delete(attrs: dict[str, str], old: str, new: str) -> None:
    job = ClassAd({k: parse(v) for k, v in attrs.items()})
    renamed = apply_transforms((parse_native("R", f"RENAME {old} {new}"),), job).ad
    if old.lower() == new.lower():
        return  # renaming onto itself: nothing to compare
    copied = apply_transforms((parse_native("C", f"COPY {old} {new}\nDELETE {old}"),), job).ad
    assert dict(renamed.lowered()) == dict(copied.lowered())


@given(st.dictionaries(names, values, max_size=4), names, values)
def test_default_never_overwrites(attrs: dict[str, str], name: str, value: str) -> None:
    job = ClassAd({k: parse(v) for k, v in attrs.items()})
    out = apply_transforms((parse_native("D", f"DEFAULT {name} {value}"),), job).ad
    if name in job:
        assert out[name] == job[name]
    else:
        assert out[name] == parse(value)


@given(st.dictionaries(names, values, max_size=4))
def test_a_transform_that_does_not_match_changes_nothing(attrs: dict[str, str]) -> None:
    job = ClassAd({k: parse(v) for k, v in attrs.items()})
    rules = "REQUIREMENTS false\nSET Foo = 2\nDELETE /.*/\nRENAME Bar Other"
    result = apply_transforms((parse_native("N", rules),), job)
    assert result.applied == ()
    assert dict(result.ad.lowered()) == dict(job.lowered())
