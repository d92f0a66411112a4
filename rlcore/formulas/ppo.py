"""Small steps: the importance ratio, PPO's clipped objective, and a few epochs on one batch."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .checks import (
    as_probs,
    as_real,
    as_samples,
    as_vector,
    broadcast,
    count,
    finite,
    fit_shapes,
    in_range,
    non_negative,
    positive,
    positive_each,
    show,
)
from .policy import logits_from_probs, softmax

__all__ = [
    "PPOBatch", "PPOEpochs", "batch_advantages", "clip_bounds", "clipped_objective", "importance_ratio",
    "is_clipped", "ppo_epochs",
]


def importance_ratio(p_new, p_old) -> np.ndarray:
    """How much a token's probability changed since the batch was sampled.

    ρ = π(a) / π_old(a).

    Args:
        p_new: shape [N] (or a number), π(a) under the current policy, in [0, 1].
        p_old: same shape, π_old(a) when the batch was sampled, in (0, 1].

    Returns:
        shape [N], ρ.

    >>> importance_ratio([0.24], [0.2]).round(10).tolist()
    [1.2]
    """
    new = as_vector("p_new", np.atleast_1d(finite("p_new", p_new)))
    old = as_vector("p_old", np.atleast_1d(finite("p_old", p_old)))
    if new.shape != old.shape:
        raise ValueError(f"p_new and p_old must have the same shape, got {new.shape} and {old.shape}")
    if np.any(new < 0) or np.any(new > 1):
        raise ValueError(f"p_new must lie in [0, 1], got {new.tolist()[:8]}")
    if np.any(old <= 0) or np.any(old > 1):
        raise ValueError(f"p_old must lie in (0, 1], got {old.tolist()[:8]}")
    return new / old


def clipped_objective(ratio, advantage, eps: float = 0.2, eps_high: float | None = None,
                      dual_clip: float | None = None) -> np.ndarray:
    """PPO's per-token surrogate objective, to maximise (the loss is its negative).

    L = min(ρA, clip(ρ, 1−ε, 1+ε_high)·A); with dual clip c > 1, L = max(L, c·A) where A < 0.

    Source: Schulman et al. (2017), PPO, eq. 7; ε_high as in DAPO (Yu et al. 2025);
    dual clip as in Ye et al. (2020).

    Args:
        ratio: any shape, e.g. [N], ρ ≥ 0 (a number gives shape [1]).
        advantage: A, broadcasting against ratio (e.g. shape [N], or a number).
        eps: ε in (0, 1), the lower clip distance (and the upper one unless eps_high is given); or an array of
            them broadcasting against ratio (a chart dragged over ε: ratio [G, N], eps [G, 1]).
        eps_high: optional upper clip distance > 0 (or an array of them, as eps).
        dual_clip: optional c > 1, a floor c·A on the objective of negative-advantage tokens.

    Returns:
        the broadcast shape of ratio, advantage, eps and eps_high, L per token.

    >>> clipped_objective([1.5, 0.5], 1.0, eps=0.2).round(10).tolist()
    [1.2, 0.5]
    >>> clipped_objective([1.5, 0.5], 1.0, eps=[[0.2], [0.4]]).round(10).tolist()   # ε = 0.2 and ε = 0.4
    [[1.2, 0.5], [1.4, 0.5]]
    """
    rho, adv = _ratio_advantage(ratio, advantage)
    if rho.min() < 0:
        raise ValueError(f"ratio must be >= 0, got {show(rho)}")
    low = positive_each("eps", eps)
    high = low if eps_high is None else positive_each("eps_high", eps_high)
    if np.max(low) >= 1:
        raise ValueError(f"eps must be < 1, got {show(low) if np.ndim(low) else repr(low)}")
    fit_shapes(ratio=rho.shape, eps=np.shape(low), eps_high=np.shape(high))
    out = _surrogate(rho, adv, low, high)
    if dual_clip is not None:
        c = as_real("dual_clip", dual_clip)
        if c <= 1:
            raise ValueError(f"dual_clip must be > 1, got {c!r}")
        out = np.where(adv < 0, np.maximum(out, c * adv), out)
    return out


def is_clipped(ratio, advantage, eps: float = 0.2, eps_high: float | None = None) -> np.ndarray:
    """Which tokens get no gradient from the clipped objective.

    Clipped where A > 0 and ρ > 1+ε_high, or A < 0 and ρ < 1−ε.

    Args:
        ratio: any shape, ρ (a number gives shape [1]).
        advantage: A, broadcasting against ratio.
        eps: ε > 0, the lower clip distance (and the upper one unless eps_high is given).
        eps_high: optional upper clip distance > 0.

    Returns:
        the broadcast shape of ratio and advantage, bool.

    >>> is_clipped([1.3, 1.3, 0.7], [1.0, -1.0, -1.0]).tolist()
    [True, False, True]
    """
    rho, adv = _ratio_advantage(ratio, advantage)
    low = positive("eps", eps)
    high = low if eps_high is None else positive("eps_high", eps_high)
    return _clipped_mask(rho, adv, low, high)


def _ratio_advantage(ratio, advantage) -> tuple[np.ndarray, np.ndarray]:
    return broadcast("ratio", np.atleast_1d(finite("ratio", ratio)),
                     "advantage", np.atleast_1d(finite("advantage", advantage)))


def _surrogate(rho: np.ndarray, adv: np.ndarray, low: float, high: float) -> np.ndarray:
    """``clipped_objective``'s formula for checked arrays."""
    return np.minimum(rho * adv, np.clip(rho, 1.0 - low, 1.0 + high) * adv)


def _clipped_mask(rho: np.ndarray, adv: np.ndarray, low: float, high: float) -> np.ndarray:
    """``is_clipped``'s formula for checked arrays."""
    return ((adv > 0) & (rho > 1.0 + high)) | ((adv < 0) & (rho < 1.0 - low))


def clip_bounds(p_old, eps: float) -> tuple[float, float]:
    """The probability range inside which one batch still moves a token.

    [(1−ε)·π_old, min(1, (1+ε)·π_old)]. Article: π_old 0.2, ε 0.2 → 0.16 to 0.24.

    >>> [round(x, 10) for x in clip_bounds(0.2, 0.2)]
    [0.16, 0.24]
    """
    p = in_range("p_old", p_old, 0.0, 1.0)
    e = positive("eps", eps)
    return (max(0.0, (1.0 - e) * p), min(1.0, (1.0 + e) * p))


@dataclass(frozen=True)
class PPOEpochs:
    """A few PPO epochs on one batch of first-token decisions."""

    probs: np.ndarray          # shape [E+1, K]: π before each epoch and after the last
    clip_fraction: np.ndarray  # shape [E+1]: share of the batch's tokens clipped at that point
    objective: np.ndarray      # shape [E+1]: mean clipped objective on the batch


def ppo_epochs(p_old, actions, advantages, *, lr: float, epochs: int, eps: float = 0.2) -> PPOEpochs:
    """Gradient ascent on the clipped objective, several epochs on the same batch.

    For each answer n with first token aₙ and advantage Aₙ: ρₙ = π(aₙ)/π_old(aₙ); the gradient of
    its objective with respect to the logits is Aₙ ρₙ (e_{aₙ} − π) unless it is clipped, then 0.
    z ← z + η · mean over n of that gradient.

    Args:
        p_old: shape [K], π_old, the policy that sampled the batch (every entry > 0).
        actions: shape [N], each answer's first-token index.
        advantages: shape [N], each answer's advantage.
        lr: step size η ≥ 0.
        epochs: number of passes over the batch (≥ 1).
        eps: clip distance, 0 < ε < 1.

    Returns:
        PPOEpochs(probs [E+1, K], clip_fraction [E+1], objective [E+1]).
    """
    old = as_probs("p_old", p_old)
    if np.any(old <= 0):
        raise ValueError(f"p_old must be > 0 for every token, got {old.tolist()}")
    a = as_vector("actions", actions)
    if np.any(a != np.round(a)) or np.any(a < 0) or np.any(a >= old.size):
        raise ValueError(f"actions must be whole numbers in [0, {old.size - 1}], got {a.tolist()[:8]}")
    a = a.astype(np.int64)
    adv = as_vector("advantages", advantages)
    if adv.size != a.size:
        raise ValueError(f"actions and advantages must have the same length, got {a.size} and {adv.size}")
    eta = non_negative("lr", lr)
    n_epochs = count("epochs", epochs, low=1, high=10_000)
    e = positive("eps", eps)
    eye = np.eye(old.size)[a]
    z = logits_from_probs(old)
    probs = np.empty((n_epochs + 1, old.size))
    frac = np.empty(n_epochs + 1)
    obj = np.empty(n_epochs + 1)
    for t in range(n_epochs + 1):
        pi = softmax(z)
        rho = pi[a] / old[a]
        clipped = is_clipped(rho, adv, e)
        probs[t], frac[t] = pi, clipped.mean()
        obj[t] = clipped_objective(rho, adv, e).mean()
        if t == n_epochs:
            break
        w = np.where(clipped, 0.0, adv * rho)
        z = z + eta * (w @ eye - w.sum() * pi) / a.size
    return PPOEpochs(probs, frac, obj)


@dataclass(frozen=True)
class PPOBatch:
    """Sampled answers as one PPO batch of first-token decisions."""

    actions: np.ndarray     # shape [N], int: each answer's first token
    scores: np.ndarray      # shape [N]: each answer's judge score R
    advantages: np.ndarray  # shape [N]: R − V
    value: float            # V = Σₐ πₐ Qₐ, the baseline


def batch_advantages(probs, samples) -> PPOBatch:
    """Every sampled answer as a batch entry, with advantage R − V.

    Aₙ = Rₙ − V,  V = Σₐ πₐ Qₐ,  Qₐ = mean score of the answers that began with a.
    Article: V = 4.3, so the five `open` answers (3, 1, 2, 1, 3) get −1.3, −3.3, −2.3, −3.3, −1.3.

    Args:
        probs: shape [K], the policy π that sampled the batch.
        samples: K lists of judge scores, the answers that began with each token.

    Returns:
        PPOBatch(actions [N], scores [N], advantages [N], value), answers in token order.

    >>> batch_advantages([0.5, 0.5], [[1, 3], [6]]).advantages.round(10).tolist()
    [-3.0, -1.0, 2.0]
    """
    p = as_probs("probs", probs)
    groups = as_samples("samples", samples, p.size)
    v = float(p @ np.array([g.mean() for g in groups]))
    actions = np.concatenate([np.full(g.size, i, dtype=np.int64) for i, g in enumerate(groups)])
    scores = np.concatenate(groups)
    return PPOBatch(actions, scores, scores - v, v)
