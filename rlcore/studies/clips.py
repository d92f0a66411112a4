"""After PPO: one batch, one moved policy, and which answers each clip still lets the update push."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.aggregation import gradient_weights, sequence_ratio
from ..formulas.checks import (
    as_probs,
    as_samples,
    as_vector,
    choice,
    eps_pair,
    finite,
    in_range,
    non_negative,
    positive,
    positive_each,
    show,
)
from ..formulas.credit import GROUP_METHODS, group_advantages
from ..formulas.example import Scenario, check_scenario
from ..formulas.policy import logits_from_probs, policy_gradient_step, softmax
from ..formulas.ppo import importance_ratio
from .length import answer_lengths

__all__ = [
    "CLIP_METHODS", "GSPO_EPS", "LIKELY", "REACH_GRID", "CispoAt", "ClipBatch", "ClipStudy", "RareReach", "Reach",
    "cispo_at", "clip_batch", "clip_study", "rare_reach", "reach",
]

CLIP_METHODS = ("ppo", "clip-higher", "cispo", "gspo")
"""PPO's symmetric clip, DAPO's clip-higher, CISPO's clipped weight, GSPO's clipped answer ratio."""

GSPO_EPS = (3e-4, 4e-4)
"""GSPO's clip range (ε_low, ε_high) for its answer-level ratio (Zheng et al. 2025, arXiv 2507.18071)."""

REACH_GRID = np.round(np.linspace(0.0, 1.0, 201), 4)
"""The π_old values of ``rare_reach``'s curves: 0 to 1 in steps of 0.005."""

LIKELY = 0.9
"""The likely token ``rare_reach`` sets beside the rare one."""


@dataclass(frozen=True)
class Reach:
    """How far one batch can move each token before its clip stops it."""

    low: np.ndarray   # (1−ε_low)·π_old, the lowest it can be pushed
    high: np.ndarray  # min(1, (1+ε_high)·π_old), the highest
    rise: np.ndarray  # high − π_old, the largest gain in probability


def reach(p_old, eps_low: float, eps_high: float | None = None) -> Reach:
    """The probabilities one batch can still move a token to before its clip stops it, elementwise.

    [(1−ε_low)·π_old, min(1, (1+ε_high)·π_old)]: the range ``clip_bounds`` gives, for many tokens and with
    DAPO's separate upper ε. With ε = 0.2, π_old = 0.01 reaches 0.012 (a gain of 0.002), π_old = 0.9 reaches 1.

    Args:
        p_old: any shape, π_old of each token, in [0, 1].
        eps_low: ε_low > 0.
        eps_high: ε_high > 0; None means ε_low.

    Returns:
        Reach(low, high, rise), each of p_old's shape.

    >>> r = reach([0.01, 0.9], 0.2, 0.28)
    >>> r.low.round(6).tolist(), r.high.round(6).tolist(), r.rise.round(6).tolist()
    ([0.008, 0.72], [0.0128, 1.0], [0.0028, 0.1])
    """
    p = finite("p_old", p_old)
    if np.any(p < 0) or np.any(p > 1):
        raise ValueError(f"p_old must lie in [0, 1], got {show(p)}")
    low = positive("eps_low", eps_low)
    high = low if eps_high is None else positive("eps_high", eps_high)
    top = np.minimum(1.0, (1.0 + high) * p)
    return Reach(np.maximum(0.0, (1.0 - low) * p), top, top - p)


@dataclass(frozen=True)
class ClipBatch:
    """A batch of sampled answers after one update step, and what each clip does to them."""

    actions: np.ndarray     # [n] int: each answer's first (decision) token
    scores: np.ndarray      # [n]: each answer's judge score
    advantages: np.ndarray  # [n]: Â_i, the group's advantage, shared by all the answer's tokens
    lengths: np.ndarray     # [n]: |o_i|, tokens in the answer
    p_old: np.ndarray       # [K]: π_old, the policy that sampled the batch
    p_new: np.ndarray       # [K]: π after one policy-gradient step
    ratio: np.ndarray       # [n]: ρ_i = π(a_i)/π_old(a_i), the decision token's ratio
    seq_ratio: np.ndarray   # [n]: GSPO's s_i, the geometric mean of the answer's token ratios
    weights: np.ndarray     # [4, n] (or [V, 4, n] at V ε_high): coefficient of ∇log π(a_i) per method (CLIP_METHODS)
    clipped: np.ndarray     # weights' shape, bool: the method gives answer i no gradient although Â_i ≠ 0


def clip_batch(probs, samples, lengths, *, lr: float, eps_low: float = 0.2, eps_high: float = 0.28,
               gspo_eps: tuple[float, float] = GSPO_EPS, method: str = "grpo") -> ClipBatch:
    """The scenario's sampled answers as one batch; one policy-gradient step; the gradient each clip leaves.

    π = softmax(z + η·π_old ⊙ (Q − V)), z = log π_old (``policy_gradient_step``). Only the first token is
    the policy's choice; the rest of each answer is fixed text with ratio 1, so the decision token's ratio
    is ρ_i = π(a_i)/π_old(a_i) and GSPO's answer ratio is s_i = ρ_i^(1/|o_i|) (``sequence_ratio``).
    Weights (``gradient_weights``): ppo: ε_low both sides; clip-higher: ε_low, ε_high; cispo: the weight
    clip(ρ, 1−ε_low, 1+ε_high)·Â, never zero; gspo: s_i with GSPO's own small range, on every token.

    Source: PPO (Schulman et al. 2017); DAPO (arXiv 2503.14476); CISPO (arXiv 2506.13585); GSPO (arXiv
    2507.18071).

    Args:
        probs: shape [K], π_old; answers of a token with π_old = 0 could not have been sampled and are left out.
        samples: K lists of judge scores, the answers that began with each token.
        lengths: shape [K], |o| ≥ 1, the number of tokens of the answer that starts with each token.
        lr: step size η ≥ 0 (η = 0: nothing moved, every ratio is 1).
        eps_low, eps_high: the token clip range, each > 0 (ε_low < 1); eps_high may be an array [V] (a chart
            dragged over ε_high): weights and clipped then have a row per ε_high.
        gspo_eps: GSPO's (ε_low, ε_high), each > 0.
        method: how the batch's scores become advantages, one of ``GROUP_METHODS`` (the batch is one group).

    Returns:
        ClipBatch; its answers are in token order.
    """
    p = as_probs("probs", probs)
    groups = as_samples("samples", samples, p.size)
    lens = as_vector("lengths", lengths)
    if lens.size != p.size or np.any(lens < 1) or np.any(lens != np.round(lens)):
        raise ValueError(f"lengths must hold one whole number >= 1 per token ({p.size}), got {lens.tolist()[:8]}")
    eta = non_negative("lr", lr)
    low = in_range("eps_low", eps_low, 0.0, 1.0)
    if low in (0.0, 1.0):
        raise ValueError(f"eps_low must lie strictly between 0 and 1, got {low!r}")
    high = positive_each("eps_high", eps_high)
    if np.ndim(high) > 1:
        raise ValueError(f"eps_high must be one-dimensional, got shape {np.shape(high)}")
    g_low, g_high = eps_pair("gspo_eps", gspo_eps)
    method = choice("method", method, GROUP_METHODS)

    q = np.array([g.mean() for g in groups])
    new = softmax(policy_gradient_step(logits_from_probs(p), q, eta))
    live = [k for k in range(p.size) if p[k] > 0]
    actions = np.concatenate([np.full(groups[k].size, k, dtype=np.int64) for k in live])
    scores = np.concatenate([groups[k] for k in live])
    adv = group_advantages(scores, method)
    n_len = lens[actions].astype(np.int64)
    rho = new[actions] / p[actions]
    # each answer as token rows: the decision token carries log π, the fixed text log 1 = 0
    mask = (np.arange(n_len.max()) < n_len[:, None]).astype(float)
    logp_old = np.zeros(mask.shape)
    logp_new = np.zeros(mask.shape)
    logp_old[:, 0] = np.log(p[actions])
    logp_new[:, 0] = np.log(np.maximum(new[actions], np.finfo(float).tiny))
    seq = sequence_ratio(logp_new, logp_old, mask)
    per_high = np.asarray(high)[..., None]  # a row per ε_high where there are many: [V, 1] against [n]
    shape = np.broadcast_shapes(per_high.shape, rho.shape)
    weights = np.stack([
        np.broadcast_to(gradient_weights(rho, adv, "ppo", low, low), shape),
        gradient_weights(rho, adv, "ppo", low, per_high if np.ndim(high) else high),
        gradient_weights(rho, adv, "cispo", low, per_high if np.ndim(high) else high),
        np.broadcast_to(gradient_weights(seq, adv, "ppo", g_low, g_high), shape),
    ], axis=-2)
    clipped = (weights == 0) & (adv != 0)
    return ClipBatch(actions, scores, adv, n_len, p, new, rho, seq, weights, clipped)


@dataclass(frozen=True)
class ClipStudy:
    """The running example's sampled answers as one batch after one step (``clip_batch``), read for a page."""

    batch: ClipBatch
    best: int                     # the answer with the largest advantage (the first of them)
    dead: bool                    # every advantage is 0: there is nothing for a clip to stop
    kept: np.ndarray              # [4] (or [V, 4]) int: answers each of CLIP_METHODS still pushes (n − clipped)
    edges: tuple[float, float, float]  # 1 − ε_low, 1 + ε_low, 1 + ε_high: the token clips' edges on ρ ([V] last)
    answer_lengths: np.ndarray    # [K] int: tokens of the answer that starts with each token
    sampled: np.ndarray           # [K] bool: some answer of the batch starts with the token
    moved: np.ndarray             # the tokens an answer can still write after the step (π_old > 0 and π > 0)
    moved_ratio: np.ndarray       # their ratios π/π_old
    moved_seq_ratio: float        # GSPO's ratio of an answer made of those tokens: the ratios' geometric mean


def clip_study(scenario: Scenario, *, lr: float, eps_low: float = 0.2, eps_high: float = 0.28,
               gspo_high: float = GSPO_EPS[1], method: str = "grpo") -> ClipStudy:
    """``clip_batch`` on the running example, with GSPO's range (¾·ε, ε) for ``gspo_high`` = ε (as GSPO's
    3e-4, 4e-4), and what a page reads from it: the best answer, the answers each clip keeps, the clips' edges
    and GSPO's ratio of an answer whose every token moved (``importance_ratio``, ``sequence_ratio``).

    Args:
        scenario: the running example; its answers' lengths are ``answer_lengths``.
        lr, eps_low, eps_high, method: as in ``clip_batch``.
        gspo_high: GSPO's ε_high > 0 (its ε_low is ¾ of it).

    Returns:
        ClipStudy(batch, best, dead, kept, edges, answer_lengths, sampled, moved, moved_ratio, moved_seq_ratio).

    η = 0.2 lifts partly from 0.2 to 0.254 (ρ = 1.27): past PPO's 1.2, inside clip-higher's 1.28; its two
    answers are the only ones PPO stops. GSPO's tiny range stops every answer but the one closed answer whose
    advantage is negative (its answer ratio is above 1: nothing to stop):

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> c = clip_study(ARTICLE_SCENARIO, lr=0.2)
    >>> c.kept.tolist(), c.best, c.edges  # the best answer is partly's first, scored 10
    ([8, 10, 10, 1], 8, (0.8, 1.2, 1.28))

    Over an array of ε_high (a chart dragged over it), a row each: clip-higher stops those two at 0.2 and 0.25, not
    at 0.3.

    >>> clip_study(ARTICLE_SCENARIO, lr=0.2, eps_high=[0.2, 0.25, 0.3]).kept[:, 1].tolist()
    [8, 8, 10]
    """
    s = check_scenario(scenario)
    g_high = positive("gspo_high", gspo_high)
    b = clip_batch(s.pi, s.samples, answer_lengths(s), lr=lr, eps_low=eps_low, eps_high=eps_high,
                   gspo_eps=(0.75 * g_high, g_high), method=method)
    low, high = float(eps_low), (np.asarray(eps_high, dtype=float) if np.ndim(eps_high) else float(eps_high))
    lens = np.array(answer_lengths(s), dtype=np.int64)
    moved = np.flatnonzero((b.p_old > 0) & (b.p_new > 0))
    rho = importance_ratio(b.p_new[moved], b.p_old[moved])
    seq = sequence_ratio([np.log(b.p_new[moved])], [np.log(b.p_old[moved])], [np.ones(moved.size)])[0]
    return ClipStudy(b, int(np.argmax(b.advantages)), bool(np.all(b.advantages == 0)),
                     b.actions.size - b.clipped.sum(axis=-1), (1 - low, 1 + low, 1 + high), lens,
                     np.isin(np.arange(lens.size), b.actions), moved, rho, float(seq))


@dataclass(frozen=True)
class CispoAt:
    """One token's gradient weight at a ratio ρ and an advantage of 1, under CISPO and under PPO's clip."""

    weight: float      # CISPO's clip(ρ, 1 − ε_low, 1 + ε_high)
    ppo_weight: float  # PPO's (clip-higher's range): ρ, or 0 past 1 + ε_high
    cap: str | None    # "upper" or "lower": the cap CISPO's weight met; None inside the range


def cispo_at(rho: float, eps_low: float = 0.2, eps_high: float = 0.28) -> CispoAt:
    """CISPO's weight of a token at ratio ρ (advantage 1), which cap it meets, and PPO's weight beside it
    (``gradient_weights``).

    >>> cispo_at(1.3)  # above 1 + 0.28: capped at 1.28, and past PPO's clip, which keeps no gradient
    CispoAt(weight=1.28, ppo_weight=0.0, cap='upper')
    """
    r = non_negative("rho", rho)
    w = float(gradient_weights([r], 1.0, "cispo", eps_low, eps_high)[0])
    ppo = float(gradient_weights([r], 1.0, "ppo", eps_low, eps_high)[0])
    return CispoAt(w, ppo, "upper" if w < r else "lower" if w > r else None)


@dataclass(frozen=True)
class RareReach:
    """How far one batch can push a rare token, a likely one and each token of the policy, against π_old."""

    sym: Reach             # the rare token under the symmetric clip (ε_low both sides), shape [1]
    higher: Reach          # the rare token under clip-higher (ε_low, ε_high), shape [1]
    likely: Reach          # a token at π_old = LIKELY under the symmetric clip, shape [1]
    grid: np.ndarray       # [G]: REACH_GRID, π_old
    grid_sym: Reach        # the symmetric clip's reach along the grid, [G]
    grid_higher: Reach     # clip-higher's, [G]
    marked: np.ndarray     # the policy's tokens with π_old > 0
    marks_old: np.ndarray  # their π_old, then the rare token's
    marks: Reach           # the symmetric clip's reach at marks_old


def rare_reach(probs, rare: float, eps_low: float, eps_high: float) -> RareReach:
    """``reach`` of a rare token, of a likely one (``LIKELY``), along ``REACH_GRID`` and at each token of π.

    Args:
        probs: shape [K], π_old of the policy's tokens.
        rare: the rare token's π_old, in [0, 1].
        eps_low, eps_high: as in ``reach``.

    Returns:
        RareReach(sym, higher, likely, grid, grid_sym, grid_higher, marked, marks_old, marks).

    >>> r = rare_reach([0.5, 0.5], 0.01, 0.2, 0.28)  # 0.01 reaches 0.012, or 0.0128 with ε_high; 0.9 reaches 1
    >>> r.sym.high.round(6).tolist(), r.higher.high.round(6).tolist(), r.likely.high.tolist()
    ([0.012], [0.0128], [1.0])
    """
    p = as_probs("probs", probs)
    q = in_range("rare", rare, 0.0, 1.0)
    marked = np.flatnonzero(p > 0)
    olds = np.r_[p[marked], q]
    return RareReach(reach([q], eps_low), reach([q], eps_low, eps_high), reach([LIKELY], eps_low), REACH_GRID.copy(),
                     reach(REACH_GRID, eps_low), reach(REACH_GRID, eps_low, eps_high), marked, olds,
                     reach(olds, eps_low))
