"""Where a KL estimator goes (loss or reward) and which divergence its expected gradient follows."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.checks import count
from ..formulas.diagnostics import kl_gradients
from ..formulas.policy import policy_gradient_path

__all__ = ["FOLLOWS", "PLACEMENTS", "KLPlacements", "PlacementPath", "kl_placement_path", "kl_placements"]

PLACEMENTS = ("k1 in the loss", "k2 in the loss", "k3 in the loss",
              "k1 in the reward", "k2 in the reward", "k3 in the reward")
FOLLOWS = ("the reverse KL", "the forward KL", "both KLs", "nothing (zero)", "neither KL", "all vanish")
_REL_TOL = 1e-9


@dataclass(frozen=True)
class KLPlacements:
    """The six ways of penalising KL, each one's expected gradient and what it matches."""

    gradients: np.ndarray       # shape [6, K], in the order of PLACEMENTS
    reverse: np.ndarray         # shape [K], ∇ KL(π‖π_ref)
    forward: np.ndarray         # shape [K], ∇ KL(π_ref‖π)
    follows: tuple[str, ...]    # one entry of FOLLOWS per placement
    cosine: np.ndarray          # shape [6], cosine with the reverse gradient (nan when either is 0)
    estimator_mean: np.ndarray  # shape [3], E_π[k1], E_π[k2], E_π[k3]
    estimator_sd: np.ndarray    # shape [3], their standard deviation over one sampled token
    estimator_min: np.ndarray   # shape [3], their smallest value over the tokens π can write
    kl: float                   # KL(π‖π_ref), what every estimator tries to measure


def _follows(g: np.ndarray, reverse: np.ndarray, forward: np.ndarray, scale: float) -> str:
    if scale == 0.0:
        return FOLLOWS[5]
    tol = _REL_TOL * scale
    rev = np.max(np.abs(g - reverse)) <= tol
    fwd = np.max(np.abs(g - forward)) <= tol
    if rev and fwd:
        return FOLLOWS[2]
    if rev:
        return FOLLOWS[0]
    if fwd:
        return FOLLOWS[1]
    if np.max(np.abs(g)) <= tol:
        return FOLLOWS[3]
    return FOLLOWS[4]


def kl_placements(pi, pi_ref) -> KLPlacements:
    """Each KL placement's expected gradient, which KL it is the gradient of, and each estimator's value.

    Gradients come from ``kl_gradients``; a placement "follows" a KL when its expected gradient equals
    that KL's gradient on every logit (within 1e-9 of the largest entry). cosᵢ = gᵢ·∇KL(π‖π_ref) /
    (‖gᵢ‖ ‖∇KL(π‖π_ref)‖). The values: with ℓ = log π − log π_ref and r = π_ref/π, E[k1] = Σ π ℓ = KL,
    E[k2] = ½ Σ π ℓ², E[k3] = Σ π (r − 1 − log r) = KL too, and SD = √(E[k²] − E[k]²).

    Source: Tang & Munos (2025), arXiv 2506.09477 (gradients); Schulman (2020), "Approximating KL
    Divergence" (values).

    Args:
        pi: shape [K], π, the policy being trained (it samples the tokens).
        pi_ref: shape [K], π_ref, the reference policy (same support as π).

    Returns:
        KLPlacements(gradients [6, K], reverse, forward, follows, cosine [6], estimator_mean [3],
        estimator_sd [3], estimator_min [3], kl).

    >>> kl_placements([0.5, 0.5], [0.8, 0.2]).follows
    ('nothing (zero)', 'the reverse KL', 'the forward KL', 'the reverse KL', 'neither KL', 'neither KL')
    """
    g = kl_gradients(pi, pi_ref)
    p = np.asarray(pi, dtype=np.float64)
    ref = np.asarray(pi_ref, dtype=np.float64)
    grads = np.stack([g.k1_loss, g.k2_loss, g.k3_loss, g.k1_reward, g.k2_reward, g.k3_reward])
    scale = float(max(np.max(np.abs(g.reverse)), np.max(np.abs(g.forward))))
    follows = tuple(_follows(row, g.reverse, g.forward, scale) for row in grads)

    norms = np.linalg.norm(grads, axis=1)
    rev_norm = float(np.linalg.norm(g.reverse))
    with np.errstate(invalid="ignore", divide="ignore"):
        cosine = np.where((norms > _REL_TOL * scale) & (rev_norm > 0), grads @ g.reverse / (norms * rev_norm),
                          np.nan)

    s = p > 0
    ell = np.log(p[s]) - np.log(ref[s])
    r = ref[s] / p[s]
    per_token = np.stack([ell, 0.5 * ell**2, r - 1.0 - np.log(r)])   # [3, support]
    mean = per_token @ p[s]
    centred = per_token - mean[:, None]
    top = np.maximum(np.abs(centred).max(axis=1), np.finfo(np.float64).tiny)  # rescaled: (π_ref/π)² may overflow
    sd = top * np.sqrt(((centred / top[:, None]) ** 2) @ p[s])
    return KLPlacements(grads, g.reverse, g.forward, follows, np.clip(cosine, -1.0, 1.0), mean, sd,
                        per_token.min(axis=1), float(max(mean[0], 0.0)))


@dataclass(frozen=True)
class PlacementPath:
    """The six KL placements along a policy-gradient path away from π_ref (the starting policy)."""

    probs: np.ndarray                      # [T+1, K]: π after 0 … T steps
    placements: tuple[KLPlacements, ...]   # T+1: ``kl_placements(π_t, π_ref)`` at each step
    cosine: np.ndarray                     # [T+1, 6]: each placement's cosine with the true gradient (nan: none)
    worst: np.ndarray                      # [T+1] int: the placement of the lowest cosine; −1 where none is defined
    gradients: np.ndarray                  # [T+1, 6, K]: each placement's expected gradient per logit at each step
    true: np.ndarray                       # [T+1, K]: the true gradient of KL(π‖π_ref) per logit at each step


def kl_placement_path(probs, q, lr: float, steps: int) -> PlacementPath:
    """π along ``steps`` exact policy-gradient steps from π_ref = ``probs`` (``policy_gradient_path``), and at each
    step the placements' expected gradients against the true KL's (``kl_placements``).

    Args:
        probs: shape [K], π_ref, where the training starts.
        q: shape [K], Q of each token.
        lr: step size η ≥ 0.
        steps: number of steps (0 to 1,000).

    Returns:
        PlacementPath(probs [T+1, K], placements, cosine [T+1, 6], worst [T+1], gradients [T+1, 6, K], true [T+1, K]):
        every step at once, what a chart dragged over the steps draws.

    Before the first step π = π_ref: every expected gradient is 0, so none has a direction:

    >>> path = kl_placement_path([0.5, 0.5], [0.0, 2.0], 1.0, 2)
    >>> path.probs.shape, path.placements[0].follows[2], int(path.worst[0])
    ((3, 2), 'all vanish', -1)
    >>> path.gradients.shape, float(abs(path.gradients[0]).max())   # 3 steps · 6 placements · 2 logits; 0 at π_ref
    ((3, 6, 2), 0.0)
    """
    ref = policy_gradient_path(probs, q, lr, count("steps", steps, low=0, high=1000))
    rows = tuple(kl_placements(p, ref.probs[0]) for p in ref.probs)
    cosine = np.stack([r.cosine for r in rows])
    lowest = np.where(np.isnan(cosine), np.inf, cosine).argmin(axis=1)  # nanargmin, row by row
    return PlacementPath(ref.probs, rows, cosine, np.where(np.all(np.isnan(cosine), axis=1), -1, lowest),
                         np.stack([r.gradients for r in rows]), np.stack([r.reverse for r in rows]))
