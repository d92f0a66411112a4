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
TEN_SCORES = [3, 1, 2, 1, 3, 5, 4, 6, 10, 8]  # the ten sampled answers, open × 5, closed × 3, partly × 2
OPEN_R_MINUS_V = [-1.3, -3.3, -2.3, -3.3, -1.3]
PI_TIMES_A = [-1.15, 0.21, 0.94]


# ---------------------------------------------------------------- the example


def test_scenario_is_the_articles_table_and_answer():
    assert (S.tokens, S.probs, S.prompt, S.prefix) == (("open", "closed", "partly"), (0.5, 0.3, 0.2),
                                                       "Is OpenAI open?", "OpenAI is")
    assert S.samples == ((3, 1, 2, 1, 3), (5, 4, 6), (10, 8))
    assert list(rlcore.ARTICLE_ANSWER_TOKENS) == list(rlcore.answer_tokens(S, "open")) == TEN_TOKENS
    assert rlcore.ARTICLE_ANSWER_SCORE == 2.0
    trace = rlcore.answer_trace(S, "open")
    assert trace.tokens == rlcore.ARTICLE_ANSWER_TOKENS
    np.testing.assert_allclose(trace.values, rlcore.ARTICLE_ANSWER_VALUES, atol=EXACT)
    # the article's own numbers: 4.3 before OpenAI, is, open; 2 from after open; 0 after the end
    np.testing.assert_allclose(trace.values, [4.3, 4.3, 4.3] + [2.0] * 7 + [0.0], atol=EXACT)
    assert trace.tokens[trace.action_index] == "open" and trace.action_index == 2
    assert trace.score == pytest.approx(2.0, abs=EXACT)


# ---------------------------------------------------------------- reward and return


def test_sparse_reward_and_the_return_with_gamma_1():
    assert rlcore.answer_trace(S, "open").rewards.tolist() == [0.0] * 9 + [2.0]
    rewards = rlcore.sparse_rewards(10, 2.0)
    assert rewards.tolist() == [0.0] * 9 + [2.0]
    np.testing.assert_allclose(rlcore.discounted_returns(rewards, 1.0), [2.0] * 10, atol=EXACT)


def test_with_gamma_below_1_earlier_tokens_and_longer_answers_get_less():
    returns = rlcore.discounted_returns(rlcore.sparse_rewards(10, 2.0), 0.9)
    assert np.all(np.diff(returns) > 0)
    assert (returns[-1], returns[0]) == (pytest.approx(2.0, abs=EXACT), pytest.approx(2.0 * 0.9**9, abs=EXACT))
    first = rlcore.first_token_return([3, 10, 30], 2.0, 0.9)
    assert np.all(np.diff(first) < 0)
    np.testing.assert_allclose(first, [2.0 * 0.9**2, 2.0 * 0.9**9, 2.0 * 0.9**29], atol=EXACT)
    # with γ = 1 the length does not matter
    np.testing.assert_allclose(rlcore.first_token_return([3, 10, 30], 2.0, 1.0), [2.0] * 3, atol=EXACT)


# ---------------------------------------------------------------- V, Q, advantage


def test_q_v_and_the_advantage():
    np.testing.assert_allclose(S.q, [2.0, 5.0, 9.0], atol=EXACT)
    est = rlcore.mc_estimates([OPEN] * 5 + [CLOSED] * 3 + [PARTLY] * 2, TEN_SCORES, 3)
    np.testing.assert_allclose(est.q, [2.0, 5.0, 9.0], atol=EXACT)
    assert est.counts.tolist() == [5, 3, 2]
    assert est.v == printed(4.3, 1) and rlcore.expected_value(S.pi, S.q) == printed(4.3, 1)
    assert rlcore.expected_value([0.5, 0.3, 0.2], [2, 5, 9]) == pytest.approx(V_ARTICLE, abs=EXACT)
    a = rlcore.advantages(S.pi, S.q)
    np.testing.assert_allclose(a, [-2.3, 0.7, 4.7], atol=EXACT)
    assert float(S.pi @ a) == pytest.approx(0.0, abs=EXACT)  # the probability-weighted advantage


# ---------------------------------------------------------------- baseline


def test_r_minus_v_for_the_open_answers():
    diffs = np.array(S.samples[OPEN]) - rlcore.expected_value(S.pi, S.q)
    np.testing.assert_allclose(diffs, OPEN_R_MINUS_V, atol=EXACT)
    assert diffs.mean() == pytest.approx(-2.3, abs=EXACT) == S.q[OPEN] - V_ARTICLE


@pytest.mark.parametrize("baseline", [0.0, V_ARTICLE])
def test_gradient_mean_is_pi_times_a_for_both_baselines(baseline):
    np.testing.assert_allclose(rlcore.gradient_stats(S.pi, S.samples, baseline).mean, PI_TIMES_A, atol=EXACT)


@pytest.mark.parametrize(("samples", "none", "with_v", "ratio"), [
    (S.samples, 20.74, 3.70, 0.179),       # R drawn from each token's sampled scores
    ([[2], [5], [9]], 20.24, 3.20, 0.158),  # R fixed at Q(a)
])
def test_gradient_variance_with_and_without_baseline(samples, none, with_v, ratio):
    zero = rlcore.gradient_stats(S.pi, samples, 0.0).total_variance
    at_v = rlcore.gradient_stats(S.pi, samples, V_ARTICLE).total_variance
    assert (zero, at_v, at_v / zero) == (printed(none, 2), printed(with_v, 2), printed(ratio, 3))


# ---------------------------------------------------------------- TD error and GAE


@pytest.mark.parametrize(("lam", "expected"), [
    (None, [0.0, 0.0, -2.3] + [0.0] * 7),                    # the TD error: nonzero only at open
    (0.0, [0.0, 0.0, -2.3] + [0.0] * 7),                     # λ = 0 blames only open
    (1.0, [-2.3, -2.3, -2.3] + [0.0] * 7),                   # λ = 1: the score minus V
    (0.95, [-2.3 * 0.95**2, -2.3 * 0.95, -2.3] + [0.0] * 7),  # λ = 0.95 decays the blame backwards
])
def test_td_error_and_gae_on_the_ten_token_answer(lam, expected):
    trace = rlcore.answer_trace(S, "open")
    got = (rlcore.td_errors(trace.rewards, trace.values, 1.0) if lam is None
           else rlcore.gae(trace.rewards, trace.values, 1.0, lam))
    np.testing.assert_allclose(got, expected, atol=EXACT)


def test_grpo_every_token_of_one_answer_shares_one_advantage():
    # Dr. GRPO: the group mean is V = 4.3, so the open answers get R − V
    np.testing.assert_allclose(rlcore.group_advantages(TEN_SCORES, "dr_grpo")[:5], OPEN_R_MINUS_V, atol=EXACT)
    # GRPO: divided by the sample std (N − 1): sqrt(80.1 / 9) = 2.98329 (the article's answer is the third)
    grpo = rlcore.group_advantages(TEN_SCORES, "grpo")
    assert grpo[2] == pytest.approx(-2.3 / 2.98329, abs=1e-5)
    assert np.unique(np.full(len(rlcore.ARTICLE_ANSWER_TOKENS), grpo[2])).size == 1  # no per-token V: one number
    # unlike GAE, which gives the tokens of the same answer different advantages
    trace = rlcore.answer_trace(S, "open")
    assert np.unique(np.round(rlcore.gae(trace.rewards, trace.values, 1.0, 0.0), 12)).size == 2


# ---------------------------------------------------------------- policy gradient


def test_policy_gradient_step_changes_each_logit_by_pi_times_a():
    z = rlcore.logits_from_probs(S.pi)
    np.testing.assert_allclose(rlcore.policy_gradient_step(z, S.q, 1.0) - z, PI_TIMES_A, atol=EXACT)


def test_policy_gradient_path_probabilities_and_v():
    # By hand: π₁ ∝ (0.5e^−1.15, 0.3e^0.21, 0.2e^0.94) = (0.152, 0.356, 0.492), V₁ = 6.512;
    # A₁ = (−4.512, −1.512, 2.488); π₂ ∝ π₁ ⊙ exp(π₁ ⊙ A₁) = (0.039, 0.106, 0.855), V₂ = 8.302.
    path = rlcore.policy_gradient_path(S.pi, S.q, 1.0, 2)
    assert path.probs[0].tolist() == printed([0.50, 0.30, 0.20], 2)
    assert path.probs[1].tolist() == printed([0.15, 0.36, 0.49], 2) and path.probs[2, :2].tolist() == printed(
        [0.04, 0.11], 2)
    assert path.values.tolist() == printed([4.3, 6.5, 8.3], 1)
    assert path.probs[1].tolist() == printed([0.152, 0.356, 0.492], 3)
    assert path.probs[2].tolist() == printed([0.039, 0.106, 0.855], 3)
    assert path.values.tolist() == printed([4.3, 6.512, 8.302], 3)
    # The article prints 0.86 for π₂(partly): the exact 0.8548 is 0.855 at three decimals, rounded again (its row
    # 0.04 + 0.11 + 0.86 sums to 1.01; V₂ = 8.3 matches 0.855). The explorer shows the exact value (0.85).
    assert round(path.probs[2, PARTLY], 3) == 0.855 and round(round(path.probs[2, PARTLY], 3) + 1e-9, 2) == 0.86
    # closed rises in step 1 (5 > V = 4.3) and falls in step 2 (5 < V = 6.5)
    closed = path.probs[:, CLOSED]
    assert closed[1] > closed[0] and closed[2] < closed[1] and path.values[0] < 5.0 < path.values[1]


# ---------------------------------------------------------------- exploration


def test_greedy_training_never_moves():
    run = rlcore.sampled_training(S.pi, S.samples, lr=1.0, steps=30, batch=16, greedy=True,
                                  baseline="batch mean", seed=1)
    np.testing.assert_allclose(run.probs, np.tile(S.pi, (31, 1)), atol=1e-12)
    # every batch holds only `open` answers (scores 1 to 3), around a mean of 2
    assert np.all((run.mean_score >= 1.0) & (run.mean_score <= 3.0))
    assert run.mean_score.mean() == pytest.approx(2.0, abs=0.25)
    fixed = rlcore.sampled_training(S.pi, [[2], [5], [9]], lr=1.0, steps=20, batch=8, greedy=True,
                                    baseline="batch mean", seed=0)  # R = Q: the mean score is 2 every step
    np.testing.assert_allclose(fixed.mean_score, [2.0] * 20, atol=EXACT)
    np.testing.assert_allclose(fixed.probs[-1], S.pi, atol=EXACT)


def test_sampling_at_temperature_1_moves_towards_partly():
    run = rlcore.sampled_training_many(S.pi, S.samples, lr=1.0, steps=100, batch=16, temperature=1.0,
                                       seeds=range(5))
    assert np.all(run.probs[:, 0, PARTLY] == pytest.approx(0.2, abs=EXACT))
    assert np.all(run.probs[:, -1, PARTLY] > 0.9)
    assert np.all(run.mean_score[:, -10:].mean(axis=1) > 8.0)


# ---------------------------------------------------------------- ratio and clipping


def test_clip_bounds_and_the_ratio_range_08_to_12():
    assert rlcore.clip_bounds(0.2, 0.2) == (pytest.approx(0.16, abs=EXACT), pytest.approx(0.24, abs=EXACT))
    np.testing.assert_allclose(rlcore.importance_ratio([0.16, 0.24], [0.2, 0.2]), [0.8, 1.2], atol=EXACT)
    adv = [4.7, 4.7, -2.3, -2.3]
    assert rlcore.is_clipped([1.19, 1.21, 0.81, 0.79], adv, eps=0.2).tolist() == [False, True, False, True]
    # beyond the range the objective stops growing: 1.2 · A
    assert rlcore.clipped_objective([1.5], 4.7, eps=0.2)[0] == pytest.approx(1.2 * 4.7, abs=EXACT)


def test_ppo_pushes_partly_to_at_most_024():
    # the batch: two `partly` answers with A = +4.7, everything else A = 0
    run = rlcore.ppo_epochs(S.pi, [PARTLY, PARTLY, OPEN, CLOSED], [4.7, 4.7, 0.0, 0.0],
                            lr=2e-4, epochs=2000, eps=0.2)
    assert run.probs[0, PARTLY] == pytest.approx(0.2, abs=EXACT)
    assert 0.24 <= run.probs[-1, PARTLY] <= 0.24 + 2e-4  # within one small step past (1 + ε) · 0.2 = 0.24


# ---------------------------------------------------------------- KL penalty


@pytest.mark.parametrize(("share", "reward", "kl", "objective"),
                         [(0.05, 9.03, 0.0, 9.03), (0.90, 9.54, 2.38, 7.16)])
def test_kl_regularized_objective_on_the_flattery_branch(share, reward, kl, objective):
    f = rlcore.FLATTERY
    np.testing.assert_allclose([f.rewards, f.p_ref], [[9.0, 9.6], [0.95, 0.05]], atol=EXACT)
    out = rlcore.kl_regularized_objective([1 - share, share], f.rewards, f.p_ref, 1.0)
    curve = rlcore.share_curve([share], f.rewards, f.p_ref, 1.0)
    for got in ((out.expected_reward, out.kl, out.objective), (*curve.expected_reward, *curve.kl, *curve.objective)):
        assert got == (printed(reward, 2), printed(kl, 2), printed(objective, 2))
