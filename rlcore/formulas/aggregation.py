"""After PPO: how token losses become one number, one ratio per answer, and which clip keeps a gradient."""

from __future__ import annotations

import numpy as np

from .checks import (
    broadcast,
    choice,
    count,
    finite,
    fit_shapes,
    log_probs,
    positive,
    positive_each,
    show,
    whole_numbers,
)

__all__ = [
    "AGGREGATION_MODES", "GRADIENT_METHODS", "aggregate_loss", "answer_weights", "gradient_weights",
    "informative_groups", "sequence_ratio", "token_weights",
]

AGGREGATION_MODES = ("token-mean", "seq-mean-token-mean", "seq-mean-token-sum", "seq-mean-token-sum-norm")
GRADIENT_METHODS = ("ppo", "cispo")


def _mask_lengths(mask) -> tuple[np.ndarray, np.ndarray]:
    """The mask as 0/1 floats, shape [..., n, T], and each answer's length |o_i| (every one ≥ 1)."""
    m = finite("mask", mask, min_ndim=2)
    if np.asarray(mask).dtype != bool and not ((m == 0) | (m == 1)).all():
        raise ValueError(f"mask must hold only 0 and 1 (or False and True), got {show(m)}")
    lengths = m.sum(axis=-1)
    if lengths.min() == 0:
        empty = np.argwhere(lengths == 0)
        where = int(empty[0, -1]) if lengths.ndim == 1 else tuple(int(i) for i in empty[0])
        raise ValueError(f"mask: answer {where} has no token (every row needs at least one 1)")
    return m, lengths


def _log_probs(name: str, value, shape: tuple[int, ...]) -> np.ndarray:
    lp = log_probs(name, value)
    if lp.shape != shape:
        raise ValueError(f"{name} and mask must have the same shape, got {lp.shape} and {shape}")
    return lp


def token_weights(mask, mode: str, max_len: int | None = None) -> np.ndarray:
    """The weight each token's loss gets when a batch of answers becomes one loss.

    w_{i,t} = m_{i,t} · c_i, with c_i = 1/Σ_j |o_j| (token-mean), 1/(n·|o_i|) (seq-mean-token-mean),
    1/n (seq-mean-token-sum), 1/(n·L_max) (seq-mean-token-sum-norm); |o_i| = Σ_t m_{i,t}.

    Source: verl's loss_agg_mode; GRPO (Shao et al. 2024) uses seq-mean-token-mean, DAPO (Yu et al. 2025,
    arXiv 2503.14476) token-mean, Dr. GRPO (Liu et al. 2025, arXiv 2503.20783) seq-mean-token-sum-norm.

    Args:
        mask: shape [n, T] (or [..., n, T]: one group per leading index), 1 (or True) where answer i has a
            token at position t, else 0; every answer has at least one token.
        mode: one of ``AGGREGATION_MODES``.
        max_len: L_max ≥ the longest answer, used by seq-mean-token-sum-norm only (default T); checked for
            every mode.

    Returns:
        the mask's shape, the weights, 0 where the mask is 0.

    A 1-token answer and a 3-token one: under seq-mean-token-mean the short answer's token weighs 1/2,
    three times each token of the long one; under token-mean all four weigh 1/4.

    >>> token_weights([[1, 0, 0], [1, 1, 1]], "seq-mean-token-mean").round(4).tolist()
    [[0.5, 0.0, 0.0], [0.1667, 0.1667, 0.1667]]
    >>> token_weights([[1, 0, 0], [1, 1, 1]], "token-mean").tolist()
    [[0.25, 0.0, 0.0], [0.25, 0.25, 0.25]]
    """
    m, lengths = _mask_lengths(mask)
    mode = choice("mode", mode, AGGREGATION_MODES)
    top = m.shape[-1] if max_len is None else _longest("max_len", max_len, lengths)
    return m * _answer_weights(lengths, mode, top)[..., None]


def _longest(name: str, value, lengths: np.ndarray) -> int:
    top = count(name, value, low=1)
    if top < lengths.max():
        raise ValueError(f"{name} must be >= the longest answer ({int(lengths.max())} tokens), got {top}")
    return top


def answer_weights(lengths, mode: str, max_len: int | None = None) -> np.ndarray:
    """The weight c_i every token of answer i gets in ``token_weights``, from the answers' lengths alone.

    c_i = 1/Σ_j |o_j| (token-mean), 1/(n·|o_i|) (seq-mean-token-mean), 1/n (seq-mean-token-sum),
    1/(n·L_max) (seq-mean-token-sum-norm).

    Args:
        lengths: shape [n] (or [..., n]: one group per leading index), |o_i|, whole numbers ≥ 1.
        mode: one of ``AGGREGATION_MODES``.
        max_len: L_max ≥ the longest answer (default: the longest answer), or one L_max per group (shape [...],
            each ≥ its group's longest answer); used by seq-mean-token-sum-norm.

    Returns:
        lengths' shape, c_i.

    >>> answer_weights([1, 3], "seq-mean-token-mean").round(4).tolist()
    [0.5, 0.1667]
    >>> answer_weights([[1, 3], [2, 2]], "seq-mean-token-sum-norm", max_len=[4, 8]).tolist()  # 1/(2·4), 1/(2·8)
    [[0.125, 0.125], [0.0625, 0.0625]]
    """
    lens = whole_numbers("lengths", lengths, 1)
    if lens.ndim == 0:
        raise ValueError(f"lengths must have at least one dimension (the answers), got {show(lens)}")
    mode = choice("mode", mode, AGGREGATION_MODES)
    if max_len is None:
        top = int(lens.max())
    elif np.ndim(max_len) == 0:
        top = _longest("max_len", max_len, lens)
    else:
        top = _each_longest("max_len", max_len, lens)[..., None]
    return _answer_weights(lens, mode, top)


def _each_longest(name: str, value, lengths: np.ndarray) -> np.ndarray:
    """One L_max per group of ``lengths`` [..., n]: shape [...], whole numbers, each ≥ its group's longest answer."""
    top = whole_numbers(name, value, 1)
    if top.shape != lengths.shape[:-1]:
        raise ValueError(f"{name} must hold one L_max per group, shape {lengths.shape[:-1]}, got shape {top.shape}")
    longest = lengths.max(axis=-1)
    if np.any(top < longest):
        at = np.argwhere(top < longest)[0]
        raise ValueError(f"{name} must be >= the longest answer ({int(longest[tuple(at)])} tokens), "
                         f"got {int(top[tuple(at)])}")
    return top


def _answer_weights(lengths: np.ndarray, mode: str, top) -> np.ndarray:
    """``answer_weights``' formula for checked lengths of shape [..., n] (``top``: L_max, a number or [..., 1])."""
    n = lengths.shape[-1]
    if mode == "token-mean":
        return np.broadcast_to(1.0 / lengths.sum(axis=-1, keepdims=True), lengths.shape).astype(float)
    if mode == "seq-mean-token-mean":
        return 1.0 / (n * lengths)
    if mode == "seq-mean-token-sum":
        return np.full(lengths.shape, 1.0 / n)
    return np.broadcast_to(1.0 / (n * top), lengths.shape).astype(float)


def aggregate_loss(token_losses, mask, mode: str, max_len: int | None = None) -> float:
    """A batch's loss: the token losses summed with ``token_weights``.

    L = Σ_{i,t} w_{i,t} · ℓ_{i,t}.

    Args:
        token_losses: shape [n, T], ℓ_{i,t}; finite everywhere, padding included (give padding any finite
            value, e.g. 0: its weight is 0).
        mask: shape [n, T], as in ``token_weights``.
        mode: one of ``AGGREGATION_MODES``.
        max_len: as in ``token_weights``.

    Returns:
        L, a float.

    The short answer's loss 4 counts for half; the long answer's three 1s share the other half:

    >>> round(aggregate_loss([[4.0, 0.0, 0.0], [1.0, 1.0, 1.0]], [[1, 0, 0], [1, 1, 1]], "seq-mean-token-mean"), 12)
    2.5
    """
    losses = finite("token_losses", token_losses, min_ndim=2)
    m = finite("mask", mask, min_ndim=2)
    if losses.shape != m.shape:
        raise ValueError(f"token_losses and mask must have the same shape, got {losses.shape} and {m.shape}")
    return float(np.sum(token_weights(m, mode, max_len) * losses))


def sequence_ratio(logp_new, logp_old, mask) -> np.ndarray:
    """GSPO's one ratio per answer: the geometric mean of its token ratios.

    s_i = exp( Σ_t m_{i,t} (log π_θ(o_{i,t}) − log π_old(o_{i,t})) / |o_i| ).

    Source: Zheng et al. (2025), Group Sequence Policy Optimization, arXiv 2507.18071.

    Args:
        logp_new: shape [n, T] (or [..., n, T]), log π_θ of each token (≤ 0, finite everywhere, padding
            included).
        logp_old: the same shape, log π_old of each token.
        mask: the same shape, 1 (or True) where answer i has a token at t; every answer has at least one.

    Returns:
        shape [n] (or [..., n]), s_i.

    Token ratios 2 and 1/2 have the geometric mean 1 (their plain mean would be 1.25):

    >>> sequence_ratio([np.log([0.2, 0.1])], [np.log([0.1, 0.2])], [[1, 1]]).round(12).tolist()
    [1.0]
    """
    m, lengths = _mask_lengths(mask)
    new = _log_probs("logp_new", logp_new, m.shape)
    old = _log_probs("logp_old", logp_old, m.shape)
    with np.errstate(over="ignore"):
        s = _sequence_ratio(new, old, m, lengths)
    if not np.all(np.isfinite(s)):
        raise ValueError("logp_new and logp_old are so far apart that the ratio overflows float64")
    return s


def _sequence_ratio(new: np.ndarray, old: np.ndarray, m: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``sequence_ratio``'s formula for checked arrays (the lab calls it until it calls ``sequence_ratio``)."""
    return np.exp(np.sum(m * (new - old), axis=-1) / lengths)


def gradient_weights(ratio, advantages, method: str, eps_low: float = 0.2, eps_high: float | None = None):
    """The coefficient of ∇log π_θ(o_t) that each token's objective contributes.

    ppo: g = ρ·Â, or 0 where min(ρÂ, clip(ρ, 1−ε_low, 1+ε_high)Â) takes the clipped term
    (Â > 0 and ρ > 1+ε_high, or Â < 0 and ρ < 1−ε_low); cispo: g = clip(ρ, 1−ε_low, 1+ε_high)·Â.

    Source: Schulman et al. (2017), PPO; DAPO's clip-higher ε_high (arXiv 2503.14476); CISPO,
    MiniMax-M1 (arXiv 2506.13585): the weight is clipped and stopped, the gradient kept.

    Args:
        ratio: any shape, e.g. [n, T]: ρ ≥ 0 per token.
        advantages: Â, broadcasting against ratio (per answer: shape [n, 1]).
        method: one of ``GRADIENT_METHODS``.
        eps_low: ε_low > 0 (ε_low ≥ 1 leaves no lower clip, since ρ ≥ 0).
        eps_high: ε_high > 0, or an array of them broadcasting against ratio and advantages (a chart dragged
            over ε_high: shape [G, 1] against ratio [n]); None means ε_low.

    Returns:
        the broadcast shape of ratio, advantages and eps_high, g.

    A token pushed past the clip keeps no gradient under PPO and a clipped one under CISPO:

    >>> gradient_weights([1.5, 0.9], 1.0, "ppo").round(12).tolist()
    [0.0, 0.9]
    >>> gradient_weights([1.5, 0.9], 1.0, "cispo").round(12).tolist()
    [1.2, 0.9]
    >>> gradient_weights([1.25, 0.9], 1.0, "ppo", 0.2, [[0.2], [0.3]]).round(12).tolist()   # ε_high = 0.2, 0.3
    [[0.0, 0.9], [1.25, 0.9]]
    """
    rho, adv, method, low = _weight_inputs(ratio, advantages, method, eps_low)
    high = low if eps_high is None else positive_each("eps_high", eps_high)
    fit_shapes(ratio=rho.shape, eps_high=np.shape(high))
    return _weights(rho, adv, method, low, high)


def _weight_inputs(ratio, advantages, method: str, eps_low: float):
    """``gradient_weights``' checked ρ and Â (broadcast to one shape), method and ε_low."""
    rho = finite("ratio", ratio)
    if rho.min() < 0:
        raise ValueError(f"ratio must be >= 0, got {show(rho)}")
    rho, adv = broadcast("ratio", rho, "advantages", finite("advantages", advantages))
    return rho, adv, choice("method", method, GRADIENT_METHODS), positive("eps_low", eps_low)


def _weights(rho: np.ndarray, adv: np.ndarray, method: str, low: float, high) -> np.ndarray:
    """``gradient_weights``' formula for checked arrays; ``high`` a number or an array broadcasting against ρ."""
    if method == "cispo":
        return np.clip(rho, 1.0 - low, 1.0 + high) * adv
    clipped = ((adv > 0) & (rho > 1.0 + high)) | ((adv < 0) & (rho < 1.0 - low))  # is_clipped's mask
    return np.where(clipped, 0.0, rho * adv)


def informative_groups(scores) -> np.ndarray:
    """Which groups carry a learning signal: their answers' scores are not all equal.

    keep_g = ∃ i, j: R_{g,i} ≠ R_{g,j}. A group with one score for every answer has every group-relative
    advantage 0; DAPO's dynamic sampling draws more groups until none is of that kind.

    Source: Yu et al. (2025), DAPO, arXiv 2503.14476 (keep groups with 0 < #correct < G).

    Args:
        scores: shape [groups, G] (or [..., groups, G]), each answer's score.

    Returns:
        shape [groups] (or [..., groups]), bool.

    >>> informative_groups([[1, 0, 1], [1, 1, 1], [0, 0, 0]]).tolist()
    [True, False, False]
    """
    s = finite("scores", scores, min_ndim=2)
    return np.any(s != s[..., :1], axis=-1)
