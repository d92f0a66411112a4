"""When the sampler is not the trainer: rollouts drawn from an engine's probabilities, corrected (or not)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.checks import as_probs, as_vector, count, in_range, non_negative, positive, show
from ..formulas.diagnostics import truncated_is_weights
from ..formulas.policy import temperature_probs

__all__ = ["CAP_CHOICES", "MISMATCH_KINDS", "MismatchStudy", "lowest_error", "mismatch_study", "top_p_probs"]

MISMATCH_KINDS = ("temperature", "top-p", "logit noise")
METHODS = ("no correction", "truncate", "mask", "full weights")
RATIO_EDGES = np.arange(-3.0, 3.0001, 0.25)  # bins of log₂(π_train/π_rollout); outside values go to the end bins
MAX_DRAWS = 5_000
MAX_BATCH = 1_024
CAP_CHOICES = tuple(float(c) for c in np.round(2.0 ** np.arange(0.0, 3.51, 0.25), 2))
"""Caps C to compare, from 1 to about 11, a quarter of a doubling apart (rounded to two decimals)."""


def top_p_probs(probs, top_p: float) -> np.ndarray:
    """Nucleus (top-p) sampling's distribution: the likeliest tokens whose total first reaches p, renormalised.

    Ties keep the order of the tokens. top_p = 1 gives π back (tokens with π > 0).

    >>> top_p_probs([0.5, 0.3, 0.2], 0.7).round(12).tolist()
    [0.625, 0.375, 0.0]
    """
    p = as_probs("probs", probs)
    top = in_range("top_p", top_p, 0.0, 1.0)
    if top <= 0:
        raise ValueError(f"top_p must be > 0, got {top!r}")
    order = np.argsort(-p, kind="stable")
    before = np.concatenate([[0.0], np.cumsum(p[order])[:-1]])  # mass of the likelier tokens
    keep = np.zeros(p.size, dtype=bool)
    keep[order] = (before < top - 1e-12) & (p[order] > 0)
    keep[order[0]] = True  # the likeliest token, whatever p (a p below 1e-12 kept nothing: 0/0)
    mu = np.where(keep, p, 0.0)
    return mu / mu.sum()


@dataclass(frozen=True)
class MismatchStudy:
    """Many seeded batches of rollouts from the engine, and what each weighting does to the gradient estimate."""

    target: np.ndarray         # shape [K], the on-policy expected gradient π ⊙ (Q − V)
    engine_mean: np.ndarray    # shape [K], the engine's probabilities averaged over positions
    ratio_edges: np.ndarray    # shape [R+1], bin edges of log₂(π_train/π_rollout)
    ratio_shares: np.ndarray   # shape [R], share of sampled tokens in each bin (ends hold the outliers)
    caps: np.ndarray           # shape [C]
    log2_caps: np.ndarray      # shape [C], log₂ C (where each cap sits on the histogram's axis)
    above_cap: np.ndarray      # shape [C], share of sampled tokens with a weight above each cap
    bias_squared: np.ndarray   # shape [4, C], per METHODS ("no correction" and "full weights" repeat across caps)
    variance: np.ndarray       # shape [4, C]
    mse: np.ndarray            # shape [4, C], bias² + variance
    mean_weight: float         # average of π_train/π_rollout over sampled tokens (1 when the engine covers π)

    @property
    def untouched_cap(self) -> float | None:
        """The smallest cap that no sampled weight exceeds (truncate and mask change nothing there); None if none."""
        untouched = np.flatnonzero(self.above_cap == 0)
        return float(self.caps[untouched[0]]) if untouched.size else None

    @property
    def never_written(self) -> np.ndarray:
        """The tokens the engine never writes (probability 0 at every position, as top-p's cut leaves them)."""
        return np.flatnonzero(self.engine_mean == 0)


def _engine_probs(p: np.ndarray, kind: str, level: float, rng, shape) -> np.ndarray:
    """The engine's distribution at each position, shape [*shape, K]."""
    if kind == "temperature":
        return np.broadcast_to(temperature_probs(p, positive("level", level)), (*shape, p.size))
    if kind == "top-p":
        top = in_range("level", level, 0.0, 1.0)
        if top <= 0:
            raise ValueError(f"level (the nucleus top_p) must be > 0, got {top!r}")
        return np.broadcast_to(top_p_probs(p, top), (*shape, p.size))
    sigma = non_negative("level", level)
    logp = np.where(p > 0, np.log(np.where(p > 0, p, 1.0)), -np.inf)
    z = logp + sigma * rng.standard_normal((*shape, p.size))
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def mismatch_study(probs, q, *, kind: str, level: float, caps, batch: int, draws: int, seed: int) -> MismatchStudy:
    """How far the policy-gradient estimate lands from the on-policy one when the rollouts come from an engine.

    The trainer's π is ``probs``; the engine samples from μ: π at temperature τ (``level``), π cut to its
    top-p nucleus (``level`` = p), or softmax(log π + σ·ε) with fresh Gaussian ε at every position
    (``level`` = σ). Each of ``draws`` batches holds ``batch`` tokens aₙ ~ μ, and estimates
    ĝ = (1/B) Σₙ wₙ A(aₙ)(e_{aₙ} − π),  A = Q − V under π,
    with wₙ = 1 (no correction), min(ρₙ, C) (truncate, TIS), ρₙ·1[ρₙ ≤ C] (mask, MIS) or ρₙ (full weights),
    ρ = π(a)/μ(a). Against the target g = π ⊙ (Q − V): bias² = ‖mean ĝ − g‖², variance = mean ‖ĝ − mean ĝ‖²
    (summed over the logits). Every cap and method reuses the same draws.

    Source: Yao et al. (2025), "Your Efficient RL Framework Secretly Brings You Off-Policy RL Training" (TIS);
    masked IS as in verl's rollout correction.

    Args:
        probs: shape [K], π_train.
        q: shape [K], Q of each token.
        kind: one of ``MISMATCH_KINDS``.
        level: τ > 0, p in (0, 1], or σ ≥ 0.
        caps: caps C > 0 to compare.
        batch: tokens per batch (1 to 1,024).
        draws: batches (2 to 5,000).
        seed: seed of the generator.

    Returns:
        MismatchStudy(target, engine_mean, ratio_edges, ratio_shares, caps, log2_caps, above_cap, bias_squared,
        variance, mse, mean_weight).
    """
    p = as_probs("probs", probs)
    qv = as_vector("q", q)
    if qv.size != p.size:
        raise ValueError(f"probs and q must have the same length, got {p.size} and {qv.size}")
    if kind not in MISMATCH_KINDS:
        raise ValueError(f"kind must be one of {list(MISMATCH_KINDS)}, got {kind!r}")
    c = as_vector("caps", caps)
    if np.any(c <= 0):
        raise ValueError(f"caps must be > 0, got {show(c)}")
    b = count("batch", batch, low=1, high=MAX_BATCH)
    d = count("draws", draws, low=2, high=MAX_DRAWS)
    rng = np.random.default_rng(count("seed", seed, low=0))

    mu = _engine_probs(p, kind, level, rng, (d, b))                       # [D, B, K]
    cdf = np.cumsum(mu, axis=-1)
    cdf[..., -1] = 1.0
    u = rng.random((d, b, 1))
    a = np.minimum((u > cdf).sum(axis=-1), p.size - 1)                    # [D, B]
    mu_a = np.take_along_axis(mu, a[..., None], axis=-1)[..., 0]
    logp_train = np.log(p[a])                                             # π(a) > 0: μ only draws where π > 0
    logp_roll = np.log(mu_a)
    rho = np.exp(logp_train - logp_roll)

    adv = qv - p @ qv
    contrib = adv[a][..., None] * (np.eye(p.size)[a] - p)                 # [D, B, K]: A(a)(e_a − π)
    caps_ = c[:, None, None]  # truncated_is_weights' two rules, for every cap at once: [C, D, B] each
    weights = np.concatenate([np.ones_like(rho)[None], truncated_is_weights(logp_train, logp_roll, caps_, "truncate"),
                              truncated_is_weights(logp_train, logp_roll, caps_, "mask"), rho[None]])  # [2 + 2C, D, B]
    g_all = np.matmul(weights.transpose(1, 0, 2), contrib).transpose(1, 0, 2) / b   # [2 + 2C, D, K]
    n_c = c.size
    g_hat = np.stack([np.broadcast_to(g_all[0], (n_c, d, p.size)), g_all[1:1 + n_c], g_all[1 + n_c:1 + 2 * n_c],
                      np.broadcast_to(g_all[-1], (n_c, d, p.size))])                # [4, C, D, K]
    target = p * adv
    mean = g_hat.mean(axis=2)                                             # [4, C, K]
    bias2 = np.sum((mean - target) ** 2, axis=-1)
    var = np.sum(g_hat.var(axis=2), axis=-1)

    log2 = np.clip(np.log2(rho).ravel(), RATIO_EDGES[0], RATIO_EDGES[-1])
    counts, _ = np.histogram(log2, bins=RATIO_EDGES)
    above = (rho.ravel()[None, :] > c[:, None]).mean(axis=1)
    return MismatchStudy(target, mu.mean(axis=(0, 1)), RATIO_EDGES.copy(), counts / counts.sum(), c, np.log2(c), above,
                         bias2, var, bias2 + var, float(rho.mean()))


def lowest_error(study: MismatchStudy, cap_index: int) -> tuple[str, ...]:
    """The methods (of ``METHODS``) with the smallest mean squared error at ``study.caps[cap_index]``.

    Several when they tie within a relative 1e-9 (e.g. truncate, mask and full weights when no weight exceeds C).
    """
    if not isinstance(study, MismatchStudy):
        raise ValueError(f"study must be a MismatchStudy (from mismatch_study), got {show(study)}")
    i = count("cap_index", cap_index, low=0, high=study.caps.size - 1)
    mse = study.mse[:, i]
    low = float(mse.min())
    return tuple(m for m, v in zip(METHODS, mse, strict=True) if v <= low + 1e-9 * max(abs(low), 1e-300))
