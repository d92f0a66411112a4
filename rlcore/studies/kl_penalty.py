"""The KL penalty page's studies: the regularised objective along the share of flattery, and Schulman's three
estimators side by side."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.checks import as_probs, count, in_range, non_negative_each, rng_from
from ..formulas.estimates import Histogram, histogram_counts
from ..formulas.example import FlatteryBranch
from ..formulas.kl import (
    KLEstimates,
    ShareCurve,
    kl_divergence,
    kl_estimators,
    regularized_optimum,
    share_curve,
)

__all__ = ["KLCurve", "KLEstimatorHistogram", "KLEstimatorStudy", "kl_curve", "kl_estimator_histogram",
           "kl_estimator_study"]

CURVE_POINTS = 51  # evenly spaced shares of the curve (every 0.02), besides the three it marks: page 8's scrubbed
# chart redraws them for every β it is dragged to, and 201 made a move cost twice a still frame (bench/scrub.py)


@dataclass(frozen=True)
class KLEstimatorStudy:
    """Schulman's k1, k2, k3 on tokens sampled from π, against the exact KL(π‖π_ref)."""

    tokens: np.ndarray       # shape [N], int: the sampled tokens
    estimates: KLEstimates   # each shape [N]: the per-token values
    exact: float             # KL(π‖π_ref)
    expected: np.ndarray     # shape [3]: E_π[k1], E_π[k2], E_π[k3], exactly
    bias: np.ndarray         # shape [3]: expected − exact (0 for k1 and k3; rounding below 1e-12 set to 0)
    spread: np.ndarray       # shape [3]: exact standard deviation of one per-token value
    sample_mean: np.ndarray  # shape [3]: mean over the N sampled tokens
    sample_std: np.ndarray   # shape [3]: standard deviation over the N sampled tokens
    negative_share: np.ndarray  # shape [3]: share of the N values below 0


def kl_estimator_study(p, p_ref, n: int, seed) -> KLEstimatorStudy:
    """Draw n tokens from π and estimate KL(π‖π_ref) from them with k1, k2 and k3.

    E_π[k1] = KL(π‖π_ref) always; E_π[k3] = KL − (π_ref's mass where π = 0), so k3 is unbiased when π
    can write every token π_ref can (its usual setting); E_π[k2] = ½ Σₐ πₐ (log πₐ/π_refₐ)² (biased, close to
    KL only when π ≈ π_ref). Exact moments sum over the tokens; sample moments use the n draws.

    Source: J. Schulman, "Approximating KL Divergence" (2020), http://joschu.net/blog/kl-approx.html

    Args:
        p: shape [K], π, the policy that writes the tokens.
        p_ref: shape [K], π_ref, > 0 wherever π > 0.
        n: number of sampled tokens (1 to 1,000,000).
        seed: an integer seed or a numpy Generator.

    Returns:
        KLEstimatorStudy(tokens, estimates, exact, expected, bias, spread, sample_mean, sample_std,
        negative_share).
    """
    pp = as_probs("p", p)
    ref = as_probs("p_ref", p_ref)
    if pp.size != ref.size:
        raise ValueError(f"p and p_ref must have the same length, got {pp.size} and {ref.size}")
    support = pp > 0
    if np.any(ref[support] == 0):
        raise ValueError(f"p_ref must be > 0 wherever p > 0 (else the KL is infinite), got {ref.tolist()}")
    m = count("n", n, low=1, high=1_000_000)
    rng = rng_from("seed", seed)
    logp = np.log(np.where(support, pp, 1.0))
    logp_ref = np.log(np.where(support, ref, 1.0))
    each = kl_estimators(logp[support], logp_ref[support])
    per_token = np.stack([each.k1, each.k2, each.k3])                        # [3, K⁺]
    weights = pp[support]
    expected = per_token @ weights
    centred = per_token - expected[:, None]
    scale = np.maximum(np.abs(centred).max(axis=1), np.finfo(np.float64).tiny)  # rescaled: no overflow
    spread = scale * np.sqrt(((centred / scale[:, None]) ** 2) @ weights)
    tokens = rng.choice(pp.size, size=m, p=pp)
    est = kl_estimators(logp[tokens], logp_ref[tokens])
    values = np.stack([est.k1, est.k2, est.k3])
    exact = kl_divergence(pp, ref)
    bias = expected - exact
    bias[np.abs(bias) <= 1e-12 * max(1.0, exact)] = 0.0  # k1 and k3: only rounding is left
    return KLEstimatorStudy(tokens, est, exact, expected, bias, spread,
                            values.mean(axis=1), values.std(axis=1), (values < 0).mean(axis=1))


def _branch(branch) -> FlatteryBranch:
    if not isinstance(branch, FlatteryBranch):
        raise ValueError(f"branch must be an rlcore.FlatteryBranch, got {type(branch).__name__}")
    return branch


@dataclass(frozen=True)
class KLCurve:
    """R − β·KL along the share of flattery: over every share, and at the three shares the page marks; at one β,
    or at each β of an array [V] (a chart dragged over β), each field then with a leading axis [V]."""

    ref_share: float    # π_ref(flattery)
    best: np.ndarray    # shape [2] (or [V, 2]): the policy that maximises R − β·KL (``regularized_optimum``)
    curve: ShareCurve   # over 51 evenly spaced shares and the three below, in increasing order ([M] or [V, M])
    points: ShareCurve  # at the reference's share, the chosen share and the optimum's, in that order ([3] or [V, 3])
    keep: np.ndarray    # curve's shape, bool: a share not a repeat of the one before it (all True at one β)


def kl_curve(branch: FlatteryBranch, share: float, beta) -> KLCurve:
    """The KL-regularised objective of the flattery branch over every share of flattery s, π = (1 − s, s).

    The curve is ``share_curve`` over 51 evenly spaced shares (every 0.02) plus the three it marks: the reference's
    π_ref(flattery), the chosen ``share`` and the optimum's π*(flattery), π* ∝ π_ref · exp(r/β)
    (``regularized_optimum``, which takes β = 0 too).

    Args:
        branch: the flattery branch (its judge scores and reference probabilities), e.g. ``rlcore.FLATTERY``.
        share: the chosen share of flattery, in [0, 1].
        beta: β ≥ 0; or shape [V], each β ≥ 0: every field then has a row per β, each curve's shares sorted with
            its repeats kept (``keep`` is False on them), so that every row has 54.

    Returns:
        KLCurve(ref_share, best, curve, points, keep).

    >>> from rlcore.example import FLATTERY
    >>> c = kl_curve(FLATTERY, 0.05, 1.0)   # at the reference's own share: no KL, the reference's score
    >>> round(float(c.points.kl[1]), 12), round(float(c.points.expected_reward[1]), 12)
    (0.0, 9.03)
    >>> c = kl_curve(FLATTERY, 0.05, [0.0, 0.5, 1.0])   # at every β: still no KL there
    >>> c.points.kl[:, 1].round(12).tolist(), c.points.objective[:, 1].round(12).tolist(), c.curve.shares.shape
    ([0.0, 0.0, 0.0], [9.03, 9.03, 9.03], (3, 54))
    """
    fl = _branch(branch)
    s = in_range("share", share, 0.0, 1.0)
    ref_share = float(fl.p_ref[1])
    b = non_negative_each("beta", beta)
    if np.ndim(b) == 0:
        best = regularized_optimum(fl.p_ref, fl.rewards, b)
        grid = np.unique(np.r_[np.linspace(0.0, 1.0, CURVE_POINTS), ref_share, s, best[1]])
        return KLCurve(ref_share=ref_share, best=best, curve=share_curve(grid, fl.rewards, fl.p_ref, b),
                       points=share_curve([ref_share, s, best[1]], fl.rewards, fl.p_ref, b),
                       keep=np.ones(grid.size, dtype=bool))
    if b.ndim != 1:
        raise ValueError(f"beta must be one-dimensional, got shape {b.shape}")
    best = np.array([regularized_optimum(fl.p_ref, fl.rewards, x) for x in b])             # [V, 2]
    marks = np.c_[np.full(b.size, ref_share), np.full(b.size, s), best[:, 1]]              # [V, 3]
    shares = np.sort(np.c_[np.tile(np.linspace(0.0, 1.0, CURVE_POINTS), (b.size, 1)), marks], axis=1)
    keep = np.c_[np.ones(b.size, dtype=bool), np.diff(shares, axis=1) != 0]  # as np.unique: no repeats
    return KLCurve(ref_share=ref_share, best=best, curve=share_curve(shares, fl.rewards, fl.p_ref, b[:, None]),
                   points=share_curve(marks, fl.rewards, fl.p_ref, b[:, None]), keep=keep)


@dataclass(frozen=True)
class KLEstimatorHistogram:
    """``kl_estimator_study`` on the flattery branch at one share, with the per-token values binned."""

    study: KLEstimatorStudy  # the estimators' exact and sampled moments
    hist: Histogram          # k1, k2 and k3's per-token values in shared bins: counts and shares [3, bins]


def kl_estimator_histogram(branch: FlatteryBranch, share: float, n: int, seed,
                           bins: int = 30) -> KLEstimatorHistogram:
    """Schulman's k1, k2 and k3 on n tokens of the flattery branch written with π = (1 − share, share), against
    π_ref = the branch's reference (``kl_estimator_study``); their per-token values binned together
    (``histogram_counts``), k1, k2, k3 in that order.

    Args:
        branch: the flattery branch, e.g. ``rlcore.FLATTERY``.
        share: π(flattery), in [0, 1].
        n: number of sampled tokens (1 to 1,000,000).
        seed: an integer seed or a numpy Generator.
        bins: number of bins (≥ 1).

    Returns:
        KLEstimatorHistogram(study, hist).

    >>> from rlcore.example import FLATTERY
    >>> h = kl_estimator_histogram(FLATTERY, 0.05, 200, 0)   # π = π_ref: every per-token k3 is 0
    >>> h.hist.counts.shape, float(h.study.exact), int(h.hist.counts[2].sum())
    ((3, 30), 0.0, 200)
    """
    fl = _branch(branch)
    s = in_range("share", share, 0.0, 1.0)
    study = kl_estimator_study(np.array([1.0 - s, s]), fl.p_ref, n, seed)
    est = study.estimates
    return KLEstimatorHistogram(study=study, hist=histogram_counts(np.stack([est.k1, est.k2, est.k3]), bins))
