"""Drawing tokens and judge scores from uniform random numbers: the one sampler every simulation shares.

The functions here take the uniforms as an argument instead of a generator, so a caller can draw them all
up front (one call per seed: a seed's numbers then do not depend on the other seeds) and so a test can hand
in the exact boundary values. ``sample_tokens`` checks its arrays (cheaply: loops call it at every step);
``ScoreTable`` is built by callers that have checked their samples.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .checks import finite, prob_rows, show

__all__ = ["ScoreTable", "sample_tokens"]


def sample_tokens(probs: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse-CDF sampling: the token whose slice of [0, 1) holds each uniform.

    a = min{a : u < Cₐ},  Cₐ = π₀ + … + πₐ  (set to 1 from the last token with πₐ > 0 on),
    so token a is drawn exactly when C_{a−1} ≤ u < Cₐ: a half-open slice of length πₐ, like u ∈ [0, 1)
    itself. A token with πₐ = 0 has an empty slice and is never drawn, even for u = 0 exactly; the
    other convention, u ≤ Cₐ, would give token 0 whenever u = 0, even if π₀ = 0 (e.g. greedy decoding
    of another token). Setting Cₐ to 1 from the last possible token on keeps a rounding shortfall of the
    cumulative sum (0.9999999999999999) from sending a u near 1 to a token after it, which could be one
    with π = 0. Otherwise this is ``np.searchsorted(C, u, side="right")``, numpy's own convention.

    Args:
        probs: shape [..., K], one distribution per row.
        u: shape [..., N], uniforms in [0, 1), N draws per row.

    Returns:
        shape [..., N] int, the drawn token indices.

    >>> sample_tokens(np.array([0.0, 0.5, 0.5, 0.0]), np.array([0.0, 0.49, 0.5, 0.99])).tolist()
    [1, 1, 2, 2]
    """
    p = prob_rows("probs", probs)
    draws = finite("u", u, min_ndim=1)
    if draws.min() < 0 or draws.max() >= 1:
        raise ValueError(f"u must lie in [0, 1), got {show(draws)}")
    try:
        np.broadcast_shapes(p.shape[:-1], draws.shape[:-1])
    except ValueError:
        raise ValueError(f"probs and u must have the same leading shape, got {p.shape} and {draws.shape}") from None
    u = draws
    cdf = np.cumsum(p, axis=-1)
    cdf = np.where(cdf >= cdf[..., -1:], 1.0, cdf)  # from the last token that adds mass on (the rest add 0)
    return (u[..., :, None] >= cdf[..., None, :]).sum(axis=-1)


@dataclass(frozen=True)
class ScoreTable:
    """Every token's sampled judge scores laid end to end, to draw one of a token's scores by index."""

    flat: np.ndarray     # shape [M]: token 0's scores, then token 1's, ...
    offsets: np.ndarray  # shape [K]: where each token's scores start in flat
    lengths: np.ndarray  # shape [K]: how many scores each token has (≥ 1)

    @classmethod
    def of(cls, samples) -> ScoreTable:
        """The table of K arrays of scores (each non-empty).

        >>> ScoreTable.of([np.array([3.0, 1.0]), np.array([5.0])]).offsets.tolist()
        [0, 2]
        """
        lengths = np.array([s.size for s in samples])
        return cls(np.concatenate(samples), np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)

    def draw(self, tokens: np.ndarray, u: np.ndarray) -> np.ndarray:
        """One score per drawn token, uniformly among that token's scores: index ⌊u·nₐ⌋ for u in [0, 1).

        Args:
            tokens: any shape, token indices.
            u: the same shape, uniforms in [0, 1).

        Returns:
            the same shape, the scores.

        >>> table = ScoreTable.of([np.array([3.0, 1.0]), np.array([5.0])])
        >>> table.draw(np.array([0, 0, 1]), np.array([0.2, 0.7, 0.9])).tolist()
        [3.0, 1.0, 5.0]
        """
        picks = (u * self.lengths[tokens]).astype(np.int64)
        return self.flat[self.offsets[tokens] + picks]
