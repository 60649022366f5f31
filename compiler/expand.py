"""Guard expansion: spec guard text + configuration -> one ClassAd AST per context.

Stage: compiler, between `compiler.config` (named expressions) and `compiler.simplify`.
A spec guard names policy knobs (START, WANT_SUSPEND, ...), predicates (JobRunning, ...)
and attributes. `Expander.guard(text, against)` returns the guard with the knobs replaced
by the configuration's expressions, evaluated as far as the context allows. It never
simplifies, never evaluates at run time, never prints.

Rules (each one mirrors what the startd does when it evaluates the knob):

* Policy names (`EraSpec.name_kind(name) == "policy"`, aliases case-insensitive, e.g.
  IsOwner for IS_OWNER), unscoped or `MY.`, are replaced by the configuration's expanded
  expression (the first of name/aliases the configuration defines, defaults included); a
  name the configuration never defines takes the spec's `Policy.default`, else UNDEFINED.
  A name defined with an empty value (e.g. `CLAIM_WORKLIFE =` in POLICY : Desktop) is
  UNDEFINED, as `param()` finds nothing. Replacement is recursive, because the startd
  publishes its policy expressions in the slot ad and one may refer to another (6.8's
  PREEMPT uses `SUSPEND && (WANT_SUSPEND == False)`). A cycle evaluates to UNDEFINED,
  as in the ClassAd evaluator, and is reported.
* Names the configuration exports to the slot ad (STARTD_ATTRS, STARTD_EXPRS, and the
  6.x `NAME : value` syntax) are machine attributes whose value is that expression, so
  they are substituted the same way (`IsDesktop` in seed 001's desktop example).
* `_VANILLA`/`_VM` variants (`Policy.variants`) apply where the startd looks a knob up,
  i.e. for a name written in the spec guard itself, not for a reference inside another
  expression (that one reads the slot ad's attribute). With NAME_VANILLA defined, the
  manual's rule ("the vanilla expressions are used for vanilla jobs") is
  `TARGET.JobUniverse =?= 5 ? V : E`; the code's (`Resource::eval_expr`: used when it
  evaluates to a boolean or a number) is
  `TARGET.JobUniverse =?= 5 && (isBoolean(V) || isInteger(V) || isReal(V)) ? V : E`.
* `against == "local"` ("locally evaluates to"): the machine ad alone, no job ad. So
  `TARGET.x` is UNDEFINED, and so is an unscoped name the slot ad does not hold: the
  slot ad holds the documented machine attributes (spec/attributes.yaml), the era's
  predicates and policy names, the exported names above, the `<Name>Value`/`<Name>Time`
  latches of STARTD_LATCH_EXPRS and the `slotN_`/`vmN_` cross-slot attributes. Any other
  unscoped name is taken to be a job attribute and replaced by UNDEFINED; names neither
  list documents are reported in `unknown_local` so the user can see the assumption.
  `MY.x` for such a name is UNDEFINED too (the slot ad does not hold it, and `MY.` never
  falls back to a job ad): reported in `absent_local`.
  `against == "job"` / `"preempting_job"`: names are left alone (unscoped names resolve
  in MY, then TARGET, at run time).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import msgspec

from compiler.attributes import load_attributes
from compiler.classad import ast as A
from compiler.classad import parse
from compiler.classad.ast import map_children
from compiler.classad.errors import ClassAdSyntaxError
from compiler.config import Config
from compiler.errors import PolicyError
from compiler.program import KnobSource
from compiler.spec import VARIANT_UNIVERSES, EraSpec, Policy

UNDEFINED_EXPR = A.UndefinedLit()
_CROSS_SLOT = re.compile(r"^(slot|vm)\d+_", re.IGNORECASE)
_EXPORT_LISTS = ("STARTD_ATTRS", "STARTD_EXPRS")
_LATCH_LISTS = ("STARTD_LATCH_EXPRS", "SYSTEM_STARTD_LATCH_EXPRS")


class PolicyValue(msgspec.Struct, frozen=True):
    """Where a policy name's expression came from: `source` is "config" (with the
    configuration's own spelling in `name`), "default" (the spec's era default),
    "empty" (defined with no value) or "undefined"."""

    policy: Policy
    name: str
    source: KnobSource
    expr: A.Expr | None


class Expander(msgspec.Struct):
    """Expands guards of one era/semantics against one configuration.

    Not shared between compilations: it memoises per (name, context) and collects the
    warnings of this run (`warnings`, `unknown_local`).
    """

    spec: EraSpec
    config: Config
    warnings: list[str] = msgspec.field(default_factory=list)
    unknown_local: set[str] = msgspec.field(default_factory=set)
    absent_local: set[str] = msgspec.field(default_factory=set)
    _values: dict[str, PolicyValue] = msgspec.field(default_factory=dict)
    _bodies: dict[tuple[str, str], A.Expr] = msgspec.field(default_factory=dict)
    _exports: dict[str, str] | None = None
    _machine: frozenset[str] | None = None
    _job: frozenset[str] = frozenset()

    # -- public -------------------------------------------------------------------------

    def guard(self, text: str, against: str) -> A.Expr:
        """The spec guard `text`, expanded for the `against` context."""
        try:
            tree = parse(text)
        except ClassAdSyntaxError as err:  # a spec bug, but say where
            raise PolicyError(f"spec guard {text!r} does not parse: {err}") from None
        return self._walk(tree, against, (), top=True)

    def value(self, name: str) -> PolicyValue:
        """The configuration's (or default) expression for policy `name` (unexpanded)."""
        policy = self.spec.policy(name)
        found = self._values.get(policy.name)
        if found is None:
            found = self._lookup(policy)
            self._values[policy.name] = found
        return found

    def variant_value(self, policy: Policy, suffix: str) -> PolicyValue:
        """The configuration's expression for NAME_VANILLA/NAME_VM (unexpanded); a variant
        has no era default, so it is "config", "empty" or "undefined"."""
        name = policy.name + suffix
        where = self.config.where(name)
        if where is None:
            return PolicyValue(policy, name, "undefined", None)
        expr = self.config.expr(name)  # raises ConfigError with file:line on bad text
        return PolicyValue(policy, where.name, "config" if expr is not None else "empty", expr)

    # -- look-ups ---------------------------------------------------------------------

    def _lookup(self, policy: Policy) -> PolicyValue:
        for name in (policy.name, *policy.aliases):
            where = self.config.where(name)
            if where is None:
                continue
            expr = self.config.expr(name)  # raises ConfigError with file:line on bad text
            if expr is None:
                return PolicyValue(policy, where.name, "empty", None)
            return PolicyValue(policy, where.name, "config", expr)
        if policy.default is not None:
            return PolicyValue(policy, policy.name, "default", parse(policy.default))
        return PolicyValue(policy, policy.name, "undefined", None)

    def _export_names(self) -> dict[str, str]:
        """Lower-case name -> config name, for names the configuration puts in the slot ad."""
        if self._exports is None:
            names: dict[str, str] = {}
            for listing in _EXPORT_LISTS:
                for item in _split_list(self.config.get(listing)):
                    names[item.lower()] = item
            for item in self.config.exported():
                names[item.lower()] = item
            self._exports = names
        return self._exports

    def _machine_names(self) -> frozenset[str]:
        if self._machine is None:
            table = load_attributes()
            names = set(table.machine())
            names |= {p.name.lower() for p in self.spec.predicates}
            for policy in self.spec.policies:
                names |= {n.lower() for n in (policy.name, *policy.aliases)}
            names |= {a.lower() for a in self.spec.attributes if a.lower() in table.machine()}
            names |= set(self._export_names())
            for listing in _LATCH_LISTS:
                for item in _split_list(self.config.get(listing)):
                    names |= {f"{item.lower()}value", f"{item.lower()}time"}
            self._machine = frozenset(names)
            self._job = table.job()
        return self._machine

    # -- the walk ---------------------------------------------------------------------

    def _walk(self, e: A.Expr, against: str, stack: tuple[str, ...], *, top: bool) -> A.Expr:
        match e:
            case A.AttrRef(name=name, scope=None | "MY") if self.spec.name_kind(name) == "policy":
                return self._policy(name, against, stack, top=top)
            case A.AttrRef(name=name, scope=None | "MY") if name.lower() in self._export_names():
                return self._export(name, against, stack)
            case A.AttrRef(scope="TARGET") if against == "local":
                return UNDEFINED_EXPR
            case A.AttrRef(name=name, scope=None) if against == "local":
                return e if self._is_machine(name) else UNDEFINED_EXPR
            case A.AttrRef(name=name, scope="MY") if against == "local":
                if self._in_slot_ad(name):
                    return e
                self.absent_local.add(name)
                return UNDEFINED_EXPR
            case _:
                return map_children(e, self._child(against, stack, top))

    def _child(self, against: str, stack: tuple[str, ...], top: bool) -> Callable[[A.Expr], A.Expr]:
        # `top`: still in the spec guard's own text (variants apply), not in a knob's body.
        return lambda x: self._walk(x, against, stack, top=top)

    def _in_slot_ad(self, name: str) -> bool:
        key = name.lower()
        return key in self._machine_names() or bool(_CROSS_SLOT.match(key))

    def _is_machine(self, name: str) -> bool:
        key = name.lower()
        if key in self._machine_names() or _CROSS_SLOT.match(key):
            return True
        if key not in self._job:
            self.unknown_local.add(name)
        return False

    def _policy(self, name: str, against: str, stack: tuple[str, ...], *, top: bool) -> A.Expr:
        policy = self.spec.policy(name)
        body = self._body(policy.name, against, stack)
        if not top:
            return body
        for suffix in policy.variants:
            variant = self._variant(policy, suffix, against, stack)
            if variant is not None:
                body = self._choose(suffix, variant, body)
        return body

    def _body(self, key: str, against: str, stack: tuple[str, ...]) -> A.Expr:
        if key.lower() in (s.lower() for s in stack):
            self._warn(
                f"cyclic policy reference {' -> '.join((*stack, key))}: "
                "evaluates to UNDEFINED, as in the ClassAd evaluator"
            )
            return UNDEFINED_EXPR
        cached = self._bodies.get((key.lower(), against))
        if cached is not None and not stack:
            return cached
        found = self.value(key)
        if found.expr is None:
            self.report_undefined(found)
            result: A.Expr = UNDEFINED_EXPR
        else:
            result = self._walk(found.expr, against, (*stack, key), top=False)
        if not stack:
            self._bodies[(key.lower(), against)] = result
        return result

    def _export(self, name: str, against: str, stack: tuple[str, ...]) -> A.Expr:
        config_name = self._export_names()[name.lower()]
        if config_name.lower() in (s.lower() for s in stack):
            self._warn(f"cyclic reference {' -> '.join((*stack, config_name))}: UNDEFINED")
            return UNDEFINED_EXPR
        try:
            expr = self.config.expr(config_name)
        except PolicyError as err:
            # The startd cannot put an unparsable expression into the slot ad, so the
            # attribute is missing there (UNDEFINED); policy knobs, in contrast, are fatal.
            self._warn(f"{err.format()} (exported attribute {config_name} taken as UNDEFINED)")
            return UNDEFINED_EXPR
        if expr is None:
            return UNDEFINED_EXPR
        return self._walk(expr, against, (*stack, config_name), top=False)

    def _variant(
        self, policy: Policy, suffix: str, against: str, stack: tuple[str, ...]
    ) -> A.Expr | None:
        name = policy.name + suffix
        if self.config.where(name) is None:
            return None
        expr = self.config.expr(name)
        if expr is None:
            return None
        return self._walk(expr, against, (*stack, name), top=False)

    def _choose(self, suffix: str, variant: A.Expr, body: A.Expr) -> A.Expr:
        universe = A.Binary(
            "=?=", A.AttrRef("JobUniverse", "TARGET"), A.Integer(VARIANT_UNIVERSES[suffix])
        )
        cond: A.Expr = universe
        if self.spec.semantics == "code":
            usable = A.Binary(
                "||",
                A.Binary("||", A.Call("isBoolean", (variant,)), A.Call("isInteger", (variant,))),
                A.Call("isReal", (variant,)),
            )
            cond = A.Binary("&&", universe, usable)
        return A.Conditional(cond, variant, body)

    def report_undefined(self, found: PolicyValue) -> None:
        """Warn when an undefined knob would stop the era's startd (if_undefined fatal)."""
        policy = found.policy
        how = "defined empty" if found.source == "empty" else "not defined"
        if policy.if_undefined == "fatal":
            d_number = "D2" if policy.name == "IS_OWNER" else "D13"
            self._warn(
                f"{policy.name} is {how}: the {self.spec.era} startd "
                f"({self.spec.semantics} semantics) refuses to run with an undefined "
                f"{policy.name} (reference {d_number}); guards treat it as UNDEFINED"
            )

    def _warn(self, text: str) -> None:
        if text not in self.warnings:
            self.warnings.append(text)


def _split_list(text: str | None) -> list[str]:
    """HTCondor's list syntax: names separated by commas and/or white space."""
    if not text:
        return []
    return [item for item in re.split(r"[,\s]+", text) if item]
