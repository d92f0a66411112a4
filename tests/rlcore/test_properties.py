"""Hypothesis property tests of rlcore.

numpy runs with every floating-point error raised (``strict``), so no warning can escape for valid
input. Underflow is the one exception: numpy ignores it by default because a result rounded to 0
(exp(−2000) = 0, the weight of a hopeless token) is the correct answer, not an error.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import rlcore

SETTINGS = settings(derandomize=True, max_examples=150, deadline=None)


def strict():
    return np.errstate(all="raise", under="ignore")


def probs_strategy(min_size=2, max_size=8, floor=0.0):
    """Probability vectors: positive floats normalised; each entry ≥ ``floor``·(its share)."""
    weights = st.lists(st.floats(min_value=1e-3, max_value=1e3), min_size=min_size, max_size=max_size)

    def build(w):
        arr = np.asarray(w)
        p = arr / arr.sum()
        p = floor / p.size + (1 - floor) * p if floor else p
        return p / p.sum()

    return weights.map(build)


def paired_probs(min_size=2, max_size=8, floor=0.0):
    """Two probability vectors of the same length."""
    return st.integers(min_size, max_size).flatmap(
        lambda k: st.tuples(probs_strategy(k, k, floor), probs_strategy(k, k, floor)))


scores = st.floats(min_value=-100, max_value=100)


@st.composite
def policy_and_samples(draw):
    k = draw(st.integers(2, 6))
    probs = draw(probs_strategy(k, k))
    samples = draw(st.lists(st.lists(scores, min_size=1, max_size=5), min_size=k, max_size=k))
    return probs, samples


# ---------------------------------------------------------------- advantage and baseline


@SETTINGS
@given(st.integers(2, 8).flatmap(lambda k: st.tuples(probs_strategy(k, k),
                                                     st.lists(scores, min_size=k, max_size=k))))
def test_probability_weighted_advantage_is_zero(case):
    probs, q = case
    with strict():
        a = rlcore.advantages(probs, q)
        assert abs(float(probs @ a)) <= 1e-9 * (1 + max(abs(x) for x in q))


@SETTINGS
@given(policy_and_samples(), st.floats(-100, 100), st.floats(-100, 100))
def test_baseline_leaves_gradient_mean_unchanged(case, b1, b2):
    probs, samples = case
    with strict():
        m0 = rlcore.gradient_stats(probs, samples, 0.0).mean
        m1 = rlcore.gradient_stats(probs, samples, b1).mean
        m2 = rlcore.gradient_stats(probs, samples, b2).mean
        q = np.array([np.mean(s) for s in samples])
        np.testing.assert_allclose(m1, m0, atol=1e-9)
        np.testing.assert_allclose(m2, m0, atol=1e-9)
        np.testing.assert_allclose(m0, probs * (q - probs @ q), atol=1e-9)  # E[g] = π ⊙ A


@SETTINGS
@given(policy_and_samples())
def test_optimal_baseline_is_no_worse_than_zero_or_v(case):
    probs, samples = case
    with strict():
        q = np.array([np.mean(s) for s in samples])
        best = rlcore.gradient_stats(probs, samples, rlcore.optimal_baseline(probs, samples)).total_variance
        for b in (0.0, float(probs @ q)):
            other = rlcore.gradient_stats(probs, samples, b).total_variance
            assert best <= other + 1e-9 * (1 + other)


# ---------------------------------------------------------------- softmax


@SETTINGS
@given(st.lists(st.floats(min_value=-1e3, max_value=1e3), min_size=1, max_size=12),
       st.floats(min_value=0.0, exclude_min=True, max_value=1e300))
def test_softmax_is_a_distribution(logits, temperature):
    with strict():
        p = rlcore.softmax(logits, temperature)
    assert p.shape == (len(logits),)
    assert np.all(p >= 0)
    assert abs(p.sum() - 1.0) <= 1e-12
    assert p[int(np.argmax(logits))] == p.max()  # the largest logit keeps the largest probability


@SETTINGS
@given(st.lists(st.floats(min_value=-50, max_value=50), min_size=1, max_size=12),
       st.floats(min_value=-1e3, max_value=1e3))
def test_softmax_ignores_a_shift_and_log_softmax_agrees(logits, shift):
    with strict():
        p = rlcore.softmax(logits)
        np.testing.assert_allclose(rlcore.softmax(np.asarray(logits) + shift), p, rtol=1e-9, atol=1e-300)
        np.testing.assert_allclose(np.exp(rlcore.log_softmax(logits)), p, rtol=1e-9, atol=1e-300)


# ---------------------------------------------------------------- KL


@SETTINGS
@given(paired_probs(floor=0.05))
def test_kl_is_non_negative_and_zero_only_for_equal_distributions(pair):
    p, q = pair
    with strict():
        kl = rlcore.kl_divergence(p, q)
        assert rlcore.kl_divergence(p, p) == 0.0
    assert kl >= 0.0
    l1 = float(np.abs(p - q).sum())
    assert kl >= 0.5 * l1**2 - 1e-12  # Pinsker: KL > 0 whenever p ≠ q
    if l1 > 1e-6:
        assert kl > 0.0


@SETTINGS
@given(paired_probs(floor=0.01))
def test_kl_estimators_are_unbiased_under_pi(pair):
    pi, ref = pair
    with strict():
        est = rlcore.kl_estimators(np.log(pi), np.log(ref))
        kl = rlcore.kl_divergence(pi, ref)
        # the expectation over a ~ π, taken exactly by enumerating the categorical
        assert abs(float(pi @ est.k1) - kl) <= 1e-9 * (1 + kl)
        assert abs(float(pi @ est.k3) - kl) <= 1e-9 * (1 + kl)
    assert np.all(est.k3 >= 0) and np.all(est.k2 >= 0)


@SETTINGS
@given(st.integers(2, 6).flatmap(lambda k: st.tuples(
    probs_strategy(k, k, floor=0.01),
    st.lists(st.floats(-10, 10), min_size=k, max_size=k),
    st.floats(0.05, 10),
    probs_strategy(k, k),
    st.floats(1e-3, 1.0))))
def test_kl_optimal_policy_beats_perturbations(case):
    ref, rewards, beta, direction, t = case
    with strict():
        best = rlcore.kl_optimal_policy(ref, rewards, beta)
        j_best = rlcore.kl_regularized_objective(best, rewards, ref, beta).objective
        mixed = (1 - t) * best + t * direction            # stays inside the simplex
        tilted = best * np.exp(t * (direction - direction.mean()))
        for other in (mixed / mixed.sum(), tilted / tilted.sum(), ref):
            j_other = rlcore.kl_regularized_objective(other, rewards, ref, beta).objective
            assert j_best >= j_other - 1e-9 * (1 + abs(j_best))


# ---------------------------------------------------------------- PPO clipping


@SETTINGS
@given(st.lists(st.tuples(st.floats(0, 10), st.floats(-100, 100)), min_size=1, max_size=10),
       st.floats(1e-3, 0.99), st.none() | st.floats(1e-3, 5))
def test_clipped_objective_never_exceeds_unclipped(pairs, eps, eps_high):
    rho = np.array([r for r, _ in pairs])
    adv = np.array([a for _, a in pairs])
    with strict():
        out = rlcore.clipped_objective(rho, adv, eps=eps, eps_high=eps_high)
    assert np.all(out <= rho * adv)
    # and it differs from ρA only where is_clipped says so
    clipped = rlcore.is_clipped(rho, adv, eps=eps, eps_high=eps_high)
    assert np.all((out == rho * adv) | clipped)


# ---------------------------------------------------------------- group advantages, returns
