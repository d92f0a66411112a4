"""The policy-gradient page's studies: what moved the policy at each step, the question about its first step, and
how far runs from sampled answers stray from the exact path."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.checks import as_vector, count, non_negative
from ..formulas.example import Scenario, check_scenario
from ..formulas.policy import policy_gradient_path, sampled_training_many, turning_steps

__all__ = ["PolicyQuestion", "PolicyTrace", "SampledSpread", "policy_gradient_trace", "policy_question",
           "sampled_spread"]


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


@dataclass(frozen=True)
class PolicyQuestion:
    """The page's question: after one exact step, does the probe token's probability go up or down?"""

    probe: int          # the token asked about
    direction: int      # +1 up, −1 down, 0 no change (``PolicyTrace.direction`` of the first step)
    q: float            # its Q
    v: float            # V before the step
    advantage: float    # A = Q − V before the step
    change: float       # η πₐ Aₐ, its logit change
    before: float       # π(probe) before the step
    after: float        # π(probe) after it


def policy_question(scenario: Scenario, lr: float) -> PolicyQuestion:
    """The question of the policy-gradient page, answered by one step of ``policy_gradient_trace``.

    The probe is the article's "closed" when the scenario has that token; in another scenario the runner-up by
    Q (good, but not the best; the only token when there is one), whose probability can fall although its
    advantage is positive.

    Args:
        scenario: the running example.
        lr: step size η ≥ 0.

    Returns:
        PolicyQuestion(probe, direction, q, v, advantage, change, before, after).

    >>> from ..formulas.example import ARTICLE_SCENARIO
    >>> p = policy_question(ARTICLE_SCENARIO, 1.0)
    >>> p.probe, p.direction, round(p.advantage, 10), round(p.change, 10)
    (1, 1, 0.7, 0.21)
    """
    q = check_scenario(scenario).q
    tr = policy_gradient_trace(scenario.pi, q, lr, 1)
    tokens = scenario.tokens
    probe = tokens.index("closed") if "closed" in tokens else int(np.argsort(q, kind="stable")[-min(2, len(q))])
    return PolicyQuestion(probe, int(tr.direction[0, probe]), float(q[probe]), float(tr.values[0]),
                          float(tr.advantages[0, probe]), float(tr.logit_changes[0, probe]),
                          float(tr.probs[0, probe]), float(tr.probs[1, probe]))


@dataclass(frozen=True)
class SampledSpread:
    """Runs of REINFORCE from sampled answers, one per seed: their middle and their range at every step."""

    median: np.ndarray   # shape [S+1, K]: the runs' median π before each step and after the last
    lowest: np.ndarray   # shape [S+1, K]: the lowest π any run reached there
    highest: np.ndarray  # shape [S+1, K]: the highest


def sampled_spread(probs, samples, *, lr: float, steps: int, batch: int, baseline: str = "batch mean",
                   runs: int = 12) -> SampledSpread:
    """``sampled_training_many`` with seeds 0…runs−1, summarised per step and token: median, lowest, highest.

    Args:
        probs: shape [K], the starting policy.
        samples: K lists of scores.
        lr: step size η ≥ 0.
        steps: number of updates (≥ 1).
        batch: answers per update (≥ 1).
        baseline: "none", "batch mean" or "V".
        runs: number of runs, one per seed (≥ 1).

    Returns:
        SampledSpread(median [S+1, K], lowest [S+1, K], highest [S+1, K]).

    >>> s = sampled_spread([0.5, 0.5], [[1.0], [0.0]], lr=1.0, steps=2, batch=4, runs=3)
    >>> s.median.shape, s.lowest[0].tolist(), bool((s.lowest <= s.median).all() and (s.median <= s.highest).all())
    ((3, 2), [0.5, 0.5], True)
    """
    n = count("runs", runs, low=1, high=10_000)
    run = sampled_training_many(probs, samples, lr=lr, steps=steps, batch=batch, baseline=baseline,
                                seeds=tuple(range(n)))
    return SampledSpread(np.median(run.probs, axis=0), run.probs.min(axis=0), run.probs.max(axis=0))
