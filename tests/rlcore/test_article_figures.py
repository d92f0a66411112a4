"""Every figure of the running example (shared/reference/article-figures.md), computed through rlcore.

Expected values are typed in from the article (worked by hand there), never taken from rlcore's
output. ``printed(x, d)`` accepts a value that rounds to the figure printed with ``d`` decimals.
"""

from __future__ import annotations

import numpy as np
import pytest

import rlcore
from rlcore import ARTICLE_SCENARIO as S


def printed(expected, decimals: int):
    """Equal to the article's figure at the precision it is printed with."""
    return pytest.approx(expected, abs=0.5 * 10.0**-decimals + 1e-12)


EXACT = 1e-12
OPEN, CLOSED, PARTLY = 0, 1, 2
V_ARTICLE = 4.3
TEN_TOKENS = ["OpenAI", "is", "open", ".", "It", "'s", "in", "the", "name", "."]


# ---------------------------------------------------------------- the example


def test_scenario_is_the_articles_table():
    assert S.tokens == ("open", "closed", "partly")
    assert S.probs == (0.5, 0.3, 0.2)
    assert S.samples == ((3, 1, 2, 1, 3), (5, 4, 6), (10, 8))
    assert S.prompt == "Is OpenAI open?"
    assert S.prefix == "OpenAI is"


def test_the_sampled_answer_has_the_articles_ten_tokens():
    assert list(rlcore.ARTICLE_ANSWER_TOKENS) == TEN_TOKENS
    assert rlcore.ARTICLE_ANSWER_SCORE == 2.0
    assert list(rlcore.answer_tokens(S, "open")) == TEN_TOKENS


def test_answer_trace_is_the_articles_answer():
    trace = rlcore.answer_trace(S, "open")
    assert trace.tokens == rlcore.ARTICLE_ANSWER_TOKENS
    np.testing.assert_allclose(trace.values, rlcore.ARTICLE_ANSWER_VALUES, atol=EXACT)
    # the article's own numbers: 4.3 before OpenAI, is, open; 2 from after open; 0 after the end
    np.testing.assert_allclose(trace.values, [4.3, 4.3, 4.3] + [2.0] * 7 + [0.0], atol=EXACT)
    assert trace.tokens[trace.action_index] == "open"
    assert trace.action_index == 2
    assert trace.score == pytest.approx(2.0, abs=EXACT)


# ---------------------------------------------------------------- reward and return


def test_sparse_reward_only_on_the_last_token():
    trace = rlcore.answer_trace(S, "open")
    assert trace.rewards.tolist() == [0.0] * 9 + [2.0]
    assert rlcore.sparse_rewards(10, 2.0).tolist() == [0.0] * 9 + [2.0]


def test_return_is_2_at_every_token_with_gamma_1():
    rewards = rlcore.sparse_rewards(10, 2.0)
    np.testing.assert_allclose(rlcore.discounted_returns(rewards, 1.0), [2.0] * 10, atol=EXACT)


def test_with_gamma_below_1_earlier_tokens_get_less():
    returns = rlcore.discounted_returns(rlcore.sparse_rewards(10, 2.0), 0.9)
    assert np.all(np.diff(returns) > 0)
    assert returns[-1] == pytest.approx(2.0, abs=EXACT)
    assert returns[0] == pytest.approx(2.0 * 0.9**9, abs=EXACT)


def test_with_gamma_below_1_shorter_answers_are_discounted_less():
    first = rlcore.first_token_return([3, 10, 30], 2.0, 0.9)
    assert np.all(np.diff(first) < 0)
    np.testing.assert_allclose(first, [2.0 * 0.9**2, 2.0 * 0.9**9, 2.0 * 0.9**29], atol=EXACT)
    # with γ = 1 the length does not matter
    np.testing.assert_allclose(rlcore.first_token_return([3, 10, 30], 2.0, 1.0), [2.0] * 3, atol=EXACT)


# ---------------------------------------------------------------- V, Q, advantage


def test_q_per_token():
    np.testing.assert_allclose(S.q, [2.0, 5.0, 9.0], atol=EXACT)


def test_v_is_the_mean_of_the_ten_samples_and_the_weighted_q():
    actions = [OPEN] * 5 + [CLOSED] * 3 + [PARTLY] * 2
    scores = [3, 1, 2, 1, 3, 5, 4, 6, 10, 8]
    est = rlcore.mc_estimates(actions, scores, 3)
    np.testing.assert_allclose(est.q, [2.0, 5.0, 9.0], atol=EXACT)
    assert est.counts.tolist() == [5, 3, 2]
    assert est.v == printed(4.3, 1)
    assert rlcore.expected_value(S.pi, S.q) == printed(4.3, 1)
    assert rlcore.expected_value([0.5, 0.3, 0.2], [2, 5, 9]) == pytest.approx(V_ARTICLE, abs=EXACT)


def test_advantage_is_q_minus_v():
    np.testing.assert_allclose(rlcore.advantages(S.pi, S.q), [-2.3, 0.7, 4.7], atol=EXACT)


def test_probability_weighted_advantage_is_zero():
    a = rlcore.advantages(S.pi, S.q)
    assert float(S.pi @ a) == pytest.approx(0.0, abs=EXACT)


# ---------------------------------------------------------------- baseline


def test_r_minus_v_for_the_open_answers():
    v = rlcore.expected_value(S.pi, S.q)
    diffs = np.array(S.samples[OPEN]) - v
    np.testing.assert_allclose(diffs, [-1.3, -3.3, -2.3, -3.3, -1.3], atol=EXACT)
    assert diffs.mean() == pytest.approx(-2.3, abs=EXACT)
    assert diffs.mean() == pytest.approx(S.q[OPEN] - v, abs=EXACT)


@pytest.mark.parametrize("baseline", [0.0, V_ARTICLE])
def test_gradient_mean_is_pi_times_a_for_both_baselines(baseline):
    stats = rlcore.gradient_stats(S.pi, S.samples, baseline)
    np.testing.assert_allclose(stats.mean, [-1.15, 0.21, 0.94], atol=EXACT)


def test_gradient_variance_with_and_without_baseline():
    none = rlcore.gradient_stats(S.pi, S.samples, 0.0).total_variance
    with_v = rlcore.gradient_stats(S.pi, S.samples, V_ARTICLE).total_variance
    assert none == printed(20.74, 2)
    assert with_v == printed(3.70, 2)
    assert with_v / none == printed(0.179, 3)


def test_gradient_variance_with_r_fixed_at_q():
    fixed = [[2], [5], [9]]
    none = rlcore.gradient_stats(S.pi, fixed, 0.0).total_variance
    with_v = rlcore.gradient_stats(S.pi, fixed, V_ARTICLE).total_variance
    assert none == printed(20.24, 2)
    assert with_v == printed(3.20, 2)
    assert with_v / none == printed(0.158, 3)


# ---------------------------------------------------------------- TD error and GAE


def _trace():
    trace = rlcore.answer_trace(S, "open")
    return trace.rewards, trace.values


def test_td_error_is_nonzero_only_at_open():
    rewards, values = _trace()
    expected = [0.0, 0.0, -2.3] + [0.0] * 7
    np.testing.assert_allclose(rlcore.td_errors(rewards, values, 1.0), expected, atol=EXACT)


def test_gae_lambda_0_blames_only_open():
    rewards, values = _trace()
    expected = [0.0, 0.0, -2.3] + [0.0] * 7
    np.testing.assert_allclose(rlcore.gae(rewards, values, 1.0, 0.0), expected, atol=EXACT)


def test_gae_lambda_1_is_score_minus_v():
    rewards, values = _trace()
    expected = [-2.3, -2.3, -2.3] + [0.0] * 7
    np.testing.assert_allclose(rlcore.gae(rewards, values, 1.0, 1.0), expected, atol=EXACT)


def test_gae_lambda_095_decays_the_blame_backwards():
    rewards, values = _trace()
    expected = [-2.3 * 0.95**2, -2.3 * 0.95, -2.3] + [0.0] * 7
    np.testing.assert_allclose(rlcore.gae(rewards, values, 1.0, 0.95), expected, atol=EXACT)


def test_grpo_every_token_of_one_answer_shares_one_advantage():
    scores = [3, 1, 2, 1, 3, 5, 4, 6, 10, 8]  # the ten sampled answers; the article's is the third
    # Dr. GRPO: the group mean is V = 4.3, so the open answers get R − V
    dr = rlcore.group_advantages(scores, "dr_grpo")
    np.testing.assert_allclose(dr[:5], [-1.3, -3.3, -2.3, -3.3, -1.3], atol=EXACT)
    # GRPO: divided by the sample std (N − 1): sqrt(80.1 / 9) = 2.98329
    grpo = rlcore.group_advantages(scores, "grpo")
    assert grpo[2] == pytest.approx(-2.3 / 2.98329, abs=1e-5)
    per_token = np.full(len(rlcore.ARTICLE_ANSWER_TOKENS), grpo[2])  # no per-token V: one number
    assert np.unique(per_token).size == 1
    # unlike GAE, which gives the tokens of the same answer different advantages
    rewards, values = _trace()
    assert np.unique(np.round(rlcore.gae(rewards, values, 1.0, 0.0), 12)).size == 2


# ---------------------------------------------------------------- policy gradient


def test_policy_gradient_step_changes_each_logit_by_pi_times_a():
    z = rlcore.logits_from_probs(S.pi)
    step = rlcore.policy_gradient_step(z, S.q, 1.0) - z
    np.testing.assert_allclose(step, [-1.15, 0.21, 0.94], atol=EXACT)


def test_policy_gradient_path_probabilities_and_v():
    path = rlcore.policy_gradient_path(S.pi, S.q, 1.0, 2)
    assert path.probs[0].tolist() == printed([0.50, 0.30, 0.20], 2)
    assert path.probs[1].tolist() == printed([0.15, 0.36, 0.49], 2)
    assert path.probs[2, :2].tolist() == printed([0.04, 0.11], 2)
    assert path.values.tolist() == printed([4.3, 6.5, 8.3], 1)


def test_policy_gradient_path_to_three_decimals():
    # By hand: π₁ ∝ (0.5e^−1.15, 0.3e^0.21, 0.2e^0.94) = (0.152, 0.356, 0.492), V₁ = 6.512;
    # A₁ = (−4.512, −1.512, 2.488); π₂ ∝ π₁ ⊙ exp(π₁ ⊙ A₁) = (0.039, 0.106, 0.855), V₂ = 8.302.
    path = rlcore.policy_gradient_path(S.pi, S.q, 1.0, 2)
    assert path.probs[1].tolist() == printed([0.152, 0.356, 0.492], 3)
    assert path.probs[2].tolist() == printed([0.039, 0.106, 0.855], 3)
    assert path.values.tolist() == printed([4.3, 6.512, 8.302], 3)


def test_article_partly_after_two_steps_is_086_rounded_twice():
    """The article prints 0.86 for π₂(partly). The exact value is 0.8548: 0.855 at three decimals, which the
    article rounded again to 0.86 (its row 0.04 + 0.11 + 0.86 sums to 1.01; V₂ = 8.3 matches 0.855, not 0.86).
    The explorer shows the exact value, so the page reads 0.85 at two decimals."""
    path = rlcore.policy_gradient_path(S.pi, S.q, 1.0, 2)
    assert round(path.probs[2, PARTLY], 3) == 0.855
    assert round(round(path.probs[2, PARTLY], 3) + 1e-9, 2) == 0.86


def test_closed_rises_then_falls():
    path = rlcore.policy_gradient_path(S.pi, S.q, 1.0, 2)
    closed = path.probs[:, CLOSED]
    assert closed[1] > closed[0]  # 5 > V = 4.3
    assert closed[2] < closed[1]  # 5 < V = 6.5
    assert path.values[0] < 5.0 < path.values[1]


# ---------------------------------------------------------------- exploration


def test_greedy_training_never_moves():
    run = rlcore.sampled_training(S.pi, S.samples, lr=1.0, steps=30, batch=16, greedy=True,
                                  baseline="batch mean", seed=1)
    np.testing.assert_allclose(run.probs, np.tile(S.pi, (31, 1)), atol=1e-12)
    # every batch holds only `open` answers (scores 1 to 3), around a mean of 2
    assert np.all((run.mean_score >= 1.0) & (run.mean_score <= 3.0))
    assert run.mean_score.mean() == pytest.approx(2.0, abs=0.25)


def test_greedy_mean_score_is_2_every_step_when_r_is_q():
    run = rlcore.sampled_training(S.pi, [[2], [5], [9]], lr=1.0, steps=20, batch=8, greedy=True,
                                  baseline="batch mean", seed=0)
    np.testing.assert_allclose(run.mean_score, [2.0] * 20, atol=EXACT)
    np.testing.assert_allclose(run.probs[-1], S.pi, atol=EXACT)


def test_sampling_at_temperature_1_moves_towards_partly():
    seeds = range(5)
    run = rlcore.sampled_training_many(S.pi, S.samples, lr=1.0, steps=100, batch=16,
                                       temperature=1.0, seeds=seeds)
    assert np.all(run.probs[:, 0, PARTLY] == pytest.approx(0.2, abs=EXACT))
    assert np.all(run.probs[:, -1, PARTLY] > 0.9)
    assert np.all(run.mean_score[:, -10:].mean(axis=1) > 8.0)


# ---------------------------------------------------------------- ratio and clipping


def test_clip_bounds_for_partly():
    low, high = rlcore.clip_bounds(0.2, 0.2)
    assert (low, high) == (pytest.approx(0.16, abs=EXACT), pytest.approx(0.24, abs=EXACT))


def test_ratio_range_is_08_to_12():
    np.testing.assert_allclose(rlcore.importance_ratio([0.16, 0.24], [0.2, 0.2]), [0.8, 1.2], atol=EXACT)
    adv = [4.7, 4.7, -2.3, -2.3]
    assert rlcore.is_clipped([1.19, 1.21, 0.81, 0.79], adv, eps=0.2).tolist() == [False, True, False, True]
    # beyond the range the objective stops growing: 1.2 · A
    obj = rlcore.clipped_objective([1.5], 4.7, eps=0.2)
    assert obj[0] == pytest.approx(1.2 * 4.7, abs=EXACT)


def test_ppo_pushes_partly_to_at_most_024():
    # the batch: two `partly` answers with A = +4.7, everything else A = 0
    run = rlcore.ppo_epochs(S.pi, [PARTLY, PARTLY, OPEN, CLOSED], [4.7, 4.7, 0.0, 0.0],
                            lr=2e-4, epochs=2000, eps=0.2)
    assert run.probs[0, PARTLY] == pytest.approx(0.2, abs=EXACT)
    # it stops within one small step past (1 + ε) · 0.2 = 0.24
    assert 0.24 <= run.probs[-1, PARTLY] <= 0.24 + 2e-4


# ---------------------------------------------------------------- KL penalty


def test_flattery_branch_data():
    np.testing.assert_allclose(rlcore.FLATTERY.rewards, [9.0, 9.6], atol=EXACT)
    np.testing.assert_allclose(rlcore.FLATTERY.p_ref, [0.95, 0.05], atol=EXACT)


@pytest.mark.parametrize(("share", "reward", "kl", "objective"),
                         [(0.05, 9.03, 0.0, 9.03), (0.90, 9.54, 2.38, 7.16)])
def test_kl_regularized_objective_on_the_flattery_branch(share, reward, kl, objective):
    f = rlcore.FLATTERY
    out = rlcore.kl_regularized_objective([1 - share, share], f.rewards, f.p_ref, 1.0)
    assert out.expected_reward == printed(reward, 2)
    assert out.kl == printed(kl, 2)
    assert out.objective == printed(objective, 2)


def test_share_curve_gives_the_same_numbers():
    f = rlcore.FLATTERY
    curve = rlcore.share_curve([0.05, 0.90], f.rewards, f.p_ref, 1.0)
    assert curve.expected_reward.tolist() == printed([9.03, 9.54], 2)
    assert curve.kl.tolist() == printed([0.0, 2.38], 2)
    assert curve.objective.tolist() == printed([9.03, 7.16], 2)
