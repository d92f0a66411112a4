"""ui.format: large, tiny and non-finite numbers read well, so no page shows "nan" or two dozen digits."""

from __future__ import annotations

import math

import pytest

from ui.format import fmt, fmt_list, pct


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
