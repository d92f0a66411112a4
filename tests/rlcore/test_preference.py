"""rlcore.preference: Bradley–Terry, the reward-model fit, DPO and IPO; vectors worked by hand from the formulas,
identities between them and the KL-regularised optimum, finite-difference gradients."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlcore.formulas.kl import kl_optimal_policy
from rlcore.formulas.preference import (
    bt_prob,
    dpo_loss,
    dpo_margins,
    dpo_weights,
    fit_reward_model,
    implicit_reward,
    ipo_loss,
)
from tests.rejects import rejects

LOG3 = math.log(3.0)
finite = st.floats(-50, 50, allow_nan=False)


def pairs_from_counts(table):
    """(winners, losers) from rows (i, j, times i beat j, times j beat i)."""
    winners, losers = [], []
    for i, j, a, b in table:
        winners += [i] * a + [j] * b
        losers += [j] * a + [i] * b
    return np.array(winners), np.array(losers)


# Rewards 0, log 2, log 6: σ(log 2) = 2/3, σ(log 6) = 6/7, σ(log 3) = 3/4, so integer counts are exact proportions.
EXACT_R = np.log([1.0, 2.0, 6.0])
EXACT_COUNTS = [(1, 0, 2, 1), (2, 0, 6, 1), (2, 1, 3, 1)]


# --- Bradley–Terry -----------------------------------------------------------------------------------------------

def test_bt_prob_hand_values():
    assert bt_prob(LOG3, 0.0) == pytest.approx(0.75)        # 3 / (1 + 3)
    assert bt_prob(0.0, LOG3) == pytest.approx(0.25)
    assert bt_prob(4.0, 4.0) == 0.5
    assert bt_prob(1.0, 0.0) == pytest.approx(math.e / (1 + math.e))
    np.testing.assert_allclose(bt_prob([2.0, 0.0], [2.0 - LOG3, LOG3]), [0.75, 0.25])
    assert bt_prob(1000.0, 0.0) == 1.0                       # finite in both tails
    assert bt_prob(1e308, -1e308) == 1.0                     # the difference overflows; σ is still 1
    tiny = bt_prob(-700.0, 0.0)
    assert tiny == pytest.approx(math.exp(-700.0), rel=1e-12)  # 1/(1 + e^700) = e^-700 (1 − e^-700 …)
    assert bt_prob(-1000.0, 0.0) == 0.0


@given(finite, finite, finite)
@settings(max_examples=60, deadline=None)
def test_bt_prob_properties(a, b, c):
    p = bt_prob(a, b)
    assert 0.0 <= p <= 1.0
    assert p + bt_prob(b, a) == pytest.approx(1.0)
    assert bt_prob(a + c, b + c) == pytest.approx(p, rel=1e-9, abs=1e-12)  # only the difference counts


@pytest.mark.parametrize(("call", "name"), [
    (lambda: bt_prob(float("nan"), 0.0), "r_a"), (lambda: bt_prob(0.0, "x"), "r_b"),
    (lambda: bt_prob([1.0, 2.0], [1.0, 2.0, 3.0]), "same shape"),
    (lambda: fit_reward_model([1], [0], 0), "n_items"), (lambda: fit_reward_model([3], [0], 3), "winners"),
    (lambda: fit_reward_model([1], [0.5], 3), "losers"), (lambda: fit_reward_model([1, 0], [0], 3), "same length"),
    (lambda: fit_reward_model([1, 1], [0, 1], 3), "differ"),
    (lambda: fit_reward_model([1, 0], [0, 1], 2, l2=-1.0), "l2"),
    (lambda: kl_optimal_policy([0.5, 0.5], [0.0, 1.0], 0.0), "beta"),
    (lambda: implicit_reward(-1.0, -1.0, 0.0), "beta"),
    (lambda: implicit_reward([-1.0], [float("-inf")], 1.0), "ref_logp"),
    (lambda: dpo_loss([0.0], [0.0], [0.0], [0.0], -1.0), "beta"),
    (lambda: dpo_loss([0.0, 1.0], [0.0], [0.0], [0.0], 1.0), "same shape"),
    (lambda: dpo_loss([0.0], [0.0], [0.0], [float("nan")], 1.0), "ref_rejected"),
    (lambda: dpo_loss([], [], [], [], 1.0), "logp_chosen"), (lambda: ipo_loss([0.0], [0.0], [0.0], [0.0], 0.0), "tau"),
])
def test_every_function_names_the_argument_it_rejects(call, name):
    rejects(call, name)


# --- the reward-model fit ----------------------------------------------------------------------------------------

def test_fit_two_items_three_to_one_and_one_comparison_with_a_ridge():
    # ∂/∂d of −3 log σ(d) − log σ(−d) is −3σ(−d) + σ(d) = 0 at σ(d) = 3/4: d = log 3, centred ±log3 / 2
    np.testing.assert_allclose(fit_reward_model([1, 1, 1, 0], [0, 0, 0, 1], 2), [-LOG3 / 2, LOG3 / 2])
    # one comparison 1 ≻ 0, r = (−x, x): loss −log σ(2x) + 2λx², zero slope at 2σ(−2x) = 4λx.
    # With 2x = log 3: σ(−log 3) = 1/4, so λ = 1 / (4 log 3).
    np.testing.assert_allclose(fit_reward_model([1], [0], 2, l2=1 / (4 * LOG3)), [-LOG3 / 2, LOG3 / 2])


def test_fit_exact_proportions_recovers_differences():
    w, lo = pairs_from_counts(EXACT_COUNTS)
    np.testing.assert_allclose(fit_reward_model(w, lo, 3), EXACT_R - EXACT_R.mean(), atol=1e-10)
    # ten times the data in the same proportions: the same maximum
    w10, lo10 = pairs_from_counts([(i, j, 10 * a, 10 * b) for i, j, a, b in EXACT_COUNTS])
    np.testing.assert_allclose(fit_reward_model(w10, lo10, 3), EXACT_R - EXACT_R.mean(), atol=1e-10)


def test_fit_unbounded_without_ridge_says_so():
    # item 2 beats everyone
    rejects(lambda: fit_reward_model([1, 2, 2], [0, 0, 1], 3), r"unbounded.*items \[2\] never lose")
    # two groups that never meet: each never loses to the other
    rejects(lambda: fit_reward_model([1, 0, 3, 2], [0, 1, 2, 3], 4), "never lose")
    assert np.all(np.isfinite(fit_reward_model([1, 2, 2], [0, 0, 1], 3, l2=0.1)))


@st.composite
def connected_comparisons(draw):
    """Comparisons over n items with a cycle 0 ≻ 1 ≻ … ≻ n−1 ≻ 0 inside, so every item loses to a chain."""
    n = draw(st.integers(2, 6))
    extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(1, n - 1)), max_size=30))
    w = [i for i in range(n)] + [a for a, _ in extra]
    lo = [(i + 1) % n for i in range(n)] + [(a + s) % n for a, s in extra]
    return np.array(w), np.array(lo), n


@given(connected_comparisons())
@settings(max_examples=40, deadline=None)
def test_fit_is_a_stationary_point_with_mean_zero(data):
    w, lo, n = data
    r = fit_reward_model(w, lo, n)
    assert abs(r.mean()) < 1e-12
    # first-order condition of the likelihood: each item's wins equal its expected wins under r
    wins = np.bincount(w, minlength=n)
    expected = np.zeros(n)
    np.add.at(expected, w, [1 / (1 + math.exp(r[b] - r[a])) for a, b in zip(w, lo, strict=True)])
    np.add.at(expected, lo, [1 / (1 + math.exp(r[a] - r[b])) for a, b in zip(w, lo, strict=True)])
    np.testing.assert_allclose(expected, wins, atol=1e-8)
    # relabelling the items relabels the fit
    perm = np.roll(np.arange(n), 1)
    np.testing.assert_allclose(fit_reward_model(perm[w], perm[lo], n)[perm], r, atol=1e-8)


# --- the KL-regularised optimum (rlcore.kl) meets the spec ------------------------------------------------------

def test_kl_optimal_policy_hand_value_and_edges():
    # π_ref (½, ½), r (0, log 3), β = 1: ∝ (½, 3/2) → (¼, ¾)
    np.testing.assert_allclose(kl_optimal_policy([0.5, 0.5], [0.0, LOG3], 1.0), [0.25, 0.75])
    out = kl_optimal_policy([0.5, 0.5, 0.0], [0.0, 1000.0, 1e6], 1e-3)   # r/β = 10⁶ and 10⁹: no overflow
    assert out.tolist() == [0.0, 1.0, 0.0]                                 # π_ref = 0 stays 0 whatever its reward


# --- implicit reward ---------------------------------------------------------------------------------------------

def test_implicit_reward_hand_values():
    assert implicit_reward(-1.0, -3.0, 0.5) == pytest.approx(1.0)
    np.testing.assert_allclose(implicit_reward([math.log(0.75), math.log(0.25)], [math.log(0.5)] * 2, 2.0),
                               [2 * math.log(1.5), 2 * math.log(0.5)])


@pytest.mark.parametrize("beta", [0.1, 1.0, 7.0])
def test_implicit_reward_at_the_optimum_is_r_minus_a_constant(beta):
    ref = np.array([0.5, 0.3, 0.2])
    r = np.array([2.0, 5.0, 9.0])
    pi = kl_optimal_policy(ref, r, beta)
    got = implicit_reward(np.log(pi), np.log(ref), beta)
    log_z = math.log(float(np.sum(ref * np.exp((r - r.max()) / beta)))) + r.max() / beta
    np.testing.assert_allclose(got, r - beta * log_z, atol=1e-9)


# --- DPO and IPO -------------------------------------------------------------------------------------------------

def test_dpo_and_ipo_loss_hand_values():
    assert dpo_loss([-1.0], [-1.0], [-1.0], [-1.0], 0.1) == pytest.approx(math.log(2))   # margin 0
    # margins log 3 and −log 3 at β = 1: −log ¾ and −log ¼, averaged
    lc = [math.log(0.75), math.log(0.25)]
    lr = [math.log(0.25), math.log(0.75)]
    ref = [math.log(0.5)] * 2
    np.testing.assert_allclose(dpo_margins(lc, lr, ref, ref), [LOG3, -LOG3])
    assert dpo_loss(lc, lr, ref, ref, 1.0) == pytest.approx((math.log(4 / 3) + math.log(4)) / 2)
    # β scales the margin: β = 2, margin log 3 / 2 is the same as β = 1, margin log 3
    assert dpo_loss([LOG3 / 2], [0.0], [0.0], [0.0], 2.0) == pytest.approx(math.log(4 / 3))
    # stable for large margins: −log σ(−m) ≈ m
    assert dpo_loss([0.0], [-1e5], [0.0], [0.0], 1.0) == 0.0
    assert dpo_loss([-1e5], [0.0], [0.0], [0.0], 1.0) == pytest.approx(1e5)
    assert ipo_loss([-1.0], [-2.0], [-1.0], [-1.0], 0.5) == 0.0        # IPO: margin 1 = 1/(2·0.5)
    assert ipo_loss([0.0], [0.0], [0.0], [0.0], 0.25) == pytest.approx(4.0)  # (0 − 2)²


@given(st.lists(st.tuples(finite, finite, finite, finite), min_size=1, max_size=8), finite,
       st.floats(0.01, 10))
@settings(max_examples=50, deadline=None)
def test_dpo_loss_properties(rows, c, beta):
    lc, lr, rc, rr = (np.array(col) for col in zip(*rows, strict=True))
    loss = dpo_loss(lc, lr, rc, rr, beta)
    assert loss >= 0.0 and math.isfinite(loss)
    # the same constant added to an answer's log π and log π_ref leaves the loss as it is
    assert dpo_loss(lc + c, lr, rc + c, rr, beta) == pytest.approx(loss, rel=1e-9, abs=1e-9)


def test_dpo_weights_hand_value_and_derivative():
    np.testing.assert_allclose(dpo_weights([LOG3, 0.0, -LOG3], 1.0), [0.25, 0.5, 0.75])
    # d/dm of −log σ(β m) is −β σ(−β m): check by central differences
    beta, h = 0.7, 1e-6
    for m in (-3.0, 0.2, 4.0):
        fd = (dpo_loss([m + h], [0.0], [0.0], [0.0], beta) - dpo_loss([m - h], [0.0], [0.0], [0.0], beta)) / (2 * h)
        assert fd == pytest.approx(-beta * dpo_weights([m], beta)[0], rel=1e-6)


def log_softmax(theta):
    z = theta - theta.max()
    return z - math.log(float(np.exp(z).sum()))


def pair_loss(theta, winners, losers, ref, beta):
    """DPO loss of a softmax policy over items with logits θ on the pairs (winners[n] ≻ losers[n])."""
    lp, lref = log_softmax(theta), np.log(ref)
    return dpo_loss(lp[winners], lp[losers], lref[winners], lref[losers], beta)


def numeric_grad(f, theta, h=1e-6):
    out = np.zeros_like(theta)
    for k in range(theta.size):
        e = np.zeros_like(theta)
        e[k] = h
        out[k] = (f(theta + e) - f(theta - e)) / (2 * h)
    return out


def test_dpo_gradient_formula_matches_finite_differences():
    # −(β/N) Σ σ(−β m)(e_w − e_l): ∇θ log π(a) = e_a − π, and the π terms cancel within a pair
    w, lo = np.array([0, 2, 1, 2]), np.array([1, 0, 2, 1])
    ref, beta = np.array([0.5, 0.3, 0.2]), 0.4
    theta = np.array([0.3, -0.2, 0.9])
    lp, lref = log_softmax(theta), np.log(ref)
    weights = dpo_weights(dpo_margins(lp[w], lp[lo], lref[w], lref[lo]), beta)
    formula = np.zeros(3)
    np.add.at(formula, w, -beta * weights / w.size)
    np.add.at(formula, lo, beta * weights / w.size)
    np.testing.assert_allclose(numeric_grad(lambda t: pair_loss(t, w, lo, ref, beta), theta), formula, atol=1e-8)


@pytest.mark.parametrize("beta", [0.3, 1.0, 4.0])
def test_dpo_gradient_is_zero_at_the_kl_optimum(beta):
    # preferences in exact Bradley–Terry proportions of EXACT_R: DPO's minimum is π_ref·exp(r/β)
    w, lo = pairs_from_counts(EXACT_COUNTS)
    ref = np.array([0.5, 0.3, 0.2])
    at_opt = np.log(kl_optimal_policy(ref, EXACT_R, beta))
    loss = lambda t: pair_loss(t, w, lo, ref, beta)  # noqa: E731
    np.testing.assert_allclose(numeric_grad(loss, at_opt), 0.0, atol=1e-8)
    assert np.abs(numeric_grad(loss, np.log(ref))).max() > 1e-3    # and not zero at the start


def test_dpo_minimum_is_the_optimum_of_the_fitted_reward_model():
    # on any pairs (here not in exact proportions), DPO's minimum is kl_optimal_policy of the Bradley–Terry fit
    w, lo = np.array([1, 2, 2, 0, 1, 2, 1]), np.array([0, 0, 1, 2, 2, 1, 0])
    ref, beta = np.array([0.6, 0.3, 0.1]), 0.5
    at_opt = np.log(kl_optimal_policy(ref, fit_reward_model(w, lo, 3), beta))
    np.testing.assert_allclose(numeric_grad(lambda t: pair_loss(t, w, lo, ref, beta), at_opt), 0.0, atol=1e-8)
