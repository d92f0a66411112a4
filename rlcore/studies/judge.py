"""Studies for the pages on where the judge comes from: simulated raters, the reward model fitted to them, a
policy trained against that model while the true judge watches, and DPO on the same pairs.

Built from the formulas in ``rlcore.preference`` and ``rlcore.kl``; ``lab_on_raters`` also runs the training
lab (``rlcore.lab``), to set RL with a KL penalty beside DPO's optimum. The candidates are the scenario's
next tokens plus one flattering answer: the best token's answer opened with the flattery of
``rlcore.example.FLATTERY``, written by the reference as often as that branch says. Raters like flattery
and add ``flattery`` judge points to it; the true judge, reading the whole answer, takes the same points
off. With ``flattery`` = 0 it is the best answer again, under another name.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.checks import (
    as_probs,
    as_vector,
    count,
    in_range,
    in_range_each,
    non_negative,
    positive,
    positive_each,
    rng_from,
)
from ..formulas.example import FLATTERY, MAX_SCORE, Scenario, check_scenario
from ..formulas.kl import kl_optimal_policy
from ..formulas.policy import softmax
from ..formulas.preference import bt_prob, dpo_weights, fit_reward_model, fit_win_tables, never_loses, win_counts
from .lab import LabConfig, train

__all__ = [
    "FLATTERY_BONUS", "DPOStudy", "FitErrors", "IPOStudy", "JudgeItems", "LabOnRaters",
    "OverOptimisation", "RewardModelStudy", "dpo_study", "fit_errors", "ipo_study", "judge_items",
    "lab_on_raters", "over_optimisation", "reward_model_study", "simulate_raters",
    "train_against",
]

FLATTERY_BONUS = float(FLATTERY.scores[1] - FLATTERY.scores[0])
"""How much the article's judge prefers flattery (9.6 against 9): the raters' default liking for it."""
MAX_COMPARISONS = 20_000
MAX_STEPS = 2_000
RIDGE = 0.01  # the fits' default l2: keeps the maximum finite when an answer never loses (precise raters)


# --- the candidates ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class JudgeItems:
    """The answers raters compare: the scenario's tokens, then the flattering answer (last)."""

    names: tuple[str, ...]  # the tokens, then "<best token> + flattery"
    ref: np.ndarray         # shape [K+1]: how often the reference writes each answer
    true: np.ndarray        # shape [K+1]: the true judge's score (Q; the flattering answer: best − flattery)
    rater: np.ndarray       # shape [K+1]: the raters' score (Q; the flattering answer: best + flattery)
    best: int               # the token whose answer the flattering one copies (highest Q, first on ties)

    @property
    def flattering(self) -> int:
        """Index of the flattering answer."""
        return len(self.names) - 1

    @property
    def comparable(self) -> bool:
        """Whether the reference writes at least two of the answers: raters then have a pair to compare."""
        return bool(np.count_nonzero(self.ref) >= 2)

    @property
    def ranked(self) -> bool:
        """Whether the raters score two answers the reference writes differently: some pair then has a better
        side (``ipo_study`` needs one)."""
        on = self.ref > 0
        return bool(on.any() and self.rater[on].max() > self.rater[on].min())


def judge_items(scenario: Scenario, flattery: float = FLATTERY_BONUS) -> JudgeItems:
    """The scenario's candidates plus a flattering copy of the best one.

    The best token's probability is split between its plain and flattering answer as the reference splits
    ``FLATTERY`` (95 : 5).

    Args:
        scenario: the running example (any edited one).
        flattery: judge points ≥ 0 that raters add to the flattering answer and the true judge takes off.

    Returns:
        JudgeItems.

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> items = judge_items(ARTICLE_SCENARIO)
    >>> items.names[-1], items.ref.round(3).tolist(), items.true.round(2).tolist(), items.rater.round(2).tolist()
    ('partly + flattery', [0.5, 0.3, 0.19, 0.01], [2.0, 5.0, 9.0, 8.4], [2.0, 5.0, 9.0, 9.6])
    """
    sc = check_scenario(scenario)
    f = non_negative("flattery", flattery)
    q = sc.q
    best = int(np.argmax(q))
    share = FLATTERY.p_ref[1]
    ref = np.append(sc.pi, sc.pi[best] * share)
    ref[best] = sc.pi[best] * (1.0 - share)
    return JudgeItems((*sc.tokens, f"{sc.tokens[best]} + flattery"), ref,
                      np.append(q, q[best] - f), np.append(q, q[best] + f), best)


# --- raters and the reward model ---------------------------------------------------------------------------------

def simulate_raters(scores, n: int, noise: float, rng, probs=None) -> tuple[np.ndarray, np.ndarray]:
    """Raters shown two different answers pick one as Bradley–Terry says.

    P(a ≻ b) = σ((s_a − s_b) / noise): noise, in judge points, is how far apart two answers must be before
    raters agree on them about three times in four (σ(1) = 0.73). The two answers are drawn from ``probs``
    (the second one again until it differs: the reference writes both, as in RLHF data), or uniformly.

    Args:
        scores: shape [M] (M ≥ 2), what the raters think of each answer.
        n: number of comparisons, 1 to ``MAX_COMPARISONS``.
        noise: > 0.
        rng: a numpy Generator or a seed.
        probs: shape [M], how often each answer is shown, at least two of them > 0; None: uniformly.

    Returns:
        (winners [n], losers [n]), answer indices.
    """
    s = as_vector("scores", scores, min_len=2)
    m = count("n", n, low=1, high=MAX_COMPARISONS)
    tau = positive("noise", noise)
    g = rng_from("rng", rng)
    p = np.ones(s.size) if probs is None else as_probs("probs", probs)
    if p.size != s.size:
        raise ValueError(f"probs must have one entry per answer ({s.size}), got {p.size}")
    if np.count_nonzero(p) < 2:
        raise ValueError(f"probs must give at least two answers a chance to be compared, got {p.tolist()}")
    cum = np.cumsum(p)
    a = np.minimum(np.searchsorted(cum, g.random(m) * cum[-1], side="right"), s.size - 1)
    a = np.where(p[a] > 0, a, np.argmax(p > 0))  # a draw on a rounding edge never lands on a zero entry
    # the second one from p without a: a uniform draw on the total minus p[a], stepping over a's stretch
    u = g.random(m) * (cum[-1] - p[a])
    u = u + p[a] * (u >= cum[a] - p[a])
    b = np.minimum(np.searchsorted(cum, u, side="right"), s.size - 1)
    edge = (b == a) | (p[b] == 0)  # rounding at a stretch's end: take the likeliest other answer instead
    if edge.any():
        others = np.where(np.arange(s.size)[None, :] == a[edge, None], -1.0, p[None, :])
        b[edge] = np.argmax(others, axis=1)
    a_wins = g.random(m) < bt_prob(s[a] / tau, s[b] / tau)
    return np.where(a_wins, a, b), np.where(a_wins, b, a)


@dataclass(frozen=True)
class RewardModelStudy:
    """Comparisons from simulated raters and the Bradley–Terry reward model fitted to them."""

    items: JudgeItems
    winners: np.ndarray  # shape [N]
    losers: np.ndarray   # shape [N]
    wins: np.ndarray     # shape [M, M]: wins[i, j] = times answer i was preferred to answer j
    fitted: np.ndarray   # shape [M]: the fitted reward times the noise, in judge points, mean 0
    rater: np.ndarray    # shape [M]: the raters' scores shifted to mean 0 (what the fit estimates)
    true: np.ndarray     # shape [M]: the true judge's scores shifted to mean 0
    error: float         # root-mean-square of fitted − rater

    @property
    def compared(self) -> np.ndarray:
        """Shape [M]: how many comparisons each answer took part in."""
        return (self.wins.sum(axis=0) + self.wins.sum(axis=1)).astype(int)

    @property
    def won(self) -> np.ndarray:
        """Shape [M]: how many comparisons each answer won."""
        return self.wins.sum(axis=1).astype(int)

    @property
    def rarest(self) -> int:
        """The answer compared least often (the first on ties): the fit knows it least."""
        return int(self.compared.argmin())

    @property
    def flattery_lead(self) -> float:
        """How far the reward model puts the flattering answer above the best plain one (below: negative)."""
        return float(self.fitted[self.items.flattering] - self.fitted[self.items.best])

    @property
    def true_flattery_lead(self) -> float:
        """The same lead by the true judge: −flattery (flattery is worth nothing to it)."""
        return float(self.true[self.items.flattering] - self.true[self.items.best])

    @property
    def never_lost(self) -> np.ndarray:
        """The answers that never lose to the rest (``never_loses``): the fit's ridge alone bounds their score."""
        return never_loses(self.winners, self.losers, len(self.items.names))


def reward_model_study(scenario: Scenario, *, comparisons: int = 200, noise: float = 2.0,
                       flattery: float = FLATTERY_BONUS, seed=0, l2: float = RIDGE) -> RewardModelStudy:
    """Simulate the raters and fit the reward model, beside the scores it should recover.

    Bradley–Terry learns the raters' scores divided by their noise, up to a constant; multiplied back by the
    noise (known here, because we simulate the raters) and shifted to mean 0 they are comparable to the
    judge's scores, also shifted to mean 0. Shifting every score by the same amount changes nothing.

    Args:
        scenario: the running example.
        comparisons: number of comparisons, 1 to ``MAX_COMPARISONS``.
        noise: the raters' noise in judge points, > 0.
        flattery: the raters' liking for flattery in judge points, ≥ 0 (``judge_items``).
        seed: a numpy Generator or a seed ≥ 0.
        l2: the fit's ridge, ≥ 0 (0 fails when some answer never loses).

    Returns:
        RewardModelStudy.
    """
    items = judge_items(scenario, flattery)
    n = count("comparisons", comparisons, low=1, high=MAX_COMPARISONS)
    tau = positive("noise", noise)
    w, lo = simulate_raters(items.rater, n, tau, rng_from("seed", seed), items.ref)
    fitted = tau * fit_reward_model(w, lo, len(items.names), l2)
    wins = win_counts(w, lo, len(items.names))
    rater = items.rater - items.rater.mean()
    return RewardModelStudy(items, w, lo, wins, fitted, rater, items.true - items.true.mean(),
                            float(np.sqrt(np.mean((fitted - rater) ** 2))))


@dataclass(frozen=True)
class FitErrors:
    comparisons: np.ndarray  # shape [C]
    error: np.ndarray        # shape [C]: RMS error of the fit (judge points), averaged over the seeds
    spread: np.ndarray       # shape [C]: the standard deviation of that error across the seeds


def fit_errors(scenario: Scenario, comparisons, *, noise: float = 2.0, flattery: float = FLATTERY_BONUS,
               seeds: int = 8, l2: float = RIDGE) -> FitErrors:
    """How far the reward model is from the raters' scores, for several numbers of comparisons.

    Each rater panel (seeds 0 … seeds − 1) makes as many comparisons as the largest number asked for; a
    smaller number uses its first ones, which are as random as a fresh draw of that size.

    Args:
        scenario: the running example.
        comparisons: shape [C], numbers of comparisons.
        noise, flattery: as for ``reward_model_study``.
        seeds: rater panels, 1 to 50.
        l2: the fits' ridge, > 0 (a small panel often has an answer that never loses).

    Returns:
        FitErrors.

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> fit_errors(ARTICLE_SCENARIO, [50, 400], seeds=2).comparisons.tolist()
    [50, 400]
    """
    ns = [count("comparisons", c, low=1, high=MAX_COMPARISONS) for c in np.atleast_1d(comparisons)]
    k = count("seeds", seeds, low=1, high=50)
    lam = positive("l2", l2)
    tau = positive("noise", noise)
    items = judge_items(scenario, flattery)
    m = len(items.names)
    tables = []
    for s in range(k):
        w, lo = simulate_raters(items.rater, max(ns), tau, s, items.ref)
        tables += [win_counts(w[:n], lo[:n], m) for n in ns]
    fitted = tau * fit_win_tables(np.stack(tables), lam)
    rater = items.rater - items.rater.mean()
    err = np.sqrt(np.mean((fitted - rater) ** 2, axis=1)).reshape(k, len(ns))
    return FitErrors(np.array(ns), err.mean(axis=0), err.std(axis=0))


# --- over-optimisation -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class OverOptimisation:
    """A policy trained against the reward model, with the true judge watching."""

    items: JudgeItems
    proxy_scores: np.ndarray  # shape [M]: the reward model the policy is trained on (judge points, mean 0)
    probs: np.ndarray         # shape [S+1, M]: the policy before each step and after the last
    kl: np.ndarray            # shape [S+1]: KL(π‖π_ref)
    proxy: np.ndarray         # shape [S+1]: E_π[reward model] − its value at the start
    true: np.ndarray          # shape [S+1]: E_π[true judge] − its value at the start
    peak: int                 # the first step where the true score is highest (to rounding)
    fall: float               # how far the true score fell after its peak, by the last step (0 if only rounding)
    limit: np.ndarray         # shape [M]: where training goes, π_ref·exp(proxy/β)
    # trained at each β of an array [V] (a chart dragged over β): every field but the first two with a leading [V]


def over_optimisation(scenario: Scenario, *, beta: float = 0.1, comparisons: int = 200, noise: float = 2.0,
                      flattery: float = FLATTERY_BONUS, seed=0, steps: int = 300, lr: float = 0.5,
                      l2: float = RIDGE) -> OverOptimisation:
    """Fit the reward model (``reward_model_study``), then train against it (``train_against``).

    Args:
        scenario, comparisons, noise, flattery, seed, l2: the reward model, as for ``reward_model_study``.
        beta, steps, lr: the training, as for ``train_against`` (β may be an array: a run per β).

    Returns:
        OverOptimisation.
    """
    rm = reward_model_study(scenario, comparisons=comparisons, noise=noise, flattery=flattery, seed=seed, l2=l2)
    return train_against(rm, beta=beta, steps=steps, lr=lr)


def train_against(rm: RewardModelStudy, *, beta: float = 0.1, steps: int = 300,
                  lr: float = 0.5) -> OverOptimisation:
    """Policy-gradient steps on E_π[r̂] − β·KL(π‖π_ref), measuring the true judge along the way.

    Δz = η · (Aₐ − Σ π A),  Aₐ = r̂ₐ − β·(log πₐ − log π_refₐ): the natural policy gradient of a softmax
    policy (the exact gradient π ⊙ (A − Σ π A) divided by the Fisher information; Kakade 2001), on the
    logits z of the answers the reference writes (the others stay at 0). Without that division a rare
    answer's push is scaled by its tiny π and the policy settles on the common best answer before it finds
    the flattering one. Each step adds η·r̂ to the logits and pulls them back toward log π_ref by η·β, so
    after t steps π_t ∝ π_ref·exp(cₜ·r̂) with cₜ = (1 − (1 − ηβ)ᵗ)/β: the closed-form optimum for the
    penalty 1/cₜ, which falls toward β (``kl_optimal_policy``). η = lr / max(range of r̂, β), so one step
    size works for any scale of scores and η·β ≤ 1 (the pull back never overshoots).

    Args:
        rm: the reward model and the answers (``reward_model_study``).
        beta: the KL penalty β > 0, in judge points; or shape [V], each β > 0: a run per β, all in one pass.
        steps: 0 to ``MAX_STEPS``.
        lr: the step size, 0 to 1.

    Returns:
        OverOptimisation.

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> rm = reward_model_study(ARTICLE_SCENARIO)
    >>> train_against(rm, steps=3).probs.shape[0]
    4
    >>> train_against(rm, beta=[0.01, 0.1, 1.0], steps=3).kl.shape   # three runs, 0 … 3 steps each
    (3, 4)
    """
    if not isinstance(rm, RewardModelStudy):
        raise ValueError(f"rm must be a RewardModelStudy, got {type(rm).__name__}")
    b = positive_each("beta", beta)
    if np.ndim(b) > 1:
        raise ValueError(f"beta must be one-dimensional, got shape {np.shape(b)}")
    n = count("steps", steps, low=0, high=MAX_STEPS)
    items, r = rm.items, rm.fitted
    runs = _trained(rm, np.atleast_1d(b), n, lr)
    tol = 1e-9 * max(1.0, float(np.ptp(items.true)))  # rounding, not a fall
    peak = np.argmax(runs[3] >= runs[3].max(axis=1, keepdims=True) - tol, axis=1)
    fall = np.take_along_axis(runs[3], peak[:, None], axis=1)[:, 0] - runs[3][:, -1]
    fall = np.where(fall > tol, fall, 0.0)
    limit = np.array([kl_optimal_policy(items.ref, r, x) for x in np.atleast_1d(b)])
    if np.ndim(b) == 0:
        return OverOptimisation(items, r, *(x[0] for x in runs), int(peak[0]), float(fall[0]), limit[0])
    return OverOptimisation(items, r, *runs, peak, fall, limit)


def _trained(rm: RewardModelStudy, betas: np.ndarray, steps: int, lr: float):
    """``train_against``'s steps at every β of ``betas`` [V] at once: the policy [V, S+1, M], its KL [V, S+1] and
    the reward model's and the true judge's gains since the start [V, S+1]."""
    items, r = rm.items, rm.fitted
    on = items.ref > 0
    span = float(np.ptp(r[on])) or 1.0
    eta = in_range("lr", lr, 0.0, 1.0) / np.maximum(span, betas)  # [V]
    log_ref = np.log(items.ref[on])
    # z_{t+1} − log π_ref = (1 − ηβ)(zₜ − log π_ref) + η·r̂ + a constant, so zₜ = log π_ref + cₜ·r̂ (up to a
    # constant, which the softmax ignores): every step at once. tests/rlcore checks it against the plain loop.
    c = (1.0 - (1.0 - eta * betas)[:, None] ** np.arange(steps + 1)) / betas[:, None]  # [V, S+1]
    sub = softmax(log_ref + c[..., None] * r[on])
    probs = np.zeros((*c.shape, items.ref.size))
    probs[..., on] = sub
    kl = np.maximum((sub * (np.log(np.maximum(sub, 1e-300)) - log_ref)).sum(axis=-1), 0.0)
    proxy, true = probs @ r, probs @ items.true
    return probs, kl, proxy - proxy[:, :1], true - true[:, :1]


# --- DPO on the same pairs ---------------------------------------------------------------------------------------

def _pair_counts(winners: np.ndarray, losers: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (winner, loser) pairs and how often each occurs: the losses below depend only on these."""
    keys, counts = np.unique(winners * m + losers, return_counts=True)
    return keys // m, keys % m, counts.astype(np.float64)


def _descend(ref: np.ndarray, w: np.ndarray, lo: np.ndarray, counts: np.ndarray, steps: int, push_of,
             rows: int = 1):
    """Gradient steps on the logits of a softmax policy over the answers the reference writes, ``rows`` descents at
    once (one per β of a scrubbed chart).

    ``push_of(margins)`` gives each distinct pair's step along e_w − e_l (pairs among written answers only) from
    the margins [rows, P]; returns the policy [rows, S+1, M] and the margins [rows, S+1, P] before each step and
    after the last, and log π − log π_ref after the last step up to a constant, [rows, M⁺] over the answers the
    reference writes (exact where π itself underflows to 0).
    """
    on = np.flatnonzero(ref > 0)
    where = np.full(ref.size, -1)
    where[on] = np.arange(on.size)
    wi, li = where[w], where[lo]
    moves = np.zeros((wi.size, on.size))  # pair p moves its winner up and its loser down: e_w − e_l
    np.add.at(moves, (np.arange(wi.size), wi), 1.0)
    np.add.at(moves, (np.arange(li.size), li), -1.0)
    log_ref = np.log(ref[on])
    share = counts / counts.sum()
    d = np.zeros((rows, on.size))  # log π − log π_ref, up to a constant (z − log π_ref)
    ds = np.empty((rows, steps + 1, on.size))
    for t in range(steps + 1):
        ds[:, t] = d
        if t < steps:
            d = d + (share * push_of(d[:, wi] - d[:, li])) @ moves
    probs = np.zeros((rows, steps + 1, ref.size))
    probs[..., on] = softmax(log_ref + ds)
    return probs, ds[..., wi] - ds[..., li], d


def _dpo_push(eta: float, beta):
    """(η/β)·σ(−β·m), as dpo_weights; ``beta`` a number or a column [rows, 1], one β per descent."""
    return lambda m: eta / beta * np.exp(-np.logaddexp(0.0, beta * m))


@dataclass(frozen=True)
class DPOStudy:
    """DPO steps on the raters' pairs, beside the closed-form optima they approach."""

    items: JudgeItems
    beta: float
    pair_winner: np.ndarray  # shape [P]: the distinct (chosen, rejected) pairs, chosen answer
    pair_loser: np.ndarray   # shape [P]: rejected answer
    pair_count: np.ndarray   # shape [P]: how many comparisons went that way
    probs: np.ndarray        # shape [S+1, M]: the policy before each step and after the last
    loss: np.ndarray         # shape [S+1]: the DPO loss (mean over all comparisons) at each of those points
    weights: np.ndarray      # shape [S+1, P]: each pair's gradient weight σ(−β·margin)
    mean_weight: np.ndarray  # shape [S+1]: that weight averaged over all comparisons
    fitted: np.ndarray       # shape [M]: the Bradley–Terry fit of the same pairs (rater logits, mean 0)
    fitted_optimum: np.ndarray  # shape [M]: π_ref·exp(fitted/β), where DPO goes on these pairs
    rater_optimum: np.ndarray   # shape [M]: π_ref·exp((rater score / noise)/β), the raters' own optimum
    implicit: np.ndarray     # shape [M]: the last policy's implicit reward β·log(π/π_ref), mean 0
    unbounded: np.ndarray    # answers that never lose to the rest: DPO pushes the others toward 0 (empty if none)
    # at each β of an array [V] (a chart dragged over β): beta and every field from probs to implicit but fitted
    # with a leading [V]


def dpo_study(scenario: Scenario, *, beta: float = 0.5, comparisons: int = 1000, noise: float = 2.0,
              flattery: float = FLATTERY_BONUS, seed=0, steps: int = 400, lr: float = 3.0) -> DPOStudy:
    """Gradient steps on the DPO loss of a policy over the answers, on the pairs of ``reward_model_study``.

    For a softmax policy ∇_z log π(y) = e_y − π, so a pair's gradient is −β·σ(−β·m)·(e_w − e_l)/N. The
    steps are taken on the implicit reward u = β·z (Δz = −(η/β²)·∇_z L), so one step size suits every β.
    On these pairs the loss is least at π_ref·exp(r̂/β), r̂ the Bradley–Terry fit (without a ridge) of the
    same pairs: DPO lands where the reward model and the KL-regularised optimum would. When some answers
    never lose to the rest there is no such fit, and DPO keeps pushing the others toward 0.

    Args:
        scenario, comparisons, noise, flattery, seed: the pairs, as for ``reward_model_study``.
        beta: DPO's β > 0 (on the raters' logit scale, as in the paper); or shape [V], each β > 0: a descent per
            β on the same pairs, all at once.
        steps: 0 to ``MAX_STEPS``.
        lr: the step size η, 0 ≤ η < 4 (the loss's curvature in u is at most ½, so gradient steps below
            2 / ½ do not overshoot).

    Returns:
        DPOStudy.

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> d = dpo_study(ARTICLE_SCENARIO, beta=[0.5, 1.0], steps=10)
    >>> d.probs.shape[:2], d.loss.shape, bool(np.allclose(d.probs.sum(axis=2), 1))
    ((2, 11), (2, 11), True)
    """
    b = positive_each("beta", beta)
    items, w, lo, c, fitted, group, tau = _dpo_pairs(scenario, comparisons, noise, flattery, seed)
    n = count("steps", steps, low=0, high=MAX_STEPS)
    eta = in_range("lr", lr, 0.0, 3.99)
    if np.ndim(b):
        return _dpo_studies(items, w, lo, c, fitted, group, tau, b, n, eta)
    m_items = items.ref.size
    probs, margins, last = (a[0] for a in _descend(items.ref, w, lo, c, n, _dpo_push(eta, b)))
    weights = dpo_weights(margins.ravel(), b).reshape(margins.shape)
    loss = (c * np.logaddexp(0.0, -b * margins)).sum(axis=1) / c.sum()
    on = items.ref > 0
    implicit = np.zeros(m_items)
    implicit[on] = b * (last - last.mean())  # β·log(π/π_ref), mean 0: the softmax's constant drops out
    return DPOStudy(items, b, w, lo, c, probs, loss, weights, weights @ c / c.sum(), fitted,
                    kl_optimal_policy(items.ref, fitted, b), kl_optimal_policy(items.ref, items.rater / tau, b),
                    implicit, group)


def _dpo_studies(items, w, lo, c, fitted, group, tau, b: np.ndarray, n: int, eta: float) -> DPOStudy:
    """``dpo_study`` at every β of ``b`` [V] in one vectorised descent (one row of logits per β, on the same pairs)."""
    if b.ndim != 1:
        raise ValueError(f"beta must be one-dimensional, got shape {b.shape}")
    probs, margins, last = _descend(items.ref, w, lo, c, n, _dpo_push(eta, b[:, None]), rows=b.size)
    weights = np.stack([dpo_weights(m.ravel(), x).reshape(m.shape) for m, x in zip(margins, b, strict=True)])
    loss = (c * np.logaddexp(0.0, -b[:, None, None] * margins)).sum(axis=-1) / c.sum()
    on = items.ref > 0
    implicit = np.zeros((b.size, items.ref.size))
    implicit[:, on] = b[:, None] * (last - last.mean(axis=-1, keepdims=True))
    return DPOStudy(items, b, w, lo, c, probs, loss, weights, weights @ c / c.sum(), fitted,
                    np.stack([kl_optimal_policy(items.ref, fitted, x) for x in b]),
                    np.stack([kl_optimal_policy(items.ref, items.rater / tau, x) for x in b]), implicit, group)


def _dpo_pairs(scenario: Scenario, comparisons: int, noise: float, flattery: float, seed):
    """The raters' pairs DPO steps on (``reward_model_study``'s, as distinct pairs among the answers the reference
    writes, with their counts), their Bradley–Terry fit on the raters' logit scale, the answers that never lose,
    and the raters' noise."""
    rm = reward_model_study(scenario, comparisons=comparisons, noise=noise, flattery=flattery, seed=seed)
    tau = positive("noise", noise)
    items = rm.items
    m_items = items.ref.size
    w, lo, c = _pair_counts(rm.winners, rm.losers, m_items)
    keep = (items.ref[w] > 0) & (items.ref[lo] > 0)  # always true for pairs drawn from π_ref
    group = never_loses(rm.winners, rm.losers, m_items)
    fitted = rm.fitted / tau if group.size else fit_reward_model(rm.winners, rm.losers, m_items)
    return items, w[keep], lo[keep], c[keep], fitted, group, tau


@dataclass(frozen=True)
class IPOStudy:
    """DPO and IPO on preferences that always go the same way."""

    items: JudgeItems
    dpo: np.ndarray  # shape [S+1, M]: DPO's policy along its steps
    ipo: np.ndarray  # shape [S+1, M]: IPO's policy along its steps
    target: float    # IPO's target margin 1/(2τ)
    worst: int       # the answer the raters like least, of those the reference writes


def ipo_study(scenario: Scenario, *, beta: float = 0.5, tau: float = 0.5, flattery: float = FLATTERY_BONUS,
              steps: int = 400, lr: float = 0.5) -> IPOStudy:
    """Every pair of different answers compared once, the higher rater score always chosen (ties left out).

    DPO's loss keeps falling as a margin grows, so on such pairs it drives the probability of every answer
    below the best toward 0, whatever β. IPO's loss (m − 1/(2τ))² stops each margin near its target and
    keeps the policy off the edge. Steps as in ``dpo_study``; IPO's: Δz = η·(1/(2τ) − m)·(e_w − e_l)/N.

    Args:
        scenario, flattery: the answers and the raters' scores, as for ``judge_items``.
        beta: DPO's β > 0.
        tau: IPO's τ > 0.
        steps: 0 to ``MAX_STEPS``.
        lr: the step size η, 0 ≤ η < 1 (IPO's curvature in z is at most 2 per unit of η).

    Returns:
        IPOStudy.
    """
    items = judge_items(scenario, flattery)
    b = positive("beta", beta)
    target = 1.0 / (2.0 * positive("tau", tau))
    n = count("steps", steps, low=0, high=MAX_STEPS)
    eta = in_range("lr", lr, 0.0, 0.99)
    on = np.flatnonzero(items.ref > 0)
    i, j = np.meshgrid(on, on, indexing="ij")
    better = items.rater[i] > items.rater[j]
    w, lo = i[better], j[better]
    c = np.ones(w.size)
    if w.size == 0:
        raise ValueError("scenario must give at least two answers the reference writes different scores")
    dpo = _descend(items.ref, w, lo, c, n, _dpo_push(eta, b))[0][0]
    ipo = _descend(items.ref, w, lo, c, n, lambda mg: eta * (target - mg))[0][0]
    return IPOStudy(items, dpo, ipo, target, int(on[np.argmin(items.rater[on])]))


# --- RL with a KL penalty on the same raters, beside DPO's optimum --------------------------------------------

LAB_STEPS, LAB_SEEDS = 100, 5
MAX_LAB_BETAS = 12  # LAB_SEEDS runs per β, and the lab trains at most 64 runs at once
ON_OPTIMUM = 0.02  # PPO is on π* when no answer's probability is further from it than this
LAB_LR = 0.1  # the lab's step size here: at its default 0.3, a KL penalty of β·noise = 25 swings PPO off π*


@dataclass(frozen=True)
class LabOnRaters:
    """The toy lab's PPO with its KL penalty, trained with the raters' mean scores as the judge."""

    items: JudgeItems
    lab_beta: float          # the lab's β, in judge points: DPO's β times the raters' noise
    steps: int
    median: np.ndarray       # shape [M]: each answer's probability after the last step, median over the seeds
    low: np.ndarray          # shape [M]: the lowest seed's
    high: np.ndarray         # shape [M]: the highest seed's
    optimum: np.ndarray      # shape [M]: π_ref·exp(r/(β·noise)), the raters' own KL optimum (DPO's on many pairs)
    diverged_at: int | None  # the step at which a seed's logits overflowed (then median, low and high are NaN)
    # at each β of an array [V] (a slider's every β): lab_beta [V] and median, low, high, optimum with a leading [V]

    def row(self, i: int) -> LabOnRaters:
        """The i-th β's result of an array call: what ``lab_on_raters`` at that β alone gives."""
        return LabOnRaters(self.items, float(self.lab_beta[i]), self.steps, self.median[i], self.low[i],
                           self.high[i], self.optimum[i], self.diverged_at)

    @property
    def gap(self) -> np.ndarray:
        """Shape [M]: |median − π*| per answer."""
        return np.abs(self.median - self.optimum)

    @property
    def on_optimum(self) -> bool:
        """Whether every answer is within ``ON_OPTIMUM`` of π*."""
        return bool(self.gap.max() < ON_OPTIMUM)

    @property
    def furthest(self) -> int:
        """The answer whose probability is furthest from π* (the first on ties)."""
        return int(np.argmax(self.gap))

    @property
    def unexplored(self) -> bool:
        """Whether PPO lowered the furthest answer below π_ref while π* raises it above: an answer it has not
        found yet, not one it overshot."""
        i = self.furthest
        return bool(self.median[i] < self.items.ref[i] < self.optimum[i])


def lab_on_raters(scenario: Scenario, *, beta: float = 0.5, noise: float = 2.0, flattery: float = FLATTERY_BONUS,
                  steps: int = LAB_STEPS) -> LabOnRaters:
    """Where RL with a KL penalty goes on the raters' own scores, beside where DPO goes.

    Raters prefer y to y' with probability σ((r(y) − r(y'))/noise): on their logit scale the reward is r/noise,
    so DPO's optimum (``DPOStudy.rater_optimum``) is π_ref·exp(r/(noise·β)). The toy lab scores in judge points;
    its PPO with the KL penalty β·noise, one answer per first token and the raters' mean score as the judge,
    aims at the same policy. It learns from its own samples, so an answer the reference seldom writes is found
    late: where π* gives such an answer much more than π_ref does, PPO is still short of it after
    ``LAB_STEPS`` steps (``LAB_SEEDS`` seeds).

    Args:
        scenario, flattery: the answers and the raters' scores, as for ``judge_items``.
        beta: DPO's β > 0; or shape [V], 1 to ``MAX_LAB_BETAS`` such β, trained in one vectorised run of the lab
            (``LAB_SEEDS`` runs per β, each with the seeds and random numbers the one-β call gives it): about
            the cost of one β, so a page can hold every β of its slider at once. When a run diverges the lab
            stops them all: every β then reports that step.
        noise: the raters' noise > 0. Each β times it, the lab's β, is at most 100.
        steps: the lab's steps, 1 to 1000.

    Returns:
        LabOnRaters; for an array of β, lab_beta [V] and median, low, high, optimum [V, M] (``row(i)``: the i-th
        β's, what the one-β call gives).

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> r = lab_on_raters(ARTICLE_SCENARIO, beta=[0.5, 2.0], noise=2.0, steps=5)
    >>> r.lab_beta.tolist(), r.median.shape[0], r.row(1).lab_beta
    ([1.0, 4.0], 2, 4.0)
    """
    items = judge_items(scenario, flattery)  # the messages name this call's arguments, in the order they are read
    b = positive_each("beta", beta)
    if np.ndim(b) > 1:
        raise ValueError(f"beta must be one-dimensional, got shape {b.shape}")
    if np.size(b) > MAX_LAB_BETAS:
        raise ValueError(f"beta must hold at most {MAX_LAB_BETAS} values, got {np.size(b)}")
    lab_betas = in_range_each("beta × noise", b * positive("noise", noise), 0.0, 100.0)
    # π* does not change when every score moves by one constant: moved so that flattery on a top score of 10⁶
    # stays a score a Scenario holds (an answer below −10⁶ then, π* ≈ 0 either way, is held at −10⁶)
    scores = np.maximum(items.rater - max(0.0, items.rater.max() - MAX_SCORE), -MAX_SCORE)
    answers = Scenario(tokens=tuple(f"answer {i + 1}" for i in range(items.ref.size)),
                       probs=tuple(float(p) for p in items.ref), samples=tuple((float(r),) for r in scores))
    n = count("steps", steps, low=1, high=1000)
    config = LabConfig(algorithm="ppo", steps=n, lr=LAB_LR, flattery=False).canonical()
    each = np.atleast_1d(lab_betas)
    h = train(answers, config, tuple(range(LAB_SEEDS)) * each.size, betas=np.repeat(each, LAB_SEEDS))
    optimum = np.stack([kl_optimal_policy(items.ref, items.rater, float(x)) for x in each])  # [V, M]
    last = h.probs_first[:, -1].reshape(each.size, LAB_SEEDS, -1)                          # [V, seeds, M]
    if h.diverged_at is not None:
        median = low = high = np.full(optimum.shape, np.nan)
    else:
        median, low, high = np.median(last, axis=1), last.min(axis=1), last.max(axis=1)
    if np.ndim(b) == 0:
        return LabOnRaters(items, float(lab_betas), n, median[0], low[0], high[0], optimum[0],
                           None if h.diverged_at is None else int(h.diverged_at))
    return LabOnRaters(items, each, n, median, low, high, optimum,
                       None if h.diverged_at is None else int(h.diverged_at))
