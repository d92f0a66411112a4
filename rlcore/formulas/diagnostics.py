"""Diagnostics of a training run: KL gradients, off-policy weights, entropy and pass@k."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .checks import as_probs, broadcast, choice, count, finite, log_probs, positive, prob_rows, show, whole_numbers

__all__ = [
    "TRUNCATION_MODES", "KLGradients", "entropy", "entropy_change", "kl_gradients", "pass_at_k", "pass_at_k_estimate",
    "truncated_is_weights",
]

TRUNCATION_MODES = ("truncate", "mask")
MAX_SAMPLES = 1_000_000  # pass_at_k_estimate's largest n


@dataclass(frozen=True)
class KLGradients:
    """Expected gradients of a KL penalty with respect to the logits z, tokens sampled from π; each shape [K]."""

    reverse: np.ndarray    # ∇ KL(π‖π_ref), exact
    forward: np.ndarray    # ∇ KL(π_ref‖π), exact
    k1_loss: np.ndarray    # E[∇ k1(a)]: k1 in the loss, differentiated through log π(a)
    k2_loss: np.ndarray    # E[∇ k2(a)]
    k3_loss: np.ndarray    # E[∇ k3(a)] (GRPO's choice)
    k1_reward: np.ndarray  # E[k1(a) ∇log π(a)]: k1 as a per-sample penalty in the reward
    k2_reward: np.ndarray  # E[k2(a) ∇log π(a)]
    k3_reward: np.ndarray  # E[k3(a) ∇log π(a)]


def _score(pi: np.ndarray, weighted: np.ndarray) -> np.ndarray:
    """E_{a~π}[f(a)(e_a − π)] = π⊙f − π·E[f], from weighted = π⊙f (so f itself may be huge where π is tiny)."""
    return weighted - pi * weighted.sum()


def kl_gradients(pi, pi_ref) -> KLGradients:
    """What each way of penalising KL asks of the logits, on average over tokens sampled from π.

    With ℓ = log π − log π_ref, r = π_ref/π, k1 = ℓ, k2 = ½ℓ², k3 = r − 1 − log r and ∇_z log π(a) = e_a − π:
    reverse = π⊙(ℓ − KL(π‖π_ref)); forward = π − π_ref; kᵢ_loss = E[∂kᵢ/∂log π(a) · (e_a − π)] with
    ∂k1 = 1, ∂k2 = ℓ, ∂k3 = 1 − r; kᵢ_reward = E[kᵢ(a)(e_a − π)]. So k1_loss = 0, k2_loss = k1_reward = reverse,
    k3_loss = forward; k2_reward and k3_reward are neither. Each is the gradient of the penalty (descent
    subtracts it).

    Source: Tang & Munos (2025), "On a few pitfalls in KL divergence gradient estimation for RL",
    arXiv 2506.09477; Schulman (2020), "Approximating KL Divergence" for k1, k2, k3.

    Args:
        pi: shape [K], π, the policy that samples.
        pi_ref: shape [K], π_ref, > 0 wherever π > 0 (where π > 0 = π_ref the reverse KL is infinite). Where
            π_ref > 0 = π (π underflowed to 0 on the way) the forward KL is infinite, but every gradient has
            a finite limit as π → 0 (π·ℓ → 0), and that limit is what is returned. A token that neither can
            write gets 0 in every gradient.

    Returns:
        KLGradients(reverse, forward, k1_loss, k2_loss, k3_loss, k1_reward, k2_reward, k3_reward), each [K].

    >>> g = kl_gradients([0.5, 0.5], [0.8, 0.2])
    >>> g.forward.round(12).tolist(), g.k3_loss.round(12).tolist(), g.k1_loss.round(12).tolist()
    ([-0.3, 0.3], [-0.3, 0.3], [0.0, 0.0])
    """
    p = as_probs("pi", pi)
    ref = as_probs("pi_ref", pi_ref)
    if p.size != ref.size:
        raise ValueError(f"pi and pi_ref must have the same length, got {p.size} and {ref.size}")
    if np.any((p > 0) & (ref == 0)):
        raise ValueError(f"pi_ref must be > 0 wherever pi > 0 (else KL(π‖π_ref) is infinite), got {show(ref)}")
    support = p > 0
    ell = np.zeros_like(p)
    ell[support] = np.log(p[support]) - np.log(ref[support])
    p_k1 = p * ell
    p_k2 = 0.5 * p * ell**2
    p_k3 = (ref - p) + p_k1  # π·(r − 1 − log r) = π_ref − π + π·ℓ: no overflow where π is tiny
    return KLGradients(
        reverse=p * (ell - p_k1.sum()),
        forward=p - ref,
        k1_loss=_score(p, p),
        k2_loss=_score(p, p_k1),
        k3_loss=_score(p, p - ref),
        k1_reward=_score(p, p_k1),
        k2_reward=_score(p, p_k2),
        k3_reward=_score(p, p_k3),
    )


def truncated_is_weights(logp_train, logp_rollout, cap: float, mode: str = "truncate") -> np.ndarray:
    """Importance weights that correct for a sampler that is not the trainer, with a cap on their size.

    w = π_train/π_rollout = exp(log π_train − log π_rollout); truncate: min(w, C); mask: w if w ≤ C, else 0.

    Source: Yao et al. (2025), "Your Efficient RL Framework Secretly Brings You Off-Policy RL Training",
    https://fengyao.notion.site/off-policy-rl (truncated IS, TIS); masked IS (MIS) as in verl's rollout
    correction.

    Args:
        logp_train: any shape, log π_train of the sampled tokens (≤ 0).
        logp_rollout: same shape, log π_rollout, from the inference engine that sampled them (≤ 0).
        cap: C > 0; or an array of caps broadcasting against the log-probabilities (many caps at once, e.g.
            shape [C, 1] for [N] tokens gives [C, N]).
        mode: one of ``TRUNCATION_MODES``.

    Returns:
        the broadcast shape of the log-probabilities and cap, the weights (each in [0, C]).

    >>> truncated_is_weights(np.log([0.3, 0.2, 0.1]), np.log([0.1, 0.2, 0.3]), 2.0).round(12).tolist()
    [2.0, 1.0, 0.333333333333]
    >>> truncated_is_weights(np.log([0.3, 0.2]), np.log([0.1, 0.2]), 2.0, "mask").round(12).tolist()
    [0.0, 1.0]
    """
    train = log_probs("logp_train", logp_train)
    rollout = log_probs("logp_rollout", logp_rollout)
    if train.shape != rollout.shape:
        raise ValueError(f"logp_train and logp_rollout must have the same shape, got {train.shape} and "
                         f"{rollout.shape}")
    c = finite("cap", cap) if isinstance(cap, (list, tuple, np.ndarray)) else positive("cap", cap)
    if np.any(c <= 0):
        raise ValueError(f"cap must be > 0, got {show(c)}")
    broadcast("logp_train", train, "cap", c)
    mode = choice("mode", mode, TRUNCATION_MODES)
    with np.errstate(over="ignore"):  # w = +inf is above any finite cap: truncated or masked below
        w = np.exp(train - rollout)
    return np.minimum(w, c) if mode == "truncate" else np.where(w <= c, w, 0.0)


def _log_or_zero(p: np.ndarray) -> np.ndarray:
    """log p where p > 0, else 0 (its weight p is 0 there: 0·log 0 = 0)."""
    return np.log(np.where(p > 0, p, 1.0))


def entropy(pi):
    """The policy's entropy, in nats.

    H(π) = −Σₐ πₐ log πₐ, with 0·log 0 = 0.

    Args:
        pi: shape [..., K], one probability vector per row of the last axis.

    Returns:
        shape [...], H per row (a float for a single vector).

    >>> round(entropy([0.5, 0.5]), 6), entropy([1.0, 0.0])
    (0.693147, 0.0)
    """
    p = prob_rows("pi", pi)
    h = np.maximum(-np.sum(p * _log_or_zero(p), axis=-1), 0.0)
    return float(h) if h.ndim == 0 else h


def entropy_change(pi, logit_change):
    """First-order change of the entropy when the logits move by Δz.

    ΔH ≈ −Cov_{a~π}(log π(a), Δz_a) = −Σₐ πₐ (log πₐ − E[log π])(Δzₐ − E[Δz]).

    Source: Cui et al. (2025), "The Entropy Mechanism of Reinforcement Learning for Reasoning Language
    Models", arXiv 2505.22617.

    Args:
        pi: shape [..., K], π (probability vectors along the last axis).
        logit_change: same shape, Δz.

    Returns:
        shape [...], ΔH per row (a float for a single vector).

    Raising the likelier token lowers the entropy; raising the rarer one raises it:

    >>> round(entropy_change([0.8, 0.2], [1.0, 0.0]), 6), round(entropy_change([0.8, 0.2], [0.0, 1.0]), 6)
    (-0.221807, 0.221807)
    """
    p = prob_rows("pi", pi)
    dz = finite("logit_change", logit_change)
    if dz.shape != p.shape:
        raise ValueError(f"pi and logit_change must have the same shape, got {p.shape} and {dz.shape}")
    lp = _log_or_zero(p)
    lp_c = lp - np.sum(p * lp, axis=-1, keepdims=True)
    dz_c = dz - np.sum(p * dz, axis=-1, keepdims=True)
    out = -np.sum(p * lp_c * dz_c, axis=-1)
    return float(out) if out.ndim == 0 else out


def pass_at_k(p, k):
    """Chance that at least one of k independent answers is right.

    pass@k = 1 − (1 − p)^k.

    Source: Chen et al. (2021), Codex, arXiv 2107.03374, section 2.1.

    Args:
        p: any shape, the chance that one answer is right, in [0, 1].
        k: whole numbers ≥ 1, broadcasting against p.

    Returns:
        the broadcast shape of p and k (a float when both are numbers).

    >>> pass_at_k([0.2, 0.5], 2).round(12).tolist()
    [0.36, 0.75]
    """
    prob = finite("p", p)
    if np.any(prob < 0) or np.any(prob > 1):
        raise ValueError(f"p must lie in [0, 1], got {show(prob)}")
    ks = whole_numbers("k", k, 1)
    prob, ks = broadcast("p", prob, "k", ks)
    with np.errstate(divide="ignore", over="ignore"):  # p = 1: log1p(−1) = −inf, and (1 − 1)^k = 0
        # −expm1(k·log1p(−p)) keeps its precision for tiny p, where 1 − p would round to 1
        out = np.where(prob >= 1.0, 1.0, -np.expm1(ks * np.log1p(-prob)))
    return float(out) if out.ndim == 0 else out


def pass_at_k_estimate(n: int, c: int, k: int) -> float:
    """The unbiased estimate of pass@k from n sampled answers, c of them right.

    pass@k ≈ 1 − C(n−c, k)/C(n, k) = 1 − Π_{i=n−c+1}^{n} (1 − k/i)  (1 when n − c < k).

    Source: Chen et al. (2021), Codex, arXiv 2107.03374, eq. 1 and its numerically stable form (Figure 3).

    Args:
        n: number of answers sampled (1 to 1,000,000).
        c: how many of them are right (0 to n).
        k: the k of pass@k (1 to n).

    Returns:
        the estimate, a float in [0, 1].

    >>> round(pass_at_k_estimate(4, 1, 2), 12)  # 1 − C(3,2)/C(4,2) = 1 − 3/6
    0.5
    """
    size = count("n", n, low=1, high=MAX_SAMPLES)
    right = count("c", c, low=0, high=size)
    draws = count("k", k, low=1, high=size)
    if size - right < draws:
        return 1.0
    i = np.arange(size - right + 1, size + 1, dtype=np.float64)
    return float(1.0 - np.prod(1.0 - draws / i))
