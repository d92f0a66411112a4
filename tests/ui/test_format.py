"""ui.format: large, tiny and non-finite numbers read well, so no page shows "nan" or two dozen digits."""

from __future__ import annotations

import itertools
import math
import re
import string
from collections import defaultdict

import pytest

from ui import i18n
from ui.format import CJK_EXTRA, SUBTITLE_CHARS, fmt, fmt_list, pct, wrap


@pytest.mark.parametrize(("x", "kw", "text"), [
    (2.5e22, {}, "2.5 × 10²²"),
    (24999999999999999243328055.0, {}, "2.5 × 10²⁵"),  # what page 3 once showed as 26 digits
    (-1234567.0, {}, "−1.23 × 10⁶"),
    (1e6, {"sign": True}, "+1 × 10⁶"),
    (999_999.5, {"digits": 2}, "999999.5"),
    (999_999.996, {"digits": 2}, "1 × 10⁶"),  # rounds up to a million: written as one
    (1.7976931348623157e308, {}, "1.8 × 10³⁰⁸"),
    (10**400, {}, "1 × 10⁴⁰⁰"),  # an int too large for a float is still finite
    (-(10**400), {"digits": 3}, "−1 × 10⁴⁰⁰"),
    (1e-300, {}, "0"),
    (-1e-300, {}, "0"),
    (math.nan, {}, "not defined"),
    (math.inf, {}, "∞"),
    (-math.inf, {"sign": True}, "−∞"),
])
def test_fmt_reads_well_at_every_magnitude(x, kw, text):
    assert fmt(x, **kw) == text


def test_fmt_never_shows_python_spellings():
    for x in [math.nan, math.inf, -math.inf, 1e308, -1e308, 5e-324, 10**400, 1e16, 2**53 + 1]:
        for digits in (0, 2, 4):
            text = fmt(x, digits)
            assert not any(bad in text.lower() for bad in ("nan", "inf", "e+", "e-")), (x, text)
            assert sum(c.isdigit() for c in text) <= digits + 6, (x, text)  # mantissa, 10, a 3-digit power


def test_pct_and_lists():
    assert pct(0.05) == "5%"
    assert pct(math.nan) == "not defined"
    assert pct(10**400) == "1 × 10⁴⁰²%"
    assert fmt_list([0.5, math.nan, 3e7]) == "0.5 / not defined / 3 × 10⁷"


def cells(text: str) -> int:
    return sum(2 if re.match(r"[\u2e80-\u9fff\u3000-\u303f\uff00-\uffef]", c) else 1 for c in text)


def test_chinese_subtitles_wrap_between_phrases_never_inside_a_word():
    """Every Chinese subtitle, its placeholders filled: lines within the width, breaking after punctuation, at a
    space or after 的, never between two other characters (留 / 出题目), after a number or 第 (第 / 0 步)."""
    subtitles = {k: string.Formatter().vformat(v, (), defaultdict(lambda: "16"))
                 for k, v in i18n.catalogue("zh").items() if "subtitle" in k and isinstance(v, str)}
    assert len(subtitles) > 30
    for key, text in subtitles.items():
        lines = wrap(text)
        assert "".join(lines).replace(" ", "") == text.replace(" ", ""), key
        assert all(cells(line) <= SUBTITLE_CHARS + CJK_EXTRA for line in lines), (key, lines)
        for a, b in itertools.pairwise(lines):
            assert not re.search(r"[\u4e00-\u9fff]$", a) or not re.match(r"[\u4e00-\u9fff]", b) or a[-1] == "的", (
                key, a, b)
            assert not re.search(r"(?:第|\d)$", a), (key, a, b)
    # where a clause is wider than a line, it still breaks, between characters
    assert len(wrap("留出题目" * 20)) == 3 and all(cells(line) <= 56 for line in wrap("留出题目" * 20))
    assert wrap("the held-out problems of step 0, written", 20) == ["the held-out", "problems of", "step 0, written"]
