"""V8's date-string grammar (Node 20): the ES5 ISO form first, then the legacy fallback.

2.1.88 runs on Node, so a timestamp such as ``"Jan 2 2026 10:00"`` or
``"2026/01/02"`` is a real time there and decides the resumed leaf. The
scanner cuts the text into numbers, words (known by their first three
letters: month names, ``am``/``pm``, ``ut``/``utc``/``gmt``/``z`` and the US
zone names), signs and separators; the ISO reader consumes what it can; the
legacy reader folds the rest into day, time and zone parts, with V8's
defaults (a missing year is 2001, two-digit years are 19xx/20xx).
Written from V8's documented behaviour and checked against ``node -e``.
"""

from __future__ import annotations

from dataclasses import dataclass

from rechain.reference.js.date_iso import time_of_day_ok
from rechain.reference.js.text import JS_SPACE

MAX_DIGITS = 9
SMI_MAX = 2**31 - 1  # Node 20 on x64: 32-bit Smis (no pointer compression)
WHITESPACE = frozenset(JS_SPACE)
# first three letters (lower-cased by ``| 0x20``) -> (kind, value)
KEYWORDS: dict[str, tuple[str, int]] = {
    **{name: ("month", n) for n, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)},
    "am": ("ampm", 0), "pm": ("ampm", 12),
    "ut": ("zone", 0), "utc": ("zone", 0), "z": ("zone", 0), "gmt": ("zone", 0),
    "cdt": ("zone", -5), "cst": ("zone", -6), "edt": ("zone", -4), "est": ("zone", -5),
    "mdt": ("zone", -6), "mst": ("zone", -7), "pdt": ("zone", -7), "pst": ("zone", -8),
    "t": ("tsep", 0),
}


@dataclass(frozen=True, slots=True)
class Token:
    """One scanned token: kind is number, word, symbol, space, unknown or end."""

    kind: str
    value: int | str = 0
    length: int = 0
    word: str = ""  # for words: kind of keyword ("month", "zone", ..., "" when unknown)

    def symbol(self, char: str) -> bool:
        return self.kind == "symbol" and self.value == char

    def sign(self) -> bool:
        return self.kind == "symbol" and self.value in ("+", "-")

    def fixed(self, length: int) -> bool:
        return self.kind == "number" and self.length == length

    def is_z(self) -> bool:
        return self.kind == "word" and self.word == "zone" and self.length == 1 and (
            self.value == 0)


def _lower(char: str) -> str:
    return chr(ord(char) | 0x20)


def tokens(text: str) -> list[Token]:
    """V8's ``DateStringTokenizer`` over the whole string (a NUL ends a parenthesis)."""
    out: list[Token] = []
    at, size = 0, len(text)
    while at < size:
        char = text[at]
        start = at
        if "0" <= char <= "9":
            while at < size and text[at] == "0":
                at += 1
            digits = 0
            number = 0
            while at < size and "0" <= text[at] <= "9":
                if digits < MAX_DIGITS:
                    number = number * 10 + ord(text[at]) - 48
                digits += 1
                at += 1
            out.append(Token("number", number, at - start))
        elif char in ":-+.)":
            out.append(Token("symbol", char, 1))
            at += 1
        elif char >= "A" and char not in WHITESPACE:
            while at < size and text[at] >= "A" and text[at] not in WHITESPACE:
                at += 1
            length = sum(2 if ord(c) > 0xFFFF else 1 for c in text[start:at])  # UTF-16 units
            prefix = "".join(_lower(c) for c in text[start:min(at, start + 3)])
            found = KEYWORDS.get(prefix)
            if found is not None and (length <= 3 or found[0] == "month"):
                out.append(Token("word", found[1], length, found[0]))
            else:
                out.append(Token("word", 0, length, ""))
        elif char in WHITESPACE:
            while at < size and text[at] in WHITESPACE:
                at += 1
            out.append(Token("space", 0, at - start))
        elif char == "(":
            depth = 0
            while True:
                if text[at] == ")":
                    depth -= 1
                elif text[at] == "(":
                    depth += 1
                at += 1
                if depth <= 0 or at >= size or text[at] == "\0":
                    break
            out.append(Token("unknown"))
        else:
            at += 1
            out.append(Token("unknown"))
    out.append(Token("end"))
    return out


class Scanner:
    """Peek / next / skip over the token list."""

    def __init__(self, text: str) -> None:
        self.items = tokens(text)
        self.at = 0

    def peek(self) -> Token:
        return self.items[self.at]

    def next(self) -> Token:
        token = self.items[self.at]
        if token.kind != "end":
            self.at += 1
        return token

    def skip(self, char: str) -> bool:
        if self.peek().symbol(char):
            self.at += 1
            return True
        return False


def millis_of(token: Token) -> int:
    """``ReadMilliseconds``: the first three significant digits as written."""
    number, length = int(token.value), token.length
    if length == 1:
        return number * 100
    if length == 2:
        return number * 10
    length = min(length, MAX_DIGITS)
    while length > 3:
        number //= 10
        length -= 1
    return number


@dataclass(slots=True)
class Parts:
    """The day, time and zone composers' state."""

    day: list[int]
    time: list[int]
    named_month: int | None = None
    iso: bool = False
    hour_offset: int | None = None
    sign: int | None = None
    zone_hour: int | None = None
    zone_minute: int | None = None

    def set_zone(self, hours: int) -> None:
        self.sign = -1 if hours < 0 else 1
        self.zone_hour, self.zone_minute = abs(hours), 0

    def zone_expects(self, n: int) -> bool:
        return self.zone_hour is not None and self.zone_minute is None and 0 <= n <= 59

    def time_expects(self, n: int) -> bool:
        index = len(self.time)
        return ((index == 1 and 0 <= n <= 59) or (index == 2 and 0 <= n <= 59)
                or (index == 3 and 0 <= n <= 999))

    def add_time(self, n: int) -> bool:
        if len(self.time) >= 4:
            return False
        self.time.append(n)
        return True

    def add_final(self, n: int) -> bool:
        if not self.add_time(n):
            return False
        self.time.extend([0] * (4 - len(self.time)))
        return True

    def add_day(self, n: int) -> bool:
        if len(self.day) >= 3:
            return False
        self.day.append(n)
        return True


def _es5(scan: Scanner, parts: Parts) -> Token | None:
    """``ParseES5DateTime``: the unhandled token, ``end`` when all was ISO, None if invalid."""
    if scan.peek().sign():
        sign_token = scan.next()
        if not scan.peek().fixed(6):
            return sign_token
        year = int(scan.next().value)
        if sign_token.value == "-" and year == 0:
            return sign_token
        parts.day.append(-year if sign_token.value == "-" else year)
    elif scan.peek().fixed(4):
        parts.day.append(int(scan.next().value))
    else:
        return scan.next()
    if scan.skip("-"):
        if not scan.peek().fixed(2) or not 1 <= int(scan.peek().value) <= 12:
            return scan.next()
        parts.day.append(int(scan.next().value))
        if scan.skip("-"):
            if not scan.peek().fixed(2) or not 1 <= int(scan.peek().value) <= 31:
                return scan.next()
            parts.day.append(int(scan.next().value))
    if not (scan.peek().kind == "word" and scan.peek().word == "tsep"):
        if scan.peek().kind != "end":
            return scan.next()
    elif not _es5_time(scan, parts):
        return None
    if parts.zone_hour is None and not parts.time:
        parts.set_zone(0)
    parts.iso = True
    return Token("end")


def _two(scan: Scanner, low: int, high: int) -> int | None:
    token = scan.peek()
    if not token.fixed(2) or not low <= int(token.value) <= high:
        return None
    scan.next()
    return int(token.value)


def _es5_time(scan: Scanner, parts: Parts) -> bool:
    """The ``T``hh:mm[:ss[.sss]][Z|±hh:mm|±hhmm] part; False when invalid."""
    scan.next()
    hour = _two(scan, 0, 24)
    if hour is None or not scan.skip(":"):
        return False
    parts.time.append(hour)
    minute = _two(scan, 0, 0 if hour == 24 else 59)
    if minute is None:
        return False
    parts.time.append(minute)
    if scan.skip(":"):
        second = _two(scan, 0, 0 if hour == 24 else 59)
        if second is None:
            return False
        parts.time.append(second)
        if scan.skip("."):
            token = scan.peek()
            if token.kind != "number" or (hour == 24 and int(token.value) > 0):
                return False
            parts.time.append(millis_of(scan.next()))
    if scan.peek().is_z():
        scan.next()
        parts.set_zone(0)
    elif scan.peek().sign():
        parts.sign = 1 if scan.next().value == "+" else -1
        if scan.peek().fixed(4):
            both = int(scan.next().value)
            if not (0 <= both // 100 <= 23 and 0 <= both % 100 <= 59):
                return False
            parts.zone_hour, parts.zone_minute = both // 100, both % 100
        else:
            zone_hour = _two(scan, 0, 23)
            if zone_hour is None or not scan.skip(":"):
                return False
            zone_minute = _two(scan, 0, 59)
            if zone_minute is None:
                return False
            parts.zone_hour, parts.zone_minute = zone_hour, zone_minute
    return scan.peek().kind == "end"


def _legacy(scan: Scanner, parts: Parts, token: Token) -> bool:
    """The legacy loop over what the ISO reader left; False when the string is invalid."""
    has_number = bool(parts.day)
    while token.kind != "end":
        if token.kind == "number":
            has_number = True
            n = int(token.value)
            if scan.skip(":"):
                if scan.skip(":"):
                    if parts.time:
                        return False
                    parts.time.extend([n, 0])
                else:
                    if not parts.add_time(n):
                        return False
                    if scan.peek().symbol("."):
                        scan.next()
            elif scan.skip(".") and parts.time_expects(n):  # the '.' is used up either way
                parts.add_time(n)
                if scan.peek().kind != "number":
                    return False
                parts.add_final(millis_of(scan.next()))
            elif parts.zone_expects(n):
                parts.zone_minute = n
            elif parts.time_expects(n):
                parts.add_final(n)
                after = scan.peek()
                if not (after.kind in ("end", "space") or after.is_z() or after.sign()):
                    return False
            else:
                if not parts.add_day(n):
                    return False
                scan.skip("-")
        elif token.kind == "word":
            if token.word == "ampm" and parts.time:
                parts.hour_offset = int(token.value)
            elif token.word == "month":
                parts.named_month = int(token.value)
                scan.skip("-")
            elif token.word == "zone" and has_number:
                parts.set_zone(int(token.value))
            else:
                if has_number or scan.peek().kind == "number":
                    return False
        elif token.sign() and ((parts.zone_hour == 0 and parts.zone_minute == 0)
                               or parts.time):
            parts.sign = 1 if token.value == "+" else -1
            n, length = 0, 0
            if scan.peek().kind == "number":
                following = scan.next()
                n, length = int(following.value), following.length
            has_number = True
            if scan.peek().symbol(":"):
                parts.zone_hour, parts.zone_minute = n, None
            elif length in (1, 2):
                parts.zone_hour, parts.zone_minute = n, 0
            elif length in (3, 4):
                parts.zone_hour, parts.zone_minute = n // 100, n % 100
            else:
                return False
        elif (token.sign() or token.symbol(")")) and has_number:
            return False
        token = scan.next()
    return True


def _day(parts: Parts) -> tuple[int, int, int] | None:
    """``DayComposer::Write``: (year, month 1-12, day) or None."""
    if not parts.day:
        return None
    comp = parts.day + [1] * (3 - len(parts.day))
    if parts.named_month is None:
        if parts.iso or not 1 <= comp[0] <= 31:
            year, month, day = comp
        else:
            month, day, year = comp
    else:
        month = parts.named_month
        if not 1 <= comp[0] <= 31:
            year, day = comp[0], comp[1]
        else:
            day, year = comp[0], comp[1]
    if not parts.iso:
        if 0 <= year <= 49:
            year += 2000
        elif 50 <= year <= 99:
            year += 1900
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    return year, month, day


def _time(parts: Parts) -> tuple[int, int, int, int] | None:
    """``TimeComposer::Write``: (hour, minute, second, ms) or None (24:00 only exactly)."""
    hour, minute, second, millis = parts.time + [0] * (4 - len(parts.time))
    if parts.hour_offset is not None:
        if not 0 <= hour <= 12:
            return None
        hour = hour % 12 + parts.hour_offset
    if not time_of_day_ok(hour, minute, second, millis):
        return None
    return hour, minute, second, millis


def fields(text: str) -> tuple[int, int, int, int, int, int, int, int | None] | None:
    """(year, month, day, hour, minute, second, ms, utc offset in seconds or None=local)."""
    scan = Scanner(text)
    parts = Parts([], [])
    rest = _es5(scan, parts)
    if rest is None or not _legacy(scan, parts, rest):
        return None
    day, time = _day(parts), _time(parts)
    if day is None or time is None:
        return None
    offset = None
    if parts.sign is not None:
        # V8 sums the offset in unsigned 32-bit seconds and rejects it above the Smi range
        seconds = ((parts.zone_hour or 0) * 3600 + (parts.zone_minute or 0) * 60) & 0xFFFFFFFF
        if seconds > SMI_MAX:
            return None
        offset = parts.sign * seconds
    return (*day, *time, offset)

