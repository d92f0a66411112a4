"""Number formatting shared by every page, so the same value always reads the same way."""

from __future__ import annotations

import math
import re
import textwrap
import unicodedata
from decimal import Decimal

import numpy as np

import rlcore

MINUS = "\u2212"


NOT_DEFINED = "not defined"  # how a NaN reads: 0/0 and its kind have no value to show
BIG = 1e6  # from here on a number is written as a power of ten: 2.5 × 10²² rather than 23 digits
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def fmt(x: float, digits: int = 2, *, sign: bool = False, above_zero: bool = False) -> str:
    """Round to ``digits`` decimals, drop trailing zeros, use a true minus sign.

    ``above_zero``: a positive number too small for ``digits`` reads "< 0.0001" (at 4 digits), not "0", where a
    sentence must not say a probability reached 0 when it only came close (``fmt(3e-6, 4, above_zero=True)``).

    From a million on, the number is written as a power of ten with ``digits`` decimals; NaN reads
    "not defined" and infinity "∞", so no page shows "nan", "inf" or dozens of digits.

    >>> fmt(4.3), fmt(-2.2999999), fmt(0.7, sign=True), fmt(2.37620), fmt(0.0, sign=True)
    ('4.3', '−2.3', '+0.7', '2.38', '0')
    >>> fmt(2.5e22), fmt(-1234567), fmt(999999.5, 0), fmt(10**400), fmt(float("nan")), fmt(-float("inf"))
    ('2.5 × 10²²', '−1.23 × 10⁶', '1 × 10⁶', '1 × 10⁴⁰⁰', 'not defined', '−∞')
    >>> fmt(3e-6, 4), fmt(3e-6, 4, above_zero=True), fmt(0.0, 4, above_zero=True)
    ('0', '< 0.0001', '0')
    """
    x = _real(x)
    if x != x:
        return NOT_DEFINED
    if abs(x) == math.inf:
        return ("" if x > 0 else MINUS) + "∞"
    text = f"{round(x, digits):.{digits}f}" if abs(x) < BIG else ""
    if not text or abs(float(text)) >= BIG:  # 999999.999 rounds up to a million: a power of ten too
        mantissa, power = f"{x:.{digits}e}".split("e")
        text = f"{_trim(mantissa)} × 10" + str(int(power)).translate(_SUPERSCRIPT)
    else:
        text = _trim(text)
    if text in ("-0", ""):
        text = "0"
    if above_zero and text == "0" and x > 0:
        return "< " + f"{10.0 ** -digits:.{digits}f}"
    if sign and not text.startswith("-") and text != "0":
        text = "+" + text
    return text.replace("-", MINUS)


def _trim(text: str) -> str:
    return text.rstrip("0").rstrip(".") if "." in text else text


def _real(x):
    """``x`` as a float; an integer too large for a float stays an exact Decimal (10**400 is finite)."""
    if isinstance(x, Decimal):
        return x
    try:
        return float(x)
    except OverflowError:
        return Decimal(x)


def fmt_list(values, digits: int = 2, sep: str = " / ") -> str:
    """Several numbers in one string, e.g. ``0.5 / 0.3 / 0.2``."""
    return sep.join(fmt(v, digits) for v in values)


def esc(text) -> str:
    """Escape user text for ``st.markdown`` so it shows literally (no links, HTML, emphasis or LaTeX).

    A character that would not show, or would change how the text around it reads (a right-to-left
    override, a zero-width space, a control character, a filler), is written as its code point instead.

    >>> print(esc("[x](y) *b* $a$ <i>"))
    \\[x\\]\\(y\\) \\*b\\* \\$a\\$ \\<i\\>
    >>> print(esc("abc\u202edef"))
    abc⟨U\\+202E⟩def
    """
    return "".join(_literal(ch) for ch in str(text))


def _literal(ch: str) -> str:
    if ch in _MD_SPECIAL:
        return "\\" + ch
    if unicodedata.category(ch) in _UNSEEN or ord(ch) in rlcore.example.INVISIBLE:
        return f"⟨U\\+{ord(ch):04X}⟩"
    return ch


_MD_SPECIAL = set("\\`*_{}[]()#+-.!|<>$~:&=")
_UNSEEN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}  # controls, formatting (bidi, zero-width), line breaks


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet reads a cell that starts so as a formula


def cell(value):
    """A CSV cell a spreadsheet shows as written: text that would start a formula gets a leading ``'``.

    Numbers stay numbers (−2 is not text); only strings change.

    >>> cell("=HYPERLINK(1)"), cell("-2+3"), cell("open"), cell(-2.5)
    ("'=HYPERLINK(1)", "'-2+3", 'open', -2.5)
    """
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_START) else value


SIGNIFICANT = 12  # digits a table keeps of a float: rlcore's sums carry noise in the 16th (0.1 + 0.2)


def tidy(data):
    """A DataFrame as a table shows it: every float rounded to ``SIGNIFICANT`` significant digits, so the noise of
    binary sums (0.010000000000000002, −1.0999999999999996) reads as the number it is; NaN and ±inf stay.

    >>> import pandas as pd
    >>> tidy(pd.DataFrame({"x": [0.1 + 0.2, -1.0999999999999996, 9.017999999999999, 1e-300], "n": [1, 2, 3, 4]})
    ...      ).to_dict("list")
    {'x': [0.3, -1.1, 9.018, 1e-300], 'n': [1, 2, 3, 4]}
    """
    out = data.copy()
    for i in range(out.shape[1]):
        column = out.iloc[:, i]
        if column.dtype.kind == "f":  # a table holds a few hundred rows, and only an open one is tidied
            out.isetitem(i, np.array([float(f"{x:.{SIGNIFICANT}g}") for x in column.to_numpy(dtype=float)]))
    return out


def csv_text(data) -> str:
    """A DataFrame as CSV text for a download, with every text cell and column name through ``cell``.

    Columns of numbers, booleans or dates are written as they are; text columns (object, string, category)
    cell by cell, so a token named ``=HYPERLINK(...)`` or ``@cmd`` reaches a spreadsheet as text.
    """
    safe = data.rename(columns=cell)
    for i in range(safe.shape[1]):
        column = safe.iloc[:, i]
        if column.dtype.kind not in "biufcmM":  # bool, int, unsigned, float, complex, timedelta, datetime
            safe.isetitem(i, column.astype(object).map(cell))
    return safe.to_csv(index=False, lineterminator="\r\n")  # RFC 4180: a CR or LF in a cell is quoted


WRAP_AFTER = 8  # a name longer than this may wrap between any two of its characters


def breakable(text) -> str:
    """``esc(text)`` for a narrow table cell: a long name gets a zero-width space between its characters, so it
    wraps instead of widening the table past a phone's screen (a name has no spaces to wrap at). No break goes
    before a combining mark or an emoji's modifier, nor inside a pair of flag letters or a Hangul syllable.

    >>> breakable("open"), breakable("abcdefghi") == "\u200b".join("abcdefghi")
    ('open', True)
    """
    text = str(text)
    if len(text) <= WRAP_AFTER:
        return esc(text)
    return "".join((ZERO_WIDTH if i and not _joined(text[i - 1], ch) else "") + esc(ch) for i, ch in enumerate(text))


def _joined(before: str, ch: str) -> bool:
    """Whether ``ch`` belongs to the same visible character as ``before``."""
    a, b = ord(before), ord(ch)
    flags = 0x1F1E6 <= a <= 0x1F1FF and 0x1F1E6 <= b <= 0x1F1FF
    return (unicodedata.category(ch).startswith("M") or 0x1F3FB <= b <= 0x1F3FF or flags
            or 0x1160 <= b <= 0x11FF or 0xD7B0 <= b <= 0xD7FF)


def cut_to(text: str, most: int) -> str:
    """``text`` cut to at most ``most`` UTF-16 units, as a browser's field counts (an emoji counts as two), between
    two characters as a reader sees them: never inside a surrogate pair, before a combining mark, an emoji's
    selector, skin tone or tag, next to a zero-width joiner, or inside a pair of flag letters. Only when the first of
    those characters alone is longer than ``most`` is it cut between its code points, so the result is empty only
    when ``text`` is (a pasted name that is too long keeps what fits, not nothing).

    >>> cut_to("😀" * 24, 24) == "😀" * 12, cut_to("abc", 24), cut_to("ab👍🏽", 4), cut_to("🇫🇷🇩🇪", 6) == "🇫🇷"
    (True, 'abc', 'ab', True)
    """
    if rlcore.browser_length(text) <= most:
        return text
    kept, used, last = [], 0, ""
    for cluster in _clusters(text):
        size = rlcore.browser_length(cluster)
        if used + size > most:
            break
        kept.append(cluster)
        used += size
    if kept or not text:
        return "".join(kept)
    for ch in text:  # one cluster longer than the whole field: keep its first code points that fit
        if rlcore.browser_length(last + ch) > most:
            break
        last += ch
    return last


def _clusters(text: str):
    """``text``'s characters as a reader sees them (near enough to Unicode's grapheme clusters for cutting a name)."""
    cluster, flags = "", 0
    for ch in text:
        b = ord(ch)
        flag = 0x1F1E6 <= b <= 0x1F1FF
        glued = cluster and (
            unicodedata.category(ch).startswith("M") or 0x1F3FB <= b <= 0x1F3FF or b == 0x200D
            or 0xFE00 <= b <= 0xFE0F or 0xE0100 <= b <= 0xE01EF or 0xE0020 <= b <= 0xE007F
            or cluster[-1] == "\u200d" or (flag and flags % 2 == 1) or 0x1160 <= b <= 0x11FF or 0xD7B0 <= b <= 0xD7FF)
        if not glued:
            if cluster:
                yield cluster
            cluster, flags = "", 0
        cluster += ch
        flags += flag
    if cluster:
        yield cluster


def pct(x: float, digits: int = 0) -> str:
    """A share as a percentage: ``pct(0.05) == '5%'``; NaN reads "not defined", with no percent sign."""
    text = fmt(100 * _real(x), digits)
    return text if text == NOT_DEFINED else text + "%"


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


SUBTITLE_CHARS = 46  # a line of a chart's subtitle that fits a phone's chart (about 350 px) and half a laptop's
CJK_EXTRA = 10       # Chinese subtitles take 10 cells more: a CJK glyph is narrower than two Latin letters


_PIECE = re.compile(r"[^\s\u2e80-\u9fff\u3000-\u303f\uff00-\uffef]+\s*|\s+|.")  # a word, a space or one CJK character
_NO_LINE_START = set("，。；：、）》」』！？”’,.;:)")  # punctuation that stays with what it follows
_NO_LINE_END = set("（《「『“‘(")  # and what stays with what follows it
_CLAUSE_END = set("，。；：、！？）》」』")  # a break after these ends a clause: the best place for one
_CJK = re.compile(r"[\u2e80-\u9fff]")
_NUMBER = re.compile(r"[\d{}.,%+−\-×/=]+")  # a number (or a placeholder's), written with its unit: "第 0 步"
# what a line costs, and a break by where it falls: Chinese has no spaces between words, so a break between two
# characters may split one (留 / 出题目, 词 / 元): it comes last, after an extra line and after any other break
_LINE, _AT_SPACE, _BY_NUMBER, _AFTER_DE, _IN_WORD, _RAGGED = 5.0, 2.0, 12.0, 8.0, 20.0, 3.0


def _cells(text: str) -> int:
    """Display width: a wide (CJK) character takes two cells of a Latin one."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def wrap(text: str, width: int = SUBTITLE_CHARS) -> list[str]:
    """A chart subtitle as lines short enough to fit: Vega-Lite cuts a long title off instead of wrapping it. The
    lines are balanced (as few as fit ``width``, each as long as the others), so no word is left alone on the last.
    Chinese counts two cells a character (and may use ``CJK_EXTRA`` more: its glyphs are narrower than two Latin
    ones) and breaks where a reader pauses: after a clause's punctuation, else at a space (not inside "第 0 步"),
    else after 的; between two characters, which may be inside a word, only where a clause is wider than a line.

    >>> wrap("dashed: 0.8, 1.2 and 1.28; PPO drops a point right of 1 + ε above 0")
    ['dashed: 0.8, 1.2 and 1.28; PPO drops', 'a point right of 1 + ε above 0']
    >>> wrap("虚线：PPO 在 1 + ε 右边丢掉一个点，其余不变。", 20)
    ['虚线：PPO 在 1 + ε', '右边丢掉一个点，', '其余不变。']
    >>> wrap("每种训练每一步 16 道题 × 8 个回答；64 道留出题目，每题 8 个回答；第 0 步是基座模型")
    ['每种训练每一步 16 道题 × 8 个回答；', '64 道留出题目，每题 8 个回答；第 0 步是基座模型']
    """
    cjk = _cells(text) != len(text)
    if cjk:
        return _wrap_cjk(text, width + (CJK_EXTRA if width == SUBTITLE_CHARS else 0))
    lines = _wrap_at(text, width)
    for narrower in range(width - 1, 0, -1):  # the narrowest width that still needs no more lines
        tighter = _wrap_at(text, narrower)
        if len(tighter) > len(lines):
            break
        lines = tighter
    return lines


def _wrap_at(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width) or [""]


def _break_cost(before: str, after: str) -> float:
    """What a line break between the pieces ``before`` (with the space after it) and ``after`` costs (inf: never)."""
    last, spaced = before.rstrip()[-1:], before != before.rstrip()
    if after[0] in _NO_LINE_START or last in _NO_LINE_END:
        return math.inf
    if last in _CLAUSE_END or (spaced and last in {",", ";", ":"}):
        return 0.0
    if after[0] in _NO_LINE_END:
        return 1.0
    if last in {"”", "’"}:  # a quoted word is part of its phrase: 计入“结束”之前
        return _AFTER_DE
    if spaced:  # a number stays with its unit or counter, and 第 with its number
        return _BY_NUMBER if _NUMBER.fullmatch(before.strip()) or (last == "第" and _NUMBER.match(after)) else _AT_SPACE
    if last == "的":
        return _AFTER_DE
    return _IN_WORD if _CJK.match(last) or _CJK.match(after[0]) else math.inf  # inside a Latin word: never


def _wrap_cjk(text: str, width: int) -> list[str]:
    """The cheapest lines of ``text`` within ``width`` cells: each line costs ``_LINE``, each break its place
    (``_break_cost``) and each line's slack ``_RAGGED`` × its squared share of the width (which balances them)."""
    pieces: list[str] = []
    for piece in _PIECE.findall(text.strip()):  # a space goes with the piece before it
        if piece.isspace():
            pieces[-1] += piece
        else:
            pieces.append(piece)
    if not pieces:
        return [""]
    n = len(pieces)
    best, start = [0.0] + [math.inf] * n, [0] * (n + 1)  # best[j]: the cheapest lines of pieces[:j]
    for j in range(1, n + 1):
        for i in range(j - 1, -1, -1):
            line = "".join(pieces[i:j]).strip()
            cells = _cells(line)
            if cells > width and j - i > 1:
                break  # longer lines only get wider
            at = 0.0 if i == 0 else _break_cost(pieces[i - 1], pieces[i])
            cost = best[i] + at + _LINE + _RAGGED * (max(width - cells, 0) / width) ** 2
            if cost < best[j]:
                best[j], start[j] = cost, i
    lines, j = [], n
    while j > 0:
        lines.append("".join(pieces[start[j]:j]).strip())
        j = start[j]
    return lines[::-1]
