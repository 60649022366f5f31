"""The printf formats of `$INT(X, fmt)`, `$REAL(X, fmt)` and `$STRING(X, fmt)`.

HTCondor hands the user's format to C's `snprintf` after checking it with
`validatePrintfFormat` (src/condor_utils/printf_format.cpp, `parsePrintfFormat`): the
format must hold exactly one conversion (`%%` does not count), of the right type, and
no `%n` or `*` width/precision. A rejected format becomes the expansion itself
(config.cpp, `evaluate_macro_func`). This module re-implements that check and the
one conversion in Python, so that a configuration expands the same on every platform
and no user text ever reaches a C formatter. Where C's output is undefined or depends
on the process (a `%p` of a string, a `long double` read from a `double`), we raise
`FormatUndefined` instead of guessing.
"""

from __future__ import annotations

import math
import re
from enum import Enum

import msgspec


class FormatUndefined(ValueError):
    """C prints something undefined or process-dependent for this format and value."""


class Kind(Enum):
    """What a conversion letter formats (printf_format.h, `printf_fmt_t`)."""

    NONE = 0
    INT = 1
    FLOAT = 2
    CHAR = 3
    STRING = 4
    POINTER = 5
    CRASH = 6
    OTHER = 7


_LETTER_KIND = {
    **dict.fromkeys("diouxX", Kind.INT),
    **dict.fromkeys("eEfFgGaA", Kind.FLOAT),
    "c": Kind.CHAR,
    "C": Kind.CHAR,
    "s": Kind.STRING,
    "S": Kind.STRING,
    "p": Kind.POINTER,
    "n": Kind.CRASH,
    **dict.fromkeys("VvrRTY", Kind.OTHER),
}

_SPEC = re.compile(
    r"%(?P<flags>[-#0 +']*)(?P<width>\*|\d*)(?:\.(?P<prec>\*|\d*))?"
    r"(?P<length>[hlLqjzt]*)(?P<letter>.?)",
    re.DOTALL,
)


class Spec(msgspec.Struct, frozen=True):
    """The one conversion of a format: `prefix %spec suffix`."""

    prefix: str
    flags: str
    width: int
    precision: int | None
    length: str
    letter: str
    suffix: str

    @property
    def kind(self) -> Kind:
        return _LETTER_KIND.get(self.letter, Kind.NONE)


def _next_spec(text: str, pos: int) -> tuple[re.Match[str] | None, int]:
    """The next conversion at or after `pos` (skipping `%%`), as `parsePrintfFormat` finds it."""
    while True:
        percent = text.find("%", pos)
        if percent < 0 or percent + 1 >= len(text):
            return None, len(text)
        if text[percent + 1] == "%":
            pos = percent + 2
            continue
        match = _SPEC.match(text, percent)
        assert match is not None
        return match, match.end()


def parse_format(fmt: str, kind: Kind) -> Spec | None:
    """The conversion of `fmt` if `validatePrintfFormat(fmt, kind)` accepts it, else None.

    Accepted: one conversion of type `kind` (for integers also `%c`; `%p` always), no
    `*`, no `%n`, and no second conversion after it.
    """
    match, end = _next_spec(fmt, 0)
    if match is None or not match["letter"] or match["letter"] not in _LETTER_KIND:
        return None
    if match["width"] == "*" or match["prec"] == "*" or match["letter"] == "n":
        return None
    found = _LETTER_KIND[match["letter"]]
    if not (found == kind or found == Kind.POINTER or (kind == Kind.INT and found == Kind.CHAR)):
        return None
    if _next_spec(fmt, end)[0] is not None and _spec_complete(fmt, end):
        return None
    prec = match["prec"]
    suffix = _drop_incomplete(fmt[end:].replace("%%", "\0"), fmt)
    return Spec(
        prefix=fmt[: match.start()].replace("%%", "%"),
        flags=match["flags"],
        width=int(match["width"] or 0),
        precision=None if prec is None else int(prec or 0),
        length=match["length"],
        letter=match["letter"],
        suffix=suffix.replace("\0", "%"),
    )


def _drop_incomplete(suffix: str, fmt: str) -> str:
    """glibc prints nothing for a conversion cut short by the end of the format (`%d%5`)."""
    stray = suffix.find("%")
    if stray < 0:
        return suffix
    match = _SPEC.match(suffix, stray)
    if match is not None and not match["letter"] and match.end() == len(suffix):
        return suffix[:stray]
    raise FormatUndefined(f"'{fmt}' has a stray '%' after its conversion")


def _spec_complete(fmt: str, pos: int) -> bool:
    """Whether a later `%...` is a whole conversion (`parsePrintfFormat` returns TRUE)."""
    match, _ = _next_spec(fmt, pos)
    return match is not None and match["letter"] in _LETTER_KIND and match["letter"] != "%"


def _pad(body: str, spec: Spec, zero_ok: bool, sign: str = "", prefix: str = "") -> str:
    """Apply width: left (`-`), zero padding after sign and prefix (`0`), or spaces."""
    size = len(sign) + len(prefix) + len(body)
    if size >= spec.width:
        return sign + prefix + body
    fill = spec.width - size
    if "-" in spec.flags:
        return sign + prefix + body + " " * fill
    if zero_ok and "0" in spec.flags:
        return sign + prefix + "0" * fill + body
    return " " * fill + sign + prefix + body


def _int_bits(spec: Spec) -> int:
    """How many bits of the 64-bit argument C reads for the conversion."""
    length = spec.length
    if length.startswith("hh"):
        return 8
    if length.startswith("h"):
        return 16
    if length and length[0] in "lLqjzt":
        return 64
    return 32


def format_int(spec: Spec, value: int) -> str:
    """`snprintf(fmt, (long long)value)` for one integer, char or pointer conversion."""
    letter = spec.letter
    if letter == "p":
        text = "(nil)" if value == 0 else f"0x{value & (2**64 - 1):x}"
        return spec.prefix + _pad(text, spec, False) + spec.suffix
    if letter in "cC":
        byte = value & 0xFF
        if byte >= 0x80:
            raise FormatUndefined(f"%{letter} of {value} is not a character")
        text = spec.prefix + _pad(chr(byte), spec, False) + spec.suffix
        return text.split("\0")[0]  # C's string ends at a NUL character
    bits = _int_bits(spec)
    unsigned = value & (2**bits - 1)
    signed = unsigned - 2**bits if unsigned >= 2 ** (bits - 1) else unsigned
    sign = ""
    if letter in "di":
        number = abs(signed)
        sign = "-" if signed < 0 else "+" if "+" in spec.flags else " " if " " in spec.flags else ""
        digits = str(number)
    elif letter == "u":
        number, digits = unsigned, str(unsigned)
    elif letter == "o":
        number, digits = unsigned, f"{unsigned:o}"
    else:
        number = unsigned
        digits = f"{unsigned:x}" if letter == "x" else f"{unsigned:X}"
    if spec.precision is not None:
        digits = "" if spec.precision == 0 and number == 0 else digits.zfill(spec.precision)
    prefix = ""
    if "#" in spec.flags:
        if letter == "o" and not digits.startswith("0"):
            digits = "0" + digits
        elif letter in "xX" and number != 0:
            prefix = "0" + letter
    return spec.prefix + _pad(digits, spec, spec.precision is None, sign, prefix) + spec.suffix


def format_real(spec: Spec, value: float) -> str:
    """`snprintf(fmt, value)` for one floating-point conversion."""
    if "L" in spec.length or "q" in spec.length or "ll" in spec.length:
        raise FormatUndefined(f"%{spec.length} reads a long double where HTCondor passes a double")
    letter = spec.letter
    if letter == "p":
        raise FormatUndefined("%p of a real prints whatever is in an integer register")
    if letter in "aA":
        return spec.prefix + _hex_float(spec, value) + spec.suffix
    # glibc pads an infinity or NaN with blanks even under the `0` flag
    zero = "0" if math.isfinite(value) else ""
    flags = "".join(f for f in spec.flags if f in "-+ #" + zero)
    prec = "" if spec.precision is None else f".{spec.precision}"
    body = f"%{flags}{spec.width or ''}{prec}{letter}" % value
    return spec.prefix + body + spec.suffix


def _hex_float(spec: Spec, value: float) -> str:
    """C's `%a`: `0x1.8p+1`, trailing zeros dropped unless a precision is given."""
    upper = spec.letter == "A"
    sign = "-" if math.copysign(1.0, value) < 0 else "+" if "+" in spec.flags else ""
    if not sign and " " in spec.flags:
        sign = " "
    if math.isinf(value) or math.isnan(value):
        text = "inf" if math.isinf(value) else "nan"
        return _pad(text.upper() if upper else text, spec, False, sign)
    mantissa, exponent = math.frexp(abs(value))
    if mantissa == 0:
        lead, fraction, exp = 0, 0, 0
    elif exponent < -1021:
        lead, fraction, exp = 0, int(abs(value) * 2.0**1074), -1022
    else:
        bits = int(mantissa * 2**53)
        lead, fraction, exp = 1, bits - 2**52, exponent - 1
    digits = f"{fraction:013x}"
    if spec.precision is None:
        digits = digits.rstrip("0")
    elif spec.precision < 13:
        keep = spec.precision
        scaled = (lead << 52) | fraction
        drop = 4 * (13 - keep)
        half = 1 << (drop - 1)
        rest = scaled & ((1 << drop) - 1)
        scaled >>= drop
        if rest > half or (rest == half and scaled & 1):
            scaled += 1
        lead, fraction = scaled >> (4 * keep), scaled & ((1 << (4 * keep)) - 1)
        digits = f"{fraction:0{keep}x}" if keep else ""
    else:
        digits = digits.ljust(spec.precision, "0")
    point = "." if digits or "#" in spec.flags else ""
    body = f"{lead}{point}{digits}p{exp:+d}"
    prefix = "0X" if upper else "0x"
    return _pad(body.upper() if upper else body, spec, True, sign, prefix)


def format_string(spec: Spec, value: str) -> str:
    """`snprintf(fmt, value)` for one `%s` conversion; width and precision count bytes."""
    if spec.letter != "s" or spec.length:
        raise FormatUndefined(f"%{spec.length}{spec.letter} of a string is not defined text")
    data = value.encode("utf-8", "surrogateescape")
    if spec.precision is not None:
        data = data[: spec.precision]
    if len(data) < spec.width:
        fill = b" " * (spec.width - len(data))
        data = data + fill if "-" in spec.flags else fill + data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise FormatUndefined("the precision cuts a character in half") from err
    return spec.prefix + text + spec.suffix
