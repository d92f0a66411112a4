"""The baseline page's studies: the exact effect of a baseline on the REINFORCE estimate, and the same sampled
answers under several baselines."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.checks import as_probs, as_samples, as_vector, count, non_negative
from ..formulas.estimates import (
    GradientStats,
    gradient_stats,
    gradient_variance_curve,
    histogram_counts,
    optimal_baseline,
    running_mean,
    sample_answers,
    sample_checkpoints,
)
from .value import ValueBreakdown, value_breakdown

__all__ = ["BaselineOverview", "BaselineStudy", "baseline_overview", "baseline_study"]


@dataclass(frozen=True)
class BaselineOverview:
    """What a baseline does, exactly, for one decision: the same mean update, a variance that is a parabola in b."""

    breakdown: ValueBreakdown  # Q, V and A of the decision, with every term (``value_breakdown``)
    b_star: float              # the baseline of least variance (``optimal_baseline``)
    best: int                  # the token with the highest Q (the first one on a tie)
    likely: int                # the most probable token (the first one on a tie)
    zero: GradientStats        # the exact mean and total variance of the estimate with b = 0
    at_v: GradientStats        # ... with b = V
    same_mean: bool            # whether b = V leaves the mean update as b = 0 has it (np.allclose)
    grid: np.ndarray           # shape [G]: baselines from 0 to the larger of b_max and the highest score
    curve: np.ndarray          # shape [G]: the total variance at each of them


def baseline_overview(probs, samples, *, b_max: float = 10.0, points: int = 101) -> BaselineOverview:
    """The exact moments of g = (R − b)(eₐ − π) that do not depend on any draw: E[g] = π ⊙ (Q − V) for every b,
    tr Cov[g] at b = 0, b = V and along a grid of b, and b*, where that parabola is lowest.

    Source: Williams (1992); Greensmith, Bartlett & Baxter (2004) for the optimal constant baseline.

    Args:
        probs: shape [K], π.
        samples: K lists of scores.
        b_max: the grid's upper end at least (≥ 0); it reaches the highest score if that is higher.
        points: the grid's number of baselines (≥ 2).

    Returns:
        BaselineOverview(breakdown, b_star, best, likely, zero, at_v, same_mean, grid [G], curve [G]).

    >>> o = baseline_overview([0.5, 0.3, 0.2], [[3, 1, 2, 1, 3], [5, 4, 6], [10, 8]], points=3)
    >>> o.best, o.likely, o.same_mean, o.grid.tolist()
    (2, 0, True, [0.0, 5.0, 10.0])
    >>> round(o.zero.total_variance, 4), round(o.at_v.total_variance, 4)
    (20.7398, 3.7032)
    """
    p = as_probs("probs", probs)
    groups = as_samples("samples", samples, p.size)
    top = non_negative("b_max", b_max)
    m = count("points", points, low=2, high=100_000)
    bd = value_breakdown(p, groups)
    zero, at_v = (gradient_stats(p, groups, x) for x in (0.0, float(bd.v)))
    grid = np.linspace(0.0, max(top, *(max(g) for g in groups)), m)
    return BaselineOverview(
        breakdown=bd, b_star=optimal_baseline(p, groups), best=max(range(p.size), key=lambda i: bd.q[i]),
        likely=max(range(p.size), key=lambda i: p[i]), zero=zero, at_v=at_v,
        same_mean=bool(np.allclose(at_v.mean, zero.mean)), grid=grid, curve=gradient_variance_curve(p, groups, grid))


@dataclass(frozen=True)
class BaselineStudy:
    """The REINFORCE estimate with several baselines, on one shared set of sampled answers."""

    baselines: np.ndarray              # shape [B]
    mean: np.ndarray                   # shape [B, K]: exact E[g], the same for every b
    total_variance: np.ndarray         # shape [B]: exact tr Cov[g]
    variance_ratio: np.ndarray         # shape [B]: total_variance / total_variance[0]
    times_less: np.ndarray             # shape [B]: total_variance[0] / total_variance (inf where it is 0)
    sample_total_variance: np.ndarray  # shape [B]: tr of the sample covariance of the n draws
    token: int                         # the logit whose gradient component is histogrammed
    sample_mean: np.ndarray            # shape [B]: mean of that component over the n draws
    right_direction: np.ndarray        # shape [B]: share of draws whose component has the sign of its exact mean
    edges: np.ndarray                  # shape [bins+1]: shared histogram bin edges
    shares: np.ndarray                 # shape [B, bins]: share of draws per bin
    at: np.ndarray                     # shape [C]: sample counts of the running mean
    running: np.ndarray                # shape [B, C]: running mean of that component


def baseline_study(probs, samples, baselines, n: int, rng, *, token: int, bins: int = 30,
                   points: int = 200) -> BaselineStudy:
    """Compare baselines on the same n sampled answers: same mean update, different noise.

    gᵢ(b) = (Rᵢ − b)(e_{aᵢ} − π) for n answers (aᵢ, Rᵢ) drawn once and reused for every b
    (common random numbers), with the exact moments from ``gradient_stats``.

    Source: Williams (1992); Greensmith, Bartlett & Baxter (2004) for the baseline's effect on variance.

    Args:
        probs: shape [K], π.
        samples: K lists of scores.
        baselines: shape [B], the baselines to compare (the first is the reference of variance_ratio).
        n: number of sampled answers (≥ 2).
        rng: a numpy Generator or an integer seed.
        token: index in 0…K−1 of the logit whose gradient component is histogrammed and averaged.
        bins: number of histogram bins.
        points: largest number of running-mean checkpoints (log-spaced, from 1 to n).

    Returns:
        BaselineStudy (see its fields).
    """
    p = as_probs("probs", probs)
    groups = as_samples("samples", samples, p.size)
    b = as_vector("baselines", baselines)
    m = count("n", n, low=2)
    k = count("token", token, low=0, high=p.size - 1)
    actions, scores = sample_answers(p, groups, m, rng)
    direction = np.eye(p.size)[actions] - p                      # [n, K]: e_a − π
    g = (scores[None, :] - b[:, None])[:, :, None] * direction   # [B, n, K]
    stats = [gradient_stats(p, groups, float(bi)) for bi in b]
    total = np.array([s.total_variance for s in stats])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(total[0] > 0, total / total[0], np.nan)
        less = np.where(total > 0, total[0] / total, np.inf)
    comp = g[:, :, k]                                            # [B, n]
    hist = histogram_counts(comp, bins)
    at = sample_checkpoints(m, points)
    sign = np.sign(np.array([s.mean[k] for s in stats]))        # [B]: the direction the average takes
    right = np.where(sign != 0, (np.sign(comp) == sign[:, None]).mean(axis=1), np.nan)
    return BaselineStudy(
        baselines=b, mean=np.array([s.mean for s in stats]), total_variance=total, variance_ratio=ratio,
        times_less=less, sample_total_variance=g.var(axis=1, ddof=1).sum(axis=1), token=k,
        sample_mean=comp.mean(axis=1), right_direction=right,
        edges=hist.edges, shares=hist.shares, at=at, running=running_mean(comp.T, at).T)
