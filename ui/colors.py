"""The app's colour language: one palette for tokens, a second for methods, both readable on either theme.

Tokens (``open``, ``closed``, ...) keep one colour on every page; methods (baselines, algorithms,
decoding modes, KL estimators) take colours from a second palette that shares no colour with the
first, so a method's line is never mistaken for a token's. Every colour that marks data keeps a
contrast of at least 3:1 (WCAG 1.4.11, non-text contrast) against the light theme's white and the
dark theme's near-black background (``tests/ui/test_colors.py`` computes it).
"""

from __future__ import annotations

import altair as alt

LIGHT_BACKGROUND = "#FFFFFF"
DARK_BACKGROUND = "#0E1117"  # Streamlit's dark theme

# Tokens: Okabe & Ito (2008), with the orange darkened to a gold and the sky blue left out: both fell
# below 3:1 on white. Six colours: a scenario has at most six tokens.
PALETTE = ("#D55E00", "#0072B2", "#009E73", "#B8860B", "#CC79A7", "#7F7F7F")
FIXED = {"open": "#D55E00", "closed": "#0072B2", "partly": "#009E73"}
NEUTRAL = "#7F7F7F"  # reference lines, bars that are not a token's
ACCENT = "#CC79A7"   # the one highlighted mark on a chart

# Methods: violet, olive, magenta, teal, brown, then slate (ColorBrewer Dark2 and Tableau hues, darkened or
# lightened into the band that keeps 3:1 on both backgrounds). Fixed names keep their colour everywhere.
METHOD_PALETTE = ("#7570B3", "#6F8F00", "#CF1C90", "#008695", "#8C564B", "#64748B")
METHOD_FIXED = {
    # training algorithms (rlcore.ALGORITHMS) and the names a learner reads for them
    "reinforce": "#64748B", "REINFORCE": "#64748B",
    "reinforce_mean": "#6F8F00", "REINFORCE + running mean": "#6F8F00",
    "grpo": "#CF1C90", "GRPO": "#CF1C90",
    "dr_grpo": "#8C564B", "Dr. GRPO": "#8C564B",
    "rloo": "#008695", "RLOO": "#008695",
    "ppo": "#7570B3", "PPO": "#7570B3",
    "dapo": "#8A6D00", "DAPO": "#8A6D00",
    "gspo": "#9C6ADE", "GSPO": "#9C6ADE",
    "cispo": "#3B82F6", "CISPO": "#3B82F6",
    # decoding modes and KL estimators
    "greedy": "#8C564B",
    "k1": "#7570B3", "k2": "#6F8F00", "k3": "#CF1C90",
}

# One fixed colour per training algorithm (training lab), from the method palette.
ALGORITHM_COLORS = {k: METHOD_FIXED[k] for k in ("reinforce", "reinforce_mean", "grpo", "dr_grpo", "rloo", "ppo",
                                                 "dapo", "gspo", "cispo")}


def _assign(names, fixed: dict[str, str], palette) -> dict[str, str]:
    names = list(dict.fromkeys(names))
    taken = {fixed[n] for n in names if n in fixed}
    free = [c for c in palette if c not in taken]
    out = {}
    for name in names:
        out[name] = fixed.get(name) or (free.pop(0) if free else NEUTRAL)
    return out


def token_colors(tokens) -> dict[str, str]:
    """A colour for each token: the article's tokens keep theirs, others take the free ones in order."""
    return _assign(tokens, FIXED, PALETTE)


def method_colors(names) -> dict[str, str]:
    """A colour for each method name: known names (``"ppo"``, ``"greedy"``, ``"k3"``) keep theirs, others
    take the free method colours in the order given, so two charts given the same names agree."""
    return _assign(names, METHOD_FIXED, METHOD_PALETTE)


def method_scale(names) -> alt.Scale:
    """An Altair colour scale that maps each method name to its colour (the names' order is the legend's)."""
    colors = method_colors(names)
    return alt.Scale(domain=list(colors), range=list(colors.values()))


def contrast(color: str, background: str) -> float:
    """WCAG 2 contrast ratio of two ``#RRGGBB`` colours, from 1 (same) to 21 (black on white)."""
    def luminance(hex_color: str) -> float:
        channels = [int(hex_color[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    hi, lo = sorted((luminance(color), luminance(background)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)
