"""rlcore.policy additions for the Exploration page: temperature, discovery counts, run outcomes, seed bands.

Expected values are worked by hand in the comments, never taken from the code's output.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlcore
from tests.rejects import rejects


def test_temperature_probs_hand_values():
    # τ = 0.5 squares the probabilities: 0.64 / (0.64 + 0.04), 0.04 / 0.68
    np.testing.assert_allclose(rlcore.temperature_probs([0.8, 0.2], 0.5), [0.64 / 0.68, 0.04 / 0.68])
    # τ = 2 takes square roots: √0.5, √0.3, √0.2 normalised
    roots = np.sqrt([0.5, 0.3, 0.2])
    np.testing.assert_allclose(rlcore.temperature_probs([0.5, 0.3, 0.2], 2.0), roots / roots.sum())
    np.testing.assert_allclose(rlcore.temperature_probs([0.5, 0.3, 0.2], 1.0), [0.5, 0.3, 0.2])


def test_temperature_never_draws_a_token_with_probability_zero():
    hot = rlcore.temperature_probs([0.7, 0.3, 0.0], 1000.0)
    assert hot[2] == 0.0
    np.testing.assert_allclose(hot[:2], [0.5, 0.5], atol=1e-3)  # very hot: uniform over the support
    cold = rlcore.temperature_probs([0.5, 0.3, 0.2], 0.01)
    np.testing.assert_allclose(cold, [1.0, 0.0, 0.0], atol=1e-12)  # very cold: the argmax


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan")])
def test_temperature_must_be_positive(bad):
    rejects(lambda: rlcore.temperature_probs([0.5, 0.5], bad), "temperature")


@pytest.mark.parametrize(("p", "target", "k"), [
    (0.2, 0.5, 4),     # 1 − 0.8³ = 0.488 < 0.5 ≤ 1 − 0.8⁴ = 0.5904
    (0.2, 0.95, 14),   # 1 − 0.8¹³ = 0.945 < 0.95 ≤ 1 − 0.8¹⁴ = 0.956
    (0.5, 0.75, 2),    # exactly on the boundary: 1 − 0.5² = 0.75
    (0.02, 0.5, 35),   # 1 − 0.98³⁴ = 0.4969, 1 − 0.98³⁵ = 0.5070
    (1.0, 0.99, 1),
    (0.3, 0.0, 0),
])
def test_samples_to_discover_hand_values(p, target, k):
    assert rlcore.samples_to_discover(p, target) == k


def test_samples_to_discover_agrees_with_discovery_chance():
    for p in (0.01, 0.07, 0.2, 0.33, 0.9):
        for target in (0.1, 0.5, 0.95, 0.999):
            k = rlcore.samples_to_discover(p, target)
            assert rlcore.discovery_chance(p, [k])[0] >= target
            assert k == 1 or rlcore.discovery_chance(p, [k - 1])[0] < target


def test_samples_to_discover_never_for_probability_zero():
    assert math.isinf(rlcore.samples_to_discover(0.0, 0.5))


def run_of(best_paths):
    """A two-token TrainingRun whose token 1 follows the given paths (token 0 gets the rest)."""
    path = np.asarray(best_paths, dtype=float)
    return rlcore.TrainingRun(np.stack([1 - path, path], axis=-1), np.zeros((path.shape[0], path.shape[1] - 1)))


def test_exploration_outcome_hand_values():
    out = rlcore.exploration_outcome(run_of([[0.2, 0.95, 0.85], [0.2, 0.5, 0.91], [0.2, 0.2, 0.2]]), 1)
    np.testing.assert_allclose(out.final, [0.85, 0.91, 0.2])
    assert out.converged.tolist() == [False, True, False]   # final > 0.9 only for the second
    assert out.fraction == pytest.approx(1 / 3)
    assert out.first_step.tolist() == [1, 2, -1]            # first step above 0.9, −1 if never
    assert rlcore.exploration_outcome(run_of([[0.2, 0.95, 0.85]]), 1, threshold=0.8).fraction == 1.0


def test_exploration_outcome_accepts_a_single_run():
    run = rlcore.sampled_training(rlcore.ARTICLE_SCENARIO.pi, rlcore.ARTICLE_SCENARIO.samples, lr=0.0, steps=3,
                                  batch=2)
    out = rlcore.exploration_outcome(run, 2)
    assert out.final.tolist() == [pytest.approx(0.2)] and out.fraction == 0.0  # lr 0: nothing moves


def test_greedy_with_batch_mean_baseline_never_converges():
    s = rlcore.ARTICLE_SCENARIO
    run = rlcore.sampled_training_many(s.pi, s.samples, lr=1.0, steps=50, batch=8, greedy=True, seeds=range(4))
    out = rlcore.exploration_outcome(run, 2)
    assert out.fraction == 0.0
    np.testing.assert_allclose(out.final, 0.2, atol=1e-12)


@pytest.mark.parametrize(("token", "threshold", "name"), [(2, 0.9, "token"), (-1, 0.9, "token"),
                                                          (1, 1.0, "threshold"), (1, 0.0, "threshold")])
def test_exploration_outcome_rejects_bad_input(token, threshold, name):
    rejects(lambda: rlcore.exploration_outcome(run_of([[0.2, 0.5]]), token, threshold), name)
