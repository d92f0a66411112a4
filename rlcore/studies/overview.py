"""The home page's study: one headline number per term of the running example."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.credit import GROUP_METHODS, GROUP_SEED, GROUP_SIZE, answer_trace, gae, td_errors
from ..formulas.estimates import (
    advantages,
    expected_value,
    gradient_stats,
)
from ..formulas.example import FLATTERY, Scenario, check_scenario
from ..formulas.kl import kl_regularized_objective
from ..formulas.policy import discovery_chance, policy_gradient_path
from ..formulas.ppo import clip_bounds
from .critic import group_credit

__all__ = ["Summary", "summarize"]


@dataclass(frozen=True)
class Summary:
    """One number (or a few) per RL term, computed for a scenario."""

    likely: int                  # index of the most probable token (what greedy decoding writes)
    best: int                    # index of the token with the highest Q
    q: np.ndarray                # Q per token
    v: float                     # V = Σ π Q
    advantage: np.ndarray        # A = Q − V
    weighted_advantage: float    # Σ π A (0 up to rounding)
    answer_tokens: tuple[str, ...]  # the answer that starts with the most probable token
    answer_score: float          # its judge score, Q(likely)
    td_at_action: float          # δ at the decision token of that answer (γ = 1)
    gae_first_token: float       # GAE(γ = 1, λ = 0.95) at the answer's first token
    variance_no_baseline: float  # tr Cov of the REINFORCE estimate with b = 0
    variance_v_baseline: float   # ... with b = V
    probs_after_step: np.ndarray  # π after one exact policy-gradient step (η = 1)
    v_after_step: float
    discover_best_10: float      # chance the best token shows up at least once in 10 samples
    clip_range_best: tuple[float, float]  # range π(best) can reach on one batch, ε = 0.2
    group_likely: np.ndarray     # GRPO advantages of the likely token's answers in group_credit's default group
    group_advantage_likely: float  # their mean (0 when the group has no such answer)
    kl_flattery_90: float        # KL(π‖π_ref) when 90% of the best branch's answers flatter

    @property
    def variance_ratio(self) -> float:
        return self.variance_v_baseline / self.variance_no_baseline if self.variance_no_baseline else 0.0


def summarize(scenario: Scenario, *, lam: float = 0.95, eps: float = 0.2, k: int = 10) -> Summary:
    """Compute every headline number for ``scenario`` (defaults: λ 0.95, ε 0.2, 10 samples).

    The group numbers are those of ``group_credit`` with the default group (GROUP_SIZE answers, GROUP_SEED,
    GRPO), the very call the TD error and GAE page makes at its defaults.
    """
    pi, q = check_scenario(scenario).pi, scenario.q
    v = expected_value(pi, q)
    adv = advantages(pi, q)
    likely, best = int(np.argmax(pi)), int(np.argmax(q))
    trace = answer_trace(scenario, scenario.tokens[likely], 1.0)
    path = policy_gradient_path(pi, q, 1.0, 1)
    group = group_credit(scenario, scenario.tokens[likely], GROUP_SIZE, GROUP_METHODS[0], GROUP_SEED)
    likely_group = group.advantages[group.members]
    return Summary(
        likely=likely, best=best, q=q, v=v, advantage=adv, weighted_advantage=float(pi @ adv),
        answer_tokens=trace.tokens, answer_score=trace.score,
        td_at_action=float(td_errors(trace.rewards, trace.values, 1.0)[trace.action_index]),
        gae_first_token=float(gae(trace.rewards, trace.values, 1.0, lam)[0]),
        variance_no_baseline=gradient_stats(pi, scenario.samples, 0.0).total_variance,
        variance_v_baseline=gradient_stats(pi, scenario.samples, v).total_variance,
        probs_after_step=path.probs[1], v_after_step=float(path.values[1]),
        discover_best_10=float(discovery_chance(pi[best], [k])[0]),
        clip_range_best=clip_bounds(pi[best], eps),
        group_likely=likely_group,
        group_advantage_likely=float(likely_group.mean()) if likely_group.size else 0.0,
        kl_flattery_90=kl_regularized_objective([0.1, 0.9], FLATTERY.rewards, FLATTERY.p_ref, 1.0).kl,
    )
