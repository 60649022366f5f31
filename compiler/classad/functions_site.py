"""ClassAd builtins whose answer depends on the site: `userHome`, `userMap`
(evaluation stage).

`userHome(name [, default])` looks the user up in the password database, as the
daemons do. `userMap(map, name [, preferred [, default]])` consults map files named by
the daemon's configuration, given to the evaluation as the function context's `user_map`
(the schedd's maps: compiler.schedd.usermap); without one (a startd policy has none)
every mapping fails and the function answers what HTCondor answers for an unknown user:
UNDEFINED, or the default argument of the four-argument form.
"""

from __future__ import annotations

from compiler.classad.functions_context import FunctionContext, FunctionImpl
from compiler.classad.values import ERROR, UNDEFINED, Value


def _home_directory(user: str) -> str | None:
    try:
        import pwd  # Unix only; elsewhere no user has a home directory
    except ImportError:  # pragma: no cover - non-Unix hosts
        return None
    try:
        return pwd.getpwnam(user).pw_dir or None
    except (KeyError, ValueError):
        return None


def user_home(args: list[Value], _ctx: FunctionContext) -> Value:
    """The user's home directory; a non-empty string default replaces every failure;
    without one an unknown user is UNDEFINED and a non-string name ERROR."""
    if len(args) not in (1, 2):
        return ERROR
    default = args[1] if len(args) == 2 and isinstance(args[1], str) else ""
    name = args[0]
    if name is UNDEFINED and not default:
        return UNDEFINED
    if not isinstance(name, str):
        return default or ERROR
    home = _home_directory(name)
    if home is not None:
        return home
    return default or UNDEFINED


def user_map(args: list[Value], ctx: FunctionContext) -> Value:
    """HTCondor's `userMap` (src/condor_utils/compat_classad.cpp `userMap_func`).

    The maps are the context's `user_map` (none configured: every mapping fails). A
    mapping's text is a comma-separated list: the two-argument form returns it whole;
    the three- and four-argument forms return the preferred item (third argument,
    compared without case) when the list has it, else the first item. A failed mapping
    or an empty list gives the fourth argument when given, else UNDEFINED; ERROR if the
    map or user name is ERROR."""
    if len(args) not in (2, 3, 4):
        return ERROR
    default = args[3] if len(args) == 4 else UNDEFINED
    map_name, user = args[0], args[1]
    if not isinstance(map_name, str) or not isinstance(user, str):
        if map_name is ERROR or user is ERROR:
            return ERROR
        return default
    lookup = getattr(ctx, "user_map", None)
    output = lookup(map_name, user) if lookup is not None else None
    if output is None:
        return default
    if len(args) == 2:
        return output
    items = [item.strip() for item in output.split(",") if item.strip()]
    preferred = args[2]
    if isinstance(preferred, str):
        for item in items:
            if item.lower() == preferred.lower():
                return item
    return items[0] if items else default


BUILTINS: dict[str, FunctionImpl] = {
    "userhome": user_home,
    "usermap": user_map,
}
