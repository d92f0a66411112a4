"""rlcore.kl additions: the optimum at any β, and the k1/k2/k3 estimator study (hand-computed values)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlcore
from tests.rejects import rejects

REF = [0.95, 0.05]
SCORES = [9.0, 9.6]


def test_regularized_optimum_matches_the_closed_form():
    # β = 1: π* ∝ (0.95 e⁹, 0.05 e^9.6) → flattery share 0.05 e^0.6 / (0.95 + 0.05 e^0.6) = 0.0875
    share = 0.05 * math.exp(0.6) / (0.95 + 0.05 * math.exp(0.6))
    np.testing.assert_allclose(rlcore.regularized_optimum(REF, SCORES, 1.0), [1 - share, share])
    np.testing.assert_allclose(rlcore.regularized_optimum(REF, SCORES, 1.0),
                               rlcore.kl_optimal_policy(REF, SCORES, 1.0))


def test_regularized_optimum_at_beta_zero_is_the_limit():
    assert rlcore.regularized_optimum(REF, SCORES, 0.0).tolist() == [0.0, 1.0]
    np.testing.assert_allclose(rlcore.regularized_optimum(REF, SCORES, 1e-3), [0.0, 1.0], atol=1e-12)
    # a tie shares the mass as π_ref does; a token π_ref never writes stays at 0
    np.testing.assert_allclose(rlcore.regularized_optimum([0.6, 0.4, 0.0], [5, 5, 9], 0.0), [0.6, 0.4, 0.0])


def test_kl_estimator_study_exact_moments():
    study = rlcore.kl_estimator_study([0.1, 0.9], REF, 10, 0)
    lr_plain, lr_flat = math.log(0.1 / 0.95), math.log(0.9 / 0.05)  # log π/π_ref of each answer
    kl = 0.1 * lr_plain + 0.9 * lr_flat
    assert study.exact == pytest.approx(kl)
    assert study.exact == pytest.approx(2.3762, abs=5e-5)  # the article's 2.38
    k2 = 0.5 * (0.1 * lr_plain**2 + 0.9 * lr_flat**2)
    np.testing.assert_allclose(study.expected, [kl, k2, kl])
    assert study.bias.tolist() == [0.0, pytest.approx(k2 - kl), 0.0]
    # two values each: spread = √(0.1·0.9) · |difference of the two values|
    k3_plain = (0.95 / 0.1 - 1) - math.log(0.95 / 0.1)
    k3_flat = (0.05 / 0.9 - 1) - math.log(0.05 / 0.9)
    np.testing.assert_allclose(study.spread, [0.3 * abs(lr_plain - lr_flat),
                                              0.3 * 0.5 * abs(lr_plain**2 - lr_flat**2),
                                              0.3 * abs(k3_plain - k3_flat)])
    assert study.spread[2] < study.spread[0]  # k3 varies less than k1 here


def test_kl_estimator_study_samples():
    study = rlcore.kl_estimator_study([0.1, 0.9], REF, 20_000, 7)
    assert study.tokens.shape == (20_000,)
    assert set(np.unique(study.tokens)) == {0, 1}
    assert study.negative_share[2] == 0.0                      # k3 ≥ 0 always
    assert study.negative_share[0] == pytest.approx(0.1, abs=0.01)  # k1 < 0 exactly on the plain answers
    # the sample means sit within 4 standard errors of the exact expectations
    assert np.all(np.abs(study.sample_mean - study.expected) < 4 * study.spread / math.sqrt(20_000))
    again = rlcore.kl_estimator_study([0.1, 0.9], REF, 20_000, 7)
    assert np.array_equal(again.tokens, study.tokens)


def test_kl_estimator_study_is_zero_at_the_reference():
    study = rlcore.kl_estimator_study(REF, REF, 50, 1)
    assert study.exact == 0.0
    for values in vars(study.estimates).values():
        np.testing.assert_allclose(values, 0.0, atol=1e-15)


def test_kl_estimator_study_rejects_bad_input():
    rejects(lambda: rlcore.kl_estimator_study([0.5, 0.5], [1.0, 0.0], 10, 0), "p_ref")
    rejects(lambda: rlcore.kl_estimator_study([0.5, 0.5], REF, 0, 0), "n")
    rejects(lambda: rlcore.kl_estimator_study([0.5, 0.5], [0.2, 0.3, 0.5], 10, 0), "p and p_ref")
