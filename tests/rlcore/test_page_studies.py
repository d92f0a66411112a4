"""The studies pages 2–6 call to draw (each page's numbers from one study): hand-computed values and identities
against the formulas they are made of."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlcore
from rlcore import ARTICLE_SCENARIO as ARTICLE
from tests.rejects import rejects

TWO = rlcore.Scenario(tokens=("a", "b"), probs=(0.25, 0.75), samples=((4.0,), (0.0, 2.0)),
                      continuations=(" x.", " y z."))


# --- page 2: reward_study ----------------------------------------------------------------------------------------

def test_reward_study_of_the_articles_open_answer_by_hand():
    """"OpenAI is open. It's in the name.": 10 tokens, score Q(open) = (3 + 1 + 2 + 1 + 3) / 5 = 2."""
    r = rlcore.reward_study(ARTICLE, "open", 0.5, gammas=(1.0, 0.9), max_length=20)
    assert len(r.trace.tokens) == 10 and r.trace.score == 2.0
    assert r.trace.rewards.tolist() == [0.0] * 9 + [2.0]
    assert r.returns == pytest.approx([2 * 0.5 ** (9 - t) for t in range(10)])  # Gₜ = γ^(T−1−t)·score
    assert r.lengths.tolist() == list(range(1, 21))
    assert r.gammas == (1.0, 0.9, 0.5) and r.curves.shape == (3, 20)  # the slider's γ comes last
    assert r.curves[0].tolist() == [2.0] * 20
    assert r.curves[1, 4] == pytest.approx(2 * 0.9**4)  # 1.3122 for a 5-token answer
    assert r.curves[2, 19] == pytest.approx(2 * 0.5**19)
    assert r.short_credit == pytest.approx(2 * 0.9**4) and r.long_credit == pytest.approx(2 * 0.9**19)
    assert r.blind == rlcore.outcome_blind_spot(ARTICLE, 10.0)


def test_reward_study_shows_a_compared_gamma_once_and_its_question_compares_two_lengths_at_its_own_gamma():
    r = rlcore.reward_study(ARTICLE, "closed", 0.9, gammas=(1.0, 0.9), max_length=3)
    assert r.gammas == (1.0, 0.9) and r.curves.shape == (2, 3)
    assert r.curves[1].tolist() == pytest.approx([5.0, 4.5, 4.05])  # Q(closed) = (5 + 4 + 6) / 3
    r = rlcore.reward_study(TWO, "b", 1.0, short=2, long=3, predict_gamma=0.5)
    assert r.trace.score == 1.0  # Q(b) = (0 + 2) / 2
    assert (r.short_credit, r.long_credit) == pytest.approx((0.5, 0.25))
    assert r.returns.tolist() == [1.0] * len(r.trace.tokens)  # γ = 1: the score at every token


# --- page 3: advantage_question, value_draws ---------------------------------------------------------------------

def test_advantage_question_of_the_article_asks_about_the_runner_up():
    q = rlcore.advantage_question(ARTICLE.pi, ARTICLE.samples)  # Q = 2, 5, 9; V = 4.3
    assert (q.best, q.pick, q.below, q.sign) == (2, 1, True, 1)
    assert q.advantage == pytest.approx(5 - 4.3)


@pytest.mark.parametrize(("probs", "samples", "best", "pick", "below", "advantage", "sign"), [
    ((0.5, 0.5), ((4,), (2,)), 0, 1, True, -1.0, -1),               # V = 3: A(b) = 2 − 3
    ((0.5, 0.5), ((5,), (5,)), 0, 1, False, 0.0, 0),                 # every Q equal: the last token, A = 0
    ((0.2, 0.2, 0.6), ((3,), (3,), (1,)), 0, 2, True, -0.8, -1),     # a tie for best: the first; V = 1.8
    ((0.0, 1.0, 0.0), ((6,), (3,), (0,)), 0, 1, True, 0.0, 0),       # V = Q(b) = 3: A = 0
])
def test_advantage_question_by_hand(probs, samples, best, pick, below, advantage, sign):
    q = rlcore.advantage_question(probs, samples)
    assert (q.best, q.pick, q.below, q.sign) == (best, pick, below, sign)
    assert q.advantage == pytest.approx(advantage, abs=1e-12)


def test_value_draws_with_a_sure_first_token():
    d = rlcore.value_draws((1.0, 0.0), ((2.0, 4.0), (9.0,)), 400, 3, checkpoints=5)
    assert d.estimates.counts.tolist() == [400, 0]
    assert 2.0 <= d.estimates.q[0] <= 4.0 and np.isnan(d.estimates.q[1])  # b is never drawn: its Q̂ is undefined
    assert d.estimates.v == pytest.approx(d.estimates.q[0])
    assert d.running.at.tolist() == rlcore.sample_checkpoints(400, 5).tolist()
    assert d.running.counts[:, 1].tolist() == [0] * d.running.at.size


def test_value_draws_are_the_formulas_on_one_draw():
    """The same seed: the draw of sample_answers, the estimates of mc_estimates, the last checkpoint all of it."""
    d = rlcore.value_draws(ARTICLE.probs, ARTICLE.samples, 250, 7, checkpoints=20)
    actions, scores = rlcore.sample_answers(ARTICLE.probs, ARTICLE.samples, 250, 7)
    final = rlcore.mc_estimates(actions, scores, 3)
    assert d.estimates.counts.tolist() == final.counts.tolist() and d.estimates.v == pytest.approx(final.v)
    assert d.estimates.q == pytest.approx(final.q, nan_ok=True)
    assert d.running.at[-1] == 250 and d.running.v[-1] == pytest.approx(final.v)
    assert d.running.q[-1] == pytest.approx(final.q, nan_ok=True)
    assert int(d.estimates.counts.sum()) == 250


# --- page 4: baseline_overview -----------------------------------------------------------------------------------

def test_baseline_overview_of_the_article():
    """The article's figures: tr Cov 20.74 with b = 0 and 3.70 with b = V = 4.3; E[g] = π ⊙ A both times."""
    o = rlcore.baseline_overview(ARTICLE.probs, ARTICLE.samples)
    assert o.zero.total_variance == pytest.approx(20.7398, abs=1e-4)
    assert o.at_v.total_variance == pytest.approx(3.7032, abs=1e-4)
    assert o.zero.mean == pytest.approx([-1.15, 0.21, 0.94]) and o.same_mean
    assert (o.best, o.likely) == (2, 0) and o.breakdown.v == pytest.approx(4.3)
    assert o.grid[0] == 0.0 and o.grid[-1] == 10.0 and o.grid.size == o.curve.size == 101
    assert o.curve.min() <= o.at_v.total_variance and o.b_star == pytest.approx(rlcore.optimal_baseline(
        ARTICLE.probs, ARTICLE.samples))


def test_baseline_overview_of_two_sure_scores_by_hand():
    """π = (½, ½), R = 2 after a and 0 after b: Q = (2, 0), V = 1, ‖eₐ − π‖² = ½ for both tokens, so
    tr Cov(b) = ½·½·((2 − b)² + b²) − ‖E[g]‖² with E[g] = (½, −½): 0.5 at b = 0 and b = 2, 0 at b = V = b* = 1."""
    o = rlcore.baseline_overview((0.5, 0.5), ((2.0,), (0.0,)), b_max=2.0, points=3)
    assert o.zero.mean == pytest.approx([0.5, -0.5]) and o.at_v.mean == pytest.approx([0.5, -0.5])
    assert o.zero.total_variance == pytest.approx(0.5) and o.at_v.total_variance == pytest.approx(0.0, abs=1e-12)
    assert o.b_star == pytest.approx(1.0)
    assert o.grid.tolist() == [0.0, 1.0, 2.0] and o.curve == pytest.approx([0.5, 0.0, 0.5], abs=1e-12)
    assert (o.best, o.likely) == (0, 0)  # ties: the first token


def test_baseline_overview_curve_is_gradient_stats_along_the_grid():
    scores = ((7, 12), (1, 2, 3), (5,))  # a score above b_max: the grid reaches it
    o = rlcore.baseline_overview((0.2, 0.5, 0.3), scores, b_max=10.0, points=7)
    assert o.grid[-1] == 12.0
    for b, v in zip(o.grid, o.curve, strict=True):
        assert v == pytest.approx(rlcore.gradient_stats((0.2, 0.5, 0.3), scores, float(b)).total_variance)


# --- page 5: answer_credit, answer_critic_error ------------------------------------------------------------------

def test_answer_credit_of_the_articles_open_answer_by_hand():
    """V = 4.3 before "open", Q(open) = 2 after it: δ = 2 − 4.3 = −2.3 at the decision (index 2), 0 elsewhere;
    λ = 0.5 halves it for each step back; λ = 1 gives G − V: −2.3 up to the decision, 0 after."""
    c = rlcore.answer_credit(ARTICLE, "open", 1.0, 0.5)
    assert c.td_errors == pytest.approx([0, 0, -2.3] + [0] * 7, abs=1e-12)
    assert c.advantages[:3] == pytest.approx([-0.575, -1.15, -2.3]) and c.advantages[3:] == pytest.approx([0] * 7)
    assert c.jump_at.tolist() == [2] and c.blamed_at_zero.tolist() == [2]
    whole = rlcore.answer_credit(ARTICLE, "open", 1.0, 1.0)
    returns = rlcore.discounted_returns(whole.trace.rewards, 1.0)
    assert whole.advantages == pytest.approx(returns - whole.trace.values[:-1])  # λ = 1: G − V


def test_answer_credit_at_lambda_zero_is_the_td_error():
    c = rlcore.answer_credit(ARTICLE, "partly", 0.9, 0.0)
    assert c.advantages == pytest.approx(c.td_errors)
    assert c.trace.values[-2] == pytest.approx(9.0)  # Q(partly) = (10 + 8) / 2, one token before the end


def test_answer_credit_with_every_q_equal_blames_no_token():
    flat = rlcore.Scenario(tokens=("a", "b"), probs=(0.5, 0.5), samples=((5,), (5,)), continuations=(" x.", " y."))
    c = rlcore.answer_credit(flat, "a", 1.0, 0.95)
    assert c.jump_at.size == 0 and c.blamed_at_zero.size == 0
    assert c.advantages == pytest.approx([0.0] * len(c.trace.tokens), abs=1e-12)


def test_answer_critic_error_is_critic_error_study_of_the_answer():
    args = {"gamma": 1.0, "lams": (0.0, 0.5, 1.0), "bias": 1.0, "noise": 0.5, "n_draws": 300, "seed": 4}
    got = rlcore.answer_critic_error(ARTICLE, "closed", **args)
    want = rlcore.critic_error_study(rlcore.answer_trace(ARTICLE, "closed", 1.0), ARTICLE.samples[1], **args)
    assert got.true_advantage == pytest.approx(5 - 4.3) == pytest.approx(want.true_advantage)
    assert got.mse == pytest.approx(want.mse) and got.bias == pytest.approx(want.bias)


def test_answer_critic_error_with_an_exact_critic_has_no_error_at_lambda_zero():
    s = rlcore.answer_critic_error(ARTICLE, "open", gamma=1.0, lams=(0.0, 1.0), bias=0.0, noise=0.0, n_draws=500,
                                   seed=0)
    assert s.mse[0] == pytest.approx(0.0, abs=1e-12) and s.best_lam == 0.0
    assert s.variance[1] == pytest.approx(0.8, rel=0.15)  # λ = 1: the variance of 3, 1, 2, 1, 3 (0.8)


# --- page 6: policy_question, sampled_spread ---------------------------------------------------------------------

def test_policy_question_of_the_article_by_hand():
    """closed: Q = 5 above V = 4.3, A = +0.7, Δz = η·π·A = 0.21; the new π is softmax(log π + η·π·A)."""
    p = rlcore.policy_question(ARTICLE, 1.0)
    assert p.probe == 1 and p.direction == 1
    assert (p.q, p.v, p.advantage, p.change, p.before) == pytest.approx((5.0, 4.3, 0.7, 0.21, 0.3))
    moved = [0.5 * math.exp(-1.15), 0.3 * math.exp(0.21), 0.2 * math.exp(0.94)]
    assert p.after == pytest.approx(moved[1] / sum(moved))  # 0.356


def test_policy_question_without_a_step_or_without_closed():
    still = rlcore.policy_question(ARTICLE, 0.0)
    assert still.direction == 0 and still.after == pytest.approx(still.before)
    four = rlcore.Scenario(tokens=("yes", "no", "maybe", "depends"), probs=(0.4, 0.3, 0.2, 0.1),
                           samples=((7, 9), (2,), (5, 6, 4), (8,)))  # Q = 8, 2, 5, 8: the runner-up is "yes"
    assert rlcore.policy_question(four, 1.0).probe == 0
    best = rlcore.PRESETS["Most likely is already best"]  # V = 6.95 above Q(closed) = 5: closed falls
    p = rlcore.policy_question(best, 1.0)
    assert best.tokens[p.probe] == "closed" and p.direction == -1 and p.advantage == pytest.approx(5 - 6.95)


def test_sampled_spread_is_the_runs_median_and_range():
    s = rlcore.sampled_spread(ARTICLE.pi, ARTICLE.samples, lr=1.0, steps=3, batch=4, baseline="V", runs=5)
    run = rlcore.sampled_training_many(ARTICLE.pi, ARTICLE.samples, lr=1.0, steps=3, batch=4, baseline="V",
                                       seeds=(0, 1, 2, 3, 4))
    for step in range(4):
        for k in range(3):
            column = sorted(run.probs[:, step, k])
            assert s.median[step, k] == pytest.approx(column[2])  # five runs: the third of them
            assert (s.lowest[step, k], s.highest[step, k]) == pytest.approx((column[0], column[-1]))
    assert s.median[0] == pytest.approx([0.5, 0.3, 0.2])  # every run starts at π


def test_sampled_spread_of_one_run_or_no_step_size():
    one = rlcore.sampled_spread(ARTICLE.pi, ARTICLE.samples, lr=1.0, steps=2, batch=2, runs=1)
    assert np.array_equal(one.lowest, one.highest) and np.array_equal(one.median, one.lowest)
    still = rlcore.sampled_spread(ARTICLE.pi, ARTICLE.samples, lr=0.0, steps=2, batch=2, runs=4)
    assert still.lowest == pytest.approx(np.tile([0.5, 0.3, 0.2], (3, 1)))
    assert still.highest == pytest.approx(still.lowest)


# a valid call of each study (the kwargs of a case replace some of them)
VALID = {rlcore.reward_study: {"scenario": ARTICLE, "token": "open", "gamma": 1.0},
         rlcore.value_draws: {"probs": (0.5, 0.5), "samples": ((1,), (2,)), "n": 10, "seed": 0},
         rlcore.baseline_overview: {"probs": (0.5, 0.5), "samples": ((1,), (2,))},
         rlcore.answer_credit: {"scenario": ARTICLE, "token": "open", "gamma": 1.0, "lam": 0.5},
         rlcore.answer_critic_error: {"scenario": ARTICLE, "token": "open", "gamma": 1.0, "lams": (0.0,), "bias": 0.0,
                                      "noise": 0.0, "n_draws": 10, "seed": 0},
         rlcore.policy_question: {"scenario": ARTICLE, "lr": 1.0},
         rlcore.sampled_spread: {"probs": (0.5, 0.5), "samples": ((1,), (0,)), "lr": 1.0, "steps": 2, "batch": 2}}


@pytest.mark.parametrize(("fn", "kwargs", "name"), [
    (rlcore.reward_study, {"gamma": 1.5}, "gamma"), (rlcore.reward_study, {"gammas": (0.5, 2.0)}, "gammas"),
    (rlcore.reward_study, {"max_length": 0}, "max_length"), (rlcore.reward_study, {"short": 0}, "short"),
    (rlcore.reward_study, {"predict_gamma": -0.1}, "predict_gamma"), (rlcore.reward_study, {"token": "nope"}, "token"),
    (rlcore.value_draws, {"n": 0}, "n"), (rlcore.value_draws, {"seed": -1}, "seed"),
    (rlcore.value_draws, {"checkpoints": 0}, "checkpoints"), (rlcore.value_draws, {"probs": (0.5, 0.6)}, "probs"),
    (rlcore.baseline_overview, {"b_max": -1.0}, "b_max"), (rlcore.baseline_overview, {"points": 1}, "points"),
    (rlcore.baseline_overview, {"samples": ((1,),)}, "samples"),
    (rlcore.answer_credit, {"lam": 1.5}, "lam"), (rlcore.answer_credit, {"gamma": -1}, "gamma"),
    (rlcore.answer_critic_error, {"gamma": 2.0}, "gamma"), (rlcore.answer_critic_error, {"noise": -1.0}, "noise"),
    (rlcore.answer_critic_error, {"n_draws": 1}, "n_draws"),
    (rlcore.policy_question, {"lr": -1.0}, "lr"), (rlcore.policy_question, {"scenario": "abc"}, "scenario"),
    (rlcore.sampled_spread, {"runs": 0}, "runs"), (rlcore.sampled_spread, {"baseline": "x"}, "baseline"),
    (rlcore.sampled_spread, {"steps": 0}, "steps"),
], ids=lambda x: x.__name__ if callable(x) else None)
def test_each_study_names_a_bad_argument(fn, kwargs, name):
    rejects(lambda: fn(**(VALID[fn] | kwargs)), name)
