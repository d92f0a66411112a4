"""The V, Q and advantage page's study: every term of one decision."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.checks import as_probs, as_samples

__all__ = ["ValueBreakdown", "value_breakdown"]


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
