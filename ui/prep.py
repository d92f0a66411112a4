"""Chart preparation: shaping rlcore's arrays for a chart, with no RL maths in it.

Thinning a long run to the points a chart keeps, binning values into a histogram, and reducing seeds to a
median band. Pure numpy (no streamlit, altair or pandas). Bad input raises ``ValueError`` naming the
argument, like rlcore.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from rlcore.formulas.checks import as_array, count
from rlcore.formulas.estimates import Histogram, histogram_counts  # noqa: F401  (one import point for chart preparation)


def thin_steps(n: int, max_points: int) -> np.ndarray:
    """At most ``max_points`` evenly spaced indices of 0…n−1, always with the first and the last.

    What a chart keeps of a long run so that it stays small.

    >>> thin_steps(11, 4).tolist()
    [0, 4, 8, 10]
    >>> thin_steps(3, 10).tolist()
    [0, 1, 2]
    """
    size = count("n", n, low=1)
    top = count("max_points", max_points, low=2)
    if size <= top:
        return np.arange(size)
    stride = -(-size // (top - 1))
    idx = np.arange(0, size, stride)
    return idx if idx[-1] == size - 1 else np.append(idx, size - 1)


def dead_share(dead, window: int = 1) -> np.ndarray:
    """Share of dead groups per step: over the seeds, and over the last ``window`` steps.

    shareₜ = mean over seeds and over steps t−w+1…t of deadₛ,ₜ (fewer steps at the start).

    Args:
        dead: shape [S, T] bool, ``LabHistory.dead``.
        window: w ≥ 1 steps to average over.

    Returns:
        shape [T], in [0, 1].

    >>> dead_share([[True, False, False, True]], window=2).tolist()
    [1.0, 0.5, 0.0, 0.5]
    """
    d = np.asarray(dead)
    if d.ndim != 2 or d.size == 0:
        raise ValueError(f"dead must have shape [S, T] with S, T ≥ 1, got {d.shape}")
    if d.dtype != bool and not np.all(np.isin(d, (0, 1))):
        raise ValueError("dead must hold only True/False")
    w = count("window", window, low=1)
    per_step = d.astype(np.float64).mean(axis=0)
    total = np.cumsum(np.concatenate([[0.0], per_step]))
    starts = np.maximum(np.arange(per_step.size) + 1 - w, 0)
    return (total[1:] - total[starts]) / (np.arange(per_step.size) + 1 - starts)


class SeedBands(NamedTuple):
    """The middle and the extremes over seeds, per step (what a band chart draws)."""

    median: np.ndarray  # shape [T, ...]
    low: np.ndarray     # shape [T, ...]: smallest over seeds
    high: np.ndarray    # shape [T, ...]: largest over seeds


def seed_bands(values) -> SeedBands:
    """Median, minimum and maximum over the seeds axis (axis 0) of a training run's arrays.

    Args:
        values: shape [S, T, ...], e.g. ``TrainingRun.probs`` or ``TrainingRun.mean_score``.

    Returns:
        SeedBands(median, low, high), each of shape [T, ...].

    >>> seed_bands([[1.0, 5.0], [3.0, 4.0], [2.0, 9.0]]).median.tolist()
    [2.0, 5.0]
    """
    x = as_array("values", values)
    if x.ndim < 2 or x.shape[0] < 1:
        raise ValueError(f"values must have shape [S, T, ...] with S ≥ 1, got {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("values must contain only finite numbers")
    return SeedBands(np.median(x, axis=0), x.min(axis=0), x.max(axis=0))


