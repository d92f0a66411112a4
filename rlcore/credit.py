"""Credit assignment: which tokens of one answer get the blame or the praise."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._checks import as_real, as_samples, as_vector, count, in_range, non_negative, positive, rng_from
from .estimates import expected_value, sample_answers
from .example import Scenario, answer_tokens, check_scenario, split_tokens
from .returns import sparse_rewards

GROUP_METHODS = ("grpo", "dr_grpo", "rloo")


def _rewards_values(rewards, values):
    r = as_vector("rewards", rewards)
    v = as_vector("values", values)
    if v.size != r.size + 1:
        raise ValueError(f"values must have len(rewards) + 1 = {r.size + 1} entries, got {v.size}")
    return r, v


def td_errors(rewards, values, gamma: float) -> np.ndarray:
    """Temporal-difference error at every token.

    δₜ = rₜ + γ Vₜ₊₁ − Vₜ.

    Source: Sutton (1988), temporal-difference learning.

    Args:
        rewards: shape [T], r₀…r_{T−1}.
        values: shape [T+1], V(s₀)…V(s_T); V(s_T) is the value after the last token (0 when done).
        gamma: discount γ in [0, 1].

    Returns:
        shape [T], δ₀…δ_{T−1}.

    >>> np.round(td_errors([0.0, 0.0, 2.0], [4.3, 2.0, 2.0, 0.0], 1.0), 10).tolist()
    [-2.3, 0.0, 0.0]
    """
    r, v = _rewards_values(rewards, values)
    g = in_range("gamma", gamma, 0.0, 1.0)
    return r + g * v[1:] - v[:-1]


def gae(rewards, values, gamma: float, lam: float) -> np.ndarray:
    """Generalised advantage estimate at every token.

    Âₜ = δₜ + γλ Âₜ₊₁,  Â_T = 0.  λ = 0 gives δₜ; λ = 1 gives Gₜ − Vₜ.

    Source: Schulman et al. (2016), "High-Dimensional Continuous Control Using GAE", eq. 16.

    Args:
        rewards: shape [T], r₀…r_{T−1}.
        values: shape [T+1], V(s₀)…V(s_T).
        gamma: discount γ in [0, 1].
        lam: λ in [0, 1].

    Returns:
        shape [T], Â₀…Â_{T−1}.

    >>> np.round(gae([0.0, 0.0, 2.0], [4.3, 2.0, 2.0, 0.0], 1.0, 1.0), 10).tolist()
    [-2.3, 0.0, 0.0]
    """
    r, v = _rewards_values(rewards, values)
    return gae_batch(r, v, in_range("gamma", gamma, 0.0, 1.0), in_range("lam", lam, 0.0, 1.0))


def gae_batch(rewards: np.ndarray, values: np.ndarray, gamma: float, lam: float,
              mask: np.ndarray | None = None) -> np.ndarray:
    """``gae`` for a batch of answers at once, padded to a common length; no checks (its callers made the arrays).

    δₜ = rₜ + γ Vₜ₊₁ − Vₜ;  Âₜ = δₜ + γλ Âₜ₊₁ on a real token, 0 on padding (a padded position
    does not feed the tokens before it). Each answer's real tokens must be a prefix of its row, and its
    values from the end of the answer on must be V(s_T) (0 when the answer is finished).

    Args:
        rewards: shape [..., T], 0 at padding.
        values: shape [..., T+1], V(s₀)…V(s_T).
        gamma: discount γ in [0, 1].
        lam: λ in [0, 1].
        mask: shape [..., T] bool, True on real tokens; None: every token is real.

    Returns:
        shape [..., T], Â (0 at padding).

    >>> gae_batch(np.array([[0.0, 2.0], [1.0, 0.0]]), np.array([[1.0, 2.0, 0.0], [0.5, 0.0, 0.0]]), 1.0, 1.0,
    ...           np.array([[True, True], [True, False]])).tolist()
    [[1.0, 0.0], [0.5, 0.0]]
    """
    delta = rewards + gamma * values[..., 1:] - values[..., :-1]
    decay = gamma * lam
    adv = np.empty_like(delta)
    last_gae = np.zeros(delta.shape[:-1])
    for t in range(delta.shape[-1] - 1, -1, -1):
        last_gae = delta[..., t] + decay * last_gae
        if mask is not None:
            last_gae = np.where(mask[..., t], last_gae, 0.0)
        adv[..., t] = last_gae
    return adv


GROUP_EPS = 1e-6
"""GRPO's ε under the group's standard deviation (keeps a near-constant group finite)."""


def group_advantages(scores, method: str = "grpo", eps: float = GROUP_EPS) -> np.ndarray:
    """Advantages of a group of answers to one prompt, each against the others.

    grpo:    Aᵢ = (sᵢ − mean s) / (std s + ε), std with N − 1 (Shao et al. 2024, DeepSeekMath).
    dr_grpo: Aᵢ = sᵢ − mean s (Liu et al. 2025, "Understanding R1-Zero-Like Training").
    rloo:    Aᵢ = sᵢ − mean of the other N − 1 scores (Ahmadian et al. 2024).
    A group of one, or one whose scores are all equal, carries no signal: all zeros.

    Args:
        scores: shape [N], the judge's score of each answer in the group.
        method: "grpo", "dr_grpo" or "rloo".
        eps: ε > 0 added to the std.

    Returns:
        shape [N], one advantage per answer, shared by all its tokens.

    >>> group_advantages([1.0, 3.0], "dr_grpo").tolist()
    [-1.0, 1.0]
    """
    s = as_vector("scores", scores)
    if method not in GROUP_METHODS:
        raise ValueError(f"method must be one of {list(GROUP_METHODS)}, got {method!r}")
    return _group_advantages(s, method, positive("eps", eps))


def _group_advantages(s: np.ndarray, method: str, eps: float) -> np.ndarray:
    """``group_advantages``'s formulas without its checks, for loops whose inputs are already valid."""
    n = s.size
    if n < 2 or np.ptp(s) == 0:
        return np.zeros(n)
    centred = s - s.mean()
    if method == "dr_grpo":
        return centred
    if method == "rloo":
        return centred * n / (n - 1)  # sᵢ − (Σs − sᵢ)/(N−1) = N/(N−1)·(sᵢ − mean)
    return centred / (s.std(ddof=1) + eps)


class AnswerTrace(NamedTuple):
    """One sampled answer laid out token by token."""

    tokens: tuple[str, ...]  # T tokens: prefix, first token, continuation
    rewards: np.ndarray      # shape [T], sparse: the score on the last token
    values: np.ndarray       # shape [T+1], the exact V before each token, then 0
    action_index: int        # position of the first (decision) token
    score: float             # the judge's score, Q of the decision token


def answer_trace(scenario: Scenario, token: str, gamma: float = 1.0) -> AnswerTrace:
    """The answer that starts with ``token``, with exact values under the scenario.

    The score of the answer is Q(token). Before the decision V = Σπ·Q; after it, Q(token);
    discounted by γ for every token still to come: Vₜ = γ^(T−1−t) · E[score | sₜ], V_T = 0.

    Args:
        scenario: the running example.
        token: one of scenario.tokens.
        gamma: discount γ in [0, 1].

    Returns:
        AnswerTrace(tokens, rewards [T], values [T+1], action_index, score).
    """
    g = in_range("gamma", gamma, 0.0, 1.0)
    tokens = answer_tokens(check_scenario(scenario), token)
    i = scenario.index(token)
    q = scenario.q
    v = expected_value(scenario.pi, q)
    n = len(tokens)
    a = len(split_tokens(scenario.prefix))
    expected = np.where(np.arange(n) <= a, v, q[i])
    values = np.append(expected * np.power(g, n - 1 - np.arange(n)), 0.0)
    return AnswerTrace(tokens, sparse_rewards(n, q[i]), values, a, float(q[i]))


class CriticErrorStudy(NamedTuple):
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


def credit_positions(advantages, tol: float = 1e-9) -> np.ndarray:
    """Positions of an answer that get blame or credit: a non-zero advantage.

    {t : |Âₜ| > tol}.

    Args:
        advantages: shape [T], Â₀…Â_{T−1} (e.g. from ``gae``).
        tol: tolerance ≥ 0 under which an advantage counts as zero (rounding noise).

    Returns:
        shape [M], the positions in increasing order (int).

    >>> credit_positions([0.0, 0.0, -2.3, 1e-12]).tolist()
    [2]
    """
    adv = as_vector("advantages", advantages)
    t = non_negative("tol", tol)
    return np.flatnonzero(np.abs(adv) > t)


class GroupCredit(NamedTuple):
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
