"""The TD error and GAE page's studies: one answer's credit token by token, a critic that is wrong, and a group
scored against itself."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.checks import (
    as_real,
    as_samples,
    as_vector,
    count,
    fit_shapes,
    in_range,
    in_range_each,
    non_negative,
    rng_from,
)
from ..formulas.credit import (
    AnswerTrace,
    answer_trace,
    credit_positions,
    gae,
    group_advantages,
    td_errors,
)
from ..formulas.estimates import (
    sample_answers,
)
from ..formulas.example import Scenario, check_scenario

__all__ = ["AnswerCredit", "CriticErrorStudy", "GroupCredit", "answer_credit",
           "answer_critic_error", "critic_error_study", "group_credit"]


@dataclass(frozen=True)
class AnswerCredit:
    """One answer with an exact critic: the TD error and the GAE advantage at each of its tokens."""

    trace: AnswerTrace        # the answer that starts with the token, with its values at γ
    td_errors: np.ndarray     # shape [T]: δₜ = rₜ + γ Vₜ₊₁ − Vₜ
    advantages: np.ndarray    # shape [T]: GAE Âₜ at (γ, λ)
    jumps: np.ndarray         # shape [T], bool: the TD error is not zero (the value jumps there)
    blamed: np.ndarray        # shape [T], bool: the advantage at λ = 0 is not zero
    # at arrays of γ and λ (a chart dragged over them): td_errors, advantages, jumps and blamed with their broadcast
    # shape [...] in front, trace.values with γ's shape in front ([..., T+1]: the critic under each γ)

    @property
    def jump_at(self) -> np.ndarray:
        """Shape [M]: the positions whose TD error is not zero, at one (γ, λ)."""
        return np.flatnonzero(self.jumps)

    @property
    def blamed_at_zero(self) -> np.ndarray:
        """Shape [M']: the positions whose advantage at λ = 0 is not zero, at one (γ, λ)."""
        return np.flatnonzero(self.blamed)


def answer_credit(scenario: Scenario, token: str, gamma: float, lam: float) -> AnswerCredit:
    """Which tokens of the answer starting with ``token`` get the blame or credit for its score, and at which λ.

    With the exact values (``answer_trace``) the TD error is zero everywhere but at the decision token, where
    the value jumps from V to Q(token); GAE spreads that one δ backwards, Âₜ = Σₖ (γλ)ᵏ δₜ₊ₖ.

    Args:
        scenario: the running example.
        token: one of scenario.tokens, the answer's first (decision) token.
        gamma: discount γ in [0, 1]; or an array of them, which broadcasts with ``lam`` (γ [G, 1] and λ [V]:
            every (γ, λ) of two grids, in one vectorised pass of ``gae``).
        lam: λ in [0, 1]; or an array of them.

    Returns:
        AnswerCredit(trace, td_errors [..., T], advantages [..., T], jumps [..., T], blamed [..., T]).

    >>> from ..formulas.example import ARTICLE_SCENARIO
    >>> c = answer_credit(ARTICLE_SCENARIO, "open", 1.0, 1.0)
    >>> c.jump_at.tolist(), round(float(c.td_errors[2]), 10), np.round(c.advantages[:3], 10).tolist()
    ([2], -2.3, [-2.3, -2.3, -2.3])
    >>> c = answer_credit(ARTICLE_SCENARIO, "open", [[0.5], [1.0]], [0.0, 0.5, 1.0])   # δ = −2.3 at token 2 only
    >>> c.advantages.shape[:2], np.round(c.advantages[1, :, 0], 10).tolist()   # Â₀ = λ²·δ₂ at γ = 1
    ((2, 3), [0.0, -0.575, -2.3])
    """
    g = in_range_each("gamma", gamma, 0.0, 1.0)
    lam = in_range_each("lam", lam, 0.0, 1.0)
    if np.ndim(g) == 0 and np.ndim(lam) == 0:
        trace = answer_trace(scenario, token, g)
        delta = td_errors(trace.rewards, trace.values, g)
        adv = gae(trace.rewards, trace.values, g, lam)
        adv0 = gae(trace.rewards, trace.values, g, 0.0)
        return AnswerCredit(trace, delta, adv, _marks(delta), _marks(adv0))
    shape = fit_shapes(gamma=np.shape(g), lam=np.shape(lam))
    each = [answer_trace(scenario, token, float(x)) for x in np.ravel(g)]  # the critic under each γ
    values = np.stack([e.values for e in each]).reshape(*np.shape(g), -1)   # [..., T+1]
    r = each[0].rewards                                                     # the score on the last token: no γ in it
    delta = np.stack([td_errors(r, e.values, float(x)) for e, x in zip(each, np.ravel(g), strict=True)])
    delta = np.broadcast_to(delta.reshape(*np.shape(g), -1), (*shape, r.size))
    adv = gae(r, values, g, lam)
    adv0 = np.broadcast_to(gae(r, values, g, 0.0), (*shape, r.size))
    trace = AnswerTrace(each[0].tokens, r, values, each[0].action_index, each[0].score)
    return AnswerCredit(trace, delta, adv, _marks(delta), _marks(adv0))


def _marks(x: np.ndarray) -> np.ndarray:
    """Shape [..., T], bool: ``credit_positions`` of each row of ``x`` [..., T], marked."""
    rows = np.reshape(x, (-1, np.shape(x)[-1]))
    out = np.zeros(rows.shape, dtype=bool)
    for row, mark in zip(rows, out, strict=True):
        mark[credit_positions(row)] = True
    return out.reshape(np.shape(x))


def answer_critic_error(scenario: Scenario, token: str, *, gamma: float, lams, bias: float, noise: float,
                        n_draws: int, seed) -> CriticErrorStudy:
    """``critic_error_study`` for the answer that starts with ``token``, its score drawn from that token's samples.

    Args:
        scenario: the running example.
        token: one of scenario.tokens.
        gamma: γ in [0, 1].
        lams: shape [L], the λ values to compare, each in [0, 1].
        bias: the critic's error after the decision token.
        noise: standard deviation of the critic's noise (≥ 0).
        n_draws: number of seeded draws (≥ 2).
        seed: integer seed or numpy Generator.

    Returns:
        CriticErrorStudy(lams, bias, variance, mse, true_advantage).

    >>> from ..formulas.example import ARTICLE_SCENARIO
    >>> s = answer_critic_error(ARTICLE_SCENARIO, "open", gamma=1.0, lams=[0.0, 1.0], bias=0.0, noise=0.0,
    ...                         n_draws=200, seed=0)
    >>> round(s.true_advantage, 10), bool(abs(s.bias[0]) < 1e-12 and s.variance[0] < 1e-12), bool(s.variance[1] > 0)
    (-2.3, True, True)
    """
    trace = answer_trace(scenario, token, in_range("gamma", gamma, 0.0, 1.0))
    return critic_error_study(trace, scenario.samples[scenario.index(token)], gamma=gamma, lams=lams, bias=bias,
                              noise=noise, n_draws=n_draws, seed=seed)


@dataclass(frozen=True)
class CriticErrorStudy:
    """How far GAE's estimate of the decision token's advantage lands from the truth, per λ."""

    lams: np.ndarray      # shape [L]
    bias: np.ndarray      # shape [L]: mean estimate − true advantage
    variance: np.ndarray  # shape [L]: variance of the estimate over draws
    mse: np.ndarray       # shape [L]: bias² + variance
    true_advantage: float

    @property
    def bias_squared(self) -> np.ndarray:
        """Shape [L]: the squared bias, the part of the MSE that more draws would not remove."""
        return self.bias**2

    @property
    def best_lam(self) -> float:
        """The λ of the grid with the smallest mean squared error (the first one on a tie)."""
        return float(self.lams[int(np.argmin(self.mse))])


def critic_error_study(trace: AnswerTrace, scores, *, gamma: float, lams, bias: float,
                       noise: float, n_draws: int, seed) -> CriticErrorStudy:
    """GAE with a wrong critic: bias against variance as λ moves from 0 to 1.

    Each draw takes a score R uniformly from ``scores`` (the judge's spread for this answer) and a
    critic V̂ₜ = Vₜ + noise·zₜ (zₜ ~ N(0, 1)) for every state before the end, plus ``bias`` on every
    state after the decision token (the critic misjudges where that token leads); V̂_T = 0.
    The estimate is Â at the decision token; the truth is γ^(T−1−a)·(Q(a) − V(s)).
    Small λ leans on V̂ (inherits its bias); λ near 1 leans on R (inherits its noise).

    Args:
        trace: the answer, from ``answer_trace``.
        scores: shape [M], the judge scores an answer of this kind can get.
        gamma: γ in [0, 1].
        lams: shape [L], the λ values to compare, each in [0, 1].
        bias: the critic's error after the decision token.
        noise: standard deviation of the critic's noise (≥ 0).
        n_draws: number of seeded draws (≥ 2).
        seed: integer seed or numpy Generator.

    Returns:
        CriticErrorStudy(lams, bias, variance, mse, true_advantage).
    """
    if not isinstance(trace, AnswerTrace):
        raise ValueError(f"trace must be an AnswerTrace from answer_trace(), got {type(trace).__name__}")
    g = in_range("gamma", gamma, 0.0, 1.0)
    lam = as_vector("lams", lams)
    if np.any(lam < 0) or np.any(lam > 1):
        raise ValueError(f"lams must lie in [0, 1], got {lam.tolist()}")
    s = as_samples("scores", [scores])[0]
    b = as_real("bias", bias)
    sigma = non_negative("noise", noise)
    m = count("n_draws", n_draws, low=2)
    rng = rng_from("seed", seed)
    values = trace.values
    n, a = values.size - 1, trace.action_index
    true_adv = float(td_errors(trace.rewards, values, g)[a])

    r = np.zeros((m, n))
    r[:, -1] = rng.choice(s, size=m)
    v_hat = values + sigma * rng.standard_normal((m, n + 1))
    v_hat[:, a + 1:] += b
    v_hat[:, -1] = 0.0
    delta = r + g * v_hat[:, 1:] - v_hat[:, :-1]          # [m, T]
    # Â_a = Σ_k (γλ)^k δ_{a+k}, for every λ at once: [L, m]
    powers = np.power.outer(g * lam, np.arange(n - a))    # [L, T−a]
    est = powers @ delta[:, a:].T
    mean = est.mean(axis=1)
    var = est.var(axis=1, ddof=1)
    bias_out = mean - true_adv
    return CriticErrorStudy(lam, bias_out, var, bias_out**2 + var, true_adv)


@dataclass(frozen=True)
class GroupCredit:
    """A group of sampled answers to one prompt, scored against each other (GRPO-style)."""

    actions: np.ndarray     # shape [G]: index of each answer's first (decision) token
    scores: np.ndarray      # shape [G]: each answer's judge score
    advantages: np.ndarray  # shape [G]: each answer's advantage, shared by all its tokens
    members: np.ndarray     # shape [M]: positions of the answers that start with the chosen token
    dead: bool              # every score is equal (or G = 1): every advantage is 0, no signal


def group_credit(scenario: Scenario, token: str, group_size: int, method: str = "grpo",
                 seed=0) -> GroupCredit:
    """Sample a group of answers, score each against the group, find those starting with ``token``.

    aᵢ ~ π, sᵢ drawn uniformly from the scores of token aᵢ, Aᵢ = group_advantages(s)ᵢ.
    The group is "dead" when all sᵢ are equal: Aᵢ = 0 for every answer, nothing is learned.

    Source: Shao et al. (2024), DeepSeekMath (GRPO); Liu et al. (2025) (Dr. GRPO); Ahmadian et al. (2024).

    Args:
        scenario: the running example.
        token: one of scenario.tokens, the decision whose answers to pick out.
        group_size: G ≥ 1, answers sampled for the prompt.
        method: "grpo", "dr_grpo" or "rloo".
        seed: integer seed or numpy Generator.

    Returns:
        GroupCredit(actions [G], scores [G], advantages [G], members [M], dead).
    """
    i = check_scenario(scenario).index(token)
    g = count("group_size", group_size, low=1, high=100_000)
    actions, scores = sample_answers(scenario.pi, scenario.samples, g, rng_from("seed", seed))
    adv = group_advantages(scores, method)
    dead = bool(np.ptp(scores) == 0)
    return GroupCredit(actions, scores, adv, np.flatnonzero(actions == i), dead)
