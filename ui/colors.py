"""One fixed, colour-blind-safe colour per token, the same on every page (Okabe-Ito palette)."""

from __future__ import annotations

# Okabe & Ito (2008); yellow is left out, it is unreadable on a white background.
PALETTE = ("#D55E00", "#0072B2", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#7F7F7F")
FIXED = {"open": "#D55E00", "closed": "#0072B2", "partly": "#009E73"}
NEUTRAL = "#7F7F7F"
ACCENT = "#CC79A7"


def token_colors(tokens) -> dict[str, str]:
    """A colour for each token: the article's tokens keep theirs, others take the free ones in order."""
    free = [c for c in PALETTE if c not in {FIXED[t] for t in tokens if t in FIXED}]
    out = {}
    for tok in tokens:
        out[tok] = FIXED.get(tok) or (free.pop(0) if free else NEUTRAL)
    return out


# One fixed colour per training algorithm (training lab), chosen apart from the article's token colours so an
# algorithm's curve is never mistaken for a token's: indigo, pink, orange, sky blue, black, grey (Tol, Okabe-Ito).
ALGORITHM_COLORS = {"reinforce": "#7F7F7F", "reinforce_mean": "#332288", "grpo": "#CC79A7", "dr_grpo": "#E69F00",
                    "rloo": "#56B4E9", "ppo": "#000000"}
