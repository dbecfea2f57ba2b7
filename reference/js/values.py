"""JavaScript value semantics the real readers rely on, for parsed JSON values.

The oracles are JavaScript: their ``if (x)``, ``===``, ``??`` and ``x.y`` on
whatever a line happened to contain decide what is kept. These helpers give
the same answers for values that came out of a JSON parser, so the stages can
say what they mean without re-deriving JS rules at every use.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final


class _Undefined:
    """JavaScript's ``undefined``: a missing key, distinct from JSON ``null``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "undefined"

    def __bool__(self) -> bool:
        return False


UNDEFINED: Final = _Undefined()


def prop(value: Any, key: str) -> Any:
    """``value?.[key]`` for a parsed JSON value (only objects have properties here)."""
    if type(value) is dict:
        return value.get(key, UNDEFINED)
    return UNDEFINED


def truthy(value: Any) -> bool:
    """JavaScript truthiness: ``[]`` and ``{}`` are true; ``0``, ``""``, null are false."""
    if type(value) is str:  # the most common case by far (uuids, ids), tested first
        return value != ""
    if value is None or value is UNDEFINED or value is False:
        return False
    if value is True:
        return True
    if isinstance(value, int | float):
        return value == value and value != 0  # NaN is falsy
    if isinstance(value, str):
        return value != ""
    return True


def nullish(value: Any) -> bool:
    """True for ``null`` and ``undefined`` (the left side of ``??`` is replaced)."""
    return value is None or value is UNDEFINED


def is_object(value: Any) -> bool:
    """``typeof v === "object" && v !== null``: objects and arrays."""
    return type(value) is dict or type(value) is list


def _double(value: int | float) -> float:
    """The double JavaScript holds for a parsed number (too large an integer is infinite)."""
    try:
        return float(value)
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


def as_double(value: Any) -> Any:
    """A number as the double JavaScript holds, in one form per double (so ``==`` and
    ``repr`` agree with ``===``); any other value as it is."""
    if type(value) is not int and type(value) is not float:
        return value
    written = stringify_number(value)
    return written if written is not None else _double(value)


def strict_equal(a: Any, b: Any) -> bool:
    """``a === b`` for parsed JSON values: objects are never equal to a copy."""
    if a is b:
        return not (isinstance(a, float) and a != a)
    ta, tb = type(a), type(b)
    if ta is bool or tb is bool:
        return ta is tb and a == b
    if ta in (int, float) and tb in (int, float):
        return _double(a) == _double(b)  # digits beyond a double's precision do not count
    if ta is str and tb is str:
        return a == b
    return False


def key(value: Any) -> tuple[str, Any] | None:
    """A hashable stand-in with ``===`` semantics, or None for objects (equal to nothing)."""
    t = type(value)
    if t is str:
        return ("s", value)
    if t is bool:
        return ("b", value)
    if t is int or t is float:
        return ("n", float(value)) if value == value else None
    if value is None:
        return ("null", None)
    if value is UNDEFINED:
        return ("undefined", None)
    return None


def to_string(value: Any) -> str:
    """``String(value)`` for parsed JSON values (used where JS concatenates keys)."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if value is UNDEFINED:
        return "undefined"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | float):
        return number_to_string(value)
    if isinstance(value, list):
        return _array_to_string(value)
    return "[object Object]"


def number_to_string(value: int | float) -> str:
    """``Number.prototype.toString()`` of the double JavaScript holds for ``value``
    (shortest round-trip digits, exponent form below 1e-6 and from 1e21)."""
    if type(value) is int and -(2**53) <= value <= 2**53:
        return str(value)
    try:
        number = float(value)
    except OverflowError:
        number = float("inf") if value > 0 else float("-inf")
    if number != number:
        return "NaN"
    if number in (float("inf"), float("-inf")):
        return "Infinity" if number > 0 else "-Infinity"
    if number == 0:
        return "0"
    from decimal import Decimal

    _, digits, exponent = Decimal(repr(abs(number))).normalize().as_tuple()
    text = "".join(map(str, digits))
    k = len(text)
    n = k + int(exponent)  # the value is 0.<text> x 10**n
    if k <= n <= 21:
        body = text + "0" * (n - k)
    elif 0 < n <= 21:
        body = f"{text[:n]}.{text[n:]}"
    elif -6 < n <= 0:
        body = "0." + "0" * -n + text
    else:
        mantissa = text if k == 1 else f"{text[0]}.{text[1:]}"
        body = f"{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"
    return ("-" if number < 0 else "") + body


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # a Python str holds only lone ones


def _json_string(text: str) -> str:
    """A string as ``JSON.stringify`` writes it: lone surrogates as ``\\udXXX`` escapes."""
    written = json.dumps(text, ensure_ascii=False)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", written)


def _array_index(name: str) -> bool:
    return name.isascii() and name.isdigit() and (name == "0" or name[0] != "0") \
        and int(name) < 2**32 - 1


def own_entries(value: dict[str, Any]) -> list[tuple[str, Any]]:
    """An object's entries in JavaScript's order: array-index keys first, ascending, then
    the other keys as they were written."""
    entries = list(value.items())
    if not any(_array_index(name) for name in value):
        return entries
    indexed = sorted((e for e in entries if _array_index(e[0])), key=lambda e: int(e[0]))
    return indexed + [e for e in entries if not _array_index(e[0])]


def json_stringify(value: Any) -> str:
    """``JSON.stringify(value)`` of a parsed JSON value: compact, keys in their order,
    numbers as JavaScript prints its doubles (non-finite as ``null``); without recursion,
    so any nesting is written."""
    parts: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        t = type(item)
        if t is tuple:  # punctuation and keys, already written
            parts.append(item[0])
        elif t is str:
            parts.append(_json_string(item))
        elif item is None or t is bool:
            parts.append("null" if item is None else "true" if item else "false")
        elif t is int or t is float:
            text = number_to_string(item)
            parts.append("null" if text in ("NaN", "Infinity", "-Infinity") else text)
        elif t is dict:
            written: list[Any] = [("{",)]
            for at, (name, child) in enumerate(own_entries(item)):
                written += [(("," if at else "") + _json_string(name) + ":",), child]
            stack.extend(reversed([*written, ("}",)]))
        else:  # a list
            written = [("[",)]
            for at, child in enumerate(item):
                written += [(",",), child] if at else [child]
            stack.extend(reversed([*written, ("]",)]))
    return "".join(parts)


def property_key(value: Any) -> str:
    """``ToPropertyKey(value)``: the string an object key made of ``value`` is.

    Like ``String(value)``, except that an object carrying its own ``toString`` (a JSON
    value is never callable) has no primitive form: JavaScript throws a TypeError.
    """
    pending = [value]
    while pending:
        item = pending.pop()
        if type(item) is dict and "toString" in item:
            raise TypeError("Cannot convert object to primitive value")
        if type(item) is list:
            pending.extend(item)
    return to_string(value)


def _array_to_string(array: list[Any]) -> str:
    """``Array.prototype.toString`` (nested arrays flatten), without recursion."""
    stack: list[tuple[list[Any], int, list[str]]] = [(array, 0, [])]
    while True:
        items, index, parts = stack[-1]
        if index == len(items):
            stack.pop()
            text = ",".join(parts)
            if not stack:
                return text
            stack[-1][2].append(text)
            continue
        stack[-1] = (items, index + 1, parts)
        item = items[index]
        if type(item) is list:
            stack.append((item, 0, []))
        else:
            parts.append("" if nullish(item) else to_string(item))


def join(items: list[Any], separator: str) -> str:
    """``items.join(separator)``: null and undefined items are empty, the others as
    ``String(item)`` (a nested array flattens with commas)."""
    return separator.join("" if nullish(item) else to_string(item) for item in items)


def is_string_nonempty(value: Any) -> bool:
    """``typeof v === "string" && v``."""
    return type(value) is str and value != ""


def stringify_number(value: int | float) -> int | float | None:
    """A number as ``JSON.stringify`` writes the double JavaScript holds for it.

    Integral values below 1e21 print without fraction or exponent, with the
    shortest round-trip digits (``12345678901234567890`` → ``12345678901234567000``);
    ``NaN`` and the infinities print as ``null``; ``-0`` as ``0``.
    """
    if type(value) is int and -(2**53) <= value <= 2**53:
        return value
    try:
        number = float(value)
    except OverflowError:
        return None
    if number != number or number in (float("inf"), float("-inf")):
        return None
    if number.is_integer() and abs(number) < 1e21:
        from decimal import Decimal

        return int(Decimal(repr(number)))
    return number


def _changes(number: int | float) -> bool:
    normal = stringify_number(number)
    return type(normal) is not type(number) or normal != number


def as_stringified(value: Any) -> Any:
    """``JSON.parse(JSON.stringify(value))`` for a parsed JSON value, without recursion.

    Only numbers differ; the value itself is returned when nothing changes, else
    a normalised copy (the original is never modified).
    """
    pending: list[Any] = [value]
    needed = False
    while pending and not needed:
        item = pending.pop()
        t = type(item)
        if t is dict:
            pending.extend(item.values())
        elif t is list:
            pending.extend(item)
        elif (t is int or t is float) and _changes(item):
            needed = True
    if not needed:
        return value
    return _normalised_copy(value)


def _normalised_copy(value: Any) -> Any:
    def convert(item: Any) -> Any:
        t = type(item)
        if t is dict:
            return {}
        if t is list:
            return []
        if t is int or t is float:
            return stringify_number(item)
        return item

    root = convert(value)
    stack: list[tuple[Any, Any]] = [(value, root)] if type(value) in (dict, list) else []
    while stack:
        source, target = stack.pop()
        if type(source) is dict:
            for name, child in source.items():
                target[name] = convert(child)
                if type(child) in (dict, list):
                    stack.append((child, target[name]))
        else:
            for child in source:
                target.append(convert(child))
                if type(child) in (dict, list):
                    stack.append((child, target[-1]))
    return root


def describe(value: Any, limit: int = 80) -> str:
    """A short, non-recursive rendering of a parsed value for diagnostics."""
    if type(value) is str:
        text = repr(value)
        return text if len(text) <= limit else text[: limit - 2] + "…'"
    if type(value) is list:
        return f"[array of {len(value)}]"
    if type(value) is dict:
        return f"{{object with {len(value)} keys}}"
    return to_string(value) if value is not None else "null"


def deep_copy(value: Any) -> Any:
    """A copy of a parsed JSON value; iterative, so any nesting depth is fine."""
    if type(value) not in (dict, list):
        return value
    root: Any = {} if type(value) is dict else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        items = source.items() if type(source) is dict else enumerate(source)
        for name, child in items:
            if type(child) is dict or type(child) is list:
                copy: Any = {} if type(child) is dict else []
                stack.append((child, copy))
            else:
                copy = child
            if type(target) is dict:
                target[name] = copy
            else:
                target.append(copy)
    return root
