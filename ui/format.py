"""Number formatting shared by every page, so the same value always reads the same way."""

from __future__ import annotations

import math

MINUS = "\u2212"


def fmt(x: float, digits: int = 2, *, sign: bool = False) -> str:
    """Round to ``digits`` decimals, drop trailing zeros, use a true minus sign.

    >>> fmt(4.3), fmt(-2.2999999), fmt(0.7, sign=True), fmt(2.37620), fmt(0.0, sign=True)
    ('4.3', '−2.3', '+0.7', '2.38', '0')
    """
    x = float(x)
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return ("" if x > 0 else MINUS) + "∞"
    text = f"{round(x, digits):.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if text in ("-0", ""):
        text = "0"
    if sign and not text.startswith("-") and text != "0":
        text = "+" + text
    return text.replace("-", MINUS)


def fmt_list(values, digits: int = 2, sep: str = " / ") -> str:
    """Several numbers in one string, e.g. ``0.5 / 0.3 / 0.2``."""
    return sep.join(fmt(v, digits) for v in values)


def esc(text) -> str:
    """Escape user text for ``st.markdown`` so it shows literally (no links, HTML, emphasis or LaTeX).

    >>> print(esc("[x](y) *b* $a$ <i>"))
    \\[x\\]\\(y\\) \\*b\\* \\$a\\$ \\<i\\>
    """
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in str(text))


_MD_SPECIAL = set("\\`*_{}[]()#+-.!|<>$~:&=")


def pct(x: float, digits: int = 0) -> str:
    """A share as a percentage: ``pct(0.05) == '5%'``."""
    return fmt(100 * float(x), digits) + "%"


ZERO_WIDTH = "\u200b"


def axis_labels(words) -> list[str]:
    """Labels for the tokens of an answer on a chart axis; a repeated token gets invisible marks to stay apart.

    >>> [len(w) for w in axis_labels([".", "a", "."])]
    [1, 1, 2]
    """
    seen: dict[str, int] = {}
    out = []
    for w in words:
        out.append(w + ZERO_WIDTH * seen.get(w, 0))
        seen[w] = seen.get(w, 0) + 1
    return out
