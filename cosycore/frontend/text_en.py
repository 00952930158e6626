"""English number and abbreviation reading, the pre-pass before wetext in the English text path.

wetext reads "$3.50" as "three point five dollars" and dates as "the fifth of march", so the common
written forms are verbalised here first, each by one small rule: money, percentages, quantities with
units, clock times, dates, decades, years, ordinals, decimals, negative numbers and a few titles.
What is left (fractions, phone numbers, ...) goes to wetext, and any digit still standing after that
to :func:`spell_out_number`. Numbers become words with ``inflect`` (imported on first use: its import
takes seconds).

Every function here takes and returns plain text; tags were already swapped for placeholder
characters by the caller, and placeholders are never word characters, so the rules step around them.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)

_DIGIT_NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_MAX_GROUPED_DIGITS = 15  # longer runs are read digit by digit (ids, card numbers)


@functools.lru_cache(maxsize=1)
def inflect_engine() -> Any:
    """inflect's engine, imported on first use without typeguard's instrumentation.

    inflect decorates 23 functions with ``typeguard.typechecked``, which re-parses and re-compiles
    inflect's 4,000-line module once per function at import: 3-4 s of CPU on the 2-core machine (10 s
    under load), in every process that reads an English number (the app's engine, the CLI, the server,
    each test worker). Those checks only validate inflect's own arguments (non-empty ``str`` words),
    which the callers here always pass; the words are the same (tests/test_text.py). So the decorator
    is the identity while inflect's module runs: 0.5 s instead of 10 under the same load.
    """
    try:
        import typeguard
    except ImportError:  # an inflect that no longer uses it
        import inflect

        return inflect.engine()
    real = typeguard.typechecked

    def identity(target: Any = None, **_: Any) -> Any:  # @typechecked and @typechecked(...)
        return target if target is not None else (lambda t: t)

    typeguard.typechecked = identity
    try:
        import inflect
    finally:
        typeguard.typechecked = real
    return inflect.engine()


def warm_up() -> None:
    """Import inflect now (about half a second)."""
    inflect_engine()


# --------------------------------------------------------------------------------------------
# Number words
# --------------------------------------------------------------------------------------------


def digit_words(digits: str) -> str:
    """'0705' -> 'zero seven zero five'."""
    return " ".join(_DIGIT_NAMES[int(d)] for d in digits)


def int_words(digits: str | int) -> str:
    """Cardinal words without commas; leading zeros and very long runs are read digit by digit."""
    digits = str(digits)
    if (len(digits) > 1 and digits.startswith("0")) or len(digits) > _MAX_GROUPED_DIGITS:
        return digit_words(digits)
    return str(inflect_engine().number_to_words(digits, comma=""))


def ordinal_words(digits: str | int) -> str:
    """'21' -> 'twenty-first'."""
    return str(inflect_engine().ordinal(int_words(str(int(digits)))))


def decimal_words(whole: str, frac: str | None) -> str:
    """'3', '14' -> 'three point one four'."""
    words = int_words(whole)
    return f"{words} point {digit_words(frac)}" if frac else words


def signed_words(sign: str | None, whole: str, frac: str | None = None) -> str:
    prefix = "minus " if sign else ""
    return prefix + decimal_words(whole, frac)


def year_words(year: int) -> str:
    """How a year is said: 'nineteen oh five', 'two thousand and eight', 'twenty twenty-four'."""
    if not 1000 <= year <= 2099:
        return int_words(year)
    century, rest = divmod(year, 100)
    if 2000 <= year <= 2009 or year % 1000 == 0:
        return int_words(year)
    if rest == 0:
        return f"{int_words(century)} hundred"
    if rest < 10:
        return f"{int_words(century)} oh {int_words(rest)}"
    return f"{int_words(century)} {int_words(rest)}"


_PLURAL_TENS = {
    "ten": "tens",
    "twenty": "twenties",
    "thirty": "thirties",
    "forty": "forties",
    "fifty": "fifties",
    "sixty": "sixties",
    "seventy": "seventies",
    "eighty": "eighties",
    "ninety": "nineties",
    "hundred": "hundreds",
    "thousand": "thousands",
}


def _pluralise_last(words: str) -> str:
    head, _, last = words.rpartition(" ")
    last = _PLURAL_TENS.get(last, last + "s")
    return f"{head} {last}" if head else last


# --------------------------------------------------------------------------------------------
# Rules: each is (pattern, replacement); applied in order by verbalize_english
# --------------------------------------------------------------------------------------------

_NUM = r"(?P<sign>[-−])?(?P<int>\d+)(?:\.(?P<frac>\d+))?"
_NOT_BEFORE = r"(?<![\w.,])"  # the number starts a token
_WORD_END = r"(?![\w])"

_CURRENCIES: dict[str, tuple[str, str, str | None, str | None]] = {
    "$": ("dollar", "dollars", "cent", "cents"),
    "£": ("pound", "pounds", "penny", "pence"),
    "€": ("euro", "euros", "cent", "cents"),
    "¥": ("yen", "yen", None, None),
}
_SCALES = "thousand|million|billion|trillion"


def _count(n: int, one: str, many: str) -> str:
    return f"{int_words(n)} {one if n == 1 else many}"


def _money(m: re.Match[str]) -> str:
    one, many, sub_one, sub_many = _CURRENCIES[m["cur"]]
    whole, frac, scale = m["int"], m["frac"], m["scale"]
    minus = "minus " if m["sign"] else ""
    if scale:
        return f"{minus}{decimal_words(whole, frac)} {scale} {many}"
    if frac is None or (sub_one is None and int(frac) == 0):
        return minus + _count(int(whole), one, many)
    if sub_one is None or sub_many is None or len(frac) > 2:
        return f"{minus}{decimal_words(whole, frac)} {many}"
    cents = int(frac.ljust(2, "0"))
    if cents == 0:
        return minus + _count(int(whole), one, many)
    if int(whole) == 0:
        return minus + _count(cents, sub_one, sub_many)
    return f"{minus}{_count(int(whole), one, many)} and {_count(cents, sub_one, sub_many)}"


_MONEY_RE = re.compile(
    rf"(?<![\w.])(?P<sign>[-−])?(?P<cur>[$£€¥])\s?(?P<int>\d+)(?:\.(?P<frac>\d+))?"
    rf"(?:\s(?P<scale>{_SCALES})\b)?"
)


def _percent(m: re.Match[str]) -> str:
    return signed_words(m["sign"], m["int"], m["frac"]) + " percent"


_PERCENT_RE = re.compile(rf"{_NOT_BEFORE}{_NUM}\s?%")

# symbol -> (singular, plural); matched case-sensitively, longest first.
_UNITS: dict[str, tuple[str, str]] = {
    "km/h": ("kilometer per hour", "kilometers per hour"),
    "kmh": ("kilometer per hour", "kilometers per hour"),
    "kph": ("kilometer per hour", "kilometers per hour"),
    "mph": ("mile per hour", "miles per hour"),
    "m/s": ("meter per second", "meters per second"),
    "km²": ("square kilometer", "square kilometers"),
    "m²": ("square meter", "square meters"),
    "cm²": ("square centimeter", "square centimeters"),
    "m³": ("cubic meter", "cubic meters"),
    "cm³": ("cubic centimeter", "cubic centimeters"),
    "km": ("kilometer", "kilometers"),
    "cm": ("centimeter", "centimeters"),
    "mm": ("millimeter", "millimeters"),
    "µm": ("micrometer", "micrometers"),
    "μm": ("micrometer", "micrometers"),
    "nm": ("nanometer", "nanometers"),
    "m": ("meter", "meters"),
    "mi": ("mile", "miles"),
    "ft": ("foot", "feet"),
    "yd": ("yard", "yards"),
    "kg": ("kilogram", "kilograms"),
    "mg": ("milligram", "milligrams"),
    "g": ("gram", "grams"),
    "lbs": ("pound", "pounds"),
    "lb": ("pound", "pounds"),
    "oz": ("ounce", "ounces"),
    "ml": ("milliliter", "milliliters"),
    "mL": ("milliliter", "milliliters"),
    "l": ("liter", "liters"),
    "L": ("liter", "liters"),
    "°C": ("degree Celsius", "degrees Celsius"),
    "°F": ("degree Fahrenheit", "degrees Fahrenheit"),
    "℃": ("degree Celsius", "degrees Celsius"),
    "℉": ("degree Fahrenheit", "degrees Fahrenheit"),
    "°": ("degree", "degrees"),
    "hrs": ("hour", "hours"),
    "hr": ("hour", "hours"),
    "h": ("hour", "hours"),
    "min": ("minute", "minutes"),
    "sec": ("second", "seconds"),
    "ms": ("millisecond", "milliseconds"),
    "KB": ("kilobyte", "kilobytes"),
    "kB": ("kilobyte", "kilobytes"),
    "MB": ("megabyte", "megabytes"),
    "GB": ("gigabyte", "gigabytes"),
    "TB": ("terabyte", "terabytes"),
    "Hz": ("hertz", "hertz"),
    "kHz": ("kilohertz", "kilohertz"),
    "MHz": ("megahertz", "megahertz"),
    "GHz": ("gigahertz", "gigahertz"),
    "kWh": ("kilowatt hour", "kilowatt hours"),
    "kW": ("kilowatt", "kilowatts"),
    "mAh": ("milliamp hour", "milliamp hours"),
    "dB": ("decibel", "decibels"),
}
_UNIT_ALT = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
_UNIT_RE = re.compile(rf"{_NOT_BEFORE}{_NUM}\s?(?P<unit>{_UNIT_ALT})(?![\w/²³])")


def _unit(m: re.Match[str]) -> str:
    one, many = _UNITS[m["unit"]]
    singular = m["frac"] is None and m["int"] == "1"
    return f"{signed_words(m['sign'], m['int'], m['frac'])} {one if singular else many}"


def _keeps_full_stop(m: re.Match[str]) -> bool:
    """A trailing 'p.m.' that also ends the sentence keeps its full stop."""
    if not m.group(0).endswith("."):
        return False
    rest = m.string[m.end() :]
    return not rest or rest[0] == "\n" or bool(re.match(r"\s+[A-Z\"“]", rest))


def _meridiem(m: re.Match[str]) -> str:
    mer = m["mer"]
    if not mer:
        return ""
    return (" AM" if mer.lower() == "a" else " PM") + ("." if _keeps_full_stop(m) else "")


_MERIDIEM = r"(?:\s?(?P<mer>[AaPp])\.?[Mm](?![\w])\.?)?"
_TIME_RE = re.compile(rf"(?<![\w:.])(?P<h>\d{{1,2}}):(?P<m>[0-5]\d)(?::(?P<s>[0-5]\d))?(?![\d:]){_MERIDIEM}")
_HOUR_RE = re.compile(r"(?<![\w:.,])(?P<h>\d{1,2})\s?(?P<mer>[AaPp])\.?[Mm](?![\w])\.?")


def _clock(m: re.Match[str]) -> str:
    hour, minute = int(m["h"]), int(m["m"])
    if hour > 24:
        return m.group(0)
    if minute == 0:
        words = int_words(hour) + ("" if m["mer"] else (" o'clock" if hour <= 12 else " hundred"))
    elif minute < 10:
        words = f"{int_words(hour)} oh {int_words(minute)}"
    else:
        words = f"{int_words(hour)} {int_words(minute)}"
    if m["s"] and int(m["s"]):
        words += f" and {_count(int(m['s']), 'second', 'seconds')}"
    return words + _meridiem(m)


def _hour(m: re.Match[str]) -> str:
    hour = int(m["h"])
    if not 1 <= hour <= 12:
        return m.group(0)
    return int_words(hour) + _meridiem(m)


_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_MONTH_ABBR = {m[:3]: m for m in _MONTHS} | {"Sept": "September"}
_MONTH_ALT = "|".join([*_MONTHS, *(re.escape(a) for a in _MONTH_ABBR if a not in _MONTHS)])
_ORD_SUFFIX = r"(?:st|nd|rd|th)?"
_MONTH_DAY_RE = re.compile(
    rf"\b(?P<month>{_MONTH_ALT})(?:\.(?=\s))?\s+(?P<day>\d{{1,2}}){_ORD_SUFFIX}\b(?:(?P<comma>,?)\s+(?P<year>\d{{4}})\b)?"
)
_DAY_MONTH_RE = re.compile(
    rf"\b(?P<day>\d{{1,2}}){_ORD_SUFFIX}(?:\s+of)?\s+(?P<month>{_MONTH_ALT})\b(?:\.(?=\s))?"
    rf"(?:(?P<comma>,?)\s+(?P<year>\d{{4}})\b)?"
)
_MONTH_YEAR_RE = re.compile(rf"\b(?P<month>{_MONTH_ALT})(?:\.(?=\s))?\s+(?P<year>\d{{4}})\b")
_ISO_DATE_RE = re.compile(r"(?<![\w-])(?P<year>\d{4})-(?P<mon>\d{2})-(?P<day>\d{2})(?![\w-])")


def _month_name(text: str) -> str:
    return _MONTH_ABBR.get(text, text)


def _year_tail(m: re.Match[str]) -> str:
    if not m["year"]:
        return ""
    return f"{m['comma'] or ''} {year_words(int(m['year']))}"


def _month_day(m: re.Match[str]) -> str:
    day = int(m["day"])
    if not 1 <= day <= 31:
        return m.group(0)
    return f"{_month_name(m['month'])} {ordinal_words(day)}{_year_tail(m)}"


def _day_month(m: re.Match[str]) -> str:
    day = int(m["day"])
    if not 1 <= day <= 31:
        return m.group(0)
    article = (
        "" if re.search(r"\bthe\s+$", m.string[max(0, m.start() - 8) : m.start()], re.IGNORECASE) else "the "
    )
    return f"{article}{ordinal_words(day)} of {_month_name(m['month'])}{_year_tail(m)}"


def _month_year(m: re.Match[str]) -> str:
    return f"{_month_name(m['month'])} {year_words(int(m['year']))}"


def _iso_date(m: re.Match[str]) -> str:
    month, day = int(m["mon"]), int(m["day"])
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return m.group(0)
    return f"{_MONTHS[month - 1]} {ordinal_words(day)}, {year_words(int(m['year']))}"


_DECADE_RE = re.compile(r"(?<![\w'’])(?P<year>1\d\d0|20\d0)s\b")
_SHORT_DECADE_RE = re.compile(r"(?<![\w])['’]?(?P<tens>[2-9])0s\b")


def _decade(m: re.Match[str]) -> str:
    return _pluralise_last(year_words(int(m["year"])))


def _short_decade(m: re.Match[str]) -> str:
    return _PLURAL_TENS[int_words(int(m["tens"]) * 10)]


_YEAR_WORDS = r"in|since|from|by|until|till|during|circa|around|before|after|year"
_YEAR_CONTEXT_RE = re.compile(
    rf"\b(?P<prep>(?i:{_YEAR_WORDS}))\s+(?P<year>1\d{{3}}|20\d\d)\b(?![.,]\d|\s?%)(?!\s?(?:{_UNIT_ALT})\b)"
)
_YEAR_RANGE_RE = re.compile(
    r"(?<![\w.,-])(?P<a>1[1-9]\d\d|20\d\d)\s?(?:-|–|—|\bto\b)\s?(?P<b>1[1-9]\d\d|20\d\d)(?![\w.,-])"
)
_ERA_RE = re.compile(r"(?<![\w.,])(?P<year>\d{1,4})\s?(?P<era>BC|AD|BCE|CE)\b")


def _year_in_context(m: re.Match[str]) -> str:
    return f"{m['prep']} {year_words(int(m['year']))}"


def _year_range(m: re.Match[str]) -> str:
    return f"{year_words(int(m['a']))} to {year_words(int(m['b']))}"


def _era(m: re.Match[str]) -> str:
    return f"{year_words(int(m['year']))} {m['era']}"


_ORDINAL_RE = re.compile(r"(?<![\w.,])(?P<n>\d+)(?:st|nd|rd|th)\b")
_DECIMAL_RE = re.compile(r"(?<![\w.,])(?P<sign>[-−])?(?P<int>\d+)\.(?P<frac>\d+)(?!\.?\d)(?![\w])")
_NEGATIVE_RE = re.compile(r"(?<![\w.,\-−])[-−](?P<int>\d+)(?![\d.,]*\d)(?![\w])")
_THOUSANDS_RE = re.compile(r"(?<![\d,.])\d{1,3}(?:,\d{3})+(?![\d]|,\d)")

_QUANTITY_AFTER_RE = re.compile(rf"\.\d|\s?(?:%|(?:{_UNIT_ALT})(?![\w/²³])|(?:{_SCALES})\b)")


def _thousands(m: re.Match[str]) -> str:
    """'2,500' -> words, or just '2500' when a later rule reads it (money, decimal, unit, percent)."""
    digits = m.group(0).replace(",", "")
    before = m.string[max(0, m.start() - 2) : m.start()].rstrip()
    if (before and before[-1] in _CURRENCIES) or _QUANTITY_AFTER_RE.match(m.string, m.end()):
        return digits
    return int_words(digits)


_TITLES = {"Mr": "Mister", "Mrs": "Missus", "Ms": "Miz", "Dr": "Doctor", "Prof": "Professor"}
_TITLE_RE = re.compile(r"\b(?P<t>Mr|Mrs|Ms|Dr|Prof)\.(?=\s+[A-Z])")
_LATIN_RE = re.compile(r"(?<![\w.])(?P<a>e\.g|i\.e|vs)\.(?=\s)")
_LATIN = {"e.g": "for example", "i.e": "that is", "vs": "versus"}

Rule = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]

# Rules that only act on digits (skipped when the text has none), in order.
NUMBER_RULES: tuple[Rule, ...] = (
    (_THOUSANDS_RE, _thousands),
    (_MONEY_RE, _money),
    (_PERCENT_RE, _percent),
    (_TIME_RE, _clock),
    (_HOUR_RE, _hour),
    (_ISO_DATE_RE, _iso_date),
    (_MONTH_DAY_RE, _month_day),
    (_DAY_MONTH_RE, _day_month),
    (_MONTH_YEAR_RE, _month_year),
    (_UNIT_RE, _unit),
    (_DECADE_RE, _decade),
    (_SHORT_DECADE_RE, _short_decade),
    (_ERA_RE, _era),
    (_YEAR_RANGE_RE, _year_range),
    (_YEAR_CONTEXT_RE, _year_in_context),
    (_ORDINAL_RE, lambda m: ordinal_words(m["n"])),
    (_DECIMAL_RE, lambda m: signed_words(m["sign"], m["int"], m["frac"])),
    (_NEGATIVE_RE, lambda m: signed_words("-", m["int"])),
)

# Abbreviations whose full stop would otherwise end a sentence.
ABBREVIATION_RULES: tuple[Rule, ...] = (
    (_TITLE_RE, lambda m: _TITLES[m["t"]]),
    (_LATIN_RE, lambda m: _LATIN[m["a"]]),
)

_DIGIT_RUN_RE = re.compile(r"[0-9]+")
_FULLWIDTH_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")


def verbalize_english(text: str) -> str:
    """Apply the English reading rules in order (see the module docstring)."""
    text = text.translate(_FULLWIDTH_DIGITS)
    if _DIGIT_RUN_RE.search(text):
        for pattern, replace in NUMBER_RULES:
            text = pattern.sub(replace, text)
    for pattern, replace in ABBREVIATION_RULES:
        text = pattern.sub(replace, text)
    return text


def spell_out_number(text: str) -> str:
    """Every remaining run of ASCII digits becomes words; a space separates it from adjacent letters."""

    def words(m: re.Match[str]) -> str:
        out = int_words(m.group(0))
        s, e = m.start(), m.end()
        if s > 0 and m.string[s - 1].isalpha():
            out = " " + out
        if e < len(m.string) and m.string[e].isalpha():
            out += " "
        return out

    return _DIGIT_RUN_RE.sub(words, text)
