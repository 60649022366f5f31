"""ClassAd builtins whose answer depends on the site: `userHome`, `userMap`
(evaluation stage).

`userHome(name [, default])` looks the user up in the password database, as the
daemons do. `userMap(map, name [, preferred [, default]])` consults map files named by
the daemon's configuration; a compiled policy has none, so every mapping fails and the
function answers what HTCondor answers for an unknown user: UNDEFINED, or the default
argument of the four-argument form.
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


def user_map(args: list[Value], _ctx: FunctionContext) -> Value:
    """No map files are configured: ERROR if the map or user name is ERROR, else the
    fourth argument when given, else UNDEFINED."""
    if len(args) not in (2, 3, 4):
        return ERROR
    if args[0] is ERROR or args[1] is ERROR:
        return ERROR
    return args[3] if len(args) == 4 else UNDEFINED


BUILTINS: dict[str, FunctionImpl] = {
    "userhome": user_home,
    "usermap": user_map,
}
