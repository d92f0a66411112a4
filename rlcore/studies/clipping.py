"""The ratio and clipping page's studies: PPO's clipped objective of one token, and a few epochs on one batch."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.checks import positive_each, show
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

__all__ = ["ClipCurve", "PPORun", "clip_curve", "ppo_run"]

CURVE_POINTS = 51  # evenly spaced probabilities of the curve (every 0.02), besides π_old and its clip bounds: the
# objective is straight but for its kinks at the bounds, so more points draw the same lines, and page 8's scrubbed
# chart redraws them for every ε it is dragged to (bench/scrub.py)


@dataclass(frozen=True)
class ClipCurve:
    """PPO's clipped objective of one token against the probability the update gives it, for +|A| and −|A|; at one
    ε, or at each ε of an array [V] (a chart dragged over ε), the fields that depend on ε then with a leading [V]."""

    p_old: float        # π_old of the token
    adv: float          # its advantage A = Q − V
    size: float         # |A|, or 1 when A = 0 (a zero advantage has no slope to show)
    low: float          # the clip bounds of π: (1 − ε)·π_old ...   (or shape [V])
    high: float         # ... and min(1, (1 + ε)·π_old)             (or shape [V])
    factor: float       # 1 + ε where A ≥ 0 pushes π up, 1 − ε where A < 0 pushes it down: the bound over π_old
    bound: float        # the bound in A's direction: high where A ≥ 0, low where A < 0
    added: float        # π_old + ε (A ≥ 0) or π_old − ε (A < 0): where the bound would be if ε were added
    x: np.ndarray       # shape [M] (or [V, M]): π of the token, 0 to 1 with π_old and the bounds, increasing
    pos: np.ndarray     # x's shape: the clipped objective at +size
    neg: np.ndarray     # x's shape: ... at −size
    keep: np.ndarray    # x's shape, bool: a π not a repeat of the one before it (all True at one ε)


def clip_curve(scenario: Scenario, token: str, eps) -> ClipCurve:
    """The clipped objective min(ρA, clip(ρ, 1 − ε, 1 + ε)·A) of one token as its probability π moves, ρ = π/π_old.

    A is the token's advantage Q − V under the scenario's policy; the curve is drawn for +|A| and −|A| (for
    ±1 when A = 0), over 51 evenly spaced π in [0, 1] plus π_old and its clip bounds (``clip_bounds``). A batch
    moves π in A's direction (up when A = 0) at most to the bound there, π_old times 1 ± ε, not π_old ± ε.

    Args:
        scenario: the running example.
        token: one of its tokens, with π_old > 0.
        eps: clip distance ε > 0; or shape [V], each ε in (0, 1): a row per ε, each row's π sorted with its
            repeats kept (``keep`` is False on them), so that every row has 54.

    Returns:
        ClipCurve(p_old, adv, size, low, high, factor, bound, added, x, pos, neg, keep).

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> c = clip_curve(ARTICLE_SCENARIO, "partly", 0.2)   # the article: π_old 0.2, A = 9 − 4.3
    >>> round(c.p_old, 10), round(c.adv, 10), round(c.low, 10), round(c.high, 10), round(c.added, 10)
    (0.2, 4.7, 0.16, 0.24, 0.4)
    >>> clip_curve(ARTICLE_SCENARIO, "partly", [0.1, 0.2, 0.25]).high.round(10).tolist()
    [0.22, 0.24, 0.25]
    """
    i = check_scenario(scenario).index(token)
    p_old = float(scenario.pi[i])
    adv = float(advantages(scenario.pi, scenario.q)[i])
    size = abs(adv) if adv != 0 else 1.0  # a zero advantage has no slope: show ±1 instead
    up = adv >= 0
    if np.ndim(eps) == 0:
        low, high = clip_bounds(p_old, eps)
        x = np.unique(np.r_[np.linspace(0.0, 1.0, CURVE_POINTS), low, high, p_old])
        e = float(eps)
        ratio = importance_ratio(x, np.full(x.shape, p_old))
        return ClipCurve(p_old=p_old, adv=adv, size=size, low=low, high=high, factor=1 + e if up else 1 - e,
                         bound=high if up else low, added=p_old + e if up else p_old - e, x=x,
                         pos=clipped_objective(ratio, size, eps), neg=clipped_objective(ratio, -size, eps),
                         keep=np.ones(x.size, dtype=bool))
    e = positive_each("eps", eps)
    if e.ndim != 1 or e.max() >= 1:
        raise ValueError(f"eps must be one-dimensional, each in (0, 1), got {show(e)}")
    if p_old <= 0:
        raise ValueError(f"token must have π_old > 0, got π_old({token}) = {p_old}")
    bounds = np.array([clip_bounds(p_old, x) for x in e])              # [V, 2]
    x = np.sort(np.c_[np.tile(np.linspace(0.0, 1.0, CURVE_POINTS), (e.size, 1)), bounds,
                      np.full(e.size, p_old)], axis=1)                 # [V, M], as np.unique sorts each
    keep = np.c_[np.ones(e.size, dtype=bool), np.diff(x, axis=1) != 0]  # and drops repeats
    ratio = importance_ratio(x.ravel(), np.full(x.size, p_old)).reshape(x.shape)
    return ClipCurve(p_old=p_old, adv=adv, size=size, low=bounds[:, 0], high=bounds[:, 1],
                     factor=1 + e if up else 1 - e, bound=bounds[:, 1] if up else bounds[:, 0],
                     added=p_old + e if up else p_old - e, x=x, pos=clipped_objective(ratio, size, e[:, None]),
                     neg=clipped_objective(ratio, -size, e[:, None]), keep=keep)


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
