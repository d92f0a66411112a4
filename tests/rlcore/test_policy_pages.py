"""Unit tests of the policy functions added for the policy-gradient page (hand-computed values)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlcore
from rlcore import policy_gradient_trace, turning_steps
from tests.rejects import rejects


def test_turning_steps_on_the_article_path():
    # closed: 0.30 → 0.36 (up, step 1) → 0.11 (down, step 2); open only falls; partly only rises.
    assert turning_steps([[0.5, 0.3, 0.2], [0.15, 0.36, 0.49], [0.04, 0.11, 0.85]]).tolist() == [0, 2, 0]


def test_turning_steps_first_fall_after_any_rise():
    column = np.array([[0.5], [0.4], [0.45], [0.47], [0.3], [0.5], [0.1]])  # down, up, up, DOWN (step 4), ...
    assert turning_steps(column).tolist() == [4]


def test_turning_steps_needs_a_rise_first():
    assert turning_steps([[0.5], [0.4], [0.3]]).tolist() == [0]   # only falls
    assert turning_steps([[0.1], [0.2], [0.3]]).tolist() == [0]   # only rises
    assert turning_steps([[0.2], [0.2], [0.2]]).tolist() == [0]   # flat
    assert turning_steps([[0.2]]).tolist() == [0]                 # no step at all


def test_turning_steps_ignores_changes_within_tol():
    probs = [[0.3], [0.3 + 1e-14], [0.2]]
    assert turning_steps(probs).tolist() == [0]
    assert turning_steps(probs, tol=0.0).tolist() == [2]


def test_policy_gradient_trace_two_tokens_by_hand():
    # π = (0.5, 0.5), Q = (0, 2): V = 1, A = (−1, +1), Δz = π·A = (−0.5, +0.5);
    # π₁ = (e^−0.5, e^0.5) / (e^−0.5 + e^0.5) = (1, e) / (1 + e).
    tr = policy_gradient_trace([0.5, 0.5], [0.0, 2.0], 1.0, 1)
    np.testing.assert_allclose(tr.advantages[0], [-1.0, 1.0])
    np.testing.assert_allclose(tr.logit_changes[0], [-0.5, 0.5])
    e = math.e
    np.testing.assert_allclose(tr.probs[1], [1 / (1 + e), e / (1 + e)])
    np.testing.assert_allclose(tr.values, [1.0, 2 * e / (1 + e)])
    assert tr.direction.tolist() == [[-1, 1]]
    assert tr.turning_step.tolist() == [0, 0]


def test_policy_gradient_trace_article_steps():
    s = rlcore.ARTICLE_SCENARIO
    tr = policy_gradient_trace(s.pi, s.q, 1.0, 2)
    np.testing.assert_allclose(tr.logit_changes[0], [-1.15, 0.21, 0.94])          # 0.5·(−2.3), 0.3·0.7, 0.2·4.7
    np.testing.assert_allclose(tr.advantages[0], [-2.3, 0.7, 4.7])
    np.testing.assert_allclose(tr.values, [4.3, 6.512, 8.302], atol=5e-4)
    np.testing.assert_allclose(tr.probs[1], [0.152, 0.356, 0.492], atol=5e-4)
    np.testing.assert_allclose(tr.probs[2], [0.039, 0.106, 0.855], atol=5e-4)
    assert tr.direction.tolist() == [[-1, 1, 1], [-1, -1, 1]]
    assert tr.turning_step.tolist() == [0, 2, 0]   # closed rises in step 1, falls in step 2
    assert tr.advantages[1, 1] < 0                 # because Q(closed) = 5 < V = 6.5


def test_policy_gradient_trace_zero_step_size_moves_nothing():
    tr = policy_gradient_trace([0.5, 0.3, 0.2], [2.0, 5.0, 9.0], 0.0, 3)
    assert tr.logit_changes.tolist() == [[0.0, 0.0, 0.0]] * 3
    assert tr.direction.tolist() == [[0, 0, 0]] * 3
    assert tr.turning_step.tolist() == [0, 0, 0]
    np.testing.assert_allclose(tr.values, [4.3] * 4)


def test_policy_gradient_trace_no_steps():
    tr = policy_gradient_trace([0.5, 0.5], [1.0, 3.0], 1.0, 0)
    assert tr.probs.shape == (1, 2) and tr.logit_changes.shape == (0, 2) and tr.direction.shape == (0, 2)
    assert tr.turning_step.tolist() == [0, 0]


def test_a_token_can_turn_while_its_advantage_is_still_positive():
    # Rare best token: partly (π 0.02, Q 9) rises in step 1, then loses share to closed, whose push is larger,
    # although its own advantage stays positive.
    s = rlcore.PRESETS["Best token is rare (2%)"]
    tr = policy_gradient_trace(s.pi, s.q, 1.0, 3)
    partly = s.index("partly")
    assert tr.turning_step[partly] == 2
    assert tr.advantages[1, partly] > 0


@pytest.mark.parametrize(("args", "name"), [
    (([0.5, 0.5], [1.0, 2.0], -1.0, 2), "lr"),
    (([0.5, 0.5], [1.0, 2.0], 1.0, -1), "steps"),
    (([0.6, 0.5], [1.0, 2.0], 1.0, 2), "probs"),
    (([0.5, 0.5], [1.0, 2.0, 3.0], 1.0, 2), "same length"),
])
def test_policy_gradient_trace_rejects_bad_input(args, name):
    rejects(lambda: policy_gradient_trace(*args), name)
