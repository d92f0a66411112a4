"""The policy-gradient page's study: what moved the policy at each step."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.checks import as_vector, non_negative
from ..formulas.policy import policy_gradient_path, turning_steps

__all__ = ["PolicyTrace", "policy_gradient_trace"]


@dataclass(frozen=True)
class PolicyTrace:
    """Exact policy-gradient trajectory with what moved it at each step."""

    probs: np.ndarray          # shape [S+1, K]: π before the first step and after each step
    values: np.ndarray         # shape [S+1]: V = Σ π Q at each of those points
    advantages: np.ndarray     # shape [S+1, K]: A = Q − V at each point
    logit_changes: np.ndarray  # shape [S, K]: η πₐ Aₐ, the update applied in step t (row t−1)
    direction: np.ndarray      # shape [S, K] int: +1 if the step raised the token's probability, −1 lowered, 0
    turning_step: np.ndarray   # shape [K] int: first step at which the token falls after rising, or 0


def policy_gradient_trace(probs, q, lr: float, steps: int, tol: float = 1e-12) -> PolicyTrace:
    """``policy_gradient_path`` plus, for every step, the logit changes and where each token turns.

    Δzₜ = η · πₜ ⊙ (Q − Vₜ); a token with Q above the current V gets a positive push, but its
    probability rises only if its push beats the π-weighted mean push, so it turns once V passes Q.

    Args:
        probs: shape [K], the starting policy.
        q: shape [K], Q of each token.
        lr: step size η ≥ 0.
        steps: number of steps (≥ 0).
        tol: probability changes no larger than this count as "no change" (≥ 0).

    Returns:
        PolicyTrace(probs [S+1, K], values [S+1], advantages [S+1, K], logit_changes [S, K],
        direction [S, K], turning_step [K]).
    """
    path = policy_gradient_path(probs, q, lr, steps)
    qv = as_vector("q", q)
    eta = non_negative("lr", lr)
    t = non_negative("tol", tol)
    adv = qv[None, :] - path.values[:, None]
    change = np.diff(path.probs, axis=0)
    direction = np.where(change > t, 1, np.where(change < -t, -1, 0))
    return PolicyTrace(path.probs, path.values, adv, eta * path.probs[:-1] * adv[:-1], direction,
                       turning_steps(path.probs, t))
