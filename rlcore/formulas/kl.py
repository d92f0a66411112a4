"""The KL penalty: how far the policy drifts from the reference, and what that costs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .checks import (
    as_probs,
    as_vector,
    count,
    finite,
    fit_shapes,
    log_probs,
    non_negative,
    non_negative_each,
    positive,
    same_shape,
)
from .policy import softmax

__all__ = [
    "KLEstimates", "RegularizedObjective", "ShareCurve", "best_of_n_probs", "kl_divergence", "kl_estimators",
    "kl_optimal_policy", "kl_regularized_objective", "regularized_optimum", "share_curve",
]


def kl_divergence(p, q) -> float:
    """Exact KL divergence between two categorical distributions, in nats.

    KL(p‖q) = Σₐ pₐ log(pₐ / qₐ), with 0·log 0 = 0; +inf where pₐ > 0 = qₐ.

    >>> round(kl_divergence([0.1, 0.9], [0.95, 0.05]), 4)
    2.3762
    """
    pp = as_probs("p", p)
    qq = as_probs("q", q)
    if pp.size != qq.size:
        raise ValueError(f"p and q must have the same length, got {pp.size} and {qq.size}")
    support = pp > 0
    if np.any(qq[support] == 0):
        return float("inf")
    return float(max(np.sum(pp[support] * (np.log(pp[support]) - np.log(qq[support]))), 0.0))


@dataclass(frozen=True)
class KLEstimates:
    """Schulman's per-sample estimators of KL(π‖π_ref), for tokens sampled from π."""

    k1: np.ndarray
    k2: np.ndarray
    k3: np.ndarray


def kl_estimators(logp, logp_ref) -> KLEstimates:
    """Per-sample KL estimators on tokens sampled from π.

    k1 = log π − log π_ref (unbiased, high variance, can be negative);
    k2 = ½ (log π − log π_ref)² (biased, low variance);
    k3 = (r − 1) − log r with r = π_ref/π (unbiased, low variance, never negative).

    Source: J. Schulman, "Approximating KL Divergence" (2020), http://joschu.net/blog/kl-approx.html

    Args:
        logp: shape [N] (or any shape), log π(aₙ) of the sampled tokens.
        logp_ref: the same shape, log π_ref(aₙ).

    Returns:
        KLEstimates(k1, k2, k3), each of logp's shape.

    A token twice as likely under π as under π_ref: k1 = ln 2, k2 = ½(ln 2)², k3 = ½ − 1 + ln 2.

    >>> e = kl_estimators(np.log([0.5]), np.log([0.25]))
    >>> round(float(e.k1[0]), 4), round(float(e.k2[0]), 4), round(float(e.k3[0]), 4)
    (0.6931, 0.2402, 0.1931)
    """
    lp = log_probs("logp", logp, min_ndim=1)
    lr = log_probs("logp_ref", logp_ref, min_ndim=1)
    same_shape("logp", lp, "logp_ref", lr)
    return _kl_estimates(lp, lr)


def _kl_estimates(lp: np.ndarray, lr: np.ndarray) -> KLEstimates:
    """``kl_estimators``' formulas for checked arrays (the lab calls it until it calls ``kl_estimators``)."""
    log_r = lr - lp
    k1 = -log_r
    return KLEstimates(k1, 0.5 * k1**2, np.expm1(log_r) - log_r)


@dataclass(frozen=True)
class RegularizedObjective:
    expected_reward: float
    kl: float
    objective: float


def kl_regularized_objective(p, rewards, p_ref, beta: float) -> RegularizedObjective:
    """Expected judge score minus β times the KL to the reference.

    J(π) = Σₐ πₐ rₐ − β · KL(π‖π_ref).
    Article (flattery branch, β = 1): 5% → 90% flattery gives 9.03 → 9.54, KL 2.38, J 9.03 → 7.16.

    Args:
        p: shape [K], the policy π.
        rewards: shape [K], the judge's score of each choice.
        p_ref: shape [K], the reference policy.
        beta: β ≥ 0.

    Returns:
        RegularizedObjective(expected_reward, kl, objective).
    """
    pp = as_probs("p", p)
    r = as_vector("rewards", rewards)
    if r.size != pp.size:
        raise ValueError(f"p and rewards must have the same length, got {pp.size} and {r.size}")
    ref = as_probs("p_ref", p_ref)
    if ref.size != pp.size:
        raise ValueError(f"p and p_ref must have the same length, got {pp.size} and {ref.size}")
    b = non_negative("beta", beta)
    kl = kl_divergence(pp, ref)
    reward = float(pp @ r)
    objective = reward - b * kl if b > 0 else reward
    return RegularizedObjective(reward, kl, objective)


def kl_optimal_policy(p_ref, rewards, beta: float) -> np.ndarray:
    """The policy that maximises the KL-regularised objective.

    π* ∝ π_ref · exp(r/β).

    Source: e.g. Rafailov et al. (2023), DPO, eq. 4.

    Args:
        p_ref: shape [K], the reference policy.
        rewards: shape [K].
        beta: β > 0.

    Returns:
        shape [K].
    """
    ref = as_probs("p_ref", p_ref)
    r = as_vector("rewards", rewards)
    if r.size != ref.size:
        raise ValueError(f"p_ref and rewards must have the same length, got {ref.size} and {r.size}")
    b = positive("beta", beta)
    support = ref > 0
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # unsupported entries are dropped below
        # shifted by the best reward π_ref can write, before dividing: a tiny β cannot overflow
        logits = np.log(ref) + (r - r[support].max()) / b
    out = np.zeros_like(ref)
    # a logit of −inf (a tiny β) is exp(·) = 0 either way; as the lowest float it is finite, as softmax asks
    out[support] = softmax(np.maximum(logits[support], -np.finfo(np.float64).max))
    return out


def best_of_n_probs(p_ref, rewards, n: int) -> np.ndarray:
    """The policy of best-of-n: draw n answers from π_ref and keep the one the reward ranks highest.

    With F(r) the mass π_ref puts on answers scoring at most r, the answer kept scores r with probability
    F(r)ⁿ − F(r⁻)ⁿ; among answers tied at r one of the tied draws is kept, so each gets that share in
    proportion to π_ref. Its KL from π_ref is at most log n − (n − 1)/n, the value for answers all
    different and each rare; fewer distinct scores, or a top answer π_ref writes often, make it smaller
    (Beirami et al., "Theoretical guarantees on the best-of-n alignment policy", 2024).

    Args:
        p_ref: shape [K], the reference policy.
        rewards: shape [K], finite.
        n: draws, 1 to 10⁹.

    Returns:
        shape [K], a probability vector (π_ref itself for n = 1).

    >>> best_of_n_probs([0.5, 0.5], [0.0, 1.0], 2).tolist()  # the worse answer only when both draws are it
    [0.25, 0.75]
    """
    ref = as_probs("p_ref", p_ref)
    r = as_vector("rewards", rewards)
    if r.size != ref.size:
        raise ValueError(f"p_ref and rewards must have the same length, got {ref.size} and {r.size}")
    k = count("n", n, low=1, high=10**9)
    levels, level_of = np.unique(r, return_inverse=True)
    mass = np.bincount(level_of, ref, levels.size)
    upto = np.minimum(np.cumsum(mass), 1.0)
    below = np.concatenate([[0.0], upto[:-1]])
    top = upto**k - below**k  # P(the best of the n draws scores this level)
    share = np.divide(ref, mass[level_of], out=np.zeros_like(ref), where=mass[level_of] > 0)
    out = top[level_of] * share
    return out / out.sum()


@dataclass(frozen=True)
class ShareCurve:
    """The KL-regularised objective along a two-way choice, for a range of shares."""

    shares: np.ndarray           # shape [M] (or shares' and beta's broadcast shape): the second choice's probability
    expected_reward: np.ndarray  # the same shape
    kl: np.ndarray               # the same shape
    objective: np.ndarray        # the same shape


def share_curve(shares, rewards, p_ref, beta) -> ShareCurve:
    """``kl_regularized_objective`` for π = (1 − s, s), over many shares s at once, at one β or at many.

    Args:
        shares: shape [M] (or any shape), s in [0, 1], the probability of the second choice (e.g. flattery).
        rewards: shape [2], the judge's score of the two choices.
        p_ref: shape [2], the reference policy, both entries > 0.
        beta: β ≥ 0, or an array of them broadcasting against shares (a chart dragged over β: shares [G, M]
            and beta [G, 1]).

    Returns:
        ShareCurve(shares, expected_reward, kl, objective), each of shares' and beta's broadcast shape.

    All on the first choice, then all on the second: KL(π‖π_ref) = ln(1/0.95) and ln(1/0.05).

    >>> c = share_curve([0.0, 1.0], [9.0, 9.6], [0.95, 0.05], 1.0)
    >>> c.kl.round(4).tolist(), c.objective.round(4).tolist()
    ([0.0513, 2.9957], [8.9487, 6.6043])
    >>> share_curve([0.0, 1.0], [9.0, 9.6], [0.95, 0.05], [[0.0], [1.0]]).objective.round(4).tolist()   # β = 0, 1
    [[9.0, 9.6], [8.9487, 6.6043]]
    """
    s = finite("shares", shares, min_ndim=1)
    b = non_negative_each("beta", beta)
    shape = fit_shapes(shares=s.shape, beta=np.shape(b))
    reward, kl = _share_terms(s, rewards, p_ref)
    if shape == s.shape:  # one β, or one per share
        return ShareCurve(s, reward, kl, reward - b * kl)
    s, reward, kl = (np.broadcast_to(x, shape) for x in (s, reward, kl))
    return ShareCurve(s, reward, kl, reward - b * kl)


def _share_terms(s: np.ndarray, rewards, p_ref) -> tuple[np.ndarray, np.ndarray]:
    """The expected reward and KL(π‖π_ref) of π = (1 − s, s) for shares ``s`` of any shape (checked here)."""
    if np.any(s < 0) or np.any(s > 1):
        raise ValueError(f"shares must lie in [0, 1], got {s.ravel().tolist()[:8]}")
    r = as_vector("rewards", rewards)
    ref = as_probs("p_ref", p_ref)
    if r.size != 2 or ref.size != 2:
        raise ValueError(f"rewards and p_ref must have 2 entries, got {r.size} and {ref.size}")
    if np.any(ref <= 0):
        raise ValueError(f"p_ref must be > 0 for both choices, got {ref.tolist()}")
    pi = np.stack([1.0 - s, s], axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(pi > 0, pi * (np.log(np.where(pi > 0, pi, 1.0)) - np.log(ref)), 0.0)
    return pi @ r, np.maximum(terms.sum(axis=-1), 0.0)


def regularized_optimum(p_ref, rewards, beta: float) -> np.ndarray:
    """The best policy for the KL-regularised objective at any β ≥ 0, including β = 0.

    π* ∝ π_ref · exp(r/β) for β > 0 (``kl_optimal_policy``); as β → 0 it puts all its mass on the
    highest-scored choices that π_ref can write, shared in proportion to π_ref.

    Args:
        p_ref: shape [K], the reference policy.
        rewards: shape [K].
        beta: β ≥ 0.

    Returns:
        shape [K].

    >>> regularized_optimum([0.95, 0.05], [9.0, 9.6], 0.0).tolist()
    [0.0, 1.0]
    """
    ref = as_probs("p_ref", p_ref)
    r = as_vector("rewards", rewards)
    if r.size != ref.size:
        raise ValueError(f"p_ref and rewards must have the same length, got {ref.size} and {r.size}")
    b = non_negative("beta", beta)
    if b > 0:
        return kl_optimal_policy(ref, r, b)
    support = ref > 0
    top = support & (r == r[support].max())
    out = np.where(top, ref, 0.0)
    return out / out.sum()


