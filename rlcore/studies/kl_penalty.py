"""The KL penalty page's study: Schulman's three estimators side by side."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.checks import as_probs, count, rng_from
from ..formulas.kl import KLEstimates, kl_divergence, kl_estimators

__all__ = ["KLEstimatorStudy", "kl_estimator_study"]


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
