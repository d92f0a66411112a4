"""rlcore.kl_placement: which KL each placement's gradient follows, and the estimators' values, by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlcore
from rlcore.studies.kl_placement import FOLLOWS, PLACEMENTS, kl_placements
from tests.rejects import rejects

# π = (½, ½), π_ref = (0.8, 0.2): ℓ = log π − log π_ref = (log 0.625, log 2.5), r = π_ref/π = (1.6, 0.4)
PI, REF = [0.5, 0.5], [0.8, 0.2]
L1, L2 = math.log(0.625), math.log(2.5)
KL = 0.5 * (L1 + L2)  # = ½ log(1.5625)


def test_two_tokens_by_hand():
    res = kl_placements(PI, REF)
    assert res.follows == ("nothing (zero)", "the reverse KL", "the forward KL", "the reverse KL",
                           "neither KL", "neither KL")
    # forward: π − π_ref; reverse: π ⊙ (ℓ − KL) = ½ (ℓ₁ − KL, ℓ₂ − KL) = ±¼ (ℓ₁ − ℓ₂) = ∓½ log 2
    np.testing.assert_allclose(res.forward, [-0.3, 0.3], atol=1e-12)
    np.testing.assert_allclose(res.reverse, [-0.5 * math.log(2), 0.5 * math.log(2)], atol=1e-12)
    np.testing.assert_allclose(res.gradients[0], [0, 0], atol=1e-15)
    # k3 in the reward: E[k3 (e_a − π)] = ¼ (k3(a₁) − k3(a₂)) (1, −1), k3 = r − 1 − log r
    k3 = [1.6 - 1 - math.log(1.6), 0.4 - 1 - math.log(0.4)]
    np.testing.assert_allclose(res.gradients[5], [0.25 * (k3[0] - k3[1]), -0.25 * (k3[0] - k3[1])], atol=1e-12)
    assert res.kl == pytest.approx(0.5 * math.log(1.5625), abs=1e-12)


def test_estimator_values_by_hand():
    res = kl_placements(PI, REF)
    k3 = [1.6 - 1 - math.log(1.6), 0.4 - 1 - math.log(0.4)]
    # k1 and k3 average to the KL; k2 to ½ E[ℓ²]; with two equally likely tokens SD = |x₁ − x₂| / 2
    np.testing.assert_allclose(res.estimator_mean, [KL, 0.25 * (L1**2 + L2**2), KL], atol=1e-12)
    np.testing.assert_allclose(res.estimator_sd, [abs(L1 - L2) / 2, abs(L1**2 - L2**2) / 4,
                                                  abs(k3[0] - k3[1]) / 2], atol=1e-12)
    np.testing.assert_allclose(res.estimator_min, [L1, 0.5 * L1**2, k3[0]], atol=1e-12)
    assert res.estimator_min[0] < 0 < res.estimator_min[2]  # k1 can be negative, k3 never


def test_cosines_two_tokens_are_plus_or_minus_one():
    # with two tokens every gradient is a multiple of (1, −1): cosine ±1, or undefined for the zero one
    res = kl_placements(PI, REF)
    assert math.isnan(res.cosine[0])
    np.testing.assert_allclose(res.cosine[1:4], [1, 1, 1], atol=1e-12)


def test_three_tokens_k3_in_the_loss_is_a_different_direction():
    pi, ref = np.array([0.2, 0.3, 0.5]), np.array([0.5, 0.3, 0.2])
    res = kl_placements(pi, ref)
    fwd = pi - ref
    ell = np.log(pi / ref)
    rev = pi * (ell - pi @ ell)
    expected = fwd @ rev / (np.linalg.norm(fwd) * np.linalg.norm(rev))
    assert res.cosine[2] == pytest.approx(expected, abs=1e-12)
    assert expected < 1 - 1e-3
    assert res.follows[2] == "the forward KL"


def test_at_the_reference_everything_vanishes():
    res = kl_placements([0.5, 0.3, 0.2], [0.5, 0.3, 0.2])
    assert res.follows == (FOLLOWS[5],) * len(PLACEMENTS)
    assert np.all(np.isnan(res.cosine))
    np.testing.assert_allclose(res.estimator_mean, 0, atol=1e-15)
    assert res.kl == 0


def test_token_neither_can_write_gets_zero():
    res = kl_placements([0.5, 0.5, 0.0], [0.8, 0.2, 0.0])
    np.testing.assert_allclose(res.gradients[:, 2], 0, atol=1e-15)
    assert res.follows[2] == "the forward KL"


@pytest.mark.parametrize("pi, ref, match", [([0.5, 0.5], [1.0, 0.0], "pi_ref"), ([0.5, 0.5], [1.0], "same length"),
                                            ([0.6, 0.6], [0.5, 0.5], "pi")])
def test_bad_input_names_the_argument(pi, ref, match):
    rejects(lambda: kl_placements(pi, ref), match)


# ---- page 13's study: the placements along a policy-gradient path away from π_ref

def test_kl_placement_path_follows_the_policy_gradient_path():
    path = rlcore.kl_placement_path([0.5, 0.3, 0.2], [2.0, 5.0, 9.0], 0.3, 4)
    steps = rlcore.policy_gradient_path([0.5, 0.3, 0.2], [2.0, 5.0, 9.0], 0.3, 4)
    np.testing.assert_allclose(path.probs, steps.probs, rtol=1e-12)
    assert len(path.placements) == 5 and path.cosine.shape == (5, 6) and path.worst.shape == (5,)
    for p, row in zip(steps.probs, path.placements, strict=True):    # each step against π_ref = the start
        np.testing.assert_allclose(row.gradients, rlcore.kl_placements(p, [0.5, 0.3, 0.2]).gradients, atol=1e-15)
    # before the first step π = π_ref: every pull is 0, no cosine, no worst placement
    assert path.placements[0].follows == ("all vanish",) * 6
    assert np.isnan(path.cosine[0]).all() and path.worst[0] == -1
    # after it: k1 in the loss is 0 (no direction); k2 in the loss and k1 in the reward are the true gradient
    assert np.isnan(path.cosine[1:, 0]).all()
    np.testing.assert_allclose(path.cosine[1:, [1, 3]], 1.0, atol=1e-12)
    for cos, worst in zip(path.cosine[1:], path.worst[1:], strict=True):
        assert worst >= 0 and cos[worst] == np.nanmin(cos)


def test_kl_placement_path_with_two_tokens_and_equal_scores():
    # two tokens: every gradient sums to 0 over the logits, so it lies along (1, −1): each cosine is ±1 or none
    path = rlcore.kl_placement_path([0.5, 0.5], [0.0, 2.0], 1.0, 3)
    moved = path.cosine[1:]
    assert np.all(np.isnan(moved) | np.isclose(np.abs(moved), 1.0))
    flat = rlcore.kl_placement_path([0.5, 0.5], [1.0, 1.0], 1.0, 3)  # Q − V = 0: π never leaves π_ref
    np.testing.assert_allclose(flat.probs, 0.5)
    assert (flat.worst == -1).all()
    rejects(lambda: rlcore.kl_placement_path([0.5, 0.5], [1.0, 1.0], 1.0, -1), "steps")


def test_the_path_holds_every_steps_gradients_as_each_steps_placements_give_them():
    path = rlcore.kl_placement_path(rlcore.ARTICLE_SCENARIO.pi, rlcore.ARTICLE_SCENARIO.q, 0.5, 4)
    k = rlcore.ARTICLE_SCENARIO.pi.size
    assert path.gradients.shape == (5, len(PLACEMENTS), k) and path.true.shape == (5, k)
    for t in range(path.probs.shape[0]):
        own = rlcore.kl_placements(path.probs[t], path.probs[0])
        np.testing.assert_array_equal(path.gradients[t], own.gradients)
        np.testing.assert_array_equal(path.true[t], own.reverse)
