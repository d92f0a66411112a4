"""The ratio and clipping page's studies: PPO's clipped objective of one token, and a few epochs on one batch."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.checks import scrub_grid
from ..formulas.estimates import advantages
from ..formulas.example import Scenario, check_scenario
from ..formulas.ppo import (
    PPOBatch,
    PPOEpochs,
    batch_advantages,
    clip_bounds,
    clipped_objective,
    importance_ratio,
    ppo_epochs,
)

__all__ = ["ClipCurve", "ClipCurves", "PPORun", "clip_curve", "clip_curves", "ppo_run"]

CURVE_POINTS = 51  # evenly spaced probabilities of the curve (every 0.02), besides π_old and its clip bounds: the
# objective is straight but for its kinks at the bounds, so more points draw the same lines, and page 8's scrubbed
# chart redraws them for every ε it is dragged to (bench/scrub.py)


@dataclass(frozen=True)
class ClipCurve:
    """PPO's clipped objective of one token against the probability the update gives it, for +|A| and −|A|."""

    p_old: float        # π_old of the token
    adv: float          # its advantage A = Q − V
    size: float         # |A|, or 1 when A = 0 (a zero advantage has no slope to show)
    low: float          # the clip bounds of π: (1 − ε)·π_old ...
    high: float         # ... and min(1, (1 + ε)·π_old)
    factor: float       # 1 + ε where A ≥ 0 pushes π up, 1 − ε where A < 0 pushes it down: the bound over π_old
    bound: float        # the bound in A's direction: high where A ≥ 0, low where A < 0
    added: float        # π_old + ε (A ≥ 0) or π_old − ε (A < 0): where the bound would be if ε were added
    x: np.ndarray       # shape [M]: π of the token, 0 to 1 with π_old and the bounds, increasing
    pos: np.ndarray     # shape [M]: the clipped objective at +size
    neg: np.ndarray     # shape [M]: ... at −size


def clip_curve(scenario: Scenario, token: str, eps: float) -> ClipCurve:
    """The clipped objective min(ρA, clip(ρ, 1 − ε, 1 + ε)·A) of one token as its probability π moves, ρ = π/π_old.

    A is the token's advantage Q − V under the scenario's policy; the curve is drawn for +|A| and −|A| (for
    ±1 when A = 0), over 51 evenly spaced π in [0, 1] plus π_old and its clip bounds (``clip_bounds``). A batch
    moves π in A's direction (up when A = 0) at most to the bound there, π_old times 1 ± ε, not π_old ± ε.

    Args:
        scenario: the running example.
        token: one of its tokens, with π_old > 0.
        eps: clip distance ε > 0.

    Returns:
        ClipCurve(p_old, adv, size, low, high, factor, bound, added, x, pos, neg).

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> c = clip_curve(ARTICLE_SCENARIO, "partly", 0.2)   # the article: π_old 0.2, A = 9 − 4.3
    >>> round(c.p_old, 10), round(c.adv, 10), round(c.low, 10), round(c.high, 10), round(c.added, 10)
    (0.2, 4.7, 0.16, 0.24, 0.4)
    """
    i = check_scenario(scenario).index(token)
    p_old = float(scenario.pi[i])
    adv = float(advantages(scenario.pi, scenario.q)[i])
    low, high = clip_bounds(p_old, eps)
    x = np.unique(np.r_[np.linspace(0.0, 1.0, CURVE_POINTS), low, high, p_old])
    ratio = importance_ratio(x, np.full(x.shape, p_old))
    size = abs(adv) if adv != 0 else 1.0  # a zero advantage has no slope: show ±1 instead
    e, up = float(eps), adv >= 0
    return ClipCurve(p_old=p_old, adv=adv, size=size, low=low, high=high, factor=1 + e if up else 1 - e,
                     bound=high if up else low, added=p_old + e if up else p_old - e, x=x,
                     pos=clipped_objective(ratio, size, eps), neg=clipped_objective(ratio, -size, eps))


@dataclass(frozen=True)
class ClipCurves:
    """``clip_curve`` at every ε of a grid at once (and at the committed ε where it lies between grid points): the
    rows of a chart scrubbed over ε, one row per (ε, π), the curves of one ε in increasing π."""

    eps: np.ndarray     # shape [V]: the grid's ε, then the committed ε where it is off the grid
    exact: np.ndarray   # shape [V], bool: that last, committed ε (all False when it is a grid point)
    low: np.ndarray     # shape [V]: (1 − ε)·π_old, per ε
    high: np.ndarray    # shape [V]: min(1, (1 + ε)·π_old), per ε
    row_eps: np.ndarray  # shape [N]: each row's ε
    x: np.ndarray       # shape [N]: π of the token (per ε: ``clip_curve``'s x)
    pos: np.ndarray     # shape [N]: the clipped objective at +|A|
    neg: np.ndarray     # shape [N]: ... at −|A|
    row_exact: np.ndarray  # shape [N], bool: rows of the committed ε off the grid


def clip_curves(scenario: Scenario, token: str, eps: float, grid) -> ClipCurves:
    """``clip_curve(scenario, token, e)`` for every e of ``grid`` in one vectorised pass, and for the committed
    ``eps`` too where it lies between grid points (``exact``): what a chart needs to redraw as ε is dragged.

    Args:
        scenario: the running example.
        token: one of its tokens, with π_old > 0.
        eps: the committed clip distance, in (0, 1).
        grid: at least two ε in (0, 1), ascending in equal steps (a slider's steps).

    Returns:
        ClipCurves(eps, exact, low, high, row_eps, x, pos, neg, row_exact).

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> c = clip_curves(ARTICLE_SCENARIO, "partly", 0.25, [0.1, 0.2, 0.3])   # 0.25: between grid points
    >>> c.eps.tolist(), c.exact.tolist(), c.high.round(10).tolist()
    ([0.1, 0.2, 0.3, 0.25], [False, False, False, True], [0.22, 0.24, 0.26, 0.25])
    """
    i = check_scenario(scenario).index(token)
    values, exact = scrub_grid("grid", grid, "eps", eps, 0.0, 1.0)
    if values.min() <= 0 or values.max() >= 1:
        raise ValueError(f"grid and eps must lie in (0, 1), got {values.tolist()[:8]}")
    p_old = float(scenario.pi[i])
    adv = float(advantages(scenario.pi, scenario.q)[i])
    if p_old <= 0:
        raise ValueError(f"token must have π_old > 0, got π_old({token}) = {p_old}")
    bounds = np.array([clip_bounds(p_old, e) for e in values])            # [V, 2]
    x = np.sort(np.c_[np.tile(np.linspace(0.0, 1.0, CURVE_POINTS), (values.size, 1)), bounds,
                      np.full(values.size, p_old)], axis=1)               # [V, M], as np.unique sorts each
    keep = np.c_[np.ones(values.size, dtype=bool), np.diff(x, axis=1) != 0]  # and drops repeats
    ratio = importance_ratio(x.ravel(), np.full(x.size, p_old)).reshape(x.shape)
    size = abs(adv) if adv != 0 else 1.0
    return ClipCurves(eps=values, exact=exact, low=bounds[:, 0], high=bounds[:, 1],
                      row_eps=np.broadcast_to(values[:, None], x.shape)[keep], x=x[keep],
                      pos=clipped_objective(ratio, size, values[:, None])[keep],
                      neg=clipped_objective(ratio, -size, values[:, None])[keep],
                      row_exact=np.broadcast_to(exact[:, None], x.shape)[keep])


@dataclass(frozen=True)
class PPORun:
    """PPO epochs on the scenario's sampled answers as one batch, with each token's clip band."""

    batch: PPOBatch                        # the answers, their scores and advantages R − V
    run: PPOEpochs                         # π and the share clipped before each epoch and after the last
    bands: tuple[tuple[float, float], ...]  # per token: the clip bounds of its π (``clip_bounds``)


def ppo_run(scenario: Scenario, eps: float, lr: float, epochs: int) -> PPORun:
    """The scenario's sampled answers as one batch (advantage R − V, ``batch_advantages``), and ``epochs`` PPO
    epochs of gradient ascent on its clipped objective (``ppo_epochs``).

    Args:
        scenario: the running example, every token with π > 0.
        eps: clip distance ε > 0.
        lr: step size η ≥ 0.
        epochs: number of passes over the batch (≥ 1).

    Returns:
        PPORun(batch, run, bands).

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> r = ppo_run(ARTICLE_SCENARIO, 0.2, 0.1, 3)
    >>> r.run.probs.shape, [round(x, 10) for x in r.bands[2]]
    ((4, 3), [0.16, 0.24])
    """
    pi = check_scenario(scenario).pi
    batch = batch_advantages(pi, scenario.samples)
    run = ppo_epochs(pi, batch.actions, batch.advantages, lr=lr, epochs=epochs, eps=eps)
    return PPORun(batch=batch, run=run, bands=tuple(clip_bounds(p, eps) for p in pi))
