"""The app's colour language, defined here and nowhere else: one palette for tokens, a second for methods,
both readable on either theme.

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
LABEL = "#8C8C8C"    # text drawn on a chart
OVERLAY = "#4682B4"  # a line drawn over bars that is no token's and no method's (an answer's return)

# An advantage on a token cell: orange for a token pushed down, blue for one pushed up (Okabe & Ito's pair,
# lightened so that the dark token text on them stays readable), light grey for 0; CELL_TEXT draws on them.
DIVERGING = ("#EE9A6B", "#F2F2F2", "#6FB3E3")
CELL_TEXT = "#111111"

# Problem sizes (page 19: 2 to 7 numbers), in order: teal to magenta, each 3:1 against both backgrounds.
SIZE_RAMP = ("#008695", "#2E86C1", "#4B6BD1", "#7570B3", "#B3479B", "#CF1C90")

# Methods: violet, olive, magenta, teal, brown, then slate (ColorBrewer Dark2 and Tableau hues, darkened or
# lightened into the band that keeps 3:1 on both backgrounds).
METHOD_PALETTE = ("#7570B3", "#6F8F00", "#CF1C90", "#008695", "#8C564B", "#64748B")

# One colour per method, whatever page draws it: the key is the method's id (rlcore's name for it).
METHODS = {
    # training algorithms (rlcore.ALGORITHMS)
    "reinforce": "#64748B", "reinforce_mean": "#6F8F00", "grpo": "#CF1C90", "dr_grpo": "#8C564B",
    "rloo": "#008695", "ppo": "#7570B3", "dapo": "#8A6D00", "gspo": "#9C6ADE", "cispo": "#3B82F6",
    "rft": "#B35C00",  # page 19's online RFT: supervised learning on the model's own right answers (RL, 0/1 reward)
    "rft_offline": "#2F8F9F", "star": "#6F8F00",  # page 19's baselines: the base's samples once; a few rounds
    # decoding modes
    "greedy": "#8C564B", "sampling": "#7570B3",
    # KL estimators (Schulman's k1, k2, k3)
    "k1": "#7570B3", "k2": "#6F8F00", "k3": "#CF1C90",
    # ways of weighting off-policy tokens
    "no correction": NEUTRAL, "truncate": "#4B6BD1", "mask": "#B3479B", "full weights": "#2F8F9F",
    # pass@1 and pass@k, exact and estimated from sampled answers: the darker shade exact, the lighter sampled
    "pass@1, exact": "#3F5FC8", "pass@k, exact": "#A33A75", "pass@1, sampled": "#6A7FDB",
    "pass@k, sampled": "#D46AA2",
    # who scores an answer (the judge's pages), and the ways of training straight from preferences
    "true judge": "#008695", "raters": "#6F8F00", "reward model": "#CF1C90", "fit error": "#7570B3",
    "KL": "#8C564B",
    "dpo": "#CF1C90", "ipo": "#8C564B", "dpo loss": "#7570B3", "pair weight": "#6F8F00",
    # DPO on the tiny model (page 18's last section), beside GRPO's magenta: offline and online pairs
    "offline dpo": "#7570B3", "online dpo": "#008695",
    # where each way of training goes (page 18): the reference and the raters' KL optimum (DPO and PPO: theirs)
    "reference": NEUTRAL, "kl optimum": "#6F8F00",
}

# The names a learner reads for the training algorithms (rlcore.ALGORITHM_NAMES), each its algorithm's colour.
ALGORITHM_LABELS = {"REINFORCE": "reinforce", "REINFORCE + running mean": "reinforce_mean", "GRPO": "grpo",
                    "Dr. GRPO": "dr_grpo", "RLOO": "rloo", "PPO": "ppo", "DAPO": "dapo", "GSPO": "gspo",
                    "CISPO": "cispo"}
# Every name that has a fixed colour: the methods' ids and the algorithms' names.
METHOD_FIXED = {**METHODS, **{label: METHODS[m] for label, m in ALGORITHM_LABELS.items()}}
ALGORITHM_COLORS = {m: METHODS[m] for m in ALGORITHM_LABELS.values()}  # one per training algorithm (the lab)


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
    """A colour for each series that is not a token (a method, a baseline, a curve), in the order given.

    ``names`` is a list of the labels the chart shows, or a dict {label: method id} for labels that name a
    method in other words (``{"token-mean · DAPO": "dapo", "seq-mean-token-sum": None}``). A label that is a
    method's id or an algorithm's name (``"ppo"``, ``"GRPO"``, ``"k3"``), or is given one, takes that
    method's colour, the same on every page; the others take the free method colours in order, so two charts
    given the same labels agree.
    """
    given = names if isinstance(names, dict) else {}
    fixed = {**METHOD_FIXED, **{label: METHODS[m] for label, m in given.items() if m is not None}}
    return _assign(names, fixed, METHOD_PALETTE)


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
