"""The V, Q and advantage page's studies: every term of one decision, the question it asks about them, and the
same terms estimated from sampled answers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.checks import as_probs, as_samples, count, rng_from
from ..formulas.estimates import (
    MCEstimates,
    RunningEstimates,
    mc_estimates,
    running_mc_estimates,
    sample_answers,
    sample_checkpoints,
)

__all__ = ["AdvantageQuestion", "ValueBreakdown", "ValueDraws", "advantage_question", "value_breakdown",
           "value_draws"]


@dataclass(frozen=True)
class ValueBreakdown:
    """Every term of Q, V and A for one decision, so a page can print the sums it shows."""

    counts: np.ndarray              # shape [K]: number of sampled scores per token
    sums: np.ndarray                # shape [K]: sum of each token's sampled scores
    q: np.ndarray                   # shape [K]: Qₐ = sumₐ / countₐ
    weighted_q: np.ndarray          # shape [K]: πₐ Qₐ (the terms of V)
    v: float                        # V = Σₐ πₐ Qₐ
    advantage: np.ndarray           # shape [K]: Aₐ = Qₐ − V
    weighted_advantage: np.ndarray  # shape [K]: πₐ Aₐ (the terms of the check Σ π·A = 0)
    advantage_check: float          # Σₐ πₐ Aₐ, zero up to rounding
    sample_mean: float              # the plain mean of all sampled scores
    sample_share: np.ndarray        # shape [K]: countₐ / Σ count, the share of samples per token
    mean_matches: bool              # whether the plain mean equals V (within 1e-9)
    centered: tuple[np.ndarray, ...]  # K arrays: R − V for each sampled score of each token


def value_breakdown(probs, samples) -> ValueBreakdown:
    """Q, V and A of one decision with every intermediate term.

    Qₐ = (1/nₐ) Σᵢ Rₐᵢ;  V = Σₐ πₐ Qₐ;  Aₐ = Qₐ − V;  Σₐ πₐ Aₐ = 0.
    The plain mean of all scores, Σₐ nₐ Qₐ / Σₐ nₐ, equals V only when the sample shares nₐ/N
    weight the Q values the way π does (in the article 5 / 3 / 2 answers follow π = 0.5 / 0.3 / 0.2).

    Args:
        probs: shape [K], the policy π.
        samples: K lists of scores, the sampled judge scores of the answers that began with each token.

    Returns:
        ValueBreakdown (see its fields).

    >>> bd = value_breakdown([0.5, 0.3, 0.2], [[3, 1, 2, 1, 3], [5, 4, 6], [10, 8]])
    >>> bd.q.tolist(), round(bd.v, 10), np.round(bd.advantage, 10).tolist()
    ([2.0, 5.0, 9.0], 4.3, [-2.3, 0.7, 4.7])
    >>> np.round(bd.weighted_advantage, 10).tolist(), bd.mean_matches
    ([-1.15, 0.21, 0.94], True)
    >>> np.round(bd.centered[0], 10).tolist()
    [-1.3, -3.3, -2.3, -3.3, -1.3]
    """
    p = as_probs("probs", probs)
    groups = as_samples("samples", samples, p.size)
    counts = np.array([g.size for g in groups])
    sums = np.array([g.sum() for g in groups])
    q = sums / counts
    v = float(p @ q)
    adv = q - v
    total = counts.sum()
    sample_mean = float(sums.sum() / total)
    return ValueBreakdown(
        counts=counts, sums=sums, q=q, weighted_q=p * q, v=v, advantage=adv,
        weighted_advantage=p * adv, advantage_check=float(p @ adv), sample_mean=sample_mean,
        sample_share=counts / total, mean_matches=bool(abs(sample_mean - v) <= 1e-9 * max(1.0, abs(v))),
        centered=tuple(g - v for g in groups))


@dataclass(frozen=True)
class AdvantageQuestion:
    """The page's question: the sign of one token's advantage, a token whose Q is good but not the best."""

    best: int        # the token with the highest Q (the first one on a tie)
    pick: int        # the token asked about: the highest Q below the best (the last token when every Q is equal)
    below: bool      # whether pick's Q is below the best's (False: every Q is equal)
    advantage: float  # A(pick) = Q(pick) − V
    sign: int        # +1, 0 or −1: the sign of that advantage, 0 within 1e-9


def advantage_question(probs, samples) -> AdvantageQuestion:
    """Which token to ask about, and the answer: is A = Q − V of a good-but-not-best token positive, zero or
    negative? (It is positive exactly when its Q beats the π-weighted average V, whatever the best token does.)

    Args:
        probs: shape [K], the policy π.
        samples: K lists of scores.

    Returns:
        AdvantageQuestion(best, pick, below, advantage, sign).

    >>> q = advantage_question([0.5, 0.3, 0.2], [[3, 1, 2, 1, 3], [5, 4, 6], [10, 8]])
    >>> q.best, q.pick, q.below, round(q.advantage, 10), q.sign
    (2, 1, True, 0.7, 1)
    """
    bd = value_breakdown(probs, samples)
    q = bd.q
    order = sorted(range(q.size), key=lambda i: q[i], reverse=True)  # stable: on a tie, the earlier token first
    best = order[0]
    below = [i for i in order if q[i] < q[best]]
    pick = below[0] if below else order[-1]
    a = float(bd.advantage[pick])
    return AdvantageQuestion(best, pick, bool(below), a, 0 if abs(a) < 1e-9 else (1 if a > 0 else -1))


@dataclass(frozen=True)
class ValueDraws:
    """Answers drawn once from π, and the Monte-Carlo Q and V they give: after all of them, and along the way."""

    estimates: MCEstimates     # Q̂ per token (NaN for a token never drawn), V̂ and the counts, from all n answers
    running: RunningEstimates  # the same after the first answers, at up to ``checkpoints`` log-spaced counts


def value_draws(probs, samples, n: int, seed, *, checkpoints: int = 20) -> ValueDraws:
    """Draw n answers (a ~ π, then a score uniformly from a's samples) and estimate Q and V from them.

    Q̂ₐ = mean score of the answers that began with a;  V̂ = mean of all scores; both also after the first
    answers at each checkpoint (``sample_checkpoints``), to watch them settle on Q and V.

    Args:
        probs: shape [K], the policy π.
        samples: K lists of scores.
        n: number of answers drawn (≥ 1).
        seed: integer seed or numpy Generator.
        checkpoints: the largest number of checkpoints (≥ 1).

    Returns:
        ValueDraws(estimates, running).

    >>> d = value_draws([1.0, 0.0], [[2, 4], [9]], 100, seed=0, checkpoints=3)
    >>> d.estimates.counts.tolist(), d.running.at.tolist(), bool(np.isnan(d.estimates.q[1]))
    ([100, 0], [1, 10, 100], True)
    """
    p = as_probs("probs", probs)
    groups = as_samples("samples", samples, p.size)
    m = count("n", n)
    points = count("checkpoints", checkpoints)
    actions, scores = sample_answers(p, groups, m, rng_from("seed", seed))
    at = sample_checkpoints(m, points)
    return ValueDraws(mc_estimates(actions, scores, p.size), running_mc_estimates(actions, scores, p.size, at))
