"""V, Q, advantage, and the REINFORCE gradient estimate with a baseline; histograms and seed bands, which sum up
many values for a chart."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .checks import as_array, as_probs, as_real, as_samples, as_vector, count, finite, rng_from
from .sampling import ScoreTable

__all__ = [
    "GradientStats", "Histogram", "MCEstimates", "RunningEstimates", "SeedBands", "advantages", "expected_value",
    "gradient_samples", "gradient_stats", "gradient_variance_curve", "histogram_counts", "mc_estimates",
    "optimal_baseline", "running_mc_estimates", "running_mean", "sample_answers", "sample_checkpoints", "seed_bands",
]


@dataclass(frozen=True)
class MCEstimates:
    """Monte-Carlo estimates from sampled answers."""

    q: np.ndarray       # shape [K]: mean score per first token, NaN where a token has no sample
    v: float            # mean of all scores
    counts: np.ndarray  # shape [K]: number of samples per first token


@dataclass(frozen=True)
class GradientStats:
    """Exact moments of the per-sample REINFORCE estimate."""

    mean: np.ndarray       # shape [K]: E[g]
    total_variance: float  # trace of Cov[g]


def _actions_scores(actions, scores, n_actions):
    """Checked (K, actions, scores) for the Monte-Carlo estimators."""
    k = count("n_actions", n_actions)
    a = as_vector("actions", actions)
    s = as_vector("scores", scores)
    if a.size != s.size:
        raise ValueError(f"actions and scores must have the same length, got {a.size} and {s.size}")
    if np.any(a != np.round(a)) or np.any(a < 0) or np.any(a >= k):
        raise ValueError(f"actions must be whole numbers in [0, {k - 1}], got {a.tolist()[:8]}")
    return k, a, s


def mc_estimates(actions, scores, n_actions: int) -> MCEstimates:
    """Monte-Carlo Q per first token and V from sampled answers.

    Q(a) = mean of the scores of answers that began with a;  V = mean of all scores.

    Args:
        actions: shape [N], index of each answer's first token, in 0…n_actions−1.
        scores: shape [N], the judge's score of each answer.
        n_actions: K, the number of candidate tokens.

    Returns:
        MCEstimates(q [K], v, counts [K]). q is NaN for a token with no sample.

    >>> est = mc_estimates([0, 0, 1], [1.0, 3.0, 5.0], 3)
    >>> est.q.tolist(), est.v, est.counts.tolist()
    ([2.0, 5.0, nan], 3.0, [2, 1, 0])
    """
    k, a, s = _actions_scores(actions, scores, n_actions)
    idx = a.astype(np.int64)
    counts = np.bincount(idx, minlength=k)
    sums = np.bincount(idx, weights=s, minlength=k)
    q = np.full(k, np.nan)
    seen = counts > 0
    q[seen] = sums[seen] / counts[seen]
    return MCEstimates(q=q, v=float(s.mean()), counts=counts)


def expected_value(probs, q) -> float:
    """The policy's value: the probability-weighted mean of Q.

    V = Σₐ πₐ Qₐ.

    >>> round(expected_value([0.5, 0.3, 0.2], [2, 5, 9]), 10)
    4.3
    """
    p = as_probs("probs", probs)
    qv = as_vector("q", q)
    if p.size != qv.size:
        raise ValueError(f"probs and q must have the same length, got {p.size} and {qv.size}")
    return float(p @ qv)


def advantages(probs, q) -> np.ndarray:
    """How much better each token is than the policy's average.

    Aₐ = Qₐ − V,  V = Σₐ πₐ Qₐ,  so Σₐ πₐ Aₐ = 0.

    >>> np.round(advantages([0.5, 0.3, 0.2], [2, 5, 9]), 10).tolist()
    [-2.3, 0.7, 4.7]
    """
    qv = as_vector("q", q)
    return qv - expected_value(probs, qv)


def _moments(probs, samples):
    p = as_probs("probs", probs)
    groups = as_samples("samples", samples, p.size)
    first = np.array([g.mean() for g in groups])
    second = np.array([np.mean(g * g) for g in groups])
    return p, first, second


def gradient_stats(probs, samples, baseline: float) -> GradientStats:
    """Exact mean and total variance of one REINFORCE sample with a baseline.

    g = (R − b)(eₐ − π),  a ~ π,  R uniform over token a's sampled scores.
    E[g] = π ⊙ (Q − V) for every b;  tr Cov[g] = Σₐ πₐ E[(R − b)² | a] ‖eₐ − π‖² − ‖E[g]‖².

    Source: Williams (1992) REINFORCE; the gradient is with respect to the logits of a softmax policy.

    Args:
        probs: shape [K], the policy π.
        samples: K lists of scores, the sampled judge scores of each first token.
        baseline: b, a number that does not depend on the sampled token.

    Returns:
        GradientStats(mean [K], total_variance).
    """
    p, first, second = _moments(probs, samples)
    b = as_real("baseline", baseline)
    mean = p * (first - p @ first)
    sq_dist = 1.0 - 2.0 * p + p @ p            # ‖eₐ − π‖²
    second_moment = second - 2.0 * b * first + b * b  # E[(R − b)² | a]
    total = float(p @ (second_moment * sq_dist) - mean @ mean)
    return GradientStats(mean=mean, total_variance=max(total, 0.0))


def optimal_baseline(probs, samples) -> float:
    """The constant baseline with the smallest total variance of the REINFORCE estimate.

    b* = Σₐ πₐ wₐ Qₐ / Σₐ πₐ wₐ,  wₐ = ‖eₐ − π‖²  (set d tr Cov / db = 0).

    Source: Greensmith, Bartlett & Baxter (2004), optimal constant baselines.
    """
    p, first, _ = _moments(probs, samples)
    w = p * (1.0 - 2.0 * p + p @ p)
    if w.sum() <= 0:  # a deterministic policy: every baseline gives zero gradient
        return float(p @ first)
    return float(w @ first / w.sum())


def sample_answers(probs, samples, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Draw answers: first token a ~ π, then a score uniformly from that token's samples.

    Args:
        probs: shape [K], π.
        samples: K lists of scores.
        n: number of answers (≥ 1).
        rng: a numpy Generator or an integer seed.

    Returns:
        (actions [n] int, scores [n] float).
    """
    p = as_probs("probs", probs)
    groups = as_samples("samples", samples, p.size)
    m = count("n", n)
    gen = rng_from("rng", rng)
    actions = gen.choice(p.size, size=m, p=p)  # numpy's own inverse CDF (the same u < Cₐ convention)
    return actions, ScoreTable.of(groups).draw(actions, gen.random(m))


def gradient_samples(probs, samples, baseline: float, n: int, rng) -> np.ndarray:
    """n independent REINFORCE estimates g = (R − b)(eₐ − π), for histograms.

    Args:
        probs: shape [K], π.
        samples: K lists of scores.
        baseline: b.
        n: number of estimates.
        rng: a numpy Generator or an integer seed.

    Returns:
        shape [n, K].
    """
    p = as_probs("probs", probs)
    b = as_real("baseline", baseline)
    actions, scores = sample_answers(p, samples, n, rng)
    return (scores - b)[:, None] * (np.eye(p.size)[actions] - p)


# ---------------------------------------------------------------------------------------------
# Breakdowns, running estimates and histograms for the "V, Q, advantage" and "baseline" pages.
# ---------------------------------------------------------------------------------------------


def sample_checkpoints(n: int, points: int, *, log: bool = True) -> np.ndarray:
    """Sample counts at which to report a running estimate: at most ``points`` whole numbers in 1…n, ending at n.

    Args:
        n: the total number of samples (≥ 1).
        points: the largest number of checkpoints (≥ 1).
        log: space them evenly on a log scale (True) or a linear one (False).

    Returns:
        shape [C], C ≤ points, strictly increasing integers, the last one n.

    >>> sample_checkpoints(1000, 4).tolist()
    [1, 10, 100, 1000]
    >>> sample_checkpoints(10, 5, log=False).tolist()
    [1, 3, 6, 8, 10]
    >>> sample_checkpoints(3, 20).tolist()
    [1, 2, 3]
    """
    m = count("n", n)
    k = count("points", points)
    if k == 1:
        return np.array([m])
    grid = np.geomspace(1, m, k) if log else np.linspace(1, m, k)
    return np.unique(np.round(grid).astype(np.int64))


@dataclass(frozen=True)
class RunningEstimates:
    """Monte-Carlo Q and V after the first n samples, for several n."""

    at: np.ndarray      # shape [C]: number of samples used
    q: np.ndarray       # shape [C, K]: mean score per first token so far, NaN before its first sample
    v: np.ndarray       # shape [C]: mean of all scores so far
    counts: np.ndarray  # shape [C, K]: samples per first token so far


def running_mc_estimates(actions, scores, n_actions: int, at) -> RunningEstimates:
    """``mc_estimates`` on the first n samples, for each n in ``at`` (the estimates' convergence).

    Q̂ₐ(n) = Σᵢ≤ₙ Rᵢ·[aᵢ = a] / Σᵢ≤ₙ [aᵢ = a];  V̂(n) = (1/n) Σᵢ≤ₙ Rᵢ.

    Args:
        actions: shape [N], index of each answer's first token, in 0…n_actions−1.
        scores: shape [N], each answer's score.
        n_actions: K.
        at: shape [C], sample counts in 1…N (e.g. from ``sample_checkpoints``).

    Returns:
        RunningEstimates(at, q [C, K], v [C], counts [C, K]).

    >>> est = running_mc_estimates([0, 1, 0, 1], [2.0, 6.0, 4.0, 8.0], 2, [1, 2, 4])
    >>> est.q.tolist(), est.v.tolist()
    ([[2.0, nan], [2.0, 6.0], [3.0, 7.0]], [2.0, 4.0, 5.0])
    """
    k, a, s = _actions_scores(actions, scores, n_actions)
    idx = _checkpoints("at", at, s.size)
    onehot = np.eye(k)[a.astype(np.int64)]                  # [N, K]
    counts = np.cumsum(onehot, axis=0)[idx - 1]             # [C, K]
    sums = np.cumsum(onehot * s[:, None], axis=0)[idx - 1]  # [C, K]
    q = np.full(counts.shape, np.nan)
    seen = counts > 0
    q[seen] = sums[seen] / counts[seen]
    v = np.cumsum(s)[idx - 1] / idx
    return RunningEstimates(at=idx, q=q, v=v, counts=counts.astype(np.int64))


def running_mean(values, at) -> np.ndarray:
    """The mean of the first n values, for each n in ``at``.

    m(n) = (1/n) Σᵢ≤ₙ xᵢ.

    Args:
        values: shape [N] or [N, K], one row per sample.
        at: shape [C], sample counts in 1…N.

    Returns:
        shape [C] or [C, K].

    >>> running_mean([4.0, 0.0, 2.0, 2.0], [1, 2, 4]).tolist()
    [4.0, 2.0, 2.0]
    """
    x = as_array("values", values)
    if x.ndim not in (1, 2) or x.shape[0] == 0:
        raise ValueError(f"values must have shape [N] or [N, K] with N ≥ 1, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("values must contain only finite numbers")
    idx = _checkpoints("at", at, x.shape[0])
    sums = np.cumsum(x, axis=0)[idx - 1]
    return sums / (idx if x.ndim == 1 else idx[:, None])


def _checkpoints(name: str, at, n: int) -> np.ndarray:
    c = as_vector(name, at)
    if np.any(c != np.round(c)) or np.any(c < 1) or np.any(c > n):
        raise ValueError(f"{name} must hold whole numbers in [1, {n}], got {c.tolist()[:8]}")
    return c.astype(np.int64)


def gradient_variance_curve(probs, samples, baselines) -> np.ndarray:
    """Total variance of the REINFORCE estimate for many constant baselines at once (a parabola in b).

    tr Cov[g](b) = Σₐ πₐ wₐ E[R² | a] − 2b Σₐ πₐ wₐ Qₐ + b² Σₐ πₐ wₐ − ‖π ⊙ A‖²,  wₐ = ‖eₐ − π‖²;
    the same as ``gradient_stats(probs, samples, b).total_variance`` for each b.

    Args:
        probs: shape [K], π.
        samples: K lists of scores.
        baselines: shape [M], the values of b.

    Returns:
        shape [M], the total variance for each b.

    >>> np.round(gradient_variance_curve([0.5, 0.3, 0.2], [[3, 1, 2, 1, 3], [5, 4, 6], [10, 8]], [0, 4.3]), 4)
    array([20.7398,  3.7032])
    """
    p, first, second = _moments(probs, samples)
    b = as_vector("baselines", baselines)
    w = p * (1.0 - 2.0 * p + p @ p)
    mean = p * (first - p @ first)
    total = (w @ second) - 2.0 * b * (w @ first) + b * b * w.sum() - mean @ mean
    return np.maximum(total, 0.0)


@dataclass(frozen=True)
class Histogram:
    """Counts of values in equal-width bins shared by every series."""

    edges: np.ndarray   # shape [B+1]: bin edges, lowest to highest
    counts: np.ndarray  # shape [B] or [S, B]: number of values per bin
    shares: np.ndarray  # like counts: counts divided by the number of values in that series


def histogram_counts(values, bins: int, *, low: float | None = None, high: float | None = None) -> Histogram:
    """Bin one or several series of values into the same equal-width bins (aggregate before charting).

    Bin i holds edgesᵢ ≤ x < edgesᵢ₊₁; the last bin also holds x = high. Values outside [low, high]
    are left out. Without low/high the bins span the smallest to the largest value of all series
    (widened by 0.5 each way when they are all equal).

    Args:
        values: shape [N] (one series) or [S, N] (S series of N values each).
        bins: number of bins (≥ 1).
        low, high: the range to bin, optional.

    Returns:
        Histogram(edges [bins+1], counts [bins] or [S, bins], shares of the same shape).

    >>> h = histogram_counts([0.0, 1.0, 1.5, 4.0], 4)
    >>> h.edges.tolist(), h.counts.tolist(), h.shares.tolist()
    ([0.0, 1.0, 2.0, 3.0, 4.0], [1, 2, 0, 1], [0.25, 0.5, 0.0, 0.25])
    """
    x = as_array("values", values)
    if x.ndim not in (1, 2) or x.size == 0:
        raise ValueError(f"values must have shape [N] or [S, N] with N ≥ 1, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("values must contain only finite numbers")
    b = count("bins", bins)
    lo = float(x.min()) if low is None else as_real("low", low)
    hi = float(x.max()) if high is None else as_real("high", high)
    if lo > hi:
        raise ValueError(f"low must not exceed high, got low={lo!r} and high={hi!r}")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    edges = np.linspace(lo, hi, b + 1)
    rows = np.atleast_2d(x)
    inside = (rows >= lo) & (rows <= hi)
    position = np.clip((rows - lo) / (hi - lo) * b, 0, b - 1)  # clip before the cast: no overflow
    which = np.floor(position).astype(np.int64)
    counts = np.zeros((rows.shape[0], b), dtype=np.int64)
    for r in range(rows.shape[0]):
        counts[r] = np.bincount(which[r][inside[r]], minlength=b)
    shares = counts / rows.shape[1]
    if x.ndim == 1:
        return Histogram(edges=edges, counts=counts[0], shares=shares[0])
    return Histogram(edges=edges, counts=counts, shares=shares)


@dataclass(frozen=True)
class SeedBands:
    """The middle and the extremes over seeds, per step (what a band chart draws)."""

    median: np.ndarray  # shape [T, ...]
    low: np.ndarray     # shape [T, ...]: smallest over seeds
    high: np.ndarray    # shape [T, ...]: largest over seeds


def seed_bands(values) -> SeedBands:
    """Median, minimum and maximum over the seeds axis (axis 0) of a training run's arrays.

    Args:
        values: shape [S, T, ...] with S, T ≥ 1, finite, e.g. ``TrainingRun.probs`` or ``TrainingRun.mean_score``.

    Returns:
        SeedBands(median, low, high), each of shape [T, ...].

    >>> seed_bands([[1.0, 5.0], [3.0, 4.0], [2.0, 9.0]]).median.tolist()
    [2.0, 5.0]
    """
    x = finite("values", values, min_ndim=2)
    return SeedBands(np.median(x, axis=0), x.min(axis=0), x.max(axis=0))
