"""Credit assignment: which tokens of one answer get the blame or the praise."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .checks import as_vector, choice, finite, fit_shapes, in_range, in_range_each, non_negative, positive, show
from .estimates import expected_value
from .example import Scenario, answer_tokens, check_scenario, split_tokens
from .returns import sparse_rewards

__all__ = [
    "GROUP_METHODS", "GROUP_SEED", "GROUP_SIZE", "AnswerTrace", "answer_trace", "credit_positions", "gae",
    "group_advantages", "td_errors",
]

GROUP_METHODS = ("grpo", "dr_grpo", "rloo")
# The group a page shows by default (TD error and GAE page) and the home page quotes: one source for both.
GROUP_SIZE = 8
GROUP_SEED = 0


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


def gae(rewards, values, gamma, lam, mask=None) -> np.ndarray:
    """Generalised advantage estimate at every token, of one answer or of a padded batch of answers, at one
    (γ, λ) or at many at once (a chart dragged over λ, or over γ and λ).

    δₜ = rₜ + γ Vₜ₊₁ − Vₜ;  Âₜ = δₜ + γλ Âₜ₊₁,  Â_T = 0.  λ = 0 gives δₜ; λ = 1 gives Gₜ − Vₜ.
    With a mask, Âₜ is 0 on padding, and a padded position does not feed the tokens before it.

    Source: Schulman et al. (2016), "High-Dimensional Continuous Control Using GAE", eq. 16.

    Args:
        rewards: shape [T] (or [..., T], one answer per leading index), r₀…r_{T−1}; 0 at padding.
        values: shape [T+1] (or [..., T+1]), V(s₀)…V(s_T).
        gamma: discount γ in [0, 1], or an array of them.
        lam: λ in [0, 1], or an array of them.
        mask: None (every token is real), or rewards' shape, True (or 1) on real tokens. Each answer's real
            tokens must be a prefix of its row, and its values from the end of the answer on must be V(s_T)
            (0 when the answer is finished).

    Returns:
        shape [..., T], ... the leading shapes of rewards, values, gamma and lam broadcast together: Â₀…Â_{T−1}
        (0 at padding). E.g. rewards [T], values [G, 1, T+1], gamma [G, 1], lam [L]: [G, L, T].

    >>> np.round(gae([0.0, 0.0, 2.0], [4.3, 2.0, 2.0, 0.0], 1.0, 1.0), 10).tolist()
    [-2.3, 0.0, 0.0]
    >>> gae([[0.0, 2.0], [1.0, 0.0]], [[1.0, 2.0, 0.0], [0.5, 0.0, 0.0]], 1.0, 1.0, [[1, 1], [1, 0]]).tolist()
    [[1.0, 0.0], [0.5, 0.0]]
    >>> np.round(gae([0.0, 0.0, 2.0], [4.3, 2.0, 3.0, 0.0], 1.0, [0.0, 1.0]), 10).tolist()   # λ = 0 and λ = 1
    [[-2.3, 1.0, -1.0], [-2.3, 0.0, -1.0]]
    """
    r = finite("rewards", rewards, min_ndim=1)
    v = finite("values", values, min_ndim=1)
    if v.shape[-1] != r.shape[-1] + 1:
        raise ValueError(f"values must have the shape of rewards with one more entry on the last axis "
                         f"({(*r.shape[:-1], r.shape[-1] + 1)}), got {v.shape}")
    g = in_range_each("gamma", gamma, 0.0, 1.0)
    decay = g * in_range_each("lam", lam, 0.0, 1.0)
    lead = fit_shapes(rewards=r.shape[:-1], values=v.shape[:-1], gamma=np.shape(g), lam=np.shape(decay))
    if mask is not None:
        mask = finite("mask", mask)
        if mask.shape != r.shape or not np.all((mask == 0) | (mask == 1)):
            raise ValueError(f"mask must hold 0 and 1 (or False and True) in the shape of rewards {r.shape}, "
                             f"got {show(mask)}")
        mask = mask.astype(bool)
    if np.ndim(g) or np.ndim(decay) or r.shape[:-1] != v.shape[:-1]:  # a grid of (γ, λ): one row per point
        r = np.broadcast_to(r, (*lead, r.shape[-1]))
        v = np.broadcast_to(v, (*lead, v.shape[-1]))
        g, decay = np.asarray(g)[..., None], np.broadcast_to(decay, lead)
    return _gae(r, v, g, decay, mask)


def _gae(r: np.ndarray, v: np.ndarray, g: float, decay: float, mask: np.ndarray | None) -> np.ndarray:
    delta = r + g * v[..., 1:] - v[..., :-1]
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
        scores: shape [N], the judge's score of each answer in the group; or [..., N], one group per row
            (many groups at once, each against its own mean).
        method: one of ``GROUP_METHODS``.
        eps: ε > 0 added to the std.

    Returns:
        scores' shape, one advantage per answer, shared by all its tokens.

    >>> group_advantages([1.0, 3.0], "dr_grpo").tolist()
    [-1.0, 1.0]
    """
    s = finite("scores", scores, min_ndim=1)
    return _group_advantages(s, choice("method", method, GROUP_METHODS), positive("eps", eps))


def _group_advantages(s: np.ndarray, method: str, eps: float) -> np.ndarray:
    """``group_advantages``' formulas for checked scores [..., N]."""
    n = s.shape[-1]
    if n < 2:
        return np.zeros(s.shape)
    centred = s - s.mean(axis=-1, keepdims=True)
    if method == "dr_grpo":
        out = centred
    elif method == "rloo":
        out = centred * n / (n - 1)  # sᵢ − (Σs − sᵢ)/(N−1) = N/(N−1)·(sᵢ − mean)
    else:
        out = centred / (s.std(axis=-1, ddof=1, keepdims=True) + eps)
    return np.where(np.ptp(s, axis=-1, keepdims=True) == 0, 0.0, out)  # a group that all agrees: no signal


@dataclass(frozen=True)
class AnswerTrace:
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


