"""The bundles that pages' cached functions return.

``st.cache_data`` pickles what a cached function returns, and pickle finds a class by its module and
name: a class defined inside a page script lives in that run's ``__main__`` and cannot always be found
again (another page may be ``__main__`` by then). So the result types live here, in a real module.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

import rlcore

from .prep import Histogram, SeedBands


class ClipCurve(NamedTuple):
    p_old: float
    adv: float
    size: float         # |A|, or 1 when A = 0 (a zero advantage has no slope to show)
    low: float
    high: float
    x: np.ndarray       # π of the token
    pos: np.ndarray     # clipped objective at +size
    neg: np.ndarray     # ... at −size


class PPORun(NamedTuple):
    batch: rlcore.PPOBatch
    run: rlcore.PPOEpochs
    bands: list         # clip bounds of each token


class KLCurve(NamedTuple):
    ref_share: float
    best: np.ndarray
    curve: rlcore.ShareCurve
    points: rlcore.ShareCurve  # at the reference, the chosen share and the optimum


class Estimators(NamedTuple):
    study: rlcore.KLEstimatorStudy
    hist: Histogram


class Exploration(NamedTuple):
    """Greedy decoding against sampling at a temperature, on the same example (the Exploration page)."""

    summary: rlcore.Summary
    sampled_bands: SeedBands            # π per step and token, over the seeds
    greedy_bands: SeedBands
    sampled_score: SeedBands            # mean judge score of each batch, over the seeds
    greedy_score: SeedBands
    sampled_outcome: rlcore.ExplorationOutcome
    greedy_outcome: rlcore.ExplorationOutcome
    at_temp: np.ndarray                 # the distribution sampling at τ draws from
    ks: np.ndarray                      # answer counts k for the discovery curve
    chance: np.ndarray                  # P(the best token at least once in k answers), at τ = 1
    chance_at_temp: np.ndarray          # ... at τ
    k50: float                          # answers needed for a 50% chance, at τ (inf if never)
    k95: float
    batch_chance: float                 # P(one batch holds the best token), at τ


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

