"""V, Q, advantage, and the REINFORCE gradient estimate with a baseline."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._checks import as_probs, as_real, as_samples, as_vector, count, rng_from


class MCEstimates(NamedTuple):
    """Monte-Carlo estimates from sampled answers."""

    q: np.ndarray       # shape [K]: mean score per first token, NaN where a token has no sample
    v: float            # mean of all scores
    counts: np.ndarray  # shape [K]: number of samples per first token


class GradientStats(NamedTuple):
    """Exact moments of the per-sample REINFORCE estimate."""

    mean: np.ndarray       # shape [K]: E[g]
    total_variance: float  # trace of Cov[g]


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
    k = count("n_actions", n_actions)
    a = as_vector("actions", actions)
    s = as_vector("scores", scores)
    if a.size != s.size:
        raise ValueError(f"actions and scores must have the same length, got {a.size} and {s.size}")
    if np.any(a != np.round(a)) or np.any(a < 0) or np.any(a >= k):
        raise ValueError(f"actions must be whole numbers in [0, {k - 1}], got {a.tolist()[:8]}")
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
    actions = gen.choice(p.size, size=m, p=p)
    lengths = np.array([g.size for g in groups])
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    flat = np.concatenate(groups)
    picks = (gen.random(m) * lengths[actions]).astype(np.int64)
    return actions, flat[offsets[actions] + picks]


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
