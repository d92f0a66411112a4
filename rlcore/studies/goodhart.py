"""Over-optimisation as Gao, Schulman & Hilton (2022) measured it: a proxy reward model fitted on finitely many
comparisons, a policy optimised against it, and a gold judge scoring that policy along the way.

The world, one per seed and the same for every number of comparisons and every bias: ``N_PLAIN`` answers
written by a reference policy π_ref (a softmax of normal logits, spread ``REF_SPREAD``), each with a gold
score (standard normal) and a flattering copy that π_ref writes ``FLATTERING`` as often (``N_ANSWERS`` in
all). Comparisons are pairs of different answers drawn from π_ref, labelled as Bradley–Terry says on the
raters' score. The proxy is the per-answer Bradley–Terry fit of them with a ridge (``RIDGE``): its prior
says that an answer nobody compared is average. Answers π_ref rarely writes are rarely compared; there the
proxy errs most, and there optimisation goes.

Unbiased raters (``bias`` = 0) score a copy as its plain answer: their only error is noise, and the proxy's
only error is having seen finitely many comparisons. A ``bias`` is a planted rater bias: raters add ``bias``
to a flattering answer, and the gold judge, reading the whole answer, takes as much off (flattery stands in
for substance). More comparisons teach the proxy that bias more precisely; they do not remove it.

Three optimisers against the proxy r̂, each a path away from π_ref:

* ``"rl"``: sampled policy-gradient steps on the logits of a softmax policy over the answers, the KL penalty
  folded into the reward, r̂(a) − β·log(π(a)/π_ref(a)), with the batch mean as baseline; one point per
  checkpoint. Each answer's step is divided by its probability (the natural gradient of a softmax, Kakade
  2001), as ``train_against`` does: in expectation the run moves along the tilt below. Plain steps (not
  divided) settle on a common answer and never reach the rare ones (measured here: √KL stops near 1.8 and the
  gold never falls).
* ``"tilt"``: the closed-form optimum of the KL-regularised objective, π_ref·exp(r̂/β), swept over β.
* ``"best_of_n"``: n answers drawn from π_ref and the proxy's favourite kept, swept over n; its policy and KL
  exact for the finite answer set (``best_of_n_probs``).

How firm the shapes are (means of ten seeds, measured for seeds 0–39 in groups of ten): more comparisons raise
the gold's peak (1.25–2.2× from 100 to 1,000) and move it later in √KL in every group. The unbiased fall is
the winner's curse at the end of the path, where the policy settles on the answer the proxy ranks first: at 100
comparisons it is 37–49 % of the rise for seeds 0–9, but 1–16 % in the other groups, and averaged over eight
rater panels per world only about 5 %. A bias of 1 still falls at 10,000 comparisons for seeds 0–9 (35–39 %),
0–24 % in the other groups; it is firm from a bias of 3.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.checks import choice, count, in_range
from ..formulas.kl import best_of_n_probs
from ..formulas.policy import softmax
from ..formulas.preference import fit_win_tables, win_counts

__all__ = ["GOODHART_METHODS", "GoodhartCurve", "goodhart_mean", "goodhart_study"]

GOODHART_METHODS = ("rl", "tilt", "best_of_n")
N_PLAIN = 200
N_ANSWERS = 2 * N_PLAIN  # each plain answer, then its flattering copy
REF_SPREAD = 1.5  # the standard deviation of π_ref's logits
FLATTERING = 0.05  # how often π_ref writes an answer's flattering copy, against the plain one
RIDGE = 0.1  # l2 of the proxy's fit: a prior N(0, 1/(2·l2)) on each answer's score, wider than the gold's
MAX_PAIRS = 100_000
MAX_BIAS = 10.0
INVERSE_BETAS = np.concatenate([[0.0], np.geomspace(0.02, 100.0, 60)])  # the tilt's 1/β
BEST_OF = np.unique(np.round(np.geomspace(1, 100_000, 61)).astype(np.int64))  # best-of-n's n
RL_STEPS, RL_BATCH, RL_LR, RL_BETA = 1000, 1024, 0.1, 0.01
RL_CHECKPOINTS = np.unique(np.round(np.geomspace(1, RL_STEPS + 1, 60)).astype(np.int64) - 1)


@dataclass(frozen=True)
class GoodhartCurve:
    """A policy optimised against the proxy, scored by the proxy and by the gold judge along the way.

    One entry per point of the path, from π_ref (first) outwards. Both scores are gains over π_ref (its own
    score is 0 on each), in Bradley–Terry units: two answers one unit apart are told apart about three times
    in four (σ(1) = 0.73). The proxy's units are the raters' as it learnt them, so the proxy's and the gold's
    gains are comparable, not equal.
    """

    kl: np.ndarray  # KL(π‖π_ref) in nats, from 0: ascending along the tilt and best-of-n; along RL's checkpoints
    #                 it rises with training (a sampled step may set it back a little)
    proxy: np.ndarray  # E_π[r̂] − E_π_ref[r̂]: what the proxy says the policy gained
    gold: np.ndarray  # E_π[gold] − E_π_ref[gold]: what the gold judge says it gained

    @property
    def peak(self) -> int:
        """The point where the gold gain is highest (the first of equals)."""
        return int(np.argmax(self.gold))

    @property
    def root_kl(self) -> np.ndarray:
        """√KL(π‖π_ref): the axis of Gao et al.'s curves."""
        return np.sqrt(self.kl)

    @property
    def fall(self) -> float:
        """How far the gold gain ends below its peak, as a share of its rise to the peak (0 when it never rises)."""
        rise = float(self.gold[self.peak] - self.gold[0])
        return float(self.gold[self.peak] - self.gold[-1]) / rise if rise > 0 else 0.0


def _world(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """π_ref, the answers' gold scores before flattery, and which answers are flattering copies."""
    g = np.random.default_rng([seed, 0])
    plain = softmax(REF_SPREAD * g.normal(size=N_PLAIN))
    quality = g.normal(size=N_PLAIN)
    ref = np.concatenate([plain * (1.0 - FLATTERING), plain * FLATTERING])
    return ref, np.tile(quality, 2), np.repeat([False, True], N_PLAIN)


def _draw(cum: np.ndarray, u: np.ndarray) -> np.ndarray:
    return np.minimum(np.searchsorted(cum, u * cum[-1], side="right"), cum.size - 1)


def _pairs(ref: np.ndarray, raters: np.ndarray, n: int, seed: int) -> np.ndarray:
    """wins[i, j]: how often raters preferred answer i to answer j in n pairs of different answers from π_ref."""
    g = np.random.default_rng([seed, 1])
    cum = np.cumsum(ref)
    a, b = _draw(cum, g.random(n)), _draw(cum, g.random(n))
    while np.any(same := a == b):  # the second answer again until it differs
        b[same] = _draw(cum, g.random(int(same.sum())))
    a_wins = g.random(n) < np.exp(-np.logaddexp(0.0, raters[b] - raters[a]))  # σ(s_a − s_b)
    return win_counts(np.where(a_wins, a, b), np.where(a_wins, b, a), ref.size)


def _fit(wins: np.ndarray) -> np.ndarray:
    """The proxy: the ridge Bradley–Terry fit, solved over the answers compared at least once. An answer nobody
    compared takes no part in the likelihood, so the ridge holds it at 0, where the fit's mean is anyway (at the
    optimum the gradients sum to 2·l2·Σ r, and the likelihood's part sums to 0)."""
    seen = (wins.sum(axis=0) + wins.sum(axis=1)) > 0
    proxy = np.zeros(wins.shape[0])
    proxy[seen] = fit_win_tables(wins[np.ix_(seen, seen)], RIDGE)
    return proxy


def _kl(probs: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """KL(π‖π_ref) of each row of probs (0·log 0 = 0)."""
    with np.errstate(divide="ignore"):
        logs = np.where(probs > 0, np.log(np.where(probs > 0, probs, 1.0)) - np.log(ref), 0.0)
    return np.maximum((probs * logs).sum(axis=1), 0.0)


def _rl(ref: np.ndarray, proxy: np.ndarray, seed: int) -> np.ndarray:
    """The policy at each checkpoint of sampled natural policy-gradient steps with a KL penalty."""
    g = np.random.default_rng([seed, 2])
    log_ref = np.log(ref)
    z = log_ref.copy()
    out = np.empty((RL_CHECKPOINTS.size, ref.size))
    for t in range(RL_STEPS + 1):
        e = np.exp(z - z.max())
        pi = e / e.sum()
        out[t == RL_CHECKPOINTS] = pi
        a = _draw(np.cumsum(pi), g.random(RL_BATCH))
        reward = proxy[a] - RL_BETA * (np.log(pi[a]) - log_ref[a])
        adv = reward - reward.mean()
        z = z + RL_LR * np.bincount(a, adv, ref.size) / (RL_BATCH * np.maximum(pi, 1e-300))
    return out


def goodhart_study(n_pairs: int, seed: int = 0, bias: float = 0.0, method: str = "rl") -> GoodhartCurve:
    """Optimise a policy against a proxy fitted on ``n_pairs`` comparisons; score it by the proxy and the gold.

    Args:
        n_pairs: comparisons the proxy is fitted on, 1 to ``MAX_PAIRS``.
        seed: the world (π_ref, the gold scores) and every draw, a whole number ≥ 0.
        bias: points raters add to a flattering answer and the gold judge takes off, 0 to ``MAX_BIAS``; 0: the
            raters' only error is noise.
        method: ``"rl"``, ``"tilt"`` or ``"best_of_n"`` (the module's docstring).

    Returns:
        GoodhartCurve.

    >>> curve = goodhart_study(100, seed=0, method="tilt")
    >>> float(curve.kl[0]), float(curve.gold[0]), bool(curve.proxy[-1] > 0)
    (0.0, 0.0, True)
    """
    n = count("n_pairs", n_pairs, low=1, high=MAX_PAIRS)
    s = count("seed", seed, low=0, high=2**32 - 1)
    if isinstance(bias, str):  # a number, not text that reads as one
        raise ValueError(f"bias must be a number, got {bias!r}")
    b = in_range("bias", bias, 0.0, MAX_BIAS)
    how = choice("method", method, GOODHART_METHODS)
    ref, quality, flattering = _world(s)
    proxy = _fit(_pairs(ref, quality + b * flattering, n, s))
    gold = quality - b * flattering
    if how == "rl":
        probs = _rl(ref, proxy, s)
    elif how == "tilt":
        probs = softmax(np.log(ref)[None, :] + INVERSE_BETAS[:, None] * proxy[None, :])
    else:
        probs = np.stack([best_of_n_probs(ref, proxy, int(k)) for k in BEST_OF])
    probs[0] = ref  # each path starts at π_ref itself (β⁻¹ = 0, n = 1, step 0), to the last bit
    kl = _kl(probs, ref)
    if how != "rl":
        kl = np.maximum.accumulate(kl)  # ascending in β⁻¹ and in n: this only undoes rounding
    gain = probs - ref  # E_π[x] − E_π_ref[x] = (π − π_ref)·x: exactly 0 at π_ref
    return GoodhartCurve(kl, gain @ proxy, gain @ gold)


def goodhart_mean(n_pairs: int, seeds: int = 10, bias: float = 0.0, method: str = "tilt") -> GoodhartCurve:
    """``goodhart_study`` averaged point by point over seeds 0 … seeds − 1 (each a world and its raters).

    One run's gold curve turns on a few lucky answers; the mean is what the tests and the page read. Along the
    tilt and best-of-n every seed's points share a β or an n, along RL a checkpoint.

    Args:
        n_pairs, bias, method: as for ``goodhart_study``.
        seeds: 1 to 40.

    Returns:
        GoodhartCurve of the means.

    >>> goodhart_mean(100, seeds=2).kl[0]
    np.float64(0.0)
    """
    k = count("seeds", seeds, low=1, high=40)
    runs = [goodhart_study(n_pairs, s, bias, method) for s in range(k)]
    return GoodhartCurve(*(np.mean([getattr(r, f) for r in runs], axis=0) for f in ("kl", "proxy", "gold")))
