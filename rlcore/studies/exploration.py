"""The exploration page's study: greedy decoding against sampling at a temperature, which seeds found the best
token and when, and the odds of seeing it in k answers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.checks import count, in_range, scrub_grid
from ..formulas.estimates import SeedBands, seed_bands
from ..formulas.example import Scenario, check_scenario
from ..formulas.policy import (
    TrainingRun,
    discovery_chance,
    sampled_training_many,
    samples_to_discover,
    temperature_probs,
)
from .overview import Summary, summarize

__all__ = ["DiscoveryCurves", "Exploration", "ExplorationOutcome", "discovery_curves", "exploration_outcome",
           "exploration_study"]

DISCOVERY_KS = np.arange(1, 101)  # the answer counts k of the discovery curve


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


@dataclass(frozen=True)
class Exploration:
    """Greedy decoding against sampling at a temperature, on the same example (the exploration page)."""

    summary: Summary                    # the scenario's headline numbers (its likely and its best token)
    threshold: float                    # a seed converges when its final π(best) is above it
    sampled_bands: SeedBands            # π per step and token, over the seeds: [steps+1, K]
    greedy_bands: SeedBands
    sampled_score: SeedBands            # mean judge score of each batch, over the seeds: [steps]
    greedy_score: SeedBands
    sampled_outcome: ExplorationOutcome  # which seeds found the best token, and when
    greedy_outcome: ExplorationOutcome
    at_temp: np.ndarray                 # shape [K]: the distribution sampling at τ draws from
    ks: np.ndarray                      # shape [M]: answer counts k for the discovery curve (1 to 100)
    chance: np.ndarray                  # shape [M]: P(the best token at least once in k answers), at τ = 1
    chance_at_temp: np.ndarray          # shape [M]: the same at τ
    k50: float                          # answers needed for a 50% chance, at τ (inf if never)
    k95: float                          # ... for a 95% chance
    batch_chance: float                 # P(one batch holds the best token), at τ


def exploration_study(scenario: Scenario, temperature: float, lr: float, steps: int, batch: int,
                      baseline: str = "batch mean", n_seeds: int = 8, threshold: float = 0.9) -> Exploration:
    """Greedy decoding and sampling at τ trained side by side on the scenario, and the chance to see its best token.

    Each decoding trains REINFORCE on the first token for ``n_seeds`` seeds (``sampled_training_many``; greedy
    decoding ignores τ, so it trains at τ = 1), reduced to bands over the seeds, with the seeds that converged
    to the best token (``exploration_outcome``). Sampling at τ draws from μ = ``temperature_probs(π, τ)``; the
    chance of the best token b at least once in k answers is 1 − (1 − μ_b)^k (``discovery_chance``), k = 1…100.

    Args:
        scenario: the running example.
        temperature: τ > 0 of the sampled decoding.
        lr: step size η ≥ 0.
        steps: number of updates (≥ 1).
        batch: answers per update (≥ 1).
        baseline: "none", "batch mean" or "V".
        n_seeds: seeds per decoding (≥ 1).
        threshold: in (0, 1).

    Returns:
        Exploration(summary, threshold, sampled_bands, greedy_bands, sampled_score, greedy_score,
        sampled_outcome, greedy_outcome, at_temp, ks, chance, chance_at_temp, k50, k95, batch_chance).

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> ex = exploration_study(ARTICLE_SCENARIO, 1.0, 0.1, 10, 8, "batch mean", 2)
    >>> ex.greedy_outcome.fraction, ex.k50, ex.k95   # greedy writes open: π(partly) stays 0.2
    (0.0, 4.0, 14.0)
    """
    s = summarize(check_scenario(scenario))
    seeds = tuple(range(count("n_seeds", n_seeds, low=1, high=1000)))
    runs = {greedy: sampled_training_many(scenario.pi, scenario.samples, temperature=1.0 if greedy else temperature,
                                          greedy=greedy, lr=lr, steps=steps, batch=batch, baseline=baseline,
                                          seeds=seeds) for greedy in (False, True)}
    outcome = {greedy: exploration_outcome(run, s.best, threshold) for greedy, run in runs.items()}
    mu = temperature_probs(scenario.pi, temperature)
    best = float(mu[s.best])
    return Exploration(
        summary=s, threshold=float(threshold),
        sampled_bands=seed_bands(runs[False].probs), greedy_bands=seed_bands(runs[True].probs),
        sampled_score=seed_bands(runs[False].mean_score), greedy_score=seed_bands(runs[True].mean_score),
        sampled_outcome=outcome[False], greedy_outcome=outcome[True], at_temp=mu, ks=DISCOVERY_KS.copy(),
        chance=discovery_chance(scenario.pi[s.best], DISCOVERY_KS), chance_at_temp=discovery_chance(best, DISCOVERY_KS),
        k50=samples_to_discover(best, 0.5), k95=samples_to_discover(best, 0.95),
        batch_chance=float(discovery_chance(best, [batch])[0]),  # one batch holds the best token
    )


@dataclass(frozen=True)
class DiscoveryCurves:
    """The chance to see the scenario's best token in k answers sampled at every τ of a grid (and at the committed τ
    where it lies between grid points): the rows of a chart scrubbed over τ, one row per (τ, k)."""

    temperature: np.ndarray  # shape [V]: the grid's τ, then the committed τ where it is off the grid
    exact: np.ndarray        # shape [V], bool: that last, committed τ
    best_prob: np.ndarray    # shape [V]: μ(best) at each τ
    k50: np.ndarray          # shape [V]: answers needed for a 50% chance at each τ (inf if never)
    k95: np.ndarray          # shape [V]: ... for a 95% chance
    ks: np.ndarray           # shape [M]: answer counts k (1 to 100)
    chance_at_one: np.ndarray  # shape [M]: the chance at τ = 1
    committed: np.ndarray    # shape [M]: the chance at the committed τ
    row_temp: np.ndarray     # shape [V·M]: each row's τ
    row_k: np.ndarray        # shape [V·M]: each row's k
    chance: np.ndarray       # shape [V·M]: the chance at the row's τ and k
    row_exact: np.ndarray    # shape [V·M], bool: rows of the committed τ off the grid


def discovery_curves(scenario: Scenario, temperature: float, grid) -> DiscoveryCurves:
    """``exploration_study``'s discovery curve, 1 − (1 − μ_b)^k with μ = ``temperature_probs(π, τ)``, for every τ of
    ``grid`` in one vectorised pass (``temperature_probs`` and ``discovery_chance`` over arrays), and for the committed
    ``temperature`` too where it lies between grid points (``exact``): what a chart needs to redraw as τ is dragged.

    Args:
        scenario: the running example.
        temperature: the committed τ > 0.
        grid: at least two τ > 0, ascending in equal steps (a slider's steps).

    Returns:
        DiscoveryCurves(temperature, exact, best_prob, k50, k95, ks, chance_at_one, committed, row_temp, row_k,
        chance, row_exact).

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> c = discovery_curves(ARTICLE_SCENARIO, 1.0, [0.5, 1.0, 1.5])   # μ(partly) = 0.105, 0.2, 0.241
    >>> c.k50.tolist(), c.k95.tolist()
    ([7.0, 4.0, 3.0], [27.0, 14.0, 11.0])
    """
    s = summarize(check_scenario(scenario))
    values, exact = scrub_grid("grid", grid, "temperature", temperature, 0.0, np.inf)
    if values.min() <= 0:
        raise ValueError(f"grid and temperature must be > 0, got {values.tolist()[:8]}")
    best = temperature_probs(scenario.pi, values)[:, s.best]                      # [V]
    here = temperature_probs(scenario.pi, temperature)[s.best]
    chance = discovery_chance(np.r_[best, scenario.pi[s.best], here], DISCOVERY_KS)   # [V + 2, M]
    n, m = values.size, DISCOVERY_KS.size
    return DiscoveryCurves(
        temperature=values, exact=exact, best_prob=best,
        k50=np.array([samples_to_discover(b, 0.5) for b in best]),
        k95=np.array([samples_to_discover(b, 0.95) for b in best]),
        ks=DISCOVERY_KS.copy(), chance_at_one=chance[n], committed=chance[n + 1], row_temp=np.repeat(values, m),
        row_k=np.tile(DISCOVERY_KS, n), chance=chance[:n].ravel(), row_exact=np.repeat(exact, m))
