"""rlcore.diagnostics: KL gradients, truncated IS weights, entropy and its change, pass@k.

Expected values are worked out by hand in the comments, or come from an independent computation
(finite differences, a plain loop over tokens, exact binomial sums, math.comb).
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rlcore

LOG2, LOG125 = math.log(2.0), math.log(1.25)


@st.composite
def policies(draw, k=None, low=0.01):
    """A probability vector of k entries, each ≥ ``low`` (so its logits are moderate)."""
    k = draw(st.integers(2, 5)) if k is None else k
    w = np.array(draw(st.lists(st.floats(low, 1.0), min_size=k, max_size=k)))
    if w.sum() == 0:
        w[0] = 1.0
    return w / w.sum()


@st.composite
def policy_pairs(draw):
    k = draw(st.integers(2, 5))
    return draw(policies(k)), draw(policies(k))


def _kl(p, q):
    return float(np.sum(p * (np.log(p) - np.log(q))))


def _softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def _central_difference(f, z, h=1e-6):
    grad = np.empty_like(z)
    for b in range(z.size):
        step = np.zeros_like(z)
        step[b] = h
        grad[b] = (f(z + step) - f(z - step)) / (2 * h)
    return grad


# ---------------------------------------------------------------- kl_gradients


def test_kl_gradients_by_hand():
    # π = (½, ½), π_ref = (0.8, 0.2): ℓ = log π/π_ref = (log 0.625, log 2.5), KL(π‖π_ref) = ½ log(0.625·2.5) = log 1.25.
    # reverse = π⊙(ℓ − KL) = ½(log 0.5, log 2) = (−½ log 2, ½ log 2)
    # forward = π − π_ref = (−0.3, 0.3)
    # k2_reward = π⊙(k2 − E k2) = ¼(k2₀ − k2₁)(1, −1) = ⅛(ℓ₀² − ℓ₁²)(1, −1), ℓ₀² − ℓ₁² = log 0.25 · log 1.5625
    #           = −4 log 2 log 1.25, so (−½ log 2 log 1.25, +½ log 2 log 1.25)
    # k3 = r − 1 − log r, r = (1.6, 0.4): k3₀ − k3₁ = 1.2 − log 4, k3_reward = ¼(1.2 − log 4)(1, −1)
    g = rlcore.kl_gradients([0.5, 0.5], [0.8, 0.2])
    half = 0.5 * LOG2
    np.testing.assert_allclose(g.reverse, [-half, half], rtol=1e-13)
    np.testing.assert_allclose(g.forward, [-0.3, 0.3], rtol=1e-13)
    np.testing.assert_allclose(g.k1_loss, [0.0, 0.0], atol=1e-16)
    np.testing.assert_allclose(g.k2_loss, [-half, half], rtol=1e-13)
    np.testing.assert_allclose(g.k3_loss, [-0.3, 0.3], rtol=1e-13)
    np.testing.assert_allclose(g.k1_reward, [-half, half], rtol=1e-13)
    np.testing.assert_allclose(g.k2_reward, [-half * LOG125, half * LOG125], rtol=1e-12)
    q = 0.25 * (1.2 - math.log(4.0))
    np.testing.assert_allclose(g.k3_reward, [q, -q], rtol=1e-12)
    for v in (g.k2_reward, g.k3_reward):  # k2 and k3 in the reward follow neither KL
        assert not np.allclose(v, g.reverse) and not np.allclose(v, g.forward)


@settings(max_examples=60, deadline=None)
@given(policy_pairs())
def test_every_gradient_matches_its_definition(pair):
    """reverse and forward: finite differences of the two KLs; kᵢ_loss = Σₐ πₐ ∇_z kᵢ(a), each ∇_z kᵢ(a) by finite
    differences of the estimator's value through log π(a); kᵢ_reward = Σₐ πₐ kᵢ(a) (e_a − π), a plain loop over
    tokens with kl_estimators' values."""
    pi, ref = pair
    g = rlcore.kl_gradients(pi, ref)
    z = np.log(pi)
    np.testing.assert_allclose(g.reverse, _central_difference(lambda x: _kl(_softmax(x), ref), z), atol=1e-7)
    np.testing.assert_allclose(g.forward, _central_difference(lambda x: _kl(ref, _softmax(x)), z), atol=1e-7)
    est = rlcore.kl_estimators(np.log(pi), np.log(ref))
    for which in ("k1", "k2", "k3"):
        loss, reward = np.zeros_like(pi), np.zeros_like(pi)
        for a in range(pi.size):
            def k(x, a=a, which=which):
                return getattr(rlcore.kl_estimators([np.log(_softmax(x))[a]], [np.log(ref[a])]), which)[0]
            loss += pi[a] * _central_difference(k, z)
            reward += pi[a] * getattr(est, which)[a] * (np.eye(pi.size)[a] - pi)
        np.testing.assert_allclose(getattr(g, f"{which}_loss"), loss, atol=1e-7, err_msg=which)
        np.testing.assert_allclose(getattr(g, f"{which}_reward"), reward, atol=1e-12, err_msg=which)


@given(policy_pairs())
def test_kl_gradient_identities(pair):
    pi, ref = pair
    g = rlcore.kl_gradients(pi, ref)
    np.testing.assert_allclose(g.k1_loss, 0.0, atol=1e-15)
    np.testing.assert_allclose(g.k2_loss, g.reverse, atol=1e-14)
    np.testing.assert_allclose(g.k3_loss, g.forward, atol=1e-14)
    np.testing.assert_allclose(g.forward, pi - ref, atol=1e-15)
    np.testing.assert_allclose(g.k1_reward, g.reverse, atol=1e-14)
    for field, v in vars(g).items():  # adding a constant to every logit changes nothing
        assert abs(v.sum()) <= 1e-12, field


@given(policies())
def test_every_kl_gradient_vanishes_at_the_reference(pi):
    for field, v in vars(rlcore.kl_gradients(pi, pi)).items():
        np.testing.assert_allclose(v, 0.0, atol=1e-15, err_msg=field)


def test_tokens_neither_policy_can_write_get_no_gradient():
    with_zero = rlcore.kl_gradients([0.5, 0.5, 0.0], [0.8, 0.2, 0.0])
    without = rlcore.kl_gradients([0.5, 0.5], [0.8, 0.2])
    for a, b in zip(vars(with_zero).values(), vars(without).values(), strict=True):
        assert a[2] == 0.0
        np.testing.assert_allclose(a[:2], b, rtol=1e-15, atol=1e-17)


def test_a_token_pi_lost_gets_the_limit_of_each_gradient():
    # π = [1, 0], π_ref = [½, ½]: KL(π_ref‖π) is infinite, yet as π₂ → 0 (π·ℓ → 0, π·k3 → π_ref) the gradients
    # tend to: reverse = π⊙(ℓ − KL) = 0 (ℓ₁ = log 2 = KL); forward = k3_loss = π − π_ref = [½, −½];
    # k3_reward = π⊙k3 − π·Σπ⊙k3 with π⊙k3 = [½ − 1 + log 2, ½]: [log 2 − ½ − (log 2), ½] = [−½, ½]
    g = rlcore.kl_gradients([1.0, 0.0], [0.5, 0.5])
    np.testing.assert_allclose(g.reverse, [0.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(g.forward, [0.5, -0.5], atol=1e-15)
    np.testing.assert_allclose(g.k3_loss, [0.5, -0.5], atol=1e-15)
    np.testing.assert_allclose(g.k3_reward, [-0.5, 0.5], atol=1e-15)
    limit = rlcore.kl_gradients([1 - 1e-15, 1e-15], [0.5, 0.5])  # the same, approached (π log π ≈ 3e-14)
    for f in dataclasses.fields(g):
        np.testing.assert_allclose(getattr(g, f.name), getattr(limit, f.name), atol=1e-12, err_msg=f.name)
    # π = 1e-300 on one token: r = π_ref/π ≈ 1e300 there, but every gradient stays finite
    tiny = rlcore.kl_gradients([1 - 1e-300, 1e-300], [0.5, 0.5])
    assert all(np.all(np.isfinite(v)) for v in vars(tiny).values())
    np.testing.assert_allclose(tiny.k3_loss, [0.5, -0.5], atol=1e-15)  # π − π_ref


# ---------------------------------------------------------------- truncated_is_weights


@pytest.mark.parametrize(("train", "rollout", "cap", "truncated", "masked"), [
    # w = π_train/π_rollout = 0.3/0.1, 0.2/0.2, 0.1/0.3, 0.5/0.25 = 3, 1, 1/3, 2; cap 2.5
    (np.log([0.3, 0.2, 0.1, 0.5]), np.log([0.1, 0.2, 0.3, 0.25]), 2.5, [2.5, 1, 1 / 3, 2], [0, 1, 1 / 3, 2]),
    # a batch keeps its shape: w = [[4, 1], [3, 1]], cap 2
    (np.log([[0.4, 0.1], [0.9, 0.5]]), np.log([[0.1, 0.1], [0.3, 0.5]]), 2.0, [[2, 1], [2, 1]], [[0, 1], [0, 1]]),
    ([0.0], [-800.0], 3.0, [3.0], [0.0]),        # exp(800) overflows float64; it is still above the cap
])
def test_truncated_is_weights_by_hand(train, rollout, cap, truncated, masked):
    np.testing.assert_allclose(rlcore.truncated_is_weights(train, rollout, cap), truncated, rtol=1e-14)
    np.testing.assert_allclose(rlcore.truncated_is_weights(train, rollout, cap, "mask"), masked, rtol=1e-14)


@given(st.lists(st.tuples(st.floats(-30, 0), st.floats(-30, 0)), min_size=1, max_size=8), st.floats(0.01, 100))
def test_truncate_and_mask_agree_below_the_cap(pairs, cap):
    train, rollout = np.array(pairs).T
    w = np.exp(train - rollout)
    t = rlcore.truncated_is_weights(train, rollout, cap)
    m = rlcore.truncated_is_weights(train, rollout, cap, "mask")
    below = w <= cap
    np.testing.assert_allclose(t[below], w[below], rtol=1e-15)
    np.testing.assert_allclose(m[below], w[below], rtol=1e-15)
    assert np.all(t[~below] == cap) and np.all(m[~below] == 0)


# ---------------------------------------------------------------- entropy


@pytest.mark.parametrize(("pi", "expected"), [
    ([0.5, 0.5], LOG2),                    # −2·½ log ½
    ([0.25] * 4, 2 * LOG2),                # log 4
    ([0.5, 0.25, 0.25], 1.5 * LOG2),       # ½ log 2 + 2·¼ log 4
    ([1.0, 0.0, 0.0], 0.0),                # 0·log 0 = 0
    ([[0.5, 0.5], [1.0, 0.0]], [LOG2, 0.0]),  # a batch: one entropy per row
])
def test_entropy_by_hand(pi, expected):
    np.testing.assert_allclose(rlcore.entropy(pi), expected, atol=1e-15)


@given(policies(low=0.0))
def test_entropy_between_0_and_log_k(pi):
    h = rlcore.entropy(pi)
    assert 0.0 <= h <= math.log(pi.size) + 1e-12


# ---------------------------------------------------------------- entropy_change


@pytest.mark.parametrize(("pi", "dz", "expected"), [
    # π = (0.8, 0.2), Δz = (1, 0). For two tokens Cov(log π, Δz) = π₀π₁(log π₀ − log π₁)(Δz₀ − Δz₁)
    # = 0.16 · log 4 · 1, so ΔH ≈ −0.16 log 4 (raising the likelier token lowers the entropy)
    ([0.8, 0.2], [1.0, 0.0], -0.32 * LOG2),
    ([0.8, 0.2], [0.0, 1.0], 0.32 * LOG2),
    ([[0.8, 0.2], [0.5, 0.5]], [[1.0, 0.0], [1.0, 0.0]], [-0.32 * LOG2, 0.0]),   # a batch: one change per row
])
def test_entropy_change_by_hand(pi, dz, expected):
    np.testing.assert_allclose(rlcore.entropy_change(pi, dz), expected, rtol=1e-13, atol=1e-15)


@settings(max_examples=100, deadline=None)
@given(policies(), st.data())
def test_entropy_change_matches_a_small_step_of_the_logits(pi, data):
    dz = np.array(data.draw(st.lists(st.floats(-3, 3), min_size=pi.size, max_size=pi.size)))
    z, h = np.log(pi), 1e-6
    numeric = (rlcore.entropy(_softmax(z + h * dz)) - rlcore.entropy(_softmax(z - h * dz))) / (2 * h)
    assert rlcore.entropy_change(pi, dz) == pytest.approx(numeric, abs=1e-7)


@given(st.integers(2, 6), st.floats(-5, 5))
def test_no_first_order_change_at_the_uniform_policy_or_for_a_shift(k, c):
    dz = np.linspace(-1, 2, k)
    assert rlcore.entropy_change(np.full(k, 1 / k), dz) == pytest.approx(0.0, abs=1e-15)
    assert rlcore.entropy_change([0.7] + [0.3 / (k - 1)] * (k - 1), np.full(k, c)) == pytest.approx(0.0, abs=1e-12)


def test_policy_gradient_on_a_likely_rewarded_token_collapses_entropy():
    # Δz_a ∝ π_a A_a: the likely token (0.7) has A > 0, the others A < 0 (Σ π A = 0)
    pi = np.array([0.7, 0.2, 0.1])
    adv = np.array([1.0, -2.0, -3.0])  # 0.7 − 0.4 − 0.3 = 0
    assert rlcore.entropy_change(pi, pi * adv) < 0


# ---------------------------------------------------------------- pass@k


@pytest.mark.parametrize(("p", "k", "expected"), [
    ([0.2, 0.5, 0.0, 1.0], [2, 3, 5, 5], [0.36, 0.875, 0.0, 1.0]),   # 1 − 0.8², 1 − 0.5³; p = 0 never, 1 always
    (0.2, 1, 0.2),
    ([0.1, 0.5], [[1], [2]], [[0.1, 0.5], [0.19, 0.75]]),            # broadcast: rows k, columns p; 1 − 0.9²
])
def test_pass_at_k_by_hand(p, k, expected):
    np.testing.assert_allclose(rlcore.pass_at_k(p, k), expected, rtol=1e-14)


@pytest.mark.parametrize(("n", "c", "k", "expected"), [
    (4, 1, 2, 0.5),      # 1 − C(3,2)/C(4,2) = 1 − 3/6
    (5, 2, 2, 0.7),      # 1 − C(3,2)/C(5,2) = 1 − 3/10
    (10, 3, 1, 0.3),     # k = 1: c/n
    (10, 0, 4, 0.0),     # nothing right
    (5, 4, 2, 1.0),      # n − c = 1 < k: every choice of 2 holds a right one
    (7, 7, 3, 1.0),
])
def test_pass_at_k_estimate_by_hand(n, c, k, expected):
    assert rlcore.pass_at_k_estimate(n, c, k) == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize("n", [1, 2, 5, 8])
@pytest.mark.parametrize("p", [0.0, 0.1, 0.37, 0.9, 1.0])
def test_pass_at_k_estimate_is_unbiased(n, p):
    # Σ_c C(n,c) pᶜ(1−p)ⁿ⁻ᶜ · estimate(n, c, k) = 1 − (1−p)^k, for every k ≤ n
    for k in range(1, n + 1):
        mean = sum(math.comb(n, c) * p**c * (1 - p) ** (n - c) * rlcore.pass_at_k_estimate(n, c, k)
                   for c in range(n + 1))
        assert mean == pytest.approx(rlcore.pass_at_k(p, k), abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_pass_at_k_estimate_matches_math_comb(data):
    n = data.draw(st.integers(1, 10_000))
    c = data.draw(st.integers(0, n))
    k = data.draw(st.integers(1, n))
    exact = float(1 - Fraction(math.comb(n - c, k), math.comb(n, k)))
    assert rlcore.pass_at_k_estimate(n, c, k) == pytest.approx(exact, rel=1e-9, abs=1e-12)


def test_pass_at_k_estimate_large_n():
    # n = 10,000, c = 37, k = 100: C(n, k) has 242 digits; the product form needs none of them
    exact = float(1 - Fraction(math.comb(10_000 - 37, 100), math.comb(10_000, 100)))
    assert rlcore.pass_at_k_estimate(10_000, 37, 100) == pytest.approx(exact, rel=1e-12)
