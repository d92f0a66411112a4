"""The exploration page's study: which seeds found a token, and when."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.checks import count, in_range
from ..formulas.policy import TrainingRun

__all__ = ["ExplorationOutcome", "exploration_outcome"]


@dataclass(frozen=True)
class ExplorationOutcome:
    """Where each seed of a training run ended up, for one token."""

    final: np.ndarray       # shape [S]: the token's probability after the last step
    converged: np.ndarray   # shape [S], bool: final > threshold
    fraction: float         # share of seeds that converged
    first_step: np.ndarray  # shape [S], int: first step at which the probability exceeded threshold, −1 if never


def exploration_outcome(run: TrainingRun, token: int, threshold: float = 0.9) -> ExplorationOutcome:
    """Which seeds of a run found a token and settled on it.

    A seed converges to token a when its final π(a) > threshold (0.9 by default).

    Args:
        run: a TrainingRun from ``sampled_training_many`` (probs [S, steps+1, K]) or
            ``sampled_training`` (probs [steps+1, K], treated as one seed).
        token: the index of the token, in [0, K−1].
        threshold: in (0, 1).

    Returns:
        ExplorationOutcome(final [S], converged [S], fraction, first_step [S]).
    """
    if not isinstance(run, TrainingRun):
        raise ValueError(f"run must be a TrainingRun from sampled_training(_many), got {type(run).__name__}")
    probs = np.asarray(run.probs, dtype=np.float64)
    if probs.ndim == 2:
        probs = probs[None]
    if probs.ndim != 3 or probs.shape[1] < 1 or probs.shape[2] < 1:
        raise ValueError(f"run.probs must have shape [S, steps+1, K], got {probs.shape}")
    a = count("token", token, low=0, high=probs.shape[2] - 1)
    t = in_range("threshold", threshold, 0.0, 1.0)
    if t in (0.0, 1.0):
        raise ValueError(f"threshold must lie strictly between 0 and 1, got {t!r}")
    path = probs[:, :, a]
    above = path > t
    first = np.where(above.any(axis=1), above.argmax(axis=1), -1)
    converged = path[:, -1] > t
    return ExplorationOutcome(path[:, -1].copy(), converged, float(converged.mean()), first)
