"""What policy-gradient training does to entropy, and to pass@1 against pass@k over a set of questions."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.checks import as_real, as_samples, count, finite, prob_rows, show, whole_numbers
from ..formulas.diagnostics import entropy
from ..formulas.example import check_scenario
from ..formulas.policy import policy_gradient_path

__all__ = [
    "TRENDS", "CollapseStudy", "EntropyTrace", "PassAtK", "collapse_study", "correct_shares", "entropy_trace",
    "pass_at_k_questions", "pass_at_k_sampled", "trend",
]

MAX_ENUM_TOKENS = 12   # pass_at_k_questions enumerates 2^K solve patterns
MAX_QUESTIONS = 5_000
MAX_ANSWERS = 1_000


@dataclass(frozen=True)
class EntropyTrace:
    """Entropy along exact policy-gradient steps, with the first-order prediction of each step's change."""

    probs: np.ndarray      # shape [T+1, K], π before each step and after the last
    entropy: np.ndarray    # shape [T+1], H(π) in nats
    predicted: np.ndarray  # shape [T], first-order ΔH of each step
    measured: np.ndarray   # shape [T], H after the step minus H before
    shares: np.ndarray     # shape [T, K], each token's term of the prediction (each row sums to `predicted`)
    one_step: np.ndarray   # shape [T], H before each step plus its predicted change: the prediction of H after it


def entropy_trace(probs, q, lr: float, steps: int) -> EntropyTrace:
    """Entropy of π along ``steps`` exact policy-gradient steps, and which tokens drive each change.

    Each step moves the logits by Δz = η π ⊙ (Q − V) (``policy_gradient_step``). To first order it changes
    the entropy by ΔH ≈ Σₐ sₐ with token a's share sₐ = −πₐ (log πₐ − E[log π]) (Δzₐ − E[Δz]): a likely
    token (log πₐ above average) pushed up (Δzₐ above average) lowers the entropy.

    Source: Cui et al. (2025), arXiv 2505.22617 (the covariance form of ΔH).

    Args:
        probs: shape [K], the starting policy.
        q: shape [K], Q of each token.
        lr: step size η ≥ 0.
        steps: number of steps (≥ 0).

    Returns:
        EntropyTrace(probs [T+1, K], entropy [T+1], predicted [T], measured [T], shares [T, K], one_step [T]).

    Raising the likelier token (Δz = (0.16, −0.16)) lowers the entropy, and it drives most of that through
    the rarer token, whose log π is far from the average:

    >>> t = entropy_trace([0.8, 0.2], [1.0, 0.0], 1.0, 1)
    >>> round(float(t.predicted[0]), 4), t.shares[0].round(4).tolist()
    (-0.071, [-0.0142, -0.0568])
    """
    path = policy_gradient_path(probs, q, lr, steps)
    p = path.probs[:-1]                                            # [T, K]
    qv = np.asarray(q, dtype=np.float64)
    dz = float(lr) * p * (qv - (p @ qv)[:, None])                  # Δz of each step
    lp = np.log(np.where(p > 0, p, 1.0))                          # log π, 0 where π = 0 (its weight)
    lp_c = lp - np.sum(p * lp, axis=1, keepdims=True)
    dz_c = dz - np.sum(p * dz, axis=1, keepdims=True)
    shares = -p * lp_c * dz_c
    h = np.atleast_1d(entropy(path.probs))
    predicted = shares.sum(axis=1)
    return EntropyTrace(path.probs, h, predicted, np.diff(h), shares, h[:-1] + predicted)


def correct_shares(samples, threshold: float) -> np.ndarray:
    """For each token, the share of its sampled answers whose judge score reaches the threshold.

    cₐ = #{scores of a ≥ threshold} / #{scores of a}.

    >>> correct_shares([(3, 9), (10,), (1, 2, 8)], 8).round(6).tolist()
    [0.5, 1.0, 0.333333]
    """
    groups = as_samples("samples", samples)
    t = as_real("threshold", threshold)
    return np.array([np.mean(g >= t) for g in groups])


def _patterns(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every solve pattern S ⊆ tokens whose chance is not 0, as rows of 0/1, and its chance Π c / Π (1 − c)."""
    k = c.size
    bits = (np.arange(2**k)[:, None] >> np.arange(k)[None, :]) & 1          # [2^K, K]
    chance = np.prod(np.where(bits == 1, c, 1.0 - c), axis=1)
    keep = chance > 0
    return bits[keep].astype(np.float64), chance[keep]


@dataclass(frozen=True)
class PassAtK:
    """pass@k averaged over a set of questions, for each policy in a batch of them."""

    ks: np.ndarray         # shape [M]
    pass_at: np.ndarray    # shape [T, M]: average pass@k of each policy
    pass_at_1: np.ndarray  # shape [T]: Σ π c, the chance that one answer is right


def pass_at_k_questions(probs, shares, ks) -> PassAtK:
    """Exact pass@k over a set of questions on which each first token (branch) either works or not.

    Branch a solves a share cₐ of the questions, independently of the other branches. On a question solved
    by the branches in S one answer is right with chance p_S = Σ_{a∈S} πₐ, so
    pass@k = Σ_S P(S) (1 − (1 − p_S)^k),  P(S) = Π_{a∈S} cₐ Π_{a∉S} (1 − cₐ),  and pass@1 = Σ πₐ cₐ.
    With one question (every cₐ 0 or 1) pass@k only rises with pass@1; over several questions it need not.

    Source: Chen et al. (2021), arXiv 2107.03374 (pass@k); Yue et al. (2025), arXiv 2504.13837 (RL and pass@k
    at large k).

    Args:
        probs: shape [T, K] (or [K]), one policy per row.
        shares: shape [K], cₐ in [0, 1] (e.g. ``correct_shares``); at most 12 tokens.
        ks: whole numbers ≥ 1.

    Returns:
        PassAtK(ks [M], pass_at [T, M], pass_at_1 [T]).

    >>> r = pass_at_k_questions([0.5, 0.5], [1.0, 0.5], [1, 2])  # half the questions: p = 1; the other half: p = ½
    >>> r.pass_at.round(12).tolist(), r.pass_at_1.round(12).tolist()
    ([[0.75, 0.875]], [0.75])
    """
    p = np.atleast_2d(prob_rows("probs", probs))
    c = _shares(shares, p.shape[1])
    if c.size > MAX_ENUM_TOKENS:
        raise ValueError(f"shares may hold at most {MAX_ENUM_TOKENS} tokens, got {c.size}")
    k = np.atleast_1d(whole_numbers("ks", ks, 1)).astype(np.float64)
    bits, chance = _patterns(c)
    p_s = np.clip(p @ bits.T, 0.0, 1.0)                                          # [T, S]
    with np.errstate(divide="ignore"):
        miss = np.exp(k[None, None, :] * np.log1p(-p_s)[:, :, None])             # (1 − p_S)^k, [T, S, M]
    return PassAtK(k.astype(np.int64), np.einsum("s,tsm->tm", chance, 1.0 - miss), p @ c)


def _shares(value, k: int) -> np.ndarray:
    c = finite("shares", value)
    if c.shape != (k,):
        raise ValueError(f"shares must have one entry per token ({k}), got {show(c)}")
    if np.any(c < 0) or np.any(c > 1):
        raise ValueError(f"shares must lie in [0, 1], got {show(c)}")
    return c


def _log_comb(m: np.ndarray, k: np.ndarray, log_fact: np.ndarray) -> np.ndarray:
    """log C(m, k), −inf where k > m."""
    ok = k <= m
    safe_m, safe_k = np.where(ok, m, 0), np.where(ok, k, 0)
    return np.where(ok, log_fact[safe_m] - log_fact[safe_k] - log_fact[safe_m - safe_k], -np.inf)


def pass_at_k_sampled(probs, shares, ks, *, answers: int, questions: int, seed: int) -> np.ndarray:
    """pass@k estimated from sampled answers, with Codex's unbiased estimator, averaged over sampled questions.

    Draws ``questions`` questions (branch a solves each with chance cₐ, independently), then for each policy
    ``answers`` answers per question: the number right is c ~ Binomial(n, p_S). Each question's estimate is
    1 − C(n − c, k)/C(n, k); the result is their mean. The same questions and the same uniform draws serve every
    policy (common random numbers), so two policies differ by their probabilities, not by luck.

    Source: Chen et al. (2021), arXiv 2107.03374, eq. 1.

    Args:
        probs: shape [T, K] (or [K]), one policy per row.
        shares: shape [K], cₐ in [0, 1].
        ks: whole numbers from 1 to ``answers``.
        answers: n, answers sampled per question (1 to 1,000).
        questions: how many questions (1 to 5,000).
        seed: seed of the generator.

    Returns:
        shape [T, M], the estimate of pass@k of each policy for each k.
    """
    p = np.atleast_2d(prob_rows("probs", probs))
    c = _shares(shares, p.shape[1])
    n = count("answers", answers, low=1, high=MAX_ANSWERS)
    n_q = count("questions", questions, low=1, high=MAX_QUESTIONS)
    rng = np.random.default_rng(count("seed", seed, low=0))
    k = np.atleast_1d(whole_numbers("ks", ks, 1)).astype(np.int64)
    if np.any(k > n):
        raise ValueError(f"ks must be <= answers ({n}), got {show(k)}")
    solves = (rng.random((n_q, c.size)) < c).astype(np.float64)                  # [Q, K]
    u = rng.random((n_q, n))                                                     # one uniform per answer
    p_q = np.clip(p @ solves.T, 0.0, 1.0)                                        # [T, Q]
    right = (u[None, :, :] < p_q[:, :, None]).sum(axis=2)                        # [T, Q], Binomial(n, p_q)
    log_fact = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1)))])
    miss = np.exp(_log_comb((n - right)[:, :, None], k[None, None, :], log_fact)
                  - _log_comb(np.full_like(k, n), k, log_fact)[None, None, :])   # C(n−c, k)/C(n, k)
    return (1.0 - miss).mean(axis=1)


@dataclass(frozen=True)
class CollapseStudy:
    """Training on one example: its entropy, each branch's share of right answers, and pass@k along the way."""

    trace: EntropyTrace  # ``steps`` exact policy-gradient steps from the scenario's π on its Q
    shares: np.ndarray   # shape [K]: the share of each token's sampled answers that reach the threshold
    exact: PassAtK       # pass@k for k = 1 … max_k of every policy along the trace, over the questions cₐ define
    sampled: np.ndarray  # shape [steps+1, max_k]: the same estimated from ``answers`` sampled answers per question


def collapse_study(scenario, lr: float = 0.3, threshold: float = 8.0, answers: int = 64, seed: int = 0, *,
                   steps: int = 60, max_k: int = 64, questions: int = 300) -> CollapseStudy:
    """Train on the scenario (``entropy_trace``) and watch pass@1 and pass@k of every policy along the way.

    An answer is right when its judge score reaches ``threshold``: token a's branch solves a share cₐ of the
    questions (``correct_shares``), pass@k is exact over those questions (``pass_at_k_questions``) and
    estimated from sampled answers (``pass_at_k_sampled``), for k = 1 … ``max_k``, at each of the steps.

    Args:
        scenario: the running example (π, its Q and its sampled scores).
        lr: step size η ≥ 0.
        threshold: the score a right answer reaches.
        answers: answers sampled per question for the estimate, 1 to 1,000.
        seed: the estimate's seed (≥ 0).
        steps: policy-gradient steps (≥ 0).
        max_k: the largest k, 1 to ``answers``.
        questions: questions drawn for the estimate, 1 to 5,000.

    Returns:
        CollapseStudy(trace, shares [K], exact, sampled [steps+1, max_k]).

    The article's example with a right answer at 8 or more: only `partly` (π = 0.2, scores 10 and 8) is ever
    right, on every question, so before training pass@k = 1 − 0.8^k:

    >>> from rlcore.formulas.example import ARTICLE_SCENARIO
    >>> s = collapse_study(ARTICLE_SCENARIO, 0.3, 8.0, 8, 0, steps=2, max_k=4, questions=10)
    >>> s.shares.tolist(), s.exact.pass_at[0].round(6).tolist(), s.sampled.shape
    ([0.0, 0.0, 1.0], [0.2, 0.36, 0.488, 0.5904], (3, 4))
    """
    sc = check_scenario(scenario)
    n = count("answers", answers, low=1, high=MAX_ANSWERS)
    ks = np.arange(1, count("max_k", max_k, low=1, high=n) + 1)
    trace = entropy_trace(sc.pi, sc.q, lr, steps)
    shares = correct_shares(sc.samples, threshold)
    exact = pass_at_k_questions(trace.probs, shares, ks)
    sampled = pass_at_k_sampled(trace.probs, shares, ks, answers=n, questions=questions, seed=seed)
    return CollapseStudy(trace, shares, exact, sampled)


TRENDS = ("rises", "falls", "barely moves")


def trend(before: float, after: float, tol: float = 0.01) -> str:
    """Which way a number went: "rises" (after > before + tol), "falls" (after < before − tol), else "barely moves".

    >>> trend(0.87, 0.76), trend(0.47, 0.75), trend(0.5, 0.505)
    ('falls', 'rises', 'barely moves')
    """
    b, a, t = as_real("before", before), as_real("after", after), as_real("tol", tol)
    if t < 0:
        raise ValueError(f"tol must be >= 0, got {t!r}")
    return TRENDS[0] if a > b + t else TRENDS[1] if a < b - t else TRENDS[2]
