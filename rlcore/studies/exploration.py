"""The exploration page's study: greedy decoding against sampling at a temperature, which seeds found the best
token and when, and the odds of seeing it in k answers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.checks import count, in_range, positive_each
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
    d = discovery_curves(scenario, temperature)
    return Exploration(
        summary=s, threshold=float(threshold),
        sampled_bands=seed_bands(runs[False].probs), greedy_bands=seed_bands(runs[True].probs),
        sampled_score=seed_bands(runs[False].mean_score), greedy_score=seed_bands(runs[True].mean_score),
        sampled_outcome=outcome[False], greedy_outcome=outcome[True], at_temp=mu, ks=DISCOVERY_KS.copy(),
        chance=d.chance_at_one, chance_at_temp=d.chance, k50=d.k50, k95=d.k95,
        batch_chance=float(discovery_chance(d.best_prob, [batch])[0]),  # one batch holds the best token
    )


@dataclass(frozen=True)
class DiscoveryCurves:
    """The chance to see the scenario's best token in k answers sampled at τ (at each τ of an array: the rows of a
    chart scrubbed over τ)."""

    temperature: float | np.ndarray  # τ; or shape [...], an array of them
    best_prob: float | np.ndarray    # μ(best) at τ ([...] at each)
    k50: float | np.ndarray          # answers needed for a 50% chance at τ (inf if never)
    k95: float | np.ndarray          # ... for a 95% chance
    ks: np.ndarray                   # shape [M]: answer counts k (1 to 100)
    chance_at_one: np.ndarray        # shape [M]: the chance at τ = 1
    chance: np.ndarray               # shape [M] ([..., M] at each τ): the chance at τ


def discovery_curves(scenario: Scenario, temperature) -> DiscoveryCurves:
    """The discovery curve, 1 − (1 − μ_b)^k with μ = ``temperature_probs(π, τ)`` and b the best token, k = 1…100
    (``discovery_chance``), and the answers it takes for a 50% and a 95% chance (``samples_to_discover``):
    ``exploration_study``'s at its τ, here at an array of τ in one vectorised pass as well.

    Args:
        scenario: the running example.
        temperature: τ > 0; or an array of them, of any shape [...] (a chart dragged over τ).

    Returns:
        DiscoveryCurves(temperature, best_prob, k50, k95, ks, chance_at_one, chance).

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> c = discovery_curves(ARTICLE_SCENARIO, [0.5, 1.0, 1.5])   # μ(partly) = 0.105, 0.2, 0.241
    >>> c.k50.tolist(), c.k95.tolist(), c.chance.shape
    ([7.0, 4.0, 3.0], [27.0, 14.0, 11.0], (3, 100))
    """
    s = summarize(check_scenario(scenario))
    tau = positive_each("temperature", temperature)
    at_one = discovery_chance(scenario.pi[s.best], DISCOVERY_KS)
    if np.ndim(tau) == 0:
        best = float(temperature_probs(scenario.pi, tau)[s.best])
        return DiscoveryCurves(tau, best, samples_to_discover(best, 0.5), samples_to_discover(best, 0.95),
                               DISCOVERY_KS.copy(), at_one, discovery_chance(best, DISCOVERY_KS))
    best = temperature_probs(scenario.pi, tau)[..., s.best]                      # [...]
    k50, k95 = (np.array([samples_to_discover(b, q) for b in best.ravel()]).reshape(best.shape) for q in (0.5, 0.95))
    return DiscoveryCurves(tau, best, k50, k95, DISCOVERY_KS.copy(), at_one, discovery_chance(best, DISCOVERY_KS))
