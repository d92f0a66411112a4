"""The bundles that pages' cached functions return.

``st.cache_data`` pickles what a cached function returns, and pickle finds a class by its module and
name: a class defined inside a page script lives in that run's ``__main__`` and cannot always be found
again (another page may be ``__main__`` by then). So the result types live here, in a real module.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .prep import SeedBands


class LabBands(NamedTuple):
    """What the charts need of one algorithm's runs: a seed band per curve (small to cache)."""

    score: SeedBands
    probs: SeedBands
    flattery: SeedBands
    kl: SeedBands
    clip: SeedBands
    loss: SeedBands
    grad: SeedBands
    first: tuple[float, float]        # loss and gradient norm at the first step
    values: SeedBands | None     # PPO's critic only
    dead: np.ndarray                  # share of dead groups, last 10 steps
    dead_total: float
    length: SeedBands            # mean tokens per answer
    token_length: SeedBands      # mean tokens per answer after each first token
    entropy: SeedBands           # entropy of the first token's policy
    pass1: SeedBands             # chance that one answer is right
    p_correct: np.ndarray             # [S, T+1], per seed: pass@k is computed from it for any k
    groups_drawn: float               # groups written per step, on average (DAPO resamples dead ones)

