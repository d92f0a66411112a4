"""rlcore.credit's formulas, one home each: td_errors and gae against plain loops and their λ identities (the
article's figures are in test_article_figures.py, bad input in test_errors.py), gae on a padded batch,
group_advantages on one group and on many, credit_positions by hand."""

from __future__ import annotations

import statistics

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rlcore
from rlcore import credit_positions
from tests.rejects import rejects

SEEDS = range(8)
SETTINGS = settings(derandomize=True, max_examples=150, deadline=None)


def strict():
    return np.errstate(all="raise", under="ignore")


def _random_episode(rng, terminal_zero=True):
    t = int(rng.integers(1, 25))
    rewards = rng.normal(0.0, 3.0, size=t)
    values = rng.normal(0.0, 3.0, size=t + 1)
    if terminal_zero:
        values[-1] = 0.0
    return rewards, values


# ---------------------------------------------------------------- TD error and GAE


def _gae_by_loop(rewards, values, gamma, lam):
    """Â_t = Σ_k (γλ)^k δ_{t+k}, δ_t = r_t + γV_{t+1} − V_t, summed forwards."""
    n = len(rewards)
    delta = [rewards[t] + gamma * values[t + 1] - values[t] for t in range(n)]
    return [sum((gamma * lam) ** k * delta[t + k] for k in range(n - t)) for t in range(n)]


@pytest.mark.parametrize("seed", SEEDS)
def test_gae_matches_loop(seed):
    rng = np.random.default_rng(seed)
    rewards, values = _random_episode(rng, terminal_zero=False)
    for gamma, lam in [(1.0, 0.95), (0.9, 0.5), (0.99, 1.0), (0.7, 0.0), tuple(rng.uniform(size=2))]:
        np.testing.assert_allclose(rlcore.gae(rewards, values, gamma, lam),
                                   _gae_by_loop(list(rewards), list(values), gamma, lam),
                                   rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_gae_lambda_1_is_return_minus_value(seed):
    rng = np.random.default_rng(seed)
    rewards, values = _random_episode(rng, terminal_zero=True)
    for gamma in (1.0, 0.9, float(rng.uniform())):
        expected = rlcore.discounted_returns(rewards, gamma) - values[:-1]
        np.testing.assert_allclose(rlcore.gae(rewards, values, gamma, 1.0), expected, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_gae_lambda_1_bootstraps_from_a_nonzero_final_value(seed):
    rng = np.random.default_rng(seed)
    rewards, values = _random_episode(rng, terminal_zero=False)
    gamma = 0.9
    t = np.arange(rewards.size)
    expected = rlcore.discounted_returns(rewards, gamma) + gamma ** (rewards.size - t) * values[-1] - values[:-1]
    np.testing.assert_allclose(rlcore.gae(rewards, values, gamma, 1.0), expected, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_gae_lambda_0_is_td_error(seed):
    rng = np.random.default_rng(seed)
    rewards, values = _random_episode(rng, terminal_zero=False)
    gamma = float(rng.uniform())
    td = rlcore.td_errors(rewards, values, gamma)
    np.testing.assert_allclose(td, rewards + gamma * values[1:] - values[:-1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rlcore.gae(rewards, values, gamma, 0.0), td, rtol=1e-12, atol=1e-12)


def test_batched_gae_on_answers_of_different_lengths_matches_a_loop_per_answer():
    rng = np.random.default_rng(3)
    lengths = np.array([[1, 4, 2], [3, 4, 1]])      # [2, 3] answers, padded to T = 4
    rewards = rng.normal(size=(2, 3, 4))
    values = rng.normal(size=(2, 3, 5))
    mask = np.arange(4) < lengths[..., None]
    rewards = np.where(mask, rewards, 0.0)
    for i in range(2):
        for j in range(3):                            # V after the answer's last token: 0 (it is finished)
            values[i, j, lengths[i, j]:] = 0.0
    for gamma, lam in ((1.0, 1.0), (0.9, 0.95), (0.5, 0.0)):
        got = rlcore.gae(rewards, values, gamma, lam, mask)
        for i in range(2):
            for j in range(3):
                n = lengths[i, j]
                expected = _gae_by_loop(rewards[i, j, :n], values[i, j, :n + 1], gamma, lam)
                np.testing.assert_allclose(got[i, j, :n], expected, rtol=1e-12, atol=1e-12)
                np.testing.assert_array_equal(got[i, j, n:], 0.0)
                np.testing.assert_array_equal(got[i, j, :n], rlcore.gae(rewards[i, j, :n], values[i, j, :n + 1],
                                                                        gamma, lam))


# ---------------------------------------------------------------- group advantages


@SETTINGS
@given(st.lists(st.floats(-100, 100), min_size=1, max_size=16), st.sampled_from(rlcore.GROUP_METHODS))
def test_group_advantages_sum_to_zero(group, method):
    with strict():
        adv = rlcore.group_advantages(group, method)
    assert adv.shape == (len(group),)
    scale = 1 + max(abs(x) for x in group)
    assert abs(float(adv.sum())) <= 1e-9 * scale * len(group)


@SETTINGS
@given(st.integers(1, 6), st.integers(1, 8), st.data(), st.sampled_from(rlcore.GROUP_METHODS))
def test_many_groups_at_once_are_each_their_own_group(n_groups, size, data, method):
    """The simulations hand group_advantages one group per row; each row must get what that group alone gets
    (a row where every score agrees gets zeros)."""
    rows = np.array([data.draw(st.one_of(
        st.lists(st.sampled_from([0.0, 1.0, 5.0]), min_size=size, max_size=size),
        st.lists(st.floats(-100, 100), min_size=size, max_size=size))) for _ in range(n_groups)])
    with strict():
        batched = rlcore.group_advantages(rows, method)
    eps = rlcore.credit.GROUP_EPS
    assert batched.shape == rows.shape
    for row, got in zip(rows.tolist(), batched, strict=True):  # the formulas in plain Python, one group at a time
        mean = sum(row) / size
        if size < 2 or max(row) == min(row):
            expected = [0.0] * size
        elif method == "dr_grpo":
            expected = [x - mean for x in row]
        elif method == "rloo":
            expected = [x - (sum(row) - x) / (size - 1) for x in row]
        else:
            expected = [(x - mean) / (statistics.stdev(row) + eps) for x in row]
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)


# ---------------------------------------------------------------- credit positions


def test_credit_positions_keeps_only_non_zero_advantages():
    assert credit_positions([0.0, 0.0, -2.3, 0.0]).tolist() == [2]
    assert credit_positions([-2.3, -2.3, -2.3, 0.0]).tolist() == [0, 1, 2]
    assert credit_positions([0.0, 0.0]).tolist() == []


def test_credit_positions_treats_rounding_noise_as_zero():
    assert credit_positions([1e-12, -1e-10, 0.5]).tolist() == [2]
    assert credit_positions([0.4, -0.6], tol=0.5).tolist() == [1]
    assert credit_positions([1e-12], tol=0.0).tolist() == [0]


def test_credit_positions_on_the_article_answer():
    trace = rlcore.answer_trace(rlcore.ARTICLE_SCENARIO, "open", 1.0)
    lam0 = rlcore.gae(trace.rewards, trace.values, 1.0, 0.0)
    lam1 = rlcore.gae(trace.rewards, trace.values, 1.0, 1.0)
    assert credit_positions(lam0).tolist() == [2]           # only `open`
    assert credit_positions(lam1).tolist() == [0, 1, 2]     # OpenAI, is, open


def test_gae_over_arrays_of_gamma_and_lambda_is_gae_at_each():
    rng = np.random.default_rng(5)
    r, gammas, lams = rng.normal(size=6), np.array([0.5, 0.75, 1.0]), np.array([0.0, 0.4, 1.0])
    v = np.c_[rng.normal(size=(3, 6)), np.zeros(3)]
    out = rlcore.gae(r, v[:, None, :], gammas[:, None], lams)
    assert out.shape == (3, 3, 6)
    for i, g in enumerate(gammas):  # a plain loop over the one-(γ, λ) call
        np.testing.assert_array_equal(rlcore.gae(r, v[i], g, lams), out[i])
        for j, lam in enumerate(lams):
            np.testing.assert_allclose(out[i, j], rlcore.gae(r, v[i], g, lam), rtol=0, atol=1e-14)
    rejects(lambda: rlcore.gae(r, v[:2, None, :], gammas[:, None], lams), "values")
    rejects(lambda: rlcore.gae(r, v[:, None, :], [[0.5], [0.75], [1.5]], lams), "gamma")
    rejects(lambda: rlcore.gae(r, v[0], 1.0, [0.5, np.nan]), "lam")


def test_answer_credit_over_arrays_of_gamma_and_lambda_is_answer_credit_at_each():
    gammas, lams = [0.5, 0.75, 1.0, 0.93], [0.0, 0.5, 1.0, 0.95]
    c = rlcore.answer_credit(rlcore.ARTICLE_SCENARIO, "closed", np.array(gammas)[:, None], lams)
    assert c.advantages.shape[:2] == c.td_errors.shape[:2] == c.jumps.shape[:2] == (4, 4)
    for i, g in enumerate(gammas):
        for j, lam in enumerate(lams):  # row (i, j) of the array call is the call at (γᵢ, λⱼ)
            own = rlcore.answer_credit(rlcore.ARTICLE_SCENARIO, "closed", g, lam)
            for field in ("td_errors", "advantages", "jumps", "blamed"):
                np.testing.assert_allclose(getattr(c, field)[i, j], getattr(own, field), rtol=0, atol=1e-12)
            np.testing.assert_allclose(c.trace.values[i, 0], own.trace.values, rtol=0, atol=1e-15)
    rejects(lambda: rlcore.answer_credit(rlcore.ARTICLE_SCENARIO, "closed", [0.5, 1.5], 0.5), "gamma")
    rejects(lambda: rlcore.answer_credit(rlcore.ARTICLE_SCENARIO, "closed", [0.5, 1.0], [0.5, 0.7, 0.9]), "lam")
